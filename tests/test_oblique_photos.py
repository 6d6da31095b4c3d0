"""Real frames of a table seen from a low seat, in ../shared (skipped when absent).

A fixed wide-angle camera looks across a table: tiles 40-80 px long lie flat, stand on edge,
sit in an open tin at the back. The labels list the faces a person can read; tiles standing
with their backs to the camera and faces too small to read are counted apart.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

OBLIQUE = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "oblique"

pytestmark = pytest.mark.skipif(not (OBLIQUE / "labels.json").exists(), reason="../shared/data/real/oblique not present")


@pytest.fixture(scope="module")
def recognizer():
    from vision.recognize import Recognizer

    return Recognizer()


def _label(name: str) -> dict:
    return json.loads((OBLIQUE / "labels.json").read_text())[name]


MAT_WITH_TIN = "P-7-C.png"  # seven tiles on a mat, the rest of the set in an open tin behind


@pytest.fixture(scope="module")
def mat_with_tin(recognizer):
    return recognizer.recognize(OBLIQUE / MAT_WITH_TIN)


def test_background_tiles_read_unsure_do_not_make_a_double6_a_larger_set(mat_with_tin):
    """The tin at the back holds the rest of the set, too small to read: its faces read unsure
    as values up to 18. The seven tiles on the mat, read sure, show the set is a double-6."""
    assert _label(MAT_WITH_TIN)["set"] == "double-6"
    assert mat_with_tin.set_max == 6
    assert all(max(t.pips) <= 6 for t in mat_with_tin.tiles)


def test_the_tiles_on_the_mat_are_all_read_when_the_set_is_inferred(mat_with_tin):
    name = MAT_WITH_TIN
    rec = mat_with_tin
    read = Counter((min(t.pips), max(t.pips)) for t in rec.tiles)
    wanted = Counter(tuple(sorted(t)) for t in _label(name)["tiles"])
    assert not wanted - read, f"missed {sorted((wanted - read).elements())}"
