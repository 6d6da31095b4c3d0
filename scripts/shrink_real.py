"""Copies of labelled photos shrunk so their median tile is L px long, to measure small tiles on
real pixels (the dev photos are close-ups; a table photo or a webcam frame shows tiles of 30-60 px).

    python scripts/shrink_real.py ../shared/data/real --lengths 30 40 55 --out /tmp/shrunk
    chickenfoot lab eval /tmp/shrunk/30 --labels ../shared/data/real/labels.json --only photos

The scale comes from the committed models' own boxes on the full-size photo (the labels give no
positions). Nothing is written inside the repository unless --out points there: the photos are
not ours to redistribute.
"""
from __future__ import annotations

import argparse

import cv2
from real_photos import add_photo_args, labelled_photos


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_photo_args(ap)
    ap.add_argument("--lengths", type=int, nargs="+", default=[30, 40, 55])
    args = ap.parse_args()

    for key, img, median in labelled_photos(args):
        if median is None:
            print(f"{key}: no tile found, skipped")
            continue
        for length in args.lengths:
            f = length / median
            size = (max(8, round(img.bgr.shape[1] * f)), max(8, round(img.bgr.shape[0] * f)))
            out = args.out / str(length) / key
            out.parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(out), cv2.resize(img.bgr, size, interpolation=cv2.INTER_AREA),
                        [cv2.IMWRITE_JPEG_QUALITY, 95] if out.suffix.lower() in (".jpg", ".jpeg") else [])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
