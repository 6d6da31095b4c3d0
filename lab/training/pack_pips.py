"""Pip-reader training images with two tile crops side by side, as the reader packs them.

A straightened crop (`vision.rectify`, 80×160) fills half of the reader's square 160 input;
the reader puts two crops in one input to halve its cost (`PipReader._layout`). A model
trained only on single letterboxed crops reads worse when packed (measured: exact tile on the
real photos 0.978 → 0.933), so it is fine-tuned on packed images made here from the same
rendered crops. Some inputs keep a single centred crop, as the reader sends for an odd count.
"""
from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np

from vision.pipreader import PACK_KEY, pack_offsets
from vision.rectify import CROP_L, CROP_W

SIDE = 2 * CROP_W  # the packed input is square: two crops wide, one crop long
SINGLE_RATE = 0.15


def _crop_files(sources: list[tuple[Path, int]], split: str, rng: random.Random) -> list[Path]:
    """Up to n crops of `split` from each (rendered set, n), drawn at random, then mixed."""
    files: list[Path] = []
    for root, n in sources:
        pool = sorted((root / "pips" / "images" / split).glob("*.jpg"))
        files += rng.sample(pool, min(n, len(pool)))
    rng.shuffle(files)
    return files


def _labels(img: Path) -> list[list[float]]:
    lab = img.parent.parent.parent / "labels" / img.parent.name / (img.stem + ".txt")
    if not lab.exists():
        return []
    return [[float(v) for v in line.split()] for line in lab.read_text().splitlines() if line.strip()]


def pack_pip_dataset(train: list[tuple[Path, int]], val: list[tuple[Path, int]], dest: Path, seed: int = 0) -> Path:
    """Write packed images and YOLO labels under `dest` from (rendered set, crop count) sources
    for each split; return its data.yaml."""
    rng = random.Random(seed)
    for split, sources in (("train", train), ("val", val)):
        files = _crop_files(sources, split, rng)
        (dest / "images" / split).mkdir(parents=True, exist_ok=True)
        (dest / "labels" / split).mkdir(parents=True, exist_ok=True)
        i = k = 0
        while i < len(files):
            n = 1 if rng.random() < SINGLE_RATE or i + 1 == len(files) else 2
            group = files[i:i + n]
            i += n
            canvas = np.full((CROP_L, SIDE, 3), 114, np.uint8)
            rows = []
            for x0, f in zip(pack_offsets(len(group), SIDE), group):
                crop = cv2.imread(str(f))
                if crop is None or crop.shape[:2] != (CROP_L, CROP_W):
                    continue
                canvas[:, x0:x0 + CROP_W] = crop
                for c, x, y, w, h in _labels(f):
                    rows.append(f"{int(c)} {(x0 + x * CROP_W) / SIDE:.5f} {y:.5f} {w * CROP_W / SIDE:.5f} {h:.5f}")
            name = f"pack_{k:06d}"
            cv2.imwrite(str(dest / "images" / split / f"{name}.jpg"), canvas, [cv2.IMWRITE_JPEG_QUALITY, 95])
            (dest / "labels" / split / f"{name}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
            k += 1
    y = dest / "data.yaml"
    y.write_text(f"path: {dest.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: pip\n")
    return y


def mark_packed(model: Path) -> Path:
    """Record in the exported model that it reads two crops per input; the reader packs only
    for models that say so (`PipReader`), so a model trained on single crops still reads right."""
    import onnx

    m = onnx.load(str(model))
    props = {p.key: p for p in m.metadata_props}
    if PACK_KEY in props:
        props[PACK_KEY].value = "2"
    else:
        m.metadata_props.add(key=PACK_KEY, value="2")
    onnx.save(m, str(model))
    return model
