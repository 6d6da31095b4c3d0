"""Half-reader accuracy on the ends of small tiles, by how far the pips' brightness lies from the face's.

    python scripts/half_ends_by_contrast.py --faces hue-coded --gap 0 0.06 --tables 15 --seed 1
    python scripts/half_ends_by_contrast.py --faces random --tables 30 --seed 7 --model OTHER.onnx

Renders 720p tables (double-9, 12 or 15), cuts both ends of every readable tile with its true
corners, shrunk to 40-70 px long as a webcam sees it (`half_data._degrade`), and prints the share
read right, overall and per value. `--faces hue-coded` draws coloured faces whose pips differ from
them in brightness (luma, 0-1) by `--gap LO HI` and in hue by at least 0.15 (measured so, a
committed half reader read 0.51 of them right at gap 0-0.06, against 1.0 of sets drawn at random).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab.synth.scene import render_scene  # noqa: E402
from lab.synth.table import plan_table  # noqa: E402
from lab.synth.tileface import _hsv, _luma, random_style  # noqa: E402
from lab.training.half_data import _degrade  # noqa: E402
from vision.halfreader import HalfReader  # noqa: E402

SIZE = (1280, 720)


def gap_style(rng: np.random.Generator, set_max: int, lo: float, hi: float):
    """A coloured face with pips another hue, their brightness `lo`-`hi` from the face's."""
    style = random_style(rng, set_max)
    hue = rng.random()
    body = _hsv(hue, rng.uniform(0.3, 0.7), rng.uniform(0.55, 0.9))
    colours = []
    for _ in range(19):
        for _ in range(500):
            c = _hsv((hue + rng.uniform(0.15, 0.85)) % 1, rng.uniform(0.3, 0.9), rng.uniform(0.2, 1.0))
            if lo <= abs(_luma(c) - _luma(body)) < hi:
                break
        colours.append(c)
    return replace(style, body=body, pip_colours=colours)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faces", choices=["random", "hue-coded"], default="hue-coded")
    ap.add_argument("--gap", type=float, nargs=2, default=(0.0, 0.06), metavar=("LO", "HI"))
    ap.add_argument("--tables", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", default=str(Path(__file__).resolve().parents[1] / "models" / "half_reader.onnx"))
    args = ap.parse_args()

    reader = HalfReader(args.model)
    rng = np.random.default_rng(args.seed)
    per: dict[int, list[int]] = {}
    for _ in range(args.tables):
        set_max = int(rng.choice([9, 12, 15]))
        style = gap_style(rng, set_max, *args.gap) if args.faces == "hue-coded" else random_style(rng, set_max)
        plan = plan_table(rng, SIZE, set_max, None, style=style)
        scene = render_scene(rng, plan.placements, plan.style, SIZE, plan.tile_w, plan.camera, "table", plan.set_max)
        crops, values = [], []
        for t in scene.tiles:
            if t.face_down or t.visible < 0.9:
                continue
            crop = _degrade(rng, scene.image, np.asarray(t.corners, np.float32), float(rng.uniform(40, 70)))
            if crop is not None:
                crops.append(crop)
                values.append(tuple(int(v) for v in t.pips))
        if not crops:
            continue
        probs = reader.probabilities(crops)
        for p, pair in zip(probs, values):
            for end, value in enumerate(pair):
                tally = per.setdefault(value, [0, 0])
                tally[0] += int(p[end].argmax()) == value
                tally[1] += 1
    right = sum(a for a, _ in per.values())
    total = sum(b for _, b in per.values())
    what = f"hue-coded, brightness gap {args.gap[0]}-{args.gap[1]}" if args.faces == "hue-coded" else "random sets"
    print(f"{what}: {total} ends, read right {right / max(total, 1):.4f}")
    print("per value:", " ".join(f"{v}:{a / b:.2f}" for v, (a, b) in sorted(per.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
