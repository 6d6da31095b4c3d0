"""scripts/stage_ablation.py: how it finds the photo sets and scores a set's readings."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ablation():
    spec = importlib.util.spec_from_file_location("stage_ablation", ROOT / "scripts" / "stage_ablation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["stage_ablation"] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("stage_ablation", None)


def test_tiles_standing_or_unreadable_are_neither_required_nor_counted_against_precision(ablation):
    label = {"tiles": [[1, 2], [3, 4]], "standing": 1}
    assert ablation.score([[(1, 2), (5, 6)]], [label]) == {"recall": 0.5, "precision": 1.0}
    assert ablation.score([[(1, 2), (5, 6), (6, 6)]], [label]) == {"recall": 0.5, "precision": 0.5}
    assert ablation.score([[(1, 2)]], [None]) == {"recall": None, "precision": None}


def test_each_labels_file_is_a_set_and_the_roots_labels_split_by_their_first_folder(ablation, tmp_path):
    for name in ("photos/a.jpg", "oblique/b.png", "webcam/c.jpg"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "labels.json").write_text(json.dumps({"photos/a.jpg": {"tiles": []}, "photos/gone.jpg": {}}))
    (tmp_path / "oblique" / "labels.json").write_text(json.dumps({"b.png": {"tiles": [[0, 0]]}}))
    sets = ablation.photo_sets(tmp_path)
    assert {k: [p.name for p, _ in v] for k, v in sets.items()} == {"photos": ["a.jpg"], "oblique": ["b.png"]}
    with_loose = ablation.photo_sets(tmp_path, unlabelled=True)
    assert [(p.name, label) for p, label in with_loose["webcam"]] == [("c.jpg", None)]
