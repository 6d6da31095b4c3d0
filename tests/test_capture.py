"""When the tiles are too small in a picture for their values to be read, the user is told."""
from __future__ import annotations

from vision.capture import readable_tile_px, small_tiles_warning


def test_tiles_shorter_than_their_set_needs_get_advice_naming_the_size_and_the_set():
    advice = small_tiles_warning([42.0, 43.0, 44.0], 15)
    assert advice is not None
    assert "43 px" in advice and "double-15" in advice and "closer" in advice


def test_tiles_long_enough_for_their_set_get_none():
    assert small_tiles_warning([46.0, 47.0, 50.0], 15) is None
    assert small_tiles_warning([42.0, 43.0, 44.0], 12) is None


def test_the_same_tiles_are_small_for_a_big_set_and_not_for_a_small_one():
    lengths = [35.0] * 6
    assert small_tiles_warning(lengths, 6) is None
    assert small_tiles_warning(lengths, 12) is not None


def test_too_few_tiles_are_not_judged():
    assert small_tiles_warning([20.0, 20.0], 18) is None


def test_a_set_between_the_listed_sizes_needs_what_the_next_larger_one_does():
    assert readable_tile_px(10) == readable_tile_px(12)
    assert readable_tile_px(13) == readable_tile_px(15)
    assert readable_tile_px(30) == readable_tile_px(18)


def test_a_far_webcam_frame_of_a_double15_table_is_read_with_the_advice():
    # the last frame of a rendered round whose 43-px tiles draw 13-15 as rows of dots
    from lab.synth.sequence import SequenceRenderer, plan_sequence, sequence_rng
    from vision.imageio import LoadedImage
    from vision.recognize import Recognizer

    plan = plan_sequence(sequence_rng(25, 27), (1280, 720), 15)
    frame = SequenceRenderer(plan).frame(len(plan.frames) - 1)
    rec = Recognizer().recognize_loaded(LoadedImage(frame, 1.0, 1280, 720, "frame"), 15)
    assert len(rec.tiles) > 50
    assert any("double-15" in w and "closer" in w for w in rec.warnings), rec.warnings
