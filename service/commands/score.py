"""`chickenfoot score`: read hand photos and score them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.tiles import SUPPORTED_SETS

from .common import add_model_arg, add_rules_arg, load_recognizer, load_rules


def register(sub) -> None:
    p = sub.add_parser("score", help="read the tiles in hand photos and score them")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="one JSON object per image per line")
    p.add_argument("--annotate", metavar="DIR", help="write a PNG per image with each tile outlined and read")
    add_rules_arg(p)
    p.add_argument("--double-blank", type=int, choices=[0, 25, 50], default=None,
                   help="points for a double-blank (overrides --rules; default 0)")
    p.add_argument("--set", type=int, choices=SUPPORTED_SETS, default=None, dest="set_max",
                   help="the set in use (default: inferred from the values read)")
    add_model_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from vision.annotate import annotate_recognition
    from vision.imageio import ImageError, load_image
    from vision.report import hand_report

    rules = load_rules(args.rules)
    if args.double_blank is not None:
        rules = rules.replace(double_blank_value=args.double_blank)
    recognizer = load_recognizer(args.model)
    outdir = Path(args.annotate) if args.annotate else None
    if outdir:
        outdir.mkdir(parents=True, exist_ok=True)
    failures = 0
    for path in args.images:
        try:
            img = load_image(path)
            rec = recognizer.recognize_loaded(img, args.set_max, level=True)
        except ImageError as exc:
            failures += 1
            print(f"chickenfoot score: {exc}", file=sys.stderr)
            if args.json:
                print(json.dumps({"image": path, "error": str(exc)}))
            continue
        report = hand_report(rec, rules)
        if outdir:
            import cv2

            dest = outdir / (Path(path).stem + ".png")
            cv2.imwrite(str(dest), annotate_recognition(img, rec))
            report["annotated"] = str(dest)
        if args.json:
            print(json.dumps(report))
        else:
            _print_human(report)
    return 1 if failures == len(args.images) else 0


def _print_human(r: dict) -> None:
    tiles = ", ".join(f"{t['pips'][0]}-{t['pips'][1]}" for t in r["tiles"]) or "none"
    print(f"{r['image']}: {len(r['tiles'])} tiles ({tiles})"
          + (f", {r['face_down']} face down" if r["face_down"] else ""))
    print(f"  total {r['total']} pips, score {r['score']}  "
          f"[double-blank counts {r['house_rules']['double_blank_value']}]")
    for w in r["warnings"]:
        print(f"  warning: {w}")
    for t in r["tiles"]:
        for n in t.get("notes", []):
            print(f"  note: {n}")
    if "annotated" in r:
        print(f"  annotated: {r['annotated']}")
