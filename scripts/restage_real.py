"""Copies of labelled photos with their tiles moved onto other tables: the real tiles, cut out along
their boxes, laid over a synthesised surface (`lab.synth.background`), to see what the
recognizer loses on real tiles over tables the development photos do not show (white paper as
pale as the faces, light wood, checks, marble, a woven mat).

    python scripts/restage_real.py ../shared/data/real --out /tmp/restaged
    for d in /tmp/restaged/*/; do chickenfoot lab eval $d --labels ../shared/data/real/labels.json --only photos; done

The cut-outs come from the committed models' boxes on the untouched photo (every tile of the 16
labelled photos is found there, backs included), each widened by 4 % of the tile's width and
feathered over a few pixels, so the tile's rounded corners and edge come along with a thin rim of
the old table (read as the tile's own shadow). A photo in which no tile is found is copied as it is.
Each surface is drawn from its own fixed seed and the photo's size, so a copy is the same on
every run. Nothing is written inside the repository unless --out points there: the photos are not
ours to redistribute.
"""
from __future__ import annotations

import argparse
import statistics

import cv2
import numpy as np
from real_photos import add_photo_args, labelled_reads

SURFACES = {"paper": 1, "wood": 2, "pattern": 3, "marble": 4, "weave": 5, "cloth": 6}
RIM = 0.04
"""Share of a tile's width its cut-out reaches beyond its box."""


def restaged(bgr: np.ndarray, boxes: list[np.ndarray], kind: str) -> np.ndarray:
    """`bgr` with everything outside the widened `boxes` (corners in its pixels) replaced by a
    surface of `kind`."""
    from lab.synth.background import surface
    from vision.types import tile_length

    h, w = bgr.shape[:2]
    if not boxes:
        return bgr
    width = statistics.median(tile_length(c) for c in boxes) / 2
    mask = np.zeros((h, w), np.uint8)
    for c in boxes:
        centre = c.mean(0)
        grown = centre + (c - centre) * (1 + 2 * RIM * width / max(tile_length(c), 1.0))
        cv2.fillPoly(mask, [np.round(grown).astype(np.int32)], 255)
    alpha = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), max(1.0, 0.03 * width))[..., None]
    rng = np.random.default_rng(SURFACES[kind] * 1_000_003 + h * 7919 + w)
    table = surface(rng, h, w, width, kind)[..., ::-1]  # RGB -> BGR
    return np.clip(bgr.astype(np.float32) * alpha + table * (1 - alpha), 0, 255).astype(np.uint8)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_photo_args(ap)
    ap.add_argument("--surfaces", nargs="+", default=list(SURFACES), choices=list(SURFACES))
    args = ap.parse_args()

    for key, img, found in labelled_reads(args):
        boxes = [t.corners / img.scale for t in found.tiles + found.face_down]
        for kind in args.surfaces:
            out = args.out / kind / key
            out.parent.mkdir(parents=True, exist_ok=True)
            jpg = out.suffix.lower() in (".jpg", ".jpeg")
            cv2.imwrite(str(out), restaged(img.bgr, boxes, kind), [cv2.IMWRITE_JPEG_QUALITY, 95] if jpg else [])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
