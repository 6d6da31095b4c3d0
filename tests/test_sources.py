"""Frame sources: every kind opens or fails with one line; drops are reported, not raised."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sources import CaptureSource, Frame, FolderSource, SourceError, SourceNote, open_source


def _img(v: int) -> np.ndarray:
    img = np.full((120, 160, 3), v, np.uint8)
    cv2.putText(img, str(v), (20, 80), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (255, 255, 255), 2)
    return img


def test_folder_frames_come_in_name_order_and_an_unreadable_image_is_reported_and_skipped(tmp_path):
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), _img(40 + i * 50))
    (tmp_path / "f001b.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "notes.txt").write_text("ignored")
    src = open_source(str(tmp_path), fps=5)
    items = list(src)
    frames = [i for i in items if isinstance(i, Frame)]
    assert [f.name for f in frames] == ["f000.png", "f001.png", "f002.png"]
    assert [round(f.t, 2) for f in frames] == [0.0, 0.2, 0.6]
    bad = [i for i in items if isinstance(i, SourceNote) and i.kind == "bad_frame"]
    assert len(bad) == 1 and "f001b.jpg" in bad[0].message and "\n" not in bad[0].message
    assert isinstance(items[-1], SourceNote) and items[-1].kind == "ended"


def test_a_video_file_plays_to_its_end(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for i in range(7):
        writer.write(_img(30 * i))
    writer.release()
    items = list(open_source(str(path)))
    frames = [i for i in items if isinstance(i, Frame)]
    assert len(frames) == 7 and frames[0].image.shape == (120, 160, 3)
    assert frames[-1].t > frames[0].t
    assert items[-1].kind == "ended"


@pytest.mark.parametrize("spec, words", [
    ("", "no source"),
    ("missing/folder", "no such file or folder"),
])
def test_sources_that_cannot_be_opened_say_why_in_one_line(spec, words):
    with pytest.raises(SourceError) as err:
        open_source(spec)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_an_empty_folder_and_an_empty_file_are_refused(tmp_path):
    with pytest.raises(SourceError, match="no images"):
        open_source(str(tmp_path))
    empty = tmp_path / "game.mp4"
    empty.write_bytes(b"")
    with pytest.raises(SourceError, match="empty file"):
        open_source(str(empty))
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00" * 1000)
    with pytest.raises(SourceError, match="cannot read video"):
        open_source(str(junk))


class _FakeCapture:
    """A stream that sends a few frames, drops, and comes back on the second reconnect."""

    opened = 0

    def __init__(self, script):
        _FakeCapture.opened += 1
        self.script = script

    def isOpened(self):
        return self.script is not None

    def read(self):
        if not self.script:
            return False, None
        return True, self.script.pop(0)

    def get(self, prop):
        return 0.0

    def release(self):
        pass


def test_a_dropped_stream_is_reported_reopened_and_frames_flow_again():
    scripts = [[_img(10), _img(20)], None, [_img(30)], []]
    clock = iter(range(1000))
    src = CaptureSource("rtsp://table-cam/stream", "stream", reconnect=3, backoff=0.01,
                        capture_factory=lambda target: _FakeCapture(scripts.pop(0) if scripts else None),
                        clock=lambda: float(next(clock)), sleep=lambda s: None)
    items = list(src)
    kinds = [i.kind if isinstance(i, SourceNote) else "frame" for i in items]
    assert kinds == ["frame", "frame", "dropped", "resumed", "frame", "dropped", "resumed", "dropped", "ended"]
    assert "gave up" in items[-1].message and "\n" not in items[-1].message


def test_a_stream_that_cannot_be_opened_is_refused_at_once():
    with pytest.raises(SourceError, match="cannot open stream"):
        CaptureSource("http://nowhere/cam", "stream", capture_factory=lambda t: _FakeCapture(None))


def test_a_single_image_is_a_one_frame_source(tmp_path):
    p = tmp_path / "board.png"
    cv2.imwrite(str(p), _img(99))
    src = open_source(str(p))
    assert isinstance(src, FolderSource)
    assert sum(isinstance(i, Frame) for i in src) == 1
