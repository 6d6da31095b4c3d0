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


def test_a_rendered_scene_is_scored_by_overlap_with_its_set_declared(ablation, tmp_path):
    def quad(x):
        return [[x, 0], [x + 40, 0], [x + 40, 80], [x, 80]]

    tiles = [{"corners": quad(0), "pips": [1, 2], "face_down": False, "visible": 1.0},
             {"corners": quad(100), "pips": [3, 4], "face_down": False, "visible": 1.0},
             {"corners": quad(200), "pips": [5, 5], "face_down": False, "visible": 0.5}]  # mostly hidden
    (tmp_path / "a.json").write_text(json.dumps({"image": "a.jpg", "set": 9, "tiles": tiles}))
    asked = []

    class Reader:
        def recognize(self, path, set_max=None):
            asked.append((Path(path).name, set_max))
            found = [(quad(0), (2, 1)), (quad(100), (3, 5)), (quad(200), (5, 5)), (quad(300), (0, 0))]
            return type("R", (), {"tiles": [type("T", (), {"corners": c, "pips": p})() for c, p in found]})()

    found, scores = ablation.read_rendered(Reader(), tmp_path)
    assert asked == [("a.jpg", 9)]
    assert found == [[(0, 0), (1, 2), (3, 5), (5, 5)]]
    # both shown tiles found, one read right; the box on the hidden tile counts for nothing, the
    # box on bare table against precision
    assert scores == {"recall": 1.0, "precision": 2 / 3, "exact": 0.5}
