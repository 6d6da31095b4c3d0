"""Run exported YOLO models with onnxruntime and our own pre/post-processing.

Ultralytics' predictor needs torchvision, which has no working CPU build here, and we
want run-time installs without torch at all; so letterboxing, decoding and NMS live
here in NumPy/OpenCV.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")


class ModelError(RuntimeError):
    """The model file is missing or unusable; the message says which and why."""


@dataclass(frozen=True)
class SessionTuning:
    """onnxruntime's session options for every model the recognizer runs.

    The defaults were measured on a 2-core laptop CPU against the alternatives (graph
    optimisation levels, one or two threads, parallel execution, memory patterns): see
    models/README.md's speed section. Idle pool threads spin for a while after each run by
    default; on a 2-core machine they then steal the cores from the OpenCV and numpy steps
    between runs (a hand frame took 2x as long), hence `spinning` off."""

    intra_threads: int | None = None
    """Threads inside one operator; None: two, or one on a single-core machine."""
    inter_threads: int = 1
    """Threads running independent operators side by side (only used with `parallel`)."""
    graph_level: str = "ORT_ENABLE_ALL"
    """A `GraphOptimizationLevel` name: ORT_DISABLE_ALL, ORT_ENABLE_BASIC, ORT_ENABLE_EXTENDED,
    ORT_ENABLE_LAYOUT or ORT_ENABLE_ALL."""
    parallel: bool = False
    mem_pattern: bool = True
    spinning: bool = False


TUNING = SessionTuning()
"""The settings `make_session` uses unless told otherwise."""


def session_options(threads: int | None = None, tuning: SessionTuning | None = None):
    import onnxruntime as ort

    t = tuning or TUNING
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or t.intra_threads or min(2, os.cpu_count() or 1)
    opts.inter_op_num_threads = t.inter_threads
    opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, t.graph_level)
    opts.execution_mode = ort.ExecutionMode.ORT_PARALLEL if t.parallel else ort.ExecutionMode.ORT_SEQUENTIAL
    opts.enable_mem_pattern = t.mem_pattern
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if t.spinning else "0")
    return opts


def make_session(path: str | Path, threads: int | None = None, tuning: SessionTuning | None = None):
    import onnxruntime as ort

    p = Path(path)
    if not p.exists():
        raise ModelError(f"model file not found: {p}")
    opts = session_options(threads, tuning)
    try:
        return ort.InferenceSession(str(p), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises many types for a bad file
        raise ModelError(f"cannot load model {p}: {exc}") from None


def input_size(session) -> tuple[int, int]:
    """(w, h) the model expects: from the input shape, or Ultralytics' metadata when dynamic."""
    shape = session.get_inputs()[0].shape
    if isinstance(shape[2], int) and isinstance(shape[3], int):
        return int(shape[3]), int(shape[2])
    meta = session.get_modelmeta().custom_metadata_map
    h, w = (int(v) for v in meta.get("imgsz", "[640, 640]").strip("[]").split(","))
    return w, h


@dataclass
class Letterbox:
    scale: float
    pad_x: float
    pad_y: float

    def to_source(self, xy: np.ndarray) -> np.ndarray:
        return (xy - [self.pad_x, self.pad_y]) / self.scale


def letterbox(img: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, Letterbox]:
    """Fit `img` into size (w, h) keeping aspect, centred on grey, as Ultralytics trains."""
    h, w = img.shape[:2]
    tw, th = size
    s = min(tw / w, th / h)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(img, (nw, nh), interpolation=interp) if (nw, nh) != (w, h) else img
    px, py = (tw - nw) / 2, (th - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = np.full((th, tw, 3), 114, np.uint8)
    out[top:top + nh, left:left + nw] = resized
    return out, Letterbox(s, left, top)


def to_blob(batch: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 HWC images -> float32 NCHW RGB in [0, 1]."""
    arr = np.stack(batch)[..., ::-1].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(arr, dtype=np.float32) / 255.0


def nms_axis(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Plain NMS on xyxy boxes; returns kept indices, best first. Every pair's overlap is found
    in one step and only the greedy choice loops: a pip crop holds dozens of candidates, and a
    loop of array steps per kept box cost a table frame ~15 ms."""
    order = scores.argsort()[::-1]
    x1, y1, x2, y2 = boxes[order].T
    areas = np.maximum(0, x2 - x1) * np.maximum(0, y2 - y1)
    w = np.maximum(0, np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]))
    h = np.maximum(0, np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]))
    inter = w * h
    over = inter / (areas[:, None] + areas[None] - inter + 1e-9) > iou
    gone = np.zeros(len(order), bool)
    keep = []
    for k in range(len(order)):
        if not gone[k]:
            keep.append(order[k])
            gone |= over[k]
    return np.array(keep, np.int64)


def obb_polygon(cx: float, cy: float, w: float, h: float, r: float) -> np.ndarray:
    return cv2.boxPoints(((float(cx), float(cy)), (float(w), float(h)), float(np.degrees(r)))).astype(np.float32)


def polygon_iou(p: np.ndarray, q: np.ndarray) -> float:
    p, q = np.asarray(p, np.float32), np.asarray(q, np.float32)
    inter, _ = cv2.intersectConvexConvex(p, q)
    a, b = abs(cv2.contourArea(p)), abs(cv2.contourArea(q))
    return float(inter) / (a + b - float(inter) + 1e-9)


def nms_rotated(polys: list[np.ndarray], scores: np.ndarray, iou: float) -> list[int]:
    """Indices of the oriented boxes kept by greedy non-maximum suppression, best first: a box goes
    when one kept before it overlaps it by more than `iou` (exact rotated-rectangle IoU).

    OpenCV's rotated suppression does it; it kept exactly what the hand-written polygon test
    kept on every detector pass over the real photos (hand, webcam and low-seat frames: 92
    passes), in about two thirds of its time."""
    if not len(polys):
        return []
    rects = [cv2.minAreaRect(np.asarray(p, np.float32)) for p in polys]
    # scores are the detector's, already above its own threshold: suppression only (OpenCV drops a
    # score of 0 or less, which no candidate has)
    kept = cv2.dnn.NMSBoxesRotated(rects, np.asarray(scores, np.float32).tolist(), 0.0, float(iou))
    return [int(i) for i in np.asarray(kept).reshape(-1)]


def bounds_meet(polys: list[np.ndarray]) -> np.ndarray:
    """n×n: whether two polygons' upright bounding boxes overlap (a cheap "cannot meet" test)."""
    if not polys:
        return np.zeros((0, 0), bool)
    pts = np.stack([np.asarray(p, np.float32) for p in polys])
    (x0, y0), (x1, y1) = pts.min(1).T, pts.max(1).T
    return (x0[:, None] < x1[None]) & (y0[:, None] < y1[None]) & (x0[None] < x1[:, None]) & (y0[None] < y1[:, None])
