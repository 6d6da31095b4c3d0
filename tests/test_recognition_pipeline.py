"""The recognizer as a declared pipeline: candidates as aligned columns, stages of one signature
run in the declared order, notes and warnings rendered from what the stages recorded."""
from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

from vision.detector import RawBox
from vision.recognition import pipeline
from vision.recognition.candidates import Candidates, Flag
from vision.recognition.changes import (Capped, Corrected, CutByEdge, Recoloured, Reread, TakenForBack,
                                        cut_off_warning, notes_of)
from vision.recognition.config import RecognizerConfig, RecognizerConfigError
from vision.types import COLOUR_NOTE

MODELS = Path(__file__).resolve().parents[1] / "models"


def _boxes(n: int) -> Candidates:
    corners = [np.float32([[0, 0], [40, 0], [40, 80], [0, 80]]) + 100 * i for i in range(n)]
    return Candidates.from_boxes([RawBox(c, 0.5 + i / 100, 0) for i, c in enumerate(corners)])


def test_a_mask_keeps_every_column_of_the_rows_it_picks():
    cands = _boxes(4)
    cands.crop = [f"crop{i}" for i in range(4)]
    cands.pips = [(i, i) for i in range(4)]
    cands.mark(2, Flag.CUT_BY_EDGE, "test", CutByEdge())
    kept = cands[np.array([True, False, True, False])]
    assert len(kept) == 2
    assert kept.crop == ["crop0", "crop2"] and kept.pips == [(0, 0), (2, 2)]
    assert list(kept.score) == [0.5, 0.52]
    assert np.array_equal(kept.corners[1], cands.corners[2])
    assert list(kept.has(Flag.CUT_BY_EDGE)) == [False, True]
    assert kept.trace == [[], [("test", CutByEdge())]]


def test_rows_added_follow_the_rows_before_them_column_by_column():
    a, b = _boxes(2), _boxes(3)[np.array([2])]
    both = a + b
    assert len(both) == 3 and list(both.score) == [0.5, 0.51, 0.52]
    assert len(both.crop) == len(both.trace) == len(both.flags) == 3


def test_columns_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="rows"):
        Candidates([np.zeros((4, 2))], np.array([0.5]), np.array([0]), crop=[None, None])


def test_a_mask_of_the_wrong_length_is_refused():
    with pytest.raises(IndexError):
        _boxes(3)[np.array([True, False])]


def test_notes_are_the_traced_changes_that_carry_one_in_the_order_made():
    trace = [("count_dots", Reread(None, (3, 4))), ("check_colours", Recoloured((3, 4))),
             ("mark_cut_by_edge", CutByEdge()), ("cap_at_set_max", Capped((3, 14), 12)),
             ("correct_duplicates", Corrected((3, 12), (3, 11)))]
    assert notes_of(trace) == [
        f"{COLOUR_NOTE}: read 3-4, but another tile's end of that value has pips of another colour",
        "cut off by the edge of the picture: part of it may not be seen",
        "read 3-14, above the set's maximum 12; capped",
        "read 3-12, which another tile already is; corrected to 3-11"]
    assert notes_of([("turn_blanks_to_backs", TakenForBack())]) == [
        "boxed as face up, but it shows neither a dot nor a divider: a tile's back"]


def test_the_cut_off_warning_counts_the_faces_cut_by_the_edge():
    assert cut_off_warning(0) is None
    assert cut_off_warning(1) == "1 tile cut off by the edge of the picture: the total may miss dots outside it"
    assert cut_off_warning(3).startswith("3 tiles cut off")


def test_the_set_rules_notes_on_tiles_are_those_their_changes_render():
    from vision.correct import apply_rules, settle_values
    from vision.pipreader import HalfReading, TileReading
    from vision.types import TileDetection

    reading = TileReading((HalfReading(14, [0.9] * 14, 0.9), HalfReading(2, [0.9] * 2, 0.9)), [], None)
    ruling = settle_values([reading], set_max=12, threshold=0.5)
    assert ruling.pips == [(12, 2)] and ruling.changes == [[Capped((14, 2), 12)]]
    tile = TileDetection(0, np.zeros((4, 2)), 0.9)
    apply_rules([tile], [reading], set_max=12, threshold=0.5)
    assert tile.notes == [c.note for c in ruling.changes[0]]


def test_every_stage_takes_the_candidates_and_the_context():
    for stage in pipeline.DEFAULT_PIPELINE:
        assert list(inspect.signature(stage).parameters) == ["cands", "ctx"], stage.__name__
    names = [s.__name__ for s in pipeline.DEFAULT_PIPELINE]
    assert len(names) == len(set(names))
    assert all(s in pipeline.DEFAULT_PIPELINE for s in pipeline.REQUIRED_STAGES)


def test_a_pipeline_runs_its_stages_in_order_and_a_stage_left_out_is_not_run():
    ran = []

    def first(cands, ctx):
        ran.append("first")
        return cands

    def second(cands, ctx):
        ran.append("second")
        return cands[np.array([True] * (len(cands) - 1) + [False])]

    def third(cands, ctx):
        ran.append("third")
        return cands

    out = pipeline.run(pipeline.without(second, pipeline=(first, second, third)), _boxes(3), None)
    assert ran == ["first", "third"] and len(out) == 3
    ran.clear()
    assert len(pipeline.run((first, second, third), _boxes(3), None)) == 2 and ran == ["first", "second", "third"]


@pytest.mark.skipif(not (MODELS / "tile_detector.onnx").exists(), reason="no committed models")
def test_the_recognizer_runs_the_pipeline_it_was_given():
    from vision.imageio import LoadedImage
    from vision.recognize import Recognizer

    seen = []

    def spy(cands, ctx):
        seen.append(len(cands))
        return cands

    plain = np.full((240, 320, 3), 90, np.uint8)
    rec = Recognizer(MODELS, pipeline=pipeline.without(*pipeline.DEFAULT_PIPELINE) + (spy,) +
                     pipeline.REQUIRED_STAGES)
    rec.recognize_loaded(LoadedImage(plain, 1.0, 320, 240, "plain"), 6)
    assert seen == [0]
    assert Recognizer(MODELS).pipeline == pipeline.DEFAULT_PIPELINE


def test_the_recognizer_config_defaults_are_the_tuned_values():
    from vision.correct import SURE_READING
    from vision.halfreader import SMALL_TILE_PX

    config = RecognizerConfig()
    assert (config.small_tile_px, config.sure_reading, config.beside_a_face) == (SMALL_TILE_PX, SURE_READING, 1.2)
    assert (config.detector_conf, config.pip_conf, config.big_set_min) == (0.5, 0.5, 13)
    assert RecognizerConfig.from_dict(config.to_dict()) == config
    assert RecognizerConfig.from_dict({"small_tile_px": 60.0}).small_tile_px == 60.0


def test_an_unknown_recognizer_setting_is_refused_by_name():
    with pytest.raises(RecognizerConfigError, match="unknown recognizer setting 'small_tile'.*small_tile_px"):
        RecognizerConfig.from_dict({"small_tile": 60.0})
    with pytest.raises(RecognizerConfigError, match="must be an object"):
        RecognizerConfig.from_dict([("small_tile_px", 60.0)])


def _context(width: int = 640, height: int = 480):
    from vision.imageio import LoadedImage
    from vision.recognition.context import Context

    img = LoadedImage(np.zeros((height, width, 3), np.uint8), 1.0, width, height, "test")
    return Context(img, 6, RecognizerConfig(), None, None, None, None)


def _read_as(cands: Candidates, *pips: tuple[int, int], bar=(80.0, 4.0)) -> Candidates:
    from vision.pipreader import HalfReading, TileReading

    cands.reading = [TileReading((HalfReading(a, [0.9] * a, 0.9), HalfReading(b, [0.9] * b, 0.9)), [],
                                 bar if a or b else None) for a, b in pips]
    cands.crop = [np.full((160, 80, 3), 200, np.uint8) for _ in pips]
    return cands


def test_a_face_reaching_the_edge_is_marked_cut_and_never_taken_for_a_back():
    from vision.recognition import backs

    cands = _read_as(_boxes(2), (0, 0), (0, 0))
    cands.corners[0] = cands.corners[0] - 50  # its corner beyond the picture's top left
    ctx = _context()
    cands = backs.find_blank_faces(backs.mark_cut_by_edge(cands, ctx), ctx)
    assert list(cands.has(Flag.CUT_BY_EDGE)) == [True, False]
    assert list(cands.has(Flag.LOOKS_BLANK)) == [False, True]
    assert notes_of(cands.trace[0]) == ["cut off by the edge of the picture: part of it may not be seen"]


def test_blank_faces_left_blank_become_backs_after_the_detectors_own():
    from vision.recognition import backs

    ctx = _context()
    ctx.backs = _boxes(3)[np.array([2])]
    cands = _read_as(_boxes(2), (3, 4), (0, 0))
    cands = backs.turn_blanks_to_backs(backs.find_blank_faces(cands, ctx), ctx)
    assert len(cands) == 1 and cands.reading[0].pips == (3, 4)
    assert list(ctx.backs.score) == [0.52, 0.51] and list(ctx.backs.has(Flag.BACK)) == [False, True]
    assert notes_of(ctx.backs.trace[1]) == [
        "boxed as face up, but it shows neither a dot nor a divider: a tile's back"]


def test_faces_the_colour_check_moves_are_marked_recoloured_with_the_value_first_read(monkeypatch):
    from vision.recognition import colours

    moved = _read_as(_boxes(1), (5, 3)).reading
    monkeypatch.setattr(colours, "colour_checked", lambda readings, crops, set_max, anchors, config:
                        ([moved[0], readings[1]], 1, [(3, "grey")]))
    ctx = _context()
    cands = colours.check_colours(_read_as(_boxes(2), (6, 3), (2, 2)), ctx)
    assert [r.pips for r in cands.reading] == [(5, 3), (2, 2)]
    assert list(cands.has(Flag.RECOLOURED)) == [True, False] and ctx.sure_colours == [(3, "grey")]
    assert notes_of(cands.trace[0])[0].startswith(f"{COLOUR_NOTE}: read 6-3,")


def test_a_dropped_box_leaves_every_column_and_is_kept_with_its_reason():
    from vision.recognition import dropping

    ctx = _context()
    cands = _read_as(_boxes(3), (2, 3), (2, 3), (4, 5))
    cands.corners[1] = cands.corners[0] + 2  # the same tile boxed twice, the first box less sure
    cands = dropping.drop_duplicates(cands, ctx)
    assert [r.pips for r in cands.reading] == [(2, 3), (4, 5)] and list(cands.score) == [0.51, 0.52]
    assert len(ctx.dropped) == 1 and ctx.dropped.trace[0][-1][0] == "drop_duplicates"
    assert list(ctx.dropped.has(Flag.DROPPED)) == [True] and not ctx.dropped.has(Flag.TABLE_PATCH).any()


def test_the_face_and_back_stages_judge_by_the_face_config_they_are_given():
    """The stages sorting faces from backs take their thresholds from the context's configuration
    (`RecognizerConfig.faces`), not from fixed values: a small blank box read 0 at 0.7 on both ends
    is the double blank where 0.6 is asked and a back where 0.8 is; a box of one dot streaked all
    over is a patch of the table, unless the configuration lets any share of a face be streaked."""
    from vision.halfreader import ClassifiedHalf
    from vision.recognition import backs, dropping
    from vision.recognition.config import FaceConfig

    def with_faces(**faces):
        ctx = _context()
        ctx.config = RecognizerConfig(faces=FaceConfig(**faces))
        return ctx

    def blank_end():
        probs = np.zeros(19)
        probs[:2] = 0.7, 0.3
        return ClassifiedHalf(0, probs, 0)

    def left_blank(ctx) -> bool:
        cands = _read_as(_boxes(1), (0, 0))
        cands.reading[0].halves = (blank_end(), blank_end())
        cands.probs = [None]
        cands = backs.spare_double_blanks(backs.find_blank_faces(cands, ctx), ctx)
        return bool(cands.has(Flag.LOOKS_BLANK)[0])

    assert not left_blank(with_faces(blank_sure=0.6)) and left_blank(with_faces(blank_sure=0.8))

    def dropped(ctx) -> bool:
        cands = _read_as(_boxes(1), (1, 0))
        cands.crop = [np.random.default_rng(0).integers(0, 256, (160, 80, 3), dtype=np.uint8)]
        return len(dropping.drop_table_patches(cands, ctx)) == 0

    assert dropped(with_faces()) and not dropped(with_faces(mottled_share=1.0))


@pytest.mark.skipif(not (MODELS / "half_reader.onnx").exists(), reason="no committed models")
def test_each_face_read_traces_the_stage_that_gave_it_its_first_values():
    import cv2

    from vision.imageio import load_image
    from vision.recognize import Recognizer
    from lab.synth.table import render_table
    from vision.types import tile_length

    img = render_table(np.random.default_rng(3), (1280, 720), set_max=9).image
    cands, ctx = Recognizer(MODELS).read_candidates(load_image(cv2.imencode(".png", img)[1].tobytes()), 9)
    assert len(cands) > 10
    for i in range(len(cands)):
        small = tile_length(cands.corners[i]) < ctx.config.small_tile_px
        assert bool(cands.flags[i] & Flag.SMALL) == small
        first = next(stage for stage, change in cands.trace[i] if isinstance(change, Reread))
        assert first == ("count_dots" if not small or cands.bar[i] is None else "read_small_tiles"), cands.trace[i]
