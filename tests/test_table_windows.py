"""Windows cut from rendered tables for the detector's table stage: labels follow the window."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.synth.dataset import SynthJob, generate
from lab.training.table_windows import MIN_INSIDE, _window_labels, table_stage_yaml, window_dataset


def test_windows_label_the_tiles_inside_them_and_leave_cut_tiles_out(tmp_path: Path) -> None:
    scenes = tmp_path / "tables"
    generate(SynthJob(str(scenes), "table", 7, (960, 720), 9, detect=False, pips=False), 2, workers=1,
             progress=False)
    y = window_dataset([scenes / "scenes"], tmp_path / "win", seed=0, per_scene=3, side_range=(300, 400))
    assert y.is_file()
    images = sorted((tmp_path / "win" / "detect" / "images" / "train").glob("*.jpg"))
    assert len(images) == 6
    labelled = 0
    for img in images:
        assert cv2.imread(str(img)).shape == (320, 320, 3)
        lines = (img.parent.parent.parent / "labels" / "train" / f"{img.stem}.txt").read_text().split("\n")
        for line in filter(None, lines):
            v = line.split()
            assert v[0] in ("0", "1") and len(v) == 9
            q = np.array(v[1:], float)
            assert ((q >= 0) & (q <= 1)).all()
            labelled += 1
    assert labelled > 0
    # cut by two processes, the same windows: each scene draws from its own seed
    window_dataset([scenes / "scenes"], tmp_path / "win2", seed=0, per_scene=3, side_range=(300, 400), workers=2)
    for img in images:
        twin = tmp_path / "win2" / img.relative_to(tmp_path / "win")
        assert (img.parent.parent.parent / "labels" / "train" / f"{img.stem}.txt").read_text() == \
            (twin.parent.parent.parent / "labels" / "train" / f"{img.stem}.txt").read_text()


def _tile(x: float, y: float, face_down: bool = False) -> dict:
    """A 40x80 tile standing upright with its top-left corner at (x, y)."""
    return {"corners": [[x, y], [x + 40, y], [x + 40, y + 80], [x, y + 80]], "face_down": face_down, "visible": 1.0}


def test_a_tile_mostly_outside_the_window_is_not_labelled_and_one_mostly_inside_is_clipped() -> None:
    tiles = [_tile(100, 100), _tile(200, 100, face_down=True),  # wholly inside a 400-px window at 0,0
             _tile(380, 250),  # half outside (x 380-420)
             _tile(370, 10),  # three quarters inside (x 370-410)
             _tile(500, 500)]  # outside
    lines = _window_labels(tiles, 0, 0, 400)
    classes = [ln.split()[0] for ln in lines]
    assert classes == ["0", "1", "0"]
    clipped = np.array(lines[2].split()[1:], float).reshape(4, 2)
    assert clipped[:, 0].max() <= 1.0 and abs(clipped[:, 0].max() - 1.0) < 1e-3  # cut at the window's edge
    assert 0.5 < MIN_INSIDE < 0.75


def test_table_stage_keeps_a_sample_of_the_earlier_sets(tmp_path: Path) -> None:
    win = tmp_path / "win"
    hands = tmp_path / "hands"
    for root, names in ((win, ["w0", "w1", "w2"]), (hands, [f"h{i}" for i in range(10)])):
        for split in ("train", "val"):
            d = root / "detect" / "images" / split
            d.mkdir(parents=True)
            for n in names:
                cv2.imwrite(str(d / f"{n}.jpg"), np.zeros((8, 8, 3), np.uint8))
    y = table_stage_yaml(win, [(hands, 4, 2)], tmp_path / "stage", window_val=1)
    train = (tmp_path / "stage" / "train.txt").read_text().split("\n")
    val = (tmp_path / "stage" / "val.txt").read_text().split("\n")
    assert len(train) == 3 + 4 and len(val) == 1 + 2
    assert sum("/hands/" in f for f in train) == 4
    assert "train.txt" in y.read_text() and "names:" in y.read_text()


def test_train_refuses_a_table_stage_without_the_second_stage_before_rendering_anything(tmp_path, capsys) -> None:
    pytest.importorskip("ultralytics")
    from service.cli import main

    data = tmp_path / "synth"
    assert main(["lab", "train", "--data", str(data), "--stage2-hours", "0", "--tables-hours", "1"]) == 2
    err = capsys.readouterr().err
    assert "--tables-hours" in err and len(err.strip().splitlines()) == 1
    assert not data.exists()
