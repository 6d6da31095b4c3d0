"""Record the product's outputs on fixed inputs, then compare a later run with them.

Meant for a change that should keep every behaviour (a redesign of the recognizer or the
tracker): record before the change, compare after it.

    python scripts/golden_outputs.py record DIR [--only score,audit,tracking]
    python scripts/golden_outputs.py compare DIR [--only ...] [--keep NEW]

Three kinds of item, one JSON file each under DIR:

* score/: `chickenfoot score --json` on every real photo (../shared/data/real: photos/*,
  webcam/*, oblique/*.png; skipped with a message when that folder is absent) and on
  datasets/demo/*.jpg: each tile's pips, corners (to 0.1 px), face-down flag and notes, and
  the face-down count, set, total, score and warnings;
* audit/: `chickenfoot audit --json` on tables rendered here by
  `chickenfoot lab synth --kind table --no-crops` (fixed count and seed; the picture's MD5 is kept
  too, so a change in the renderer shows as such): the whole report (layout, violations, open
  ends, loose tiles, gaps, ...);
* tracking/: the event stream of `chickenfoot lab eval-tracking --model` on fixed seeds (rounds
  named seedS-K, each run on its own with `--only K --events FILE`), with the one-round summary
  and examples the command prints with `--json --examples`.

Timing fields (`seconds`, `layout_seconds`, `tracker_seconds`, `tracker_fps`) and the
recognizer's confidences are left out; nothing recorded is random (every input is seeded).
`compare` runs everything again with the parameters kept in DIR/meta.json and prints every
difference (item, field, before, after) and a summary line; it exits 1 on any difference.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REAL = ROOT.parent / "shared" / "data" / "real"
PHOTO_GLOBS = ("photos/*", "webcam/*", "oblique/*.png")
DEMO_GLOB = "datasets/demo/*.jpg"
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".heic", ".avif", ".bmp"}
KINDS = ("score", "audit", "tracking")
DEFAULTS = {"tables": 10, "table_seed": 7, "rounds": 2, "round_seed": 0}
TIMING = {"seconds", "layout_seconds", "tracker_seconds", "tracker_fps", "images_per_second"}
SCORE_TILE_FIELDS = ("id", "pips", "corners", "face_down", "notes")
SCORE_FIELDS = ("face_down", "total", "score", "set", "warnings")
RUN_FIELDS = {"kind", "noise", "sets", "size", "seed", "by_set", "examples", "config"}
"""What `eval-tracking --json` says about the run as a whole rather than about its rounds (the
tuning it ran with included: a change of tuning shows in the rounds' events and figures)."""


def _cli() -> str:
    exe = Path(sys.executable).parent / "chickenfoot"
    return str(exe) if exe.exists() else "chickenfoot"


def _run(args: list[str]) -> str:
    proc = subprocess.run([_cli(), *args], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"chickenfoot {' '.join(args[:3])} ... failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.stdout


def _round_corners(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 1)
    if isinstance(value, list):
        return [_round_corners(v) for v in value]
    return value


def _drop_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_drop_timing(v) for v in value]
    return value


def _slug(text: str) -> str:
    return text.replace("/", "__")


# --- the three kinds of item -------------------------------------------------------------

def score_items() -> tuple[dict[str, dict], list[str]]:
    """`chickenfoot score --json` on the real photos and the demo pictures."""
    notes = []
    photos: list[tuple[str, Path]] = []
    if REAL.is_dir():
        for pattern in PHOTO_GLOBS:
            for p in sorted(REAL.glob(pattern)):
                if p.suffix.lower() in IMAGE_SUFFIXES:
                    photos.append((f"real/{p.relative_to(REAL)}", p))
    else:
        notes.append(f"{REAL} is absent: real photos skipped")
    for p in sorted(ROOT.glob(DEMO_GLOB)):
        photos.append((f"demo/{p.name}", p))
    if not photos:
        return {}, notes
    lines = _run(["score", "--json", *(str(p) for _, p in photos)]).splitlines()
    out = [json.loads(line) for line in lines if line.strip()]
    if len(out) != len(photos):
        raise SystemExit(f"score printed {len(out)} results for {len(photos)} pictures")
    items = {}
    for (name, _), r in zip(photos, out):
        rec: dict[str, Any] = {"tiles": [{k: _round_corners(t[k]) if k == "corners" else t[k]
                                          for k in SCORE_TILE_FIELDS if k in t} for t in r.get("tiles", [])]}
        rec.update({k: r.get(k) for k in SCORE_FIELDS})
        if "error" in r:
            rec["error"] = r["error"]
        items[name] = rec
    return items, notes


def audit_items(count: int, seed: int) -> dict[str, dict]:
    """`chickenfoot audit --json` on `count` tables rendered from `seed`."""
    items = {}
    with tempfile.TemporaryDirectory(prefix="gd_tables_") as tmp:
        out = Path(tmp) / "tables"
        _run(["lab", "synth", "--kind", "table", "--count", str(count), "--seed", str(seed), "--no-crops",
              "--workers", "1", "--out", str(out)])
        for pic in sorted((out / "scenes").glob("*.jpg")):
            r = _drop_timing(json.loads(_run(["audit", "--json", str(pic)])))
            r["image"] = pic.name
            for t in r.get("tiles", []):
                if "corners" in t:
                    t["corners"] = _round_corners(t["corners"])
            r["image_md5"] = hashlib.md5(pic.read_bytes()).hexdigest()
            items[pic.stem] = r
    return items


def tracking_items(rounds: int, seed: int) -> dict[str, dict]:
    """The events of `chickenfoot lab eval-tracking --model --rounds R --seed S`, round by round: each
    round tracked on its own (`--only K`) so that its summary and examples are its own."""
    from lab.synth.sequence import plan_sequence, round_name, sequence_rng

    sets, size = [6, 9, 12, 15], (1280, 720)  # the command's defaults
    items = {}
    with tempfile.TemporaryDirectory(prefix="gd_rounds_") as tmp:
        for i in range(rounds):
            events_file = Path(tmp) / f"round{i}.jsonl"
            report = json.loads(_run(["lab", "eval-tracking", "--model", "--rounds", str(rounds), "--seed", str(seed),
                                      "--only", str(i), "--json", "--examples", "--events", str(events_file)]))
            lines = [json.loads(line) for line in events_file.read_text().splitlines() if line.strip()]
            name = round_name(seed, i)
            events = [{k: v for k, v in e.items() if k != "round"} for e in lines if e["round"] == name]
            if len(events) != len(lines):
                raise SystemExit(f"eval-tracking --only {i} wrote events of rounds other than {name}")
            plan = plan_sequence(sequence_rng(seed, i), size, sets[i % len(sets)])  # the round's set and players
            summary = {k: v for k, v in report.items() if k not in RUN_FIELDS}
            items[name] = _drop_timing({
                "set": plan.set_max, "players": plan.players, "plays": summary["true_plays"],
                "frames": summary["frames"], "frames_read": summary["frames_read"],
                "events": events, "summary": summary, "examples": report["examples"],
            })
            print(f"  tracked {name}: {len(events)} events", file=sys.stderr)
    return items


def collect(kinds: list[str], params: dict) -> tuple[dict[str, dict[str, dict]], list[str], dict[str, float]]:
    found: dict[str, dict[str, dict]] = {}
    notes: list[str] = []
    spent: dict[str, float] = {}
    for kind in kinds:
        t0 = time.perf_counter()
        print(f"{kind} ...", file=sys.stderr)
        if kind == "score":
            found[kind], more = score_items()
            notes += more
        elif kind == "audit":
            found[kind] = audit_items(params["tables"], params["table_seed"])
        else:
            found[kind] = tracking_items(params["rounds"], params["round_seed"])
        spent[kind] = round(time.perf_counter() - t0, 1)
    return found, notes, spent


def write(folder: Path, found: dict[str, dict[str, dict]], params: dict, kinds: list[str]) -> None:
    for kind, items in found.items():
        d = folder / kind
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob("*.json"):
            old.unlink()
        for name, rec in items.items():
            (d / f"{_slug(name)}.json").write_text(json.dumps({"item": name, **rec}, indent=1, sort_keys=True) + "\n")
    (folder / "meta.json").write_text(json.dumps({**params, "kinds": kinds,
                                                  "real_photos": REAL.is_dir()}, indent=1) + "\n")


def load(folder: Path, kind: str) -> dict[str, dict]:
    items = {}
    for f in sorted((folder / kind).glob("*.json")):
        rec = _drop_timing(json.loads(f.read_text()))
        items[rec.pop("item")] = rec
    return items


# --- comparing ---------------------------------------------------------------------------

def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf of a JSON value by its path (`tiles[3].pips[0]`); empty lists and dicts are leaves."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, v in enumerate(value):
            out.update(flatten(v, f"{prefix}[{i}]"))
        return out
    return {prefix: value}


class _Marker(str):
    """A table cell that is not a recorded value (printed without quotes)."""


MISSING, RECORDED, NEW = _Marker("(absent)"), _Marker("(recorded)"), _Marker("(new)")


def differences(before: dict[str, dict], after: dict[str, dict]) -> list[tuple[str, str, Any, Any]]:
    rows = []
    for item in sorted(set(before) | set(after)):
        if item not in after:
            rows.append((item, "(item)", RECORDED, MISSING))
            continue
        if item not in before:
            rows.append((item, "(item)", MISSING, NEW))
            continue
        a, b = flatten(before[item]), flatten(after[item])
        for field in list(a) + [f for f in b if f not in a]:
            va, vb = a.get(field, MISSING), b.get(field, MISSING)
            if va != vb:
                rows.append((item, field, va, vb))
    return rows


def _cell(v: Any, width: int = 48) -> str:
    text = v if isinstance(v, _Marker) else json.dumps(v)
    return text if len(text) <= width else text[: width - 3] + "..."


def print_table(rows: list[tuple[str, str, Any, Any]]) -> None:
    cells = [(item, field, _cell(va), _cell(vb)) for item, field, va, vb in rows]
    head = ("item", "field", "before", "after")
    widths = [max(len(head[i]), *(len(c[i]) for c in cells)) for i in range(4)]
    for row in (head, tuple("-" * w for w in widths), *cells):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


# --- main --------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("record", "compare"))
    ap.add_argument("folder", type=Path, nargs="?", help="where the recorded outputs are (or go)")
    ap.add_argument("--against", type=Path, help="the same as FOLDER, for compare")
    ap.add_argument("--only", default=",".join(KINDS), help="kinds of item, comma separated (score,audit,tracking)")
    ap.add_argument("--tables", type=int, default=DEFAULTS["tables"], help="record: rendered tables to audit")
    ap.add_argument("--table-seed", type=int, default=DEFAULTS["table_seed"])
    ap.add_argument("--rounds", type=int, default=DEFAULTS["rounds"], help="record: tracked rounds")
    ap.add_argument("--round-seed", type=int, default=DEFAULTS["round_seed"])
    ap.add_argument("--keep", type=Path, help="compare: also write the new outputs here")
    args = ap.parse_args(argv)
    folder = args.against or args.folder
    if folder is None:
        ap.error("give the folder (or --against FOLDER)")
    kinds = [k.strip() for k in args.only.split(",") if k.strip()]
    if bad := [k for k in kinds if k not in KINDS]:
        ap.error(f"unknown kind(s) {', '.join(bad)}; choose from {', '.join(KINDS)}")
    t0 = time.perf_counter()

    if args.action == "record":
        params = {"tables": args.tables, "table_seed": args.table_seed,
                  "rounds": args.rounds, "round_seed": args.round_seed}
        found, notes, spent = collect(kinds, params)
        write(folder, found, params, kinds)
        for n in notes:
            print(n)
        print(f"recorded {sum(len(v) for v in found.values())} items in {folder} "
              f"({', '.join(f'{k} {len(v)}' for k, v in found.items())}) in {time.perf_counter() - t0:.0f} s "
              f"({', '.join(f'{k} {s:.0f} s' for k, s in spent.items())})")
        return 0

    meta_file = folder / "meta.json"
    if not meta_file.is_file():
        print(f"{folder}: nothing recorded here (no meta.json); run `record` first", file=sys.stderr)
        return 2
    meta = json.loads(meta_file.read_text())
    params = {k: meta.get(k, v) for k, v in DEFAULTS.items()}
    kinds = [k for k in kinds if k in meta.get("kinds", KINDS)]
    found, notes, spent = collect(kinds, params)
    if args.keep:
        write(args.keep, found, params, kinds)
    rows: list[tuple[str, str, Any, Any]] = []
    per_kind: dict[str, int] = {}
    skipped = 0
    for kind in kinds:
        before = load(folder, kind)
        if kind == "score" and not REAL.is_dir():
            real = [k for k in before if k.startswith("real/")]
            skipped += len(real)
            before = {k: v for k, v in before.items() if k not in real}
        diff = [(f"{kind}:{item}", field, va, vb) for item, field, va, vb in differences(before, found[kind])]
        per_kind[kind] = len(diff)
        rows += diff
    for n in notes:
        print(n)
    if skipped:
        print(f"{skipped} recorded real-photo items not compared ({REAL} is absent)")
    if rows:
        print_table(rows)
    items = sum(len(found[k]) for k in kinds)
    changed = len({r[0] for r in rows})
    print(f"{len(rows)} differences in {changed} of {items} items "
          f"({', '.join(f'{k} {n}' for k, n in per_kind.items())}) against {folder}; "
          f"{time.perf_counter() - t0:.0f} s ({', '.join(f'{k} {s:.0f} s' for k, s in spent.items())})")
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
