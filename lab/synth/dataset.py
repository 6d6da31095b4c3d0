"""Render scenes to disk in the formats the trainers need, in parallel, reproducibly.

Scene `i` of a run is drawn from `SeedSequence([seed, i])`, so the output does not
depend on how many worker processes share the work.

Layout of an output folder:
  scenes/<name>.jpg + scenes/<name>.json   full-resolution image and every label (JSON)
  detect/images/{train,val}/<name>.jpg     detector images (long side <= DETECT_MAX)
  detect/labels/{train,val}/<name>.txt     YOLO OBB: class x1 y1 ... x4 y4 (normalised)
  detect/data.yaml
  pips/images/{train,val}/<name>_<k>.png   rectified tile crops (vision.rectify)
  pips/labels/{train,val}/<name>_<k>.txt   YOLO detect: 0 cx cy w h per visible pip
  pips/data.yaml
"""
from __future__ import annotations

import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.rectify import CROP_L, CROP_W, rectify_tile

from .scene import Scene, render_hand
from .table import LayoutFailed

DETECT_MAX = 640
DETECT_CLASSES = {0: "tile", 1: "back"}
RANDOM_SIZES = [(1280, 960), (960, 1280), (1280, 720), (720, 1280), (1024, 1024), (640, 480)]
MIN_VISIBLE = 0.45  # tiles less visible than this are not labelled (nor asked of the model)


@dataclass
class SynthJob:
    out: str
    kind: str
    seed: int
    size: tuple[int, int] | None  # None: a random phone or webcam aspect per scene
    set_max: int | None
    val_every: int = 10
    detect: bool = True
    pips: bool = True
    scenes: bool = True
    face: str | None = None
    """`random_style`'s: None for sets drawn at random, "hue-coded" for pips told by hue only."""
    steep: bool = False
    """`random_camera`'s: a camera 35-62 degrees off straight down instead of nearly straight down."""


def render_kind(kind: str, rng: np.random.Generator, size: tuple[int, int], set_max: int | None,
                face: str | None = None, steep: bool = False) -> Scene:
    if kind == "hand":
        return render_hand(rng, size, set_max, face=face, steep=steep)
    if kind == "table":
        from .table import render_table

        return render_table(rng, size, set_max, face=face, steep=steep)
    if kind in ("hand3d", "table3d"):  # boxes seen by a pinhole camera (lab/synth/render3d.py)
        from .render3d import render_hand3d, render_table3d

        render = render_hand3d if kind == "hand3d" else render_table3d
        return render(rng, size, set_max, face=face, steep=steep)
    raise ValueError(f"unknown scene kind {kind!r} (expected hand, table, hand3d or table3d)")


def _detect_label_lines(scene: Scene, w: int, h: int) -> list[str]:
    lines = []
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    for t in scene.tiles:
        if t.visible < MIN_VISIBLE:
            continue
        c = t.corners
        if (c < 0).any() or (c[:, 0] > w).any() or (c[:, 1] > h).any():
            # cut by the frame: box what is in view
            _, poly = cv2.intersectConvexConvex(c.astype(np.float32), frame)
            if poly is None or len(poly) < 3:
                continue
            c = cv2.boxPoints(cv2.minAreaRect(poly.reshape(-1, 2)))
        c = np.clip(c / [w, h], 0, 1)
        cls = 1 if t.face_down else 0
        lines.append(f"{cls} " + " ".join(f"{v:.5f}" for v in c.reshape(-1)))
    return lines


def jitter_corners(rng: np.random.Generator, corners: np.ndarray, amount: float = 0.035) -> np.ndarray:
    """Corners as a detector would give them: a little off, sometimes turned end for end."""
    c = np.asarray(corners, np.float32)
    width = np.linalg.norm(c[0] - c[1])
    c = c + rng.normal(0, amount * width, c.shape).astype(np.float32)
    ctr = c.mean(0)
    c = ctr + (c - ctr) * rng.uniform(0.96, 1.06)
    if rng.random() < 0.5:
        c = c[[2, 3, 0, 1]]
    return c


def _pip_crops(scene: Scene, rng: np.random.Generator) -> list[tuple[np.ndarray, list[str]]]:
    out = []
    for t in scene.tiles:
        if t.visible < 0.8 or (t.pip_hidden and not t.face_down):
            continue
        corners = jitter_corners(rng, t.corners)
        crop, hm = rectify_tile(scene.image, corners)
        lines = []
        if not t.face_down:
            for x, y, r, _half in t.pip_points:
                p = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), hm)[0, 0]
                q = cv2.perspectiveTransform(np.array([[[x + r, y]], [[x, y + r]]], np.float64), hm)[:, 0]
                rr = max(np.linalg.norm(q[0] - p), np.linalg.norm(q[1] - p), 1.5)
                if 0 <= p[0] < CROP_W and 0 <= p[1] < CROP_L:
                    lines.append(f"0 {p[0] / CROP_W:.5f} {p[1] / CROP_L:.5f} {2 * rr / CROP_W:.5f} {2 * rr / CROP_L:.5f}")
        out.append((crop, lines))
    return out


SCENE_RETRIES = 5


def render_one(job: SynthJob, index: int) -> dict:
    for retry in range(SCENE_RETRIES):
        # retry 0 is the scene's own seed (reproducible); a table the planner cannot lay out
        # (a double-18 round boxed into a narrow picture) is drawn again from a derived one
        rng = np.random.default_rng(np.random.SeedSequence([job.seed, index] + ([retry] if retry else [])))
        size = job.size or RANDOM_SIZES[int(rng.integers(0, len(RANDOM_SIZES)))]
        try:
            scene = render_kind(job.kind, rng, size, job.set_max, job.face, job.steep)
            break
        except LayoutFailed:
            if retry == SCENE_RETRIES - 1:
                raise
    name = f"{job.kind}_{job.seed}_{index:06d}"
    split = "val" if index % job.val_every == job.val_every - 1 else "train"
    root = Path(job.out)
    h, w = scene.image.shape[:2]
    if job.scenes:
        if scene.jpeg is not None:
            (root / "scenes" / f"{name}.jpg").write_bytes(scene.jpeg)
        else:
            cv2.imwrite(str(root / "scenes" / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (root / "scenes" / f"{name}.json").write_text(json.dumps({"image": f"{name}.jpg", **scene.to_dict()}))
    if job.detect:
        f = min(1.0, DETECT_MAX / max(h, w))
        small = cv2.resize(scene.image, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA) if f < 1 else scene.image
        cv2.imwrite(str(root / "detect" / "images" / split / f"{name}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (root / "detect" / "labels" / split / f"{name}.txt").write_text("\n".join(_detect_label_lines(scene, w, h)))
    n_crops = 0
    if job.pips:
        for k, (crop, lines) in enumerate(_pip_crops(scene, rng)):
            cv2.imwrite(str(root / "pips" / "images" / split / f"{name}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
            (root / "pips" / "labels" / split / f"{name}_{k}.txt").write_text("\n".join(lines))
            n_crops += 1
    return {"tiles": len(scene.tiles), "crops": n_crops}


def _prepare(out: Path) -> None:
    for sub in ("scenes",):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for ds in ("detect", "pips"):
        for split in ("train", "val"):
            (out / ds / "images" / split).mkdir(parents=True, exist_ok=True)
            (out / ds / "labels" / split).mkdir(parents=True, exist_ok=True)
    (out / "detect" / "data.yaml").write_text(
        f"path: {(out / 'detect').resolve()}\ntrain: images/train\nval: images/val\nnames:\n"
        + "".join(f"  {k}: {v}\n" for k, v in DETECT_CLASSES.items()))
    (out / "pips" / "data.yaml").write_text(
        f"path: {(out / 'pips').resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: pip\n")


def _worker(args: tuple[SynthJob, int]) -> dict:
    cv2.setNumThreads(1)
    return render_one(*args)


def generate(job: SynthJob, count: int, workers: int | None = None, start: int = 0, progress: bool = True) -> dict:
    """Render `count` scenes; returns counts and the measured speed."""
    out = Path(job.out)
    _prepare(out)
    workers = workers or min(2, os.cpu_count() or 1)
    t0 = time.perf_counter()
    tiles = crops = 0
    tasks = [(job, i) for i in range(start, start + count)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=count, desc=f"synth {job.kind}", unit="img")
    if workers <= 1:
        results = map(_worker, tasks)
        for r in results:
            tiles += r["tiles"]
            crops += r["crops"]
            bar and bar.update(1)
    else:
        with ProcessPoolExecutor(workers) as ex:
            for r in ex.map(_worker, tasks, chunksize=4):
                tiles += r["tiles"]
                crops += r["crops"]
                bar and bar.update(1)
    bar and bar.close()
    secs = time.perf_counter() - t0
    return {"images": count, "tiles": tiles, "crops": crops, "seconds": round(secs, 2),
            "images_per_second": round(count / secs, 2) if secs else None}
