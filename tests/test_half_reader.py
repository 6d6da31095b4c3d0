"""The half reader: how a tile's ends are cut for it, and how its opinion enters a reading."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.halfreader import (CLASSES, HALF_H, HALF_W, ClassifiedHalf, classified_reading, half_inputs,
                               pattern_checked)
from vision.pipreader import HalfReading, TileReading
from vision.rectify import CROP_L, CROP_W
from vision.recognize import looks_face_down

MODELS = Path(__file__).resolve().parents[1] / "models"


def _two_colour_crop() -> np.ndarray:
    crop = np.zeros((CROP_L, CROP_W, 3), np.uint8)
    crop[: CROP_L // 2] = (0, 0, 255)  # end 0 red
    crop[CROP_L // 2:] = (255, 0, 0)  # end 1 blue
    crop[: CROP_L // 2, :10] = (0, 255, 0)  # a green strip on end 0's left edge
    return crop


def test_each_end_is_cut_with_its_divider_at_the_bottom():
    top, bottom = half_inputs(_two_colour_crop())
    assert top.shape == bottom.shape == (HALF_H, HALF_W, 3)
    # end 0's own colour fills its input but the last rows (the strip past the divider)
    assert (top[: HALF_H * 8 // 9 - 1, 8:, 2] == 255).all()
    assert (top[-1, 8:, 0] == 255).all()
    # end 1 is turned half a turn: its rows past the divider (end 0's colour) come last
    assert (bottom[: HALF_H * 8 // 9 - 1, :, 0] == 255).all()
    assert (bottom[-1, :-8, 2] == 255).all()
    assert (bottom[-1, -3:, 1] == 255).all()  # end 0's left edge lands on the right when turned


def _reading(a: int, b: int) -> TileReading:
    return TileReading((HalfReading(a, [0.9] * a, 0.8), HalfReading(b, [0.9] * b, 0.8)), [], (80.0, 4.0))


def test_classifier_values_above_the_sets_maximum_are_ruled_out():
    probs = np.zeros((2, CLASSES), np.float32)
    probs[0, 13], probs[0, 12] = 0.7, 0.3
    probs[1, 4] = 1.0
    fixed = classified_reading(_reading(8, 4), probs, set_max=12)
    assert fixed.pips == (12, 4)
    assert fixed.halves[0].confidence == pytest.approx(1.0)
    assert classified_reading(_reading(8, 4), probs, set_max=15).pips == (13, 4)


def test_a_close_second_value_is_a_cheap_second_reading():
    probs = np.zeros(CLASSES, np.float32)
    probs[[11, 12, 3]] = 0.5, 0.4, 0.1
    half = ClassifiedHalf(11, probs, dots=9)
    alts = dict(half.alternatives(0.5))
    assert alts[12] == pytest.approx(0.1)
    assert alts[3] == pytest.approx(0.4)


def test_a_classified_blank_back_is_still_told_by_its_dots_and_missing_divider():
    probs = np.zeros((2, CLASSES), np.float32)
    probs[:, 2] = 1.0
    back = TileReading((HalfReading(0, [], 0.9), HalfReading(0, [], 0.9)), [], None)
    assert looks_face_down(classified_reading(back, probs, 12))


@pytest.mark.skipif(not (MODELS / "half_reader.onnx").exists(), reason="no committed half reader")
def test_committed_half_reader_gives_a_distribution_per_end():
    from vision.halfreader import HalfReader

    p = HalfReader(MODELS / "half_reader.onnx").probabilities([_two_colour_crop()] * 3)
    assert p.shape == (3, 2, CLASSES)
    assert np.allclose(p.sum(2), 1.0, atol=1e-4)


def _faint_twelve() -> TileReading:
    """A 6-12 whose 12 is light grey: eight dots pass the threshold, four more score under it
    (as the pip detector scored a real photo's), and the parity rule dropped one of the eight."""
    twelve = HalfReading(7, [0.63, 0.63, 0.63, 0.6, 0.6, 0.58, 0.58, 0.53, 0.45, 0.45, 0.4, 0.3], 0.5)
    six = HalfReading(6, [0.82, 0.79, 0.78, 0.78, 0.76, 0.55], 0.8)
    return TileReading((twelve, six), [], (80.0, 4.0))


def _sure_of(a: int, b: int, p: float = 0.95) -> np.ndarray:
    probs = np.full((2, CLASSES), (1 - p) / (CLASSES - 1), np.float32)
    probs[0, a], probs[1, b] = p, p
    return probs


def test_a_large_tiles_faint_end_takes_the_classifiers_value_where_the_dots_are_there_under_the_threshold():
    fixed = pattern_checked(_faint_twelve(), _sure_of(12, 6), set_max=12, conf=0.5)
    assert fixed.pips == (12, 6)
    assert fixed.halves[0].dots == 7  # the face-down test still sees the dots counted
    assert not hasattr(fixed.halves[1], "probs")  # the 6 agreed: its dot count stays


def test_the_classifier_adds_no_dot_the_pip_detector_did_not_see():
    # the 6 has six candidate dots only: an 8 is not there to be read
    assert pattern_checked(_faint_twelve(), _sure_of(12, 8), set_max=12, conf=0.5).pips == (12, 6)
    # a 13 needs a thirteenth candidate, and the set's maximum rules it out anyway
    assert pattern_checked(_faint_twelve(), _sure_of(13, 6), set_max=15, conf=0.5).pips == (7, 6)


def test_an_unsure_classifier_or_a_smaller_value_leaves_the_dot_count():
    assert pattern_checked(_faint_twelve(), _sure_of(12, 6, p=0.6), set_max=12, conf=0.5).pips == (7, 6)
    assert pattern_checked(_faint_twelve(), _sure_of(5, 4), set_max=12, conf=0.5).pips == (7, 6)


def test_a_small_tile_whose_divider_shows_is_read_without_counting_its_dots():
    probs = np.zeros((2, CLASSES), np.float32)
    probs[0, 7], probs[1, 0] = 1.0, 1.0
    reading = classified_reading(None, probs, 12, bar=(80.0, 4.0))
    assert reading.pips == (7, 0)
    assert reading.bar == (80.0, 4.0)
    assert [h.dots for h in reading.halves] == [None, None]
    assert not looks_face_down(reading)


@pytest.mark.skipif(not (MODELS / "half_reader.onnx").exists(), reason="no committed models")
def test_the_dot_detector_is_asked_only_about_boxes_it_can_decide():
    """Small tiles take the half reader's values; their dots matter only where no divider shows
    (a back or a face?), so only those and the large tiles go through the dot detector."""
    import cv2

    from vision.imageio import load_image
    from vision.pipreader import find_bar
    from vision.recognize import Recognizer
    from vision.rectify import rectify_tile
    from vision.synth.table import render_table
    from vision.types import tile_length

    img = render_table(np.random.default_rng(3), (1280, 720), set_max=9).image
    loaded = load_image(cv2.imencode(".png", img)[1].tobytes())
    rec = Recognizer(MODELS)
    asked: list[int] = []
    read_crops = rec.pips.read_crops
    rec.pips.read_crops = lambda crops, bars=None: asked.append(len(crops)) or read_crops(crops, bars)
    result = rec.recognize_loaded(loaded)
    up = [b for b in rec.detector.detect(loaded.bgr) if b.cls == 0]
    small = [b for b in up if tile_length(b.corners) < rec.small_tile_px]
    with_bar = [b for b in small if find_bar(rectify_tile(loaded.bgr, b.corners)[0]) is not None]
    assert len(small) > 10 and with_bar
    assert asked == [len(up) - len(with_bar)]
    assert len(result.tiles) >= len(with_bar)
