"""Speed of the recognizer on this machine, JPEG decoding included (figures, not a test)."""
from __future__ import annotations

import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from .imageio import load_image
from .recognize import Recognizer
from .synth.scene import render_hand


def _photo_bytes(size: tuple[int, int], seed: int, n_tiles: int) -> bytes:
    """A rendered hand at `size`; big sizes are rendered at 1280 px and enlarged, with sensor noise
    added after enlarging so the JPEG carries as much detail as a phone photo."""
    rng = np.random.default_rng(seed)
    w, h = size
    base = (1280, int(1280 * h / w)) if w > 1280 else size
    img = render_hand(rng, base, set_max=12, n=n_tiles).image
    if base != size:
        img = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC)
        noise = np.empty(img.shape, np.int16)
        cv2.randn(noise, 0, 4)
        img = np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return buf.tobytes()


def _table_frame_bytes(size: tuple[int, int], seed: int) -> bytes:
    """A webcam frame of a table in play: many more tiles to read than a hand."""
    from .synth.table import render_table

    img = render_table(np.random.default_rng(seed), size, set_max=9).image
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def _low_seat_frame_bytes(size: tuple[int, int], seed: int) -> bytes:
    """A wide frame from a low seat: a double-6 hand of 14 tiles seen across the table, each a
    few tens of pixels long, some standing or face down (the 3D renderer's low camera)."""
    from .synth.render3d import render_hand3d

    img = render_hand3d(np.random.default_rng(seed), size, set_max=6, n=14, steep=True).image
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def _time(fn, repeat: int) -> list[float]:
    fn()  # warm-up
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def run_bench(recognizer: Recognizer | None = None, repeat: int = 10) -> dict:
    rec = recognizer or Recognizer()
    results = {}
    # each read the way the product reads it: a webcam's frames as the live tracker does (never
    # levelled: see `Recognizer.recognize_loaded`), a photo as `score` does
    cases = (("frame_1280x720", lambda: _photo_bytes((1280, 720), 7, 10), False),
             ("photo_12mp_4000x3000", lambda: _photo_bytes((4000, 3000), 7, 10), True),
             ("table_frame_1280x720", lambda: _table_frame_bytes((1280, 720), 3), False),
             ("low_seat_frame_1920x1080", lambda: _low_seat_frame_bytes((1920, 1080), 5), True))
    heic = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "hand_3200x2400.heic"
    if heic.exists():  # an iPhone's format: no reduced decode exists, so it is decoded in full
        cases += (("photo_heic_3200x2400", heic.read_bytes, True),)
    for label, make, level in cases:
        data = make()
        decode = _time(lambda: load_image(data), repeat)
        img = load_image(data)
        detect = _time(lambda: rec.detector.detect(img.bgr), repeat)
        total = _time(lambda: rec.recognize(data, level=level), repeat)
        results[label] = {
            "file_kb": len(data) // 1024,
            "decode_ms": round(statistics.median(decode), 1),
            "detect_ms": round(statistics.median(detect), 1),
            "total_ms_median": round(statistics.median(total), 1),
            "total_ms_p90": round(sorted(total)[int(0.9 * (len(total) - 1))], 1),
            "tiles_found": len(rec.recognize(data, level=level).tiles),
            "read_as": "photo" if level else "webcam frame",
        }
    return results
