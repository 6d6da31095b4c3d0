"""The tile detector's passes over a picture (the committed model)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import detector as det

MODELS = Path(__file__).resolve().parents[1] / "models"
pytestmark = pytest.mark.skipif(not (MODELS / "tile_detector.onnx").exists(), reason="no committed models")


def _table_frame() -> np.ndarray:
    from vision.synth.table import render_table

    return render_table(np.random.default_rng(3), (1280, 720), set_max=9).image


def _detect_recording_inputs(d: det.TileDetector, img: np.ndarray) -> tuple[list, list[tuple[int, int]]]:
    shapes: list[tuple[int, int]] = []
    run = d._run
    d._run = lambda im, long_side=None: shapes.append(im.shape[:2]) or run(im, long_side)
    try:
        return d.detect(img), shapes
    finally:
        d._run = run


def test_the_zoomed_pass_looks_only_around_the_tiles_the_first_pass_found(monkeypatch):
    """A webcam frame of a table: the layout fills the middle, and the larger second pass reads
    that part only, finding the tiles a whole-frame second pass finds."""
    d = det.TileDetector(MODELS / "tile_detector.onnx")
    img = _table_frame()
    cropped, shapes = _detect_recording_inputs(d, img)
    assert len(shapes) == 2 and shapes[0] == img.shape[:2]
    assert shapes[1][0] * shapes[1][1] < det.REGION_MAX_SHARE * img.shape[0] * img.shape[1]
    monkeypatch.setattr(det, "REGION_MAX_SHARE", 0.0)  # never crop
    whole, shapes = _detect_recording_inputs(d, img)
    assert shapes[1] == img.shape[:2]
    assert len(whole) > 30
    centres = np.array([b.corners.mean(0) for b in cropped])
    found_again = [np.linalg.norm(centres - b.corners.mean(0), axis=1).min() < 8 for b in whole]
    assert np.mean(found_again) >= 0.95


def test_a_box_cut_by_the_regions_edge_inside_the_picture_is_dropped():
    boxes = [det.RawBox(np.array([[100, 100], [120, 100], [120, 140], [100, 140]], np.float32), 0.9, 0)]
    x0, y0, x1, y1 = det._region(boxes, 1280, 720)
    margin = det.REGION_MARGIN_TILES * 40
    assert (x0, y0) == (int(100 - margin), int(100 - margin))
    assert (x1, y1) == (int(np.ceil(120 + margin)), int(np.ceil(140 + margin)))
    assert det._region([], 1280, 720) == (0, 0, 1280, 720)
