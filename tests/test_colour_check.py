"""One value, one pip colour: the check that moves ends read alike but coloured apart
(`vision.colour_check`), on drawn crops with the half reader's probabilities given."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import Tile

from vision.colour_check import agreed_colours, colour_checked
from vision.halfreader import CLASSES, ClassifiedHalf
from vision.pipreader import HalfReading, TileReading
from vision.recognition.colour_config import ColourConfig
from vision.rectify import CROP_L, CROP_W
from vision.types import COLOUR_NOTE

MODELS = Path(__file__).resolve().parents[1] / "models"

FACE = (38, 39, 39)  # a black face (BGR)
GREEN, BROWN, WHITE = (42, 209, 100), (87, 136, 183), (235, 235, 235)


def _crop(colour0, colour1) -> np.ndarray:
    """A straightened crop (end 0 on top) with six dots of each end's colour (None: blank)."""
    img = np.full((CROP_L, CROP_W, 3), FACE, np.uint8)
    for colour, rows in ((colour0, (30, 45, 60)), (colour1, (100, 115, 130))):
        if colour is not None:
            for y in rows:
                for x in (25, 55):
                    cv2.circle(img, (x, y), 5, colour, -1)
    return img


def _end(probs: dict[int, float]) -> ClassifiedHalf:
    p = np.full(CLASSES, 1e-4, np.float32)
    for v, q in probs.items():
        p[v] = q
    p /= p.sum()
    return ClassifiedHalf(int(np.argmax(p)), p, None)


def _reading(end0, end1) -> TileReading:
    return TileReading((end0, end1), [], None)


BLANK = {0: 0.97}


def _table(green13, brown13, brown_alt15):
    """Tiles with a blank end and a `green13`-sure green 13, and tiles with a blank end and a
    brown end read 13 at `brown13`, 15 at `brown_alt15` (the half reader on a small double-15
    tile whose 15 is three rows of five)."""
    crops, readings = [], []
    for _ in range(2):
        crops.append(_crop(None, GREEN))
        readings.append(_reading(_end(BLANK), _end({13: green13, 15: 0.001})))
    for _ in range(3):
        crops.append(_crop(None, BROWN))
        readings.append(_reading(_end(BLANK), _end({13: brown13, 15: brown_alt15})))
    return crops, readings


def test_ends_read_as_one_value_in_two_colours_take_their_next_value_where_the_other_colour_is_sure():
    crops, readings = _table(0.99, 0.75, 0.2)
    out, moved, _ = colour_checked(readings, crops, 15)
    assert moved == 3
    assert [r.pips for r in out] == [(0, 13), (0, 13), (0, 15), (0, 15), (0, 15)]
    assert out[2].halves[1].probs[13] == 0.0  # the colour says it is not a 13


def test_an_end_moves_only_to_a_value_as_plausible_as_the_configuration_asks():
    """The same ends that move at the default `alt_prob` stay where the recognizer's configuration
    asks more of their next value than the reader gives it (0.2)."""
    from vision.recognition.config import RecognizerConfig

    crops, readings = _table(0.99, 0.75, 0.2)
    strict = RecognizerConfig.from_dict({"colours": {"alt_prob": 0.5}}).colours
    assert colour_checked(readings, crops, 15)[1] == 3
    out, moved, _ = colour_checked(readings, crops, 15, config=strict)
    assert moved == 0 and [r.pips for r in out] == [r.pips for r in readings]


def test_ends_of_one_colour_are_not_moved_whatever_the_reader_is_unsure_of():
    """A plain set: every value's pips one colour, so colour says nothing."""
    crops = [_crop(None, WHITE) for _ in range(5)]
    _, readings = _table(0.99, 0.75, 0.2)
    out, moved, _ = colour_checked(readings, crops, 15)
    assert moved == 0 and [r.pips for r in out] == [r.pips for r in readings]


def test_an_end_the_reader_finds_no_other_value_plausible_for_is_not_moved():
    crops, readings = _table(0.99, 0.95, ColourConfig().alt_prob / 2)
    out, moved, _ = colour_checked(readings, crops, 15)
    assert moved == 0


def test_where_either_colour_could_be_the_value_nothing_is_moved():
    """Green and brown read 13 alike unsure, each with 15 second: which is the 13 is a coin toss."""
    crops, readings = _table(0.75, 0.75, 0.2)
    for r in readings[:2]:
        r.halves[1].probs[15] = 0.2
    out, moved, _ = colour_checked(readings, crops, 15)
    assert moved == 0


def test_ends_read_by_their_dots_are_never_moved_and_keep_their_value():
    """A large tile's 13, counted dot by dot, anchors 13 to its colour: the half reader's brown 13s
    move, however sure of 13 the half reader is on the green one."""
    crops, readings = _table(0.99, 0.75, 0.2)
    counted = HalfReading(13, [0.9] * 13, 0.9)
    readings[0] = _reading(_end(BLANK), counted)
    out, moved, _ = colour_checked(readings, crops, 15)
    assert out[0].halves[1] is counted and [r.pips[1] for r in out[2:]] == [15, 15, 15]


def test_without_the_set_no_end_moves_above_the_highest_value_read():
    """The set's size is inferred from the highest value read: a move must not change it."""
    crops, readings = _table(0.99, 0.75, 0.2)
    out, moved, _ = colour_checked(readings, crops, None)
    assert moved == 0


def test_faint_and_strong_pips_of_one_colour_are_one_colour():
    """Small pips blend with the face by more or less from tile to tile: a green half blended
    into the black face is still green, not another value's colour."""
    crops, readings = _table(0.75, 0.75, 0.2)
    faint = tuple(int(0.35 * g + 0.65 * f) for g, f in zip(GREEN, FACE))
    crops[2:] = [_crop(None, faint) for _ in range(3)]
    crops[:2] = [_crop(None, GREEN) for _ in range(2)]
    for r in readings[:2]:
        r.halves[1].probs[13] = 0.99
    out, moved, _ = colour_checked(readings, crops, 15)
    assert moved == 0


def test_a_colour_read_sure_in_an_earlier_picture_of_the_set_stands_for_its_value():
    """The green 13s are out of view now: alone, the brown 13s show nothing wrong; with the
    colours an earlier picture read sure, they are 15s."""
    crops, readings = _table(0.99, 0.75, 0.2)
    _, _, sure = colour_checked(readings, crops, 15)
    assert [v for v, _ in sure] == [13, 13]  # the green 13s (the brown ones, unsure, stand for nothing)
    now_crops, now_readings = crops[2:], readings[2:]
    assert colour_checked(now_readings, now_crops, 15)[1] == 0
    out, moved, _ = colour_checked(now_readings, now_crops, 15, anchors=sure)
    assert moved == 3 and [r.pips for r in out] == [(0, 15)] * 3


def _frame_of_brown_15s_beside_green_13s(big_reader: bool = False, colours: dict | None = None):
    """A still frame of a rendered round (double-15, 45-px tiles on a black face, the
    15 drawn as three rows of five brown pips, the 13 as green ones): the whole frame as the
    recognizer reads it (with the general half reader unless `big_reader`, and the colour check
    tuned by `colours`), and where each tile lies."""
    from vision.recognition.config import RecognizerConfig
    from lab.synth.sequence import SequenceRenderer, plan_sequence, sequence_rng
    from vision.imageio import LoadedImage
    from vision.recognize import Recognizer

    plan = plan_sequence(sequence_rng(0, 11), (1280, 720), 15)
    frame = plan.frames[700]
    img = SequenceRenderer(plan).frame(700)
    recognizer = Recognizer(config=RecognizerConfig.from_dict({"colours": colours or {}}))
    if not big_reader:
        recognizer.big_halves = None
    rec = recognizer.recognize_loaded(LoadedImage(img, 1.0, 1280, 720, "frame"), 15)
    truth = {plan.tiles[t].name: plan.image_corners(t, frame.camera).mean(0) for t in frame.tiles}
    read = {}
    for name, centre in truth.items():
        near = min(rec.tiles, key=lambda t: float(np.hypot(*(t.centre - centre))))
        read[name] = near
    return truth, read


def test_a_frame_of_brown_15s_read_as_13s_beside_green_13s_is_read_again_by_colour():
    """The general half reader reads each brown 15 of this frame as a 13 (0.66-0.88, 15 second)
    and the two green 13s as 13 (0.99): the colours say the brown ones are 15s, and the tiles say so."""
    truth, read = _frame_of_brown_15s_beside_green_13s()
    fifteens = [n for n in truth if "15" in n.split("-")]
    assert len(fifteens) >= 5
    for name in fifteens:
        t = read[name]
        assert str(Tile(*t.pips)) == name, (name, t.pips)
        if name != "15-5":  # (its 15 the half reader reads 15 itself)
            assert t.recoloured and any(COLOUR_NOTE in n for n in t.notes), (name, t.notes)
    assert not any(t.recoloured for name, t in read.items() if "15" not in name.split("-"))


def test_colours_the_recognizer_is_configured_to_take_for_one_value_move_no_end():
    """With `colours.apart` beyond any two colours' distance, the brown and green ends are one
    colour to the check, and the brown 15s stay read as 13s."""
    truth, read = _frame_of_brown_15s_beside_green_13s(colours={"apart": 1000.0})
    assert not any(t.recoloured for t in read.values())


@pytest.mark.skipif(not (MODELS / "half_reader_big.onnx").exists(), reason="no committed big-set half reader")
def test_the_big_sets_reader_reads_that_frames_15s_itself():
    """The reader for declared big sets reads those brown 15s as 15 without the colours."""
    truth, read = _frame_of_brown_15s_beside_green_13s(big_reader=True)
    for name in truth:
        assert str(Tile(*read[name].pips)) == name, (name, read[name].pips)


def test_a_value_s_earlier_colours_count_only_where_most_of_them_agree():
    green, brown = np.array([-18.0, 21.0]), np.array([3.0, 7.0])
    assert len(agreed_colours([green, green, brown, green])) == 3
    assert agreed_colours([green, brown, green, brown]) == []


def test_a_colour_an_earlier_picture_read_for_the_next_value_does_not_bar_the_move():
    """An earlier picture read some purple end as 15, sure: that misread does not keep this
    picture's brown 13s, beside its green 13s, from being its 15s."""
    crops, readings = _table(0.99, 0.75, 0.2)
    purple = np.array([2.0, -15.0], np.float32)
    out, moved, _ = colour_checked(readings, crops, 15, anchors=[(15, purple)] * 3)
    assert moved == 3 and [r.pips[1] for r in out[2:]] == [15, 15, 15]
