"""`chickenfoot lab eval`: measure the recognizer on labelled photos."""
from __future__ import annotations

import json
from pathlib import Path

from engine.tiles import SUPPORTED_SETS

from service.commands.common import add_model_arg, load_recognizer
from service.errors import UserError

from lab.tuning_file import Tuning, add_config_arg, load_config_arg, tuning_line


def register(sub) -> None:
    p = sub.add_parser("eval", help="measure recognition on labelled photos (labels.json format)")
    p.add_argument("folder", metavar="DIR", help="folder the labels' paths are relative to")
    p.add_argument("--labels", help="labels.json (photos with several tiles)")
    p.add_argument("--single-tiles", action="store_true",
                   help="DIR holds photos of one tile each, named by tile (3x1/*.jpg or 10-12.jpg)")
    p.add_argument("--per-class", type=int, default=None, help="with --single-tiles: at most N photos per tile")
    p.add_argument("--set", type=int, choices=SUPPORTED_SETS, default=None, dest="set_max")
    add_model_arg(p)
    p.add_argument("--only", help="evaluate only images whose path contains this text")
    p.add_argument("--json", action="store_true", help="print the summary and per-image rows as JSON")
    p.add_argument("--rendered", action="store_true",
                   help="DIR holds rendered scenes (scene JSON with corners) instead of labels.json photos")
    add_config_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from lab.evaluate import eval_labelled, eval_rendered, eval_single_tiles

    tuning = load_config_arg(args.config)
    rec = load_recognizer(args.model, tuning.recognizer)
    ran_with = Tuning(rec.config, tuning.tracker, tuning.audit)
    if args.rendered:
        print(json.dumps({**eval_rendered(Path(args.folder), rec), "config": ran_with.to_dict()}, indent=2))
        return 0
    if args.single_tiles:
        found = eval_single_tiles(Path(args.folder), rec, args.per_class, args.set_max)
        print(json.dumps({**found, "config": ran_with.to_dict()}, indent=2))
        return 0
    if not args.labels:
        raise UserError("give --labels labels.json (or --single-tiles / --rendered)")
    labels = Path(args.labels)
    if not labels.exists():
        raise UserError(f"labels file not found: {labels}")
    try:
        summary, rows = eval_labelled(Path(args.folder), labels, rec, args.only)
    except json.JSONDecodeError as exc:
        raise UserError(f"{labels} is not valid JSON: {exc}") from None
    if args.json:
        print(json.dumps({"summary": summary, "images": [r.__dict__ for r in rows], "config": ran_with.to_dict()},
                         indent=2))
        return 0
    print(f"{'image':44s} {'true':>4s} {'found':>5s} {'exact':>5s} {'ends':>5s} {'total':>11s}")
    for r in rows:
        if r.error:
            print(f"{r.image:44s} ERROR {r.error}")
            continue
        mark = "ok" if r.true_total == r.found_total else "xx"
        print(f"{r.image:44s} {r.true_tiles:4d} {r.found_tiles:5d} {r.exact:5d} {r.ends_right:5d}"
              f" {r.found_total:4d}/{r.true_total:<4d} {mark}")
        wrong = _diff(r.read, r.truth)
        if wrong:
            print(f"{'':44s} read-not-true {wrong[0]}  true-not-read {wrong[1]}")
        if r.true_face_down is not None and r.found_face_down != r.true_face_down:
            print(f"{'':44s} face down: found {r.found_face_down}, labelled {r.true_face_down}")
    print()
    for k, v in summary.items():
        print(f"{k:18s} {v}")
    print(tuning_line(ran_with, args.config))
    return 0


def _diff(read: list[list[int]], truth: list[list[int]]) -> tuple[list, list] | None:
    from collections import Counter

    r = Counter(tuple(sorted(t)) for t in read)
    t = Counter(tuple(sorted(x)) for x in truth)
    extra, missing = sorted((r - t).elements()), sorted((t - r).elements())
    return (extra, missing) if extra or missing else None
