"""`chickenfoot audit`: read the layout in a photo of the table and judge it by the rules."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.tiles import SUPPORTED_SETS

from ..cli import UserError
from .common import add_rules_arg, load_rules


def register(sub) -> None:
    p = sub.add_parser("audit", help="read the layout in a table photo and report every rule it breaks")
    p.add_argument("image", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--annotate", metavar="PATH", help="write the photo with the layout and violations drawn (PNG)")
    p.add_argument("--set", type=int, choices=SUPPORTED_SETS, default=None, dest="set_max",
                   help="the set in use (default: inferred from the values read)")
    p.add_argument("--round-double", type=int, default=None, metavar="D",
                   help="the double this round started with, if known (checks the spinner)")
    add_rules_arg(p)
    p.add_argument("--arms", type=int, choices=[4, 6], default=None,
                   help="arms the spinner takes before play goes on (overrides --rules; default 4)")
    p.add_argument("--model", metavar="PATH", help="detector .onnx file or folder holding both models")
    p.add_argument("--explain-block", action="store_true",
                   help="say whether play can go on: each open end's value, how many tiles of it exist, lie on "
                        "the table and could still be in hands (as far as the picture shows)")
    p.set_defaults(func=run)


def run(args) -> int:
    from vision.imageio import ImageError, load_image
    from vision.layout import audit_photo

    if args.round_double is not None and not 0 <= args.round_double <= 18:
        raise UserError(f"--round-double must be between 0 and 18, got {args.round_double}")
    if args.round_double is not None and args.set_max is not None and args.round_double > args.set_max:
        raise UserError(f"--round-double {args.round_double} is not a double of a double-{args.set_max} set")
    rules = load_rules(args.rules)
    if args.arms is not None:
        rules = rules.replace(spinner_arms=args.arms)
    try:
        img = load_image(args.image)
    except ImageError as exc:
        raise UserError(str(exc)) from None
    from .common import load_recognizer

    recognizer = load_recognizer(args.model)
    rec = recognizer.recognize_loaded(img, args.set_max, level=True)
    result = audit_photo(rec, args.set_max or rec.set_max, rules, args.round_double,
                         pixels=img.bgr, to_pixels=1.0 / img.scale).to_dict()
    if args.annotate:
        import cv2

        from vision.annotate_layout import annotate_layout

        dest = Path(args.annotate)
        if dest.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            dest = dest / (Path(args.image).stem + "_audit.png") if dest.is_dir() else dest.with_suffix(".png")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(dest), annotate_layout(img, rec, result)):
            raise UserError(f"cannot write {dest}")
        result["annotated"] = str(dest)
    if args.explain_block:
        from engine.blocked import explain_audit

        proof = explain_audit(result, args.set_max or rec.set_max)
        result["blocked"] = proof.to_dict()
    if args.json:
        print(json.dumps(result))
    else:
        print_report(result)
        if args.explain_block:
            print("\n".join(proof.lines()))
    return 0


def _tile(result: dict[str, Any], tid: int) -> str:
    for t in result["tiles"]:
        if t["id"] == tid and t.get("pips"):
            a, b = t["pips"]
            return f"{max(a, b)}-{min(a, b)} (#{tid})"
    return f"#{tid}"


def print_report(r: dict[str, Any]) -> None:
    """The audit for a person: the tree from the spinner, open ends, violations."""
    print(f"{r.get('image', 'photo')}: {r['message']}")
    lay = r["layout"]
    if lay.get("spinner") is not None:
        kids: dict[int, list[dict[str, Any]]] = {}
        for e in lay["edges"]:
            kids.setdefault(e["to"], []).append(e)
        print(f"  spinner {_tile(r, lay['spinner'])}, {len(lay['arms'])} arm(s)")

        def walk(tid: int, depth: int) -> None:
            for e in sorted(kids.get(tid, []), key=lambda x: x["from"]):
                mark = "" if e["from_pips"] == e["to_pips"] else f"   <-- {e['from_pips']} against {e['to_pips']}"
                print(f"  {'  ' * depth}{e['to_pips']} <- {_tile(r, e['from'])}{mark}")
                walk(e["from"], depth + 1)

        walk(lay["spinner"], 1)
        for c in lay["chickies"]:
            state = "complete" if not c["missing"] else f"needs {c['missing']} more toe(s)"
            print(f"  chickie {_tile(r, c['tile'])}: {len(c['toes'])} toe(s), {state}")
    if r["open_ends"]:
        print("  open ends:")
        for o in r["open_ends"]:
            when = f"takes a {o['value']} now" if o["playable_now"] else "must wait (a double elsewhere is unfinished)"
            count = f" ({o['free']} places)" if o["free"] > 1 else ""
            print(f"    {o['value']} on {_tile(r, o['tile'])}{count}: {when}")
    if r["violations"]:
        print(f"  {len(r['violations'])} violation(s):")
        for v in r["violations"]:
            print(f"    [{v['rule']}] {v['message']} (tiles {', '.join(map(str, v['tiles']))})")
            if v.get("unless_missed"):
                beside = ", ".join(_tile(r, d) for d in v["unless_missed"])
                print(f"      unproven: a tile the detector missed beside {beside} would explain this as well; "
                      "nothing in the picture shows the place is empty")
            elif v.get("photo_checked"):
                print("      the photo shows bare table where the missing tile would lie")
    elif lay.get("spinner") is not None:
        print("  no violations")
    for g in r.get("gaps", []):
        print(f"  gap: {g['message']}")
    for a in r.get("ambiguities", []):
        print(f"  ambiguous: {a}")
    if r["loose_tiles"]:
        print(f"  {len(r['loose_tiles'])} loose tile(s) apart from the layout (hands, boneyard)")
    for w in r.get("warnings", []):
        print(f"  warning: {w}")
    if "annotated" in r:
        print(f"  annotated: {r['annotated']}")
