"""Speed of the recognizer and the live tracker on this machine, as ratios to a reference pass.

Every case is read as the product reads it (JPEG decoding included) and timed between two
passes of a fixed reference network (`bench_reference`); its ratio is its time over the mean of
those two passes, so a busy machine slows both alike and the ratio stays put where the
milliseconds do not. A case's figure is the median of its ratios; milliseconds are given too.
"""
from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from vision.imageio import load_image
from vision.recognize import Recognizer

from .bench_reference import ReferencePass
from .bench_tracker import TrackerBenchConfig, run_tracker_bench

REAL_HAND_PHOTO = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "photos" / "IMG-20210311-WA0000.jpg"
"""A real phone photo of a hand (eight double-12 tiles, 1600x900), scaled to a 1280x720 frame
for the real hand-frame case; the case is left out where the file is absent."""


def _jpeg(img: np.ndarray) -> bytes:
    """A picture as the JPEG (quality 90) a camera or phone would hand over."""
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def _photo_bytes(size: tuple[int, int], seed: int, n_tiles: int) -> bytes:
    """A rendered hand at `size`; big sizes are rendered at 1280 px and enlarged, with sensor noise
    added after enlarging so the JPEG carries as much detail as a phone photo."""
    from .synth.scene import render_hand

    rng = np.random.default_rng(seed)
    w, h = size
    base = (1280, int(1280 * h / w)) if w > 1280 else size
    img = render_hand(rng, base, set_max=12, n=n_tiles).image
    if base != size:
        img = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC)
        noise = np.empty(img.shape, np.int16)
        cv2.randn(noise, 0, 4)
        img = np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    return _jpeg(img)


def _real_frame_bytes(path: Path, size: tuple[int, int]) -> bytes:
    """A real photo cropped to the frame's aspect about its centre and scaled to `size`."""
    img = cv2.imread(str(path))
    w, h = size
    ih, iw = img.shape[:2]
    s = min(iw / w, ih / h)
    cw, ch = round(w * s), round(h * s)
    x0, y0 = (iw - cw) // 2, (ih - ch) // 2
    return _jpeg(cv2.resize(img[y0:y0 + ch, x0:x0 + cw], size, interpolation=cv2.INTER_AREA))


def _table_frame_bytes(size: tuple[int, int], seed: int) -> bytes:
    """A webcam frame of a table in play: many more tiles to read than a hand."""
    from .synth.table import render_table

    return _jpeg(render_table(np.random.default_rng(seed), size, set_max=9).image)


def _low_seat_frame_bytes(size: tuple[int, int], seed: int) -> bytes:
    """A wide frame from a low seat: a double-6 hand of 14 tiles seen across the table, each a
    few tens of pixels long, some standing or face down (the 3D renderer's low camera)."""
    from .synth.render3d import render_hand3d

    return _jpeg(render_hand3d(np.random.default_rng(seed), size, set_max=6, n=14, steep=True).image)


@dataclass(frozen=True)
class Case:
    """One picture and how the product reads it: a webcam's frames as the live tracker does
    (never levelled: see `Recognizer.recognize_loaded`), a photo as `score` does."""

    label: str
    make: Callable[[], bytes]
    level: bool
    what: str


def default_cases(real_photo: Path | None = REAL_HAND_PHOTO) -> list[Case]:
    cases = [Case("frame_1280x720", lambda: _photo_bytes((1280, 720), 7, 10), False,
                  "rendered hand of 10 tiles, webcam frame"),
             Case("photo_12mp_4000x3000", lambda: _photo_bytes((4000, 3000), 7, 10), True,
                  "rendered hand of 10 tiles enlarged to a 12 MP JPEG, read as a photo"),
             Case("table_frame_1280x720", lambda: _table_frame_bytes((1280, 720), 3), False,
                  "rendered double-9 table of small tiles, webcam frame"),
             Case("low_seat_frame_1920x1080", lambda: _low_seat_frame_bytes((1920, 1080), 5), True,
                  "rendered double-6 hand seen across the table from a low seat")]
    if real_photo is not None and real_photo.exists():
        cases.insert(1, Case("real_hand_frame_1280x720", lambda: _real_frame_bytes(real_photo, (1280, 720)), False,
                             f"real photo {real_photo.name} scaled to a webcam frame"))
    heic = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "hand_3200x2400.heic"
    if heic.exists():  # an iPhone's format: no reduced decode exists, so it is decoded in full
        cases.append(Case("photo_heic_3200x2400", heic.read_bytes, True, "real-format HEIC, decoded in full"))
    return cases


@dataclass(frozen=True)
class Target:
    """A figure to reach: `case`'s `figure` at most (or, `at_least`, at least) `limit`."""

    case: str
    figure: str
    limit: float
    at_least: bool = False

    def check(self, report: dict) -> dict:
        section = report["tracker"] if self.case == "tracker" else report["cases"].get(self.case)
        value = None if not section else section.get(self.figure)
        met = None if value is None else (value >= self.limit if self.at_least else value <= self.limit)
        return {"case": self.case, "figure": self.figure, "limit": ("≥ " if self.at_least else "≤ ") + str(self.limit),
                "value": value, "met": met}


TARGETS = (
    Target("table_frame_1280x720", "ratio", 3.0),
    Target("real_hand_frame_1280x720", "ratio", 1.5),
    Target("photo_12mp_4000x3000", "ratio", 4.0),
    Target("tracker", "processed_fps", 30, at_least=True),
    Target("tracker", "play_latency_s_median", 0.5),
    Target("tracker", "play_latency_s_p95", 1.0),
)
"""Ratios to the reference pass for the pictures; absolute figures for the tracker, as a player
at the table sees them."""


@dataclass(frozen=True)
class BenchConfig:
    repeat: int = 10
    """Timed reads of each case (each between two reference passes)."""
    only: tuple[str, ...] | None = None
    """Case labels to run (None: all)."""
    real_photo: Path | None = REAL_HAND_PHOTO
    tracker: TrackerBenchConfig | None = field(default_factory=TrackerBenchConfig)
    """None leaves the tracker out."""


def _median(xs: list[float], digits: int = 1) -> float:
    return round(statistics.median(xs), digits)


def _stage_ms(fn: Callable[[], object], repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return _median(out)


def run_bench(recognizer: Recognizer | None = None, config: BenchConfig | None = None) -> dict:
    config = config or BenchConfig()
    rec = recognizer or Recognizer()
    ref = ReferencePass()
    t_start = time.perf_counter()
    load_start = os.getloadavg()[0]
    cases = [c for c in default_cases(config.real_photo) if config.only is None or c.label in config.only]
    data = {c.label: c.make() for c in cases}
    tiles = {c.label: len(rec.recognize(data[c.label], level=c.level).tiles) for c in cases}  # warm-up too
    ms: dict[str, list[float]] = {c.label: [] for c in cases}
    ratios: dict[str, list[float]] = {c.label: [] for c in cases}
    before = ref.time_ms()
    for _ in range(config.repeat):
        for c in cases:  # rounds over all cases, so a burst of load falls on every case alike
            t = time.perf_counter()
            rec.recognize(data[c.label], level=c.level)
            took = (time.perf_counter() - t) * 1000
            after = ref.time_ms()
            ms[c.label].append(took)
            ratios[c.label].append(took / ((before + after) / 2))
            before = after
    results = {}
    stage_repeat = max(3, config.repeat // 3)  # the parts: fewer runs, figures for orientation
    for c in cases:
        img = load_image(data[c.label])
        r = sorted(ratios[c.label])
        results[c.label] = {
            "what": c.what, "read_as": "photo" if c.level else "webcam frame", "file_kb": len(data[c.label]) // 1024,
            "ratio": _median(r, 3), "ratio_min": round(r[0], 3), "ratio_max": round(r[-1], 3),
            "total_ms_median": _median(ms[c.label]),
            "decode_ms": _stage_ms(lambda: load_image(data[c.label]), stage_repeat),
            "detect_ms": _stage_ms(lambda: rec.detector.detect(img.bgr), stage_repeat),
            "tiles_found": tiles[c.label],
        }
    report = {"reference": None, "cases": results, "tracker": None}
    if config.tracker is not None and config.tracker.rounds > 0:
        report["tracker"] = run_tracker_bench(rec, ref.time_ms, config.tracker)
    report["reference"] = ref.summary()
    report["targets"] = [t.check(report) for t in TARGETS]
    report["load_1min"] = [round(load_start, 2), round(os.getloadavg()[0], 2)]
    report["seconds"] = round(time.perf_counter() - t_start, 1)
    return report
