"""`chickenfoot lab synth`: render training scenes with exact labels."""
from __future__ import annotations

import argparse
import json

from engine.tiles import SUPPORTED_SETS

from service.errors import UserError


def _size(text: str) -> tuple[int, int] | None:
    if text.lower() == "random":
        return None  # a phone or webcam aspect drawn per scene, as the training sets use
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x960, not {text!r}") from None
    if not (64 <= w <= 8000 and 64 <= h <= 8000):
        raise argparse.ArgumentTypeError("width and height must be between 64 and 8000")
    return w, h


def register(sub) -> None:
    p = sub.add_parser("synth", help="render synthetic domino scenes with labels")
    p.add_argument("--kind", choices=["hand", "table", "sequence", "hand3d", "table3d"], default="hand",
                   help="hand/table: flat sprites under one homography; hand3d/table3d: tiles as 3D boxes "
                        "(racks, stacks, standing tiles) seen by a pinhole camera 10-90 degrees above the table")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--set", type=int, choices=SUPPORTED_SETS, default=None, dest="set_max",
                   help="set size (default: a mix of all)")
    p.add_argument("--size", type=_size, default=(1280, 960), help="image size WxH, or 'random' for a mix of phone and webcam sizes (default 1280x960)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores, at most 2)")
    p.add_argument("--no-crops", action="store_true", help="skip the pip-reader crops")
    p.add_argument("--face", choices=["random", "hue-coded"], default="random",
                   help="tile faces: drawn at random (default), or coloured with pips told from them by hue only")
    p.add_argument("--camera", choices=["default", "steep"], default="default",
                   help="nearly straight down (default), or steep: 35-62 degrees off straight down, as a phone "
                        "held by someone seated at the table (for hand3d/table3d: a camera 10-45 degrees above the table)")
    p.add_argument("--contact-sheet", metavar="PNG", help="also write a contact sheet of the first scenes")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.count < 1:
        raise UserError("--count must be at least 1")
    if args.kind == "sequence":
        from lab.synth.sequence import generate_sequences

        stats = generate_sequences(args.out, args.count, args.seed, args.size, args.set_max)
    else:
        from lab.synth.dataset import SynthJob, generate

        from lab.synth.table import LayoutFailed

        job = SynthJob(args.out, args.kind, args.seed, args.size, args.set_max, pips=not args.no_crops,
                       face=None if args.face == "random" else args.face, steep=args.camera == "steep")
        try:
            stats = generate(job, args.count, workers=args.workers)
        except LayoutFailed as exc:
            raise UserError(f"{exc} (try another --size or --seed); the scenes rendered so far are in {args.out}") \
                from None
    if args.contact_sheet:
        from lab.synth.contact import contact_sheet

        contact_sheet(args.out, args.contact_sheet)
        stats["contact_sheet"] = args.contact_sheet
    print(json.dumps(stats))
    print(f"rendered {stats['images']} images in {stats['seconds']} s: {stats['images_per_second']} images/s")
    return 0
