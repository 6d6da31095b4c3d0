"""What each recognizer stage does on the labelled real photos: the recognizer run with each
optional stage left out in turn, scored by tile identity against the labels.

    python scripts/stage_ablation.py [--real DIR] [--stages NAME,...] [--sets NAME,...] [--unlabelled]
                                     [--rendered SCENES ...] [--json OUT]

Every `labels.json` under DIR (default ../shared/data/real) is a photo set (the root's labels
split by their first folder): each photo is read as `chickenfoot score` reads it (levelled,
no set declared) and scored as `../shared/tools/score_photos.py` scores it (identity recall
and precision; a labelled `standing` or `unreadable` tile is neither required nor counted
against precision, up to their count). Prints a table of stage x set: recall and precision
without the stage, and how many photos read other tiles than with every stage. A stage that
changes nothing anywhere shows `=`. `--unlabelled`: folders of pictures with no labels (the
webcam shots) are sets too, measured by the photos changed alone. `--rendered SCENES`: a folder
of rendered scenes (`chickenfoot lab synth ... --no-crops --out D`, then D/scenes) is a set too,
read with its set declared and scored as `chickenfoot lab eval --rendered` scores it (tiles
matched by overlap; recall, precision and exact tile). Lab only: slow (the whole set once per
stage).
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}


def photo_sets(real: Path, unlabelled: bool = False) -> dict[str, list[tuple[Path, dict | None]]]:
    """Set name -> [(photo path, its label)], for every labels.json under `real`; with
    `unlabelled`, also every folder of pictures no labels.json names (label None)."""
    sets: dict[str, list[tuple[Path, dict | None]]] = collections.defaultdict(list)
    for labels in sorted(real.rglob("labels.json")):
        folder = labels.parent
        for key, label in json.loads(labels.read_text()).items():
            path = folder / key
            if not path.exists():
                continue
            name = folder.name if folder != real else Path(key).parts[0]
            sets[name].append((path, label))
    if unlabelled:
        named = {p for photos in sets.values() for p, _ in photos}
        for folder in sorted(p for p in real.iterdir() if p.is_dir()):
            loose = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p not in named)
            if loose and folder.name not in sets:
                sets[folder.name] = [(p, None) for p in loose]
    return dict(sets)


def score(found: list[list[tuple[int, int]]], labels: list[dict | None]) -> dict[str, float | None]:
    """Identity recall and precision of the tiles `found` on each photo (the way
    `score_photos.py` counts them); None for a set without labels."""
    if any(label is None for label in labels):
        return {"recall": None, "precision": None}
    gt_n = pred_n = matched = 0
    for tiles, label in zip(found, labels):
        gt = collections.Counter(tuple(sorted(t)) for t in label["tiles"])
        pred = collections.Counter(tiles)
        m = sum((gt & pred).values())
        dont_care = label.get("standing", 0) + label.get("unreadable", 0)
        extra = max(0, sum(pred.values()) - m - dont_care)
        gt_n += sum(gt.values())
        pred_n += m + extra
        matched += m
    return {"recall": matched / gt_n if gt_n else 0.0, "precision": matched / pred_n if pred_n else 0.0}


def read_set(rec, photos: list[tuple[Path, dict]]) -> list[list[tuple[int, int]]]:
    from vision.imageio import load_image
    from vision.recognize import tile_identities

    return [tile_identities(rec.recognize_loaded(load_image(str(path)), None, level=True)) for path, _ in photos]


def read_rendered(rec, scenes: Path) -> tuple[list[list[tuple[int, int]]], dict[str, float | None]]:
    """Each rendered scene's tiles as read, and the set's scores the way `lab eval --rendered`
    counts them (`lab.evaluate.score_rendered`)."""
    from lab.evaluate import score_rendered

    found, scores = [], []
    for f in sorted(scenes.glob("*.json")):
        label = json.loads(f.read_text())
        tiles = rec.recognize(scenes / label["image"], set_max=label["set"]).tiles
        found.append(sorted(tuple(sorted(t.pips)) for t in tiles))
        scores.append(score_rendered(label["tiles"], [(t.corners, t.pips) for t in tiles]))
    n = sum(s.true_tiles for s in scores)
    tp = sum(s.matched for s in scores)
    fp = sum(s.extra for s in scores)
    return found, {"recall": tp / n if n else 0.0, "precision": tp / (tp + fp) if tp + fp else 0.0,
                   "exact": sum(s.exact for s in scores) / n if n else 0.0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=ROOT.parent / "shared" / "data" / "real")
    ap.add_argument("--stages", default="", help="only these optional stages (comma-separated names)")
    ap.add_argument("--sets", default="", help="only these photo sets (comma-separated names)")
    ap.add_argument("--unlabelled", action="store_true", help="folders of pictures without labels are sets too")
    ap.add_argument("--rendered", type=Path, action="append", default=[],
                    help="a folder of rendered scenes (with their JSON labels) as one more set; repeatable")
    ap.add_argument("--json", type=Path, help="also write the table here")
    args = ap.parse_args(argv)

    from vision.recognition.pipeline import DEFAULT_PIPELINE, REQUIRED_STAGES, without
    from vision.recognize import Recognizer

    sets = photo_sets(args.real, args.unlabelled)
    if args.sets:
        sets = {k: v for k, v in sets.items() if k in args.sets.split(",")}
    for scenes in args.rendered:
        sets[f"rendered:{scenes.parent.name or scenes.name}"] = scenes
    if not sets:
        print(f"no labelled photos under {args.real}")
        return 1
    optional = [s for s in DEFAULT_PIPELINE if s not in REQUIRED_STAGES]
    if args.stages:
        optional = [s for s in optional if s.__name__ in args.stages.split(",")]
    rec = Recognizer()
    rows: dict[str, dict] = {}
    base: dict[str, list] = {}
    for stage in [None, *optional]:
        name = "(every stage)" if stage is None else f"- {stage.__name__}"
        rec.pipeline = DEFAULT_PIPELINE if stage is None else without(stage)
        row = {}
        for set_name, photos in sets.items():
            t0 = time.perf_counter()
            if isinstance(photos, Path):
                found, scores = read_rendered(rec, photos)
            else:
                found = read_set(rec, photos)
                scores = score(found, [label for _, label in photos])
            if stage is None:
                base[set_name] = found
            row[set_name] = {**scores, "changed": sum(a != b for a, b in zip(found, base[set_name])),
                             "seconds": round(time.perf_counter() - t0, 1)}
        rows[name] = row
        print(_line(name, row, sets), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


def _line(name: str, row: dict, sets: dict) -> str:
    cells = []
    for set_name in sets:
        r = row[set_name]
        changed = "=" if r["changed"] == 0 else f"{r['changed']} changed"
        scored = f"R {r['recall']:.3f} P {r['precision']:.3f} " if r["recall"] is not None else ""
        if "exact" in r:
            scored += f"E {r['exact']:.3f} "
        cells.append(f"{set_name}: {scored}{changed:>9}")
    return f"{name:<28} " + "  ".join(cells)


if __name__ == "__main__":
    sys.exit(main())
