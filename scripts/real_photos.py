"""What the scripts that write changed copies of the labelled real photos share: their arguments,
and each photo with the median length of the tiles the committed models find in it."""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Iterator


def add_photo_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("root", type=Path, help="folder the labels' paths are relative to")
    ap.add_argument("--labels", type=Path, help="labels.json (default: ROOT/labels.json)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", default="photos/", help="label keys starting with this")


def labelled_reads(args: argparse.Namespace) -> Iterator[tuple[str, object, object]]:
    """(label key, loaded photo, the committed models' `Recognition` of it) for each labelled photo
    whose key starts with `--only`: the labels give no positions, so where the tiles lie and how
    long they are comes from the models' own boxes on the untouched photo."""
    from vision.imageio import load_image
    from vision.recognize import Recognizer

    labels = json.loads((args.labels or args.root / "labels.json").read_text())
    rec = Recognizer()
    for key in labels:
        if not key.startswith(args.only):
            continue
        img = load_image(str(args.root / key))
        yield key, img, rec.recognize_loaded(img)


def labelled_photos(args: argparse.Namespace) -> Iterator[tuple[str, object, float | None]]:
    """(label key, loaded photo, median tile length in the loaded picture's pixels or None when no
    tile is found) for each labelled photo whose key starts with `--only`. A large JPEG is decoded
    at a fraction of its size (`LoadedImage.scale`), and the boxes' corners are in the photo's full
    pixels: the length is divided by that scale, or copies of the six 2.7k-4k photos are shrunk to
    half the tile length named (the 25-px copy of pipcounter_86 came out 33x44 px,
    its tiles 12 px long)."""
    from vision.types import tile_length

    for key, img, read in labelled_reads(args):
        found = read.tiles
        yield key, img, statistics.median(tile_length(t.corners) / img.scale for t in found) if found else None
