"""How `chickenfoot lab eval --labels` scores labelled photos: the rules of its count."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "datasets" / "demo"
CLI = [sys.executable, "-c", "from service.cli import main; raise SystemExit(main())"]


@pytest.fixture(scope="module")
def recognizer():
    from vision.recognize import Recognizer

    return Recognizer()


def _labels(tmp_path: Path, **change) -> Path:
    labels = json.loads((DEMO / "labels.json").read_text())
    labels["hand.jpg"].update(change)
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(labels))
    return path


def test_the_face_down_count_is_scored_where_the_label_gives_it(recognizer, tmp_path):
    from lab.evaluate import eval_labelled

    right, _ = eval_labelled(DEMO, _labels(tmp_path), recognizer)
    wrong, rows = eval_labelled(DEMO, _labels(tmp_path, face_down=2), recognizer)
    assert right["exact_face_down"] == 1.0
    assert wrong["exact_face_down"] == 0.0
    assert (rows[0].true_face_down, rows[0].found_face_down) == (2, 0)
    assert wrong["exact_tile"] == right["exact_tile"] == 1.0  # the tiles are scored as before


def test_a_label_without_a_face_down_count_leaves_it_unscored(recognizer, tmp_path):
    from lab.evaluate import eval_labelled

    labels = json.loads((DEMO / "labels.json").read_text())
    del labels["hand.jpg"]["face_down"]
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(labels))
    summary, rows = eval_labelled(DEMO, path, recognizer)
    assert summary["exact_face_down"] is None
    assert rows[0].true_face_down is None


def test_the_eval_command_names_a_photo_whose_face_down_count_is_wrong(tmp_path):
    out = subprocess.run([*CLI, "lab", "eval", str(DEMO), "--labels", str(_labels(tmp_path, face_down=3))],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "face down: found 0, labelled 3" in out.stdout
    assert "exact_face_down    0.0" in out.stdout
