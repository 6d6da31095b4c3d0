"""The detector's two passes: when a picture's tiles are read again at a larger size."""
from __future__ import annotations

import numpy as np
import pytest

from vision.detector import CLASS_BACK, CLASS_TILE, RawBox, TileDetector
from vision.recognize import models_dir


def _box(cx: float, cy: float, length: float, cls: int) -> RawBox:
    w = length / 2
    corners = np.array([[cx - w / 2, cy + length / 2], [cx + w / 2, cy + length / 2],
                        [cx + w / 2, cy - length / 2], [cx - w / 2, cy - length / 2]], np.float32)
    return RawBox(corners, 0.6, cls)


@pytest.fixture(scope="module")
def detector() -> TileDetector:
    return TileDetector(models_dir() / "tile_detector.onnx")


def _zoomed_after(detector: TileDetector, first: list[RawBox], monkeypatch, tile_px: float | None = None
                  ) -> list[float]:
    """The tile lengths (at the first pass's scale) a 1280x720 picture whose first pass finds
    `first` gets the zoomed pass for: [] when it gets none."""
    calls: list[float] = []
    monkeypatch.setattr(detector, "_run", lambda img, long_side=None: first if long_side is None else [])
    monkeypatch.setattr(detector, "_zoomed", lambda img, median: calls.append(median) or [])
    detector.detect(np.zeros((720, 1280, 3), np.uint8), tile_px=tile_px)
    return calls


def test_large_faces_found_by_the_first_pass_spare_the_picture_the_zoomed_pass(detector, monkeypatch):
    big = [_box(300 + 200 * i, 360, 400, CLASS_TILE) for i in range(3)]
    assert not _zoomed_after(detector, big, monkeypatch)


def test_small_faces_found_by_the_first_pass_send_the_picture_to_the_zoomed_pass(detector, monkeypatch):
    small = [_box(300 + 60 * i, 360, 60, CLASS_TILE) for i in range(6)]
    assert _zoomed_after(detector, small, monkeypatch)


def test_a_large_back_alone_does_not_pass_for_the_size_of_the_tiles(detector, monkeypatch):
    """Two phantom "backs" ~100 px long (at the pass's scale) over the crossing of a layout of
    25-px tiles kept the zoomed pass from running, and no tile of the table was read."""
    phantoms = [_box(640, 360, 400, CLASS_BACK), _box(630, 355, 400, CLASS_BACK)]
    assert _zoomed_after(detector, phantoms, monkeypatch)


def test_a_single_large_face_does_not_pass_for_the_size_of_the_tiles(detector, monkeypatch):
    assert _zoomed_after(detector, [_box(640, 360, 400, CLASS_TILE)], monkeypatch)


def test_a_table_of_small_tiles_behind_a_phantom_back_is_read():
    """Frame 1140 of a rendered round (black double-15 tiles ~40 px long): the first pass finds
    only a phantom back over the spinner's crossing; its size, trusted, would leave nothing read."""
    from lab.synth.sequence import SequenceRenderer, plan_sequence, sequence_rng
    from vision.imageio import LoadedImage
    from vision.recognize import get_recognizer

    plan = plan_sequence(sequence_rng(14, 19), (1280, 720), 15)
    frame = SequenceRenderer(plan).frame(1140)
    rec = get_recognizer().recognize_loaded(LoadedImage(frame, 1.0, 1280, 720, "frame"), 15)
    assert len(rec.tiles) >= 0.75 * len(plan.frames[1140].tiles)


def test_a_known_small_tile_size_sends_the_picture_to_the_zoomed_pass_whatever_the_first_pass_found(
        detector, monkeypatch):
    big = [_box(300 + 200 * i, 360, 400, CLASS_TILE) for i in range(3)]
    # 40 px of the 1280-px frame at the first pass's 320 px
    assert _zoomed_after(detector, big, monkeypatch, tile_px=40.0) == [pytest.approx(10.0)]
    assert _zoomed_after(detector, big, monkeypatch, tile_px=400.0) == []


def test_the_tracker_keeps_reading_small_tiles_when_the_first_pass_finds_only_large_phantoms():
    """The same rendered round (double-15, black tiles ~40 px long): at frame 1828 the first pass
    finds ten confident boxes, each over several tiles; judged by them, the tiles were large, no
    second pass ran and one tile was read, so every tile of the board was taken for gone. The
    tracker's detector remembers the size of the tiles it read before."""
    from lab.synth.sequence import SequenceRenderer, plan_sequence, sequence_rng
    from vision.recognize import get_recognizer
    from vision.tracking.tracker import RecognizerDetector

    plan = plan_sequence(sequence_rng(14, 19), (1280, 720), 15)
    frames = SequenceRenderer(plan)
    fresh = RecognizerDetector(get_recognizer(), 15)
    assert len(fresh(frames.frame(1828))) < 10
    following = RecognizerDetector(get_recognizer(), 15)
    following(frames.frame(1700))
    assert len(following(frames.frame(1828))) >= 0.9 * len(plan.frames[1828].tiles)


@pytest.mark.parametrize("seed", [3, 8])
def test_a_close_up_of_one_tile_filling_the_picture_is_read_whole(seed):
    """A photo of a single tile cut to its outline (like the real double-12 crops): with no table
    around it the first pass boxed the tile short of its ends, or its halves as two tiles, and
    read it wrong; the bordered pass reads it whole."""
    import cv2

    from lab.synth.closeup import close_up
    from lab.synth.scene import render_hand
    from vision.recognize import get_recognizer

    scene = render_hand(np.random.default_rng(seed), (1280, 960), set_max=12)
    tiles = [t for t in scene.tiles if not t.face_down and t.visible >= 0.97]
    tile = max(tiles, key=lambda t: np.linalg.norm(np.subtract(t.corners[0], t.corners[3])))
    crop = close_up(scene.image, tile.corners, margin=0.02, height=360)
    ok, jpeg = cv2.imencode(".jpg", crop)
    rec = get_recognizer().recognize(jpeg.tobytes())
    assert [sorted(t.pips) for t in rec.tiles if not t.face_down] == [sorted(tile.pips)]


def test_a_box_of_the_first_pass_that_the_zoomed_pass_sees_again_gives_way_to_it(detector, monkeypatch):
    """At the first pass's coarse scale, small tiles pushed together are boxed in pairs and
    halves; where the zoomed pass, with three times the pixels, boxes the same place, its boxes
    are kept and the coarse ones dropped. A first-pass box the zoomed pass does not see is kept."""
    small = [_box(300 + 30 * i, 360, 60, CLASS_TILE) for i in range(6)]  # side by side, touching
    phantom = _box(315, 360, 60, CLASS_TILE)  # across the long halves of the first two
    phantom.score = 0.95
    alone = _box(1000, 200, 60, CLASS_TILE)
    zoomed = [RawBox(b.corners.copy(), 0.8, CLASS_TILE) for b in small]
    monkeypatch.setattr(detector, "_run", lambda img, long_side=None: [*small, phantom, alone])
    monkeypatch.setattr(detector, "_zoomed", lambda img, median: zoomed)
    found = detector.detect(np.zeros((720, 1280, 3), np.uint8))
    centres = sorted(tuple(np.round(b.corners.mean(0)).astype(int)) for b in found)
    assert centres == sorted([(300 + 30 * i, 360) for i in range(6)] + [(1000, 200)])
    assert all(b.score == 0.8 for b in found if b.corners.mean(0)[0] < 700)  # the zoomed pass's boxes


def test_a_table_frame_is_not_read_with_the_coarse_passs_phantoms():
    """The bench's table frame (rendered double-9 table, 1280x720, tiles ~50 px long): the first
    pass's boxes over two neighbours' halves were kept beside the zoomed pass's and read as six
    tiles that are not there, three real tiles lost to them."""
    import cv2

    from lab.evaluate import score_rendered
    from lab.synth.table import render_table
    from vision.recognize import get_recognizer

    scene = render_table(np.random.default_rng(3), (1280, 720), set_max=9)
    jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    rec = get_recognizer().recognize(jpeg, set_max=9, level=False)
    score = score_rendered(scene.to_dict()["tiles"], [(t.corners, t.pips) for t in rec.tiles])
    assert score.extra <= 1, score
    assert score.matched >= score.true_tiles - 2, score
