"""Windows cut from rendered table scenes, for teaching the detector tables at the scale it meets them.

The detector is trained at 320 px on pictures stored at most 640 px long, so a whole table
reached it at a quarter of its rendered size: tiles 10-15 px long, laid end to end in arms.
At run time a table gets the detector's second, zoomed pass (up to 960 px), where the same
tiles are 30-45 px: a size the detector learnt only from hands, never in touching chains. A
window of a few hundred pixels around the layout, shrunk to 320, shows the chains at that size.
"""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from lab.synth.dataset import DETECT_CLASSES, MIN_VISIBLE

MIN_INSIDE = 0.7
"""A tile with less of its area inside the window is left unlabelled (a cut tile is not a tile)."""


def _window_labels(tiles: list[dict], x0: int, y0: int, side: int) -> list[str]:
    frame = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    lines = []
    for t in tiles:
        if t["visible"] < MIN_VISIBLE:
            continue
        c = (np.array(t["corners"], np.float32) - [x0, y0]).astype(np.float32)
        area = abs(cv2.contourArea(c))
        if area < 1:
            continue
        inside, poly = cv2.intersectConvexConvex(c, frame)
        if poly is None or len(poly) < 3 or inside / area < MIN_INSIDE:
            continue
        if inside / area < 0.999:
            c = cv2.boxPoints(cv2.minAreaRect(poly.reshape(-1, 2)))
        c = np.clip(c / side, 0, 1)
        lines.append(f"{1 if t['face_down'] else 0} " + " ".join(f"{v:.5f}" for v in c.reshape(-1)))
    return lines


def cut_windows(scene_json: Path, rng: np.random.Generator, per_scene: int, out_px: int,
                side_range: tuple[float, float]) -> list[tuple[np.ndarray, list[str]]]:
    """`per_scene` square windows centred near random face-up tiles, each shrunk to `out_px`."""
    lab = json.loads(scene_json.read_text())
    img = cv2.imread(str(scene_json.with_name(lab["image"])))
    if img is None:
        return []
    h, w = img.shape[:2]
    faces = [t for t in lab["tiles"] if not t["face_down"]] or lab["tiles"]
    out = []
    for _ in range(per_scene):
        side = int(min(rng.uniform(*side_range), h, w))
        t = faces[int(rng.integers(0, len(faces)))]
        cx, cy = np.mean(t["corners"], axis=0) + rng.normal(0, side * 0.2, 2)
        x0 = int(np.clip(cx - side / 2, 0, w - side))
        y0 = int(np.clip(cy - side / 2, 0, h - side))
        win = cv2.resize(img[y0:y0 + side, x0:x0 + side], (out_px, out_px), interpolation=cv2.INTER_AREA)
        out.append((win, _window_labels(lab["tiles"], x0, y0, side)))
    return out


def _cut_scene(args: tuple) -> list[tuple[str, str, np.ndarray, list[str]]]:
    f, seed, index, per_scene, out_px, side_range, val_every = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng(np.random.SeedSequence([seed, index]))
    split = "val" if int(f.stem.rsplit("_", 1)[1]) % val_every == val_every - 1 else "train"
    return [(split, f"{f.stem}_w{k}", win, lines)
            for k, (win, lines) in enumerate(cut_windows(f, rng, per_scene, out_px, side_range))]


def window_dataset(scene_dirs: list[Path], dest: Path, seed: int = 0, per_scene: int = 3, out_px: int = 320,
                   side_range: tuple[float, float] = (360, 640), val_every: int = 10, workers: int = 1) -> Path:
    """Cut windows from every scene under `scene_dirs` into `dest/detect/{images,labels}/{train,val}`.
    A scene keeps the split its set gave it (every `val_every`-th index is validation), so a
    window never shows a held-out table to training. Scene `i` draws its windows from
    `SeedSequence([seed, i])`, so the output does not depend on `workers`."""
    from concurrent.futures import ProcessPoolExecutor

    root = Path(dest) / "detect"
    for sub in ("images", "labels"):
        for split in ("train", "val"):
            (root / sub / split).mkdir(parents=True, exist_ok=True)
    files = [f for d in scene_dirs for f in sorted(Path(d).glob("*.json"))]
    tasks = [(f, seed, i, per_scene, out_px, side_range, val_every) for i, f in enumerate(files)]

    def save(cut: list) -> None:
        for split, name, win, lines in cut:
            cv2.imwrite(str(root / "images" / split / f"{name}.jpg"), win, [cv2.IMWRITE_JPEG_QUALITY, 92])
            (root / "labels" / split / f"{name}.txt").write_text("\n".join(lines))

    if workers <= 1:
        for t in tasks:
            save(_cut_scene(t))
    else:
        with ProcessPoolExecutor(workers) as ex:
            for cut in ex.map(_cut_scene, tasks, chunksize=8):
                save(cut)
    (root / "data.yaml").write_text(
        f"path: {root.resolve()}\ntrain: images/train\nval: images/val\nnames:\n"
        + "".join(f"  {k}: {v}\n" for k, v in DETECT_CLASSES.items()))
    return root / "data.yaml"


def table_stage_yaml(window_root: Path, samples: list[tuple[Path, int, int]], dest: Path, seed: int = 0,
                     window_val: int = 160) -> Path:
    """The detector's table stage data: every training window, plus `(set root, train count,
    val count)` images sampled from earlier sets (hands, whole tables) so that what the
    detector learnt there is kept. Ultralytics reads image lists, so nothing is copied."""
    import random

    rnd = random.Random(seed)
    dest.mkdir(parents=True, exist_ok=True)

    def images(folder: Path) -> list[str]:
        return sorted(str(p.resolve()) for p in folder.glob("*.jpg"))

    train = images(window_root / "detect" / "images" / "train")
    val = images(window_root / "detect" / "images" / "val")[:window_val]
    picked: dict[str, list[str]] = {"train": [], "val": []}
    for root, n_train, n_val in samples:
        files = images(Path(root) / "detect" / "images" / "train")
        rnd.shuffle(files)
        picked["train"] += files[:n_train]
        picked["val"] += images(Path(root) / "detect" / "images" / "val")[:n_val]
    (dest / "train.txt").write_text("\n".join(train + picked["train"]))
    (dest / "val.txt").write_text("\n".join(val + picked["val"]))
    y = dest / "table_stage.yaml"
    y.write_text(f"path: {dest.resolve()}\ntrain: {(dest / 'train.txt').resolve()}\n"
                 f"val: {(dest / 'val.txt').resolve()}\nnames:\n"
                 + "".join(f"  {k}: {v}\n" for k, v in DETECT_CLASSES.items()))
    return y
