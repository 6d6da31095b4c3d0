"""Where frames come from: a webcam, a video file, an HTTP/RTSP stream, or a folder of images.

`open_source(spec)` picks the kind from the spec and fails at once, with a one-line
`SourceError`, when it cannot be opened. Iterating a source yields `Frame`s and, when
something goes wrong mid-way, `SourceNote`s instead of raising: a stream that drops
is reported ("dropped"), re-opened with a growing pause, and reported again when
frames come back ("resumed"); an unreadable image in a folder is reported
("bad_frame") and skipped. The caller (the `watch` command, the tracker) keeps the
game so far whatever happens.

Nothing here reaches the network on its own: a stream is opened only when the user
names its URL.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from .imageio import IMAGE_SUFFIXES

VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv"}
STREAM_SCHEMES = ("http://", "https://", "rtsp://", "rtsps://", "rtmp://", "udp://", "tcp://")
DEFAULT_FOLDER_FPS = 10.0


class SourceError(Exception):
    """The source cannot be opened; the message says why in one line."""


@dataclass
class Frame:
    image: np.ndarray
    """BGR uint8."""
    t: float
    """Seconds since the source started (the video's own clock for files)."""
    index: int
    name: str | None = None


@dataclass
class SourceNote:
    """Something about the source, not a frame: "dropped", "resumed", "bad_frame" or "ended"."""

    kind: str
    message: str
    t: float
    index: int


Item = Frame | SourceNote


def _cv2():
    import cv2

    return cv2


class CaptureSource:
    """Anything OpenCV's VideoCapture reads: a webcam index, a video file, a stream URL."""

    def __init__(self, target: int | str, kind: str, *, reconnect: int = 5, backoff: float = 0.5,
                 capture_factory: Callable[[int | str], Any] | None = None, clock: Callable[[], float] | None = None,
                 sleep: Callable[[float], None] | None = None) -> None:
        self.target = target
        self.kind = kind
        self.reconnect = reconnect
        self.backoff = backoff
        self._factory = capture_factory or self._open_cv
        self._clock = clock or time.monotonic
        self._sleep = sleep or time.sleep
        self._cap = self._factory(target)
        if self._cap is None or not self._cap.isOpened():
            raise SourceError(self._cannot_open())
        self.fps = float(self._cap.get(_cv2().CAP_PROP_FPS) or 0.0) if capture_factory is None else 0.0
        self._t0 = self._clock()
        self.closed = False

    @staticmethod
    def _open_cv(target: int | str) -> Any:
        cv2 = _cv2()
        cap = cv2.VideoCapture(target)
        if isinstance(target, int) and cap.isOpened():
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # live: always the newest frame
        return cap

    def _cannot_open(self) -> str:
        if self.kind == "camera":
            return f"cannot open camera {self.target} (not connected, in use by another program, or no permission)"
        if self.kind == "stream":
            return f"cannot open stream {self.target} (unreachable, wrong address, or not a video stream)"
        return f"cannot read video {self.target} (unsupported or damaged file)"

    @property
    def live(self) -> bool:
        return self.kind in ("camera", "stream")

    def describe(self) -> str:
        return f"{self.kind} {self.target}"

    def _timestamp(self, index: int) -> float:
        if not self.live:
            ms = 0.0
            try:
                ms = float(self._cap.get(_cv2().CAP_PROP_POS_MSEC))
            except Exception:  # noqa: BLE001 - fake captures in tests
                ms = 0.0
            if ms > 0:
                return ms / 1000.0
            return index / (self.fps if self.fps > 0 else 30.0)
        return self._clock() - self._t0

    def __iter__(self) -> Iterator[Item]:
        index = 0
        while not self.closed:
            ok, img = self._cap.read()
            if ok and img is not None:
                yield Frame(img, self._timestamp(index), index)
                index += 1
                continue
            if not self.live:
                yield SourceNote("ended", f"end of {self.describe()}", self._timestamp(index), index)
                return
            t = self._timestamp(index)
            yield SourceNote("dropped", f"{self.describe()} stopped sending frames", t, index)
            if not self._reopen():
                yield SourceNote("ended", f"gave up on {self.describe()} after {self.reconnect} attempts to reconnect",
                                 self._timestamp(index), index)
                return
            yield SourceNote("resumed", f"{self.describe()} is back", self._timestamp(index), index)

    def _reopen(self) -> bool:
        pause = self.backoff
        for _ in range(self.reconnect):
            self._sleep(pause)
            pause = min(pause * 2, 10.0)
            try:
                self._cap.release()
            except Exception:  # noqa: BLE001
                pass
            cap = self._factory(self.target)
            if cap is not None and cap.isOpened():
                self._cap = cap
                return True
        return False

    def close(self) -> None:
        self.closed = True
        try:
            self._cap.release()
        except Exception:  # noqa: BLE001
            pass


class FolderSource:
    """Images in a folder, in name order, as frames `1 / fps` seconds apart."""

    def __init__(self, folder: str | Path, fps: float = DEFAULT_FOLDER_FPS) -> None:
        self.folder = Path(folder)
        if fps <= 0:
            raise SourceError(f"frame rate must be positive, got {fps}")
        self.fps = fps
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"{folder}: no images in this folder "
                              f"(looked for {', '.join(sorted(IMAGE_SUFFIXES))})")
        self.live = False
        self.closed = False

    def describe(self) -> str:
        return f"folder {self.folder} ({len(self.files)} images)"

    def __iter__(self) -> Iterator[Item]:
        from .imageio import ImageError, load_image

        for index, path in enumerate(self.files):
            if self.closed:
                return
            t = index / self.fps
            try:
                img = load_image(path).bgr
            except ImageError as exc:
                yield SourceNote("bad_frame", str(exc), t, index)
                continue
            yield Frame(img, t, index, path.name)
        yield SourceNote("ended", f"end of {self.describe()}", len(self.files) / self.fps, len(self.files))

    def close(self) -> None:
        self.closed = True


def open_source(spec: str | int, *, fps: float | None = None, reconnect: int = 5) -> CaptureSource | FolderSource:
    """A frame source for `spec`: a camera index ("0"), a stream URL (http, rtsp, ...), a video
    file, a folder of images, or a single image (a one-frame folder)."""
    text = str(spec).strip()
    if not text:
        raise SourceError("no source given: name a camera index, a video file, a folder of images or a stream URL")
    if text.isdigit():
        return CaptureSource(int(text), "camera", reconnect=reconnect)
    if text.lower().startswith(STREAM_SCHEMES):
        return CaptureSource(text, "stream", reconnect=reconnect)
    path = Path(text)
    if not path.exists():
        raise SourceError(f"{text}: no such file or folder (and not a camera index or stream URL)")
    if path.is_dir():
        return FolderSource(path, fps or DEFAULT_FOLDER_FPS)
    suffix = path.suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        src = FolderSource.__new__(FolderSource)
        src.folder, src.fps, src.files, src.live, src.closed = path.parent, fps or DEFAULT_FOLDER_FPS, [path], False, False
        return src
    if path.stat().st_size == 0:
        raise SourceError(f"{text}: empty file")
    return CaptureSource(str(path), "video", reconnect=0)
