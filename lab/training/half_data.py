"""Training samples for the half reader: one end of a small tile, seen as a webcam sees it.

The pip detector counts dots, which works while dots are dots. On a tile 40-60 px long
(a double-15 table filling a 720p frame) the dots of a 13 or a 15 merge into bars and
blocks and the detector undercounts by two to nine; what is left is the pattern's shape
and size, which a classifier can still tell apart. The samples are cut from rendered
scenes at the size such a camera would see them: the tile's neighbourhood is shrunk so
the tile is `length` px long (log-uniform over `LENGTHS`, never enlarged), sometimes
blurred, JPEG-compressed, then straightened through the reader's own `rectify_tile`
from corners jittered as a detector's are. Each tile gives both ends, each turned so the
divider is at the bottom (`half_inputs`, shared with inference).
"""
from __future__ import annotations

import json
import math
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from vision.halfreader import half_inputs
from vision.rectify import rectify_tile
from vision.types import tile_length

LENGTHS = (24.0, 110.0)
"""Range of simulated tile lengths in source pixels."""
MIN_VISIBLE = 0.9


def _degrade(rng: np.random.Generator, image: np.ndarray, corners: np.ndarray, length: float
             ) -> np.ndarray | None:
    """The tile's straightened crop as a camera seeing it `length` px long would give it."""
    c = np.asarray(corners, np.float32)
    src_len = tile_length(c)
    k = min(1.0, length / max(src_len, 1.0))
    m = 0.35 * src_len
    h, w = image.shape[:2]
    x0, y0 = (int(max(0, v)) for v in np.floor(c.min(0) - m))
    x1, y1 = int(min(w, math.ceil(c[:, 0].max() + m))), int(min(h, math.ceil(c[:, 1].max() + m)))
    roi = image[y0:y1, x0:x1]
    if roi.size == 0:
        return None
    if k < 1.0:
        roi = cv2.resize(roi, (max(8, round(roi.shape[1] * k)), max(8, round(roi.shape[0] * k))),
                         interpolation=cv2.INTER_AREA)
    if rng.random() < 0.4:
        roi = cv2.GaussianBlur(roi, (0, 0), float(rng.uniform(0.3, 0.8)))
    if rng.random() < 0.5:
        noise = rng.normal(0, rng.uniform(1, 5), roi.shape)
        roi = np.clip(roi.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.8:
        ok, buf = cv2.imencode(".jpg", roi, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 96))])
        roi = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    cc = (c - np.array([x0, y0], np.float32)) * np.float32(roi.shape[1] / max(x1 - x0, 1))
    width = float(np.linalg.norm(cc[0] - cc[1]))
    cc = cc + rng.normal(0, 0.04 * width, cc.shape).astype(np.float32)
    ctr = cc.mean(0)
    cc = ctr + (cc - ctr) * np.float32(rng.uniform(0.96, 1.06))
    return rectify_tile(roi, cc)[0]


def scene_samples(args: tuple[str, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, values) for every readable face-up tile of one rendered scene, `versions`
    sizes each, both ends."""
    json_path, versions, seed = args
    meta = json.loads(Path(json_path).read_text())
    image = cv2.imread(str(Path(json_path).with_name(meta["image"])))
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    if image is None:
        return np.zeros((0,), np.uint8), np.zeros((0,), np.int64)
    lo, hi = math.log(LENGTHS[0]), math.log(LENGTHS[1])
    for t in meta["tiles"]:
        if t.get("face_down") or t.get("pip_hidden") or t.get("visible", 1.0) < MIN_VISIBLE:
            continue
        for _ in range(versions):
            crop = _degrade(rng, image, np.array(t["corners"], np.float32), math.exp(rng.uniform(lo, hi)))
            if crop is None:
                continue
            top, bottom = half_inputs(crop)
            xs += [top, bottom]
            ys += [int(t["pips"][0]), int(t["pips"][1])]
    if not xs:
        return np.zeros((0,), np.uint8), np.zeros((0,), np.int64)
    return np.stack(xs), np.array(ys, np.int64)


def build_half_dataset(scene_dirs: list[Path], dest: Path, versions: int = 3, val_share: float = 0.05,
                       seed: int = 0, workers: int = 2, limit: int | None = None) -> dict[str, int]:
    """Write `train.npz` and `val.npz` (x: N×H×W×3 uint8 BGR, y: values) under `dest`; whole
    scenes go to one split, so the validation ends come from scenes never trained on."""
    files = sorted(p for d in scene_dirs for p in Path(d).glob("*.json"))
    if limit:
        files = files[:limit]
    if not files:
        raise ValueError("no rendered scenes (*.json) found in " + ", ".join(map(str, scene_dirs)))
    jobs = [(str(f), versions, seed * 1_000_003 + i) for i, f in enumerate(files)]
    rng = np.random.default_rng(seed)
    is_val = rng.random(len(files)) < val_share
    parts: dict[str, tuple[list, list]] = {"train": ([], []), "val": ([], [])}
    with Pool(workers) as pool:
        for k, (x, y) in enumerate(pool.imap(scene_samples, jobs, chunksize=8)):
            if len(y):
                split = "val" if is_val[k] else "train"
                parts[split][0].append(x)
                parts[split][1].append(y)
    dest.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split, (xs, ys) in parts.items():
        x = np.concatenate(xs) if xs else np.zeros((0,), np.uint8)
        y = np.concatenate(ys) if ys else np.zeros((0,), np.int64)
        np.savez(dest / f"{split}.npz", x=x, y=y)
        counts[split] = int(len(y))
    return counts
