"""The reference pass the speed bench divides every time by.

Times on a laptop, or on a machine shared with others, move with its load by tens of percent
from one minute to the next, so a figure in milliseconds cannot be compared across runs or
machines. The bench therefore also times one pass of a fixed network through onnxruntime,
with the project's own session settings, between its cases, and reports each case as a ratio to
it: both slow down alike when the machine is busy. The network is a copy of a YOLO11n-OBB tile
detector kept under `models/reference/` and checked by hash, so the yardstick stays the same
when the shipped detector is retrained, resized or replaced.
"""
from __future__ import annotations

import hashlib
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.onnx_yolo import ModelError, SessionTuning, make_session

REFERENCE_MODEL = Path(__file__).resolve().parents[1] / "models" / "reference" / "yolo11n_obb.onnx"
REFERENCE_SHA256 = "c76acec9b6e6cfb6cdd5a7e49fd55552cad360d56baf86f346201d8b41399565"
"""The reference file's hash: a different file would silently change every ratio."""
REFERENCE_INPUT = (640, 640)
"""(w, h) of the reference pass's input: one picture, batch 1."""
REFERENCE_TUNING = SessionTuning(intra_threads=2, inter_threads=1, graph_level="ORT_ENABLE_ALL", parallel=False,
                                 mem_pattern=True, spinning=False)
"""The session settings of the reference pass, written out rather than taken from the
recognizer's: a change to those must show as a change of ratio, not move the yardstick too."""


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass
class ReferencePass:
    """One forward pass of the reference network on a fixed input; `time_ms` runs and times it
    and keeps every sample, so a report can say what the passes took while the cases ran."""

    path: Path = REFERENCE_MODEL
    samples_ms: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.path.exists():
            raise ModelError(f"reference model not found: {self.path}")
        digest = file_sha256(self.path)
        if digest != REFERENCE_SHA256:
            raise ModelError(f"{self.path} is not the reference model (sha256 {digest[:12]}..., "
                             f"expected {REFERENCE_SHA256[:12]}...): ratios would not compare")
        self.sha256 = digest
        self.session = make_session(self.path, tuning=REFERENCE_TUNING)
        self.input_name = self.session.get_inputs()[0].name
        w, h = REFERENCE_INPUT
        # the network's arithmetic does not depend on the pixels: any fixed picture will do
        self.blob = np.random.default_rng(0).random((1, 3, h, w), dtype=np.float32)
        self.session.run(None, {self.input_name: self.blob})  # warm-up: first runs allocate

    def time_ms(self) -> float:
        t = time.perf_counter()
        self.session.run(None, {self.input_name: self.blob})
        ms = (time.perf_counter() - t) * 1000
        self.samples_ms.append(ms)
        return ms

    def summary(self) -> dict:
        s = self.samples_ms
        return {"model": str(self.path.relative_to(self.path.parents[2])), "sha256": self.sha256,
                "input": f"1x3x{REFERENCE_INPUT[1]}x{REFERENCE_INPUT[0]}", "passes": len(s),
                "ms_median": round(statistics.median(s), 1) if s else None,
                "ms_min": round(min(s), 1) if s else None, "ms_max": round(max(s), 1) if s else None}
