"""How well tiles are read by their length in the picture: the figures behind `vision.capture`.

Two measurements, both on rendered tiles (sizes no real photo set here covers):

  python scripts/reading_by_tile_length.py tiles --count 400
      front-on tiles of each set (double-6 to double-18), shrunk to a length band, blurred,
      noised and JPEG-compressed as the half reader's training ends are, read by the half
      reader: exact tile per band.
  python scripts/reading_by_tile_length.py rounds --seed 28 29 --rounds 60
      every tile of the last frame of rendered live-game rounds (1280x720, the tracker's
      sequences: perspective, neighbours, the renderer's camera), read by the whole recognizer:
      wrong and missed shares by set and length band.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BANDS = ((20, 25), (25, 30), (30, 35), (35, 40), (40, 45), (45, 50), (50, 60), (60, 90), (90, 400))


def _tile_picture(rng: np.random.Generator, style, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Tile a|b drawn 40 px wide on a plain background; (picture, corners in label order)."""
    from lab.synth.tileface import draw_tile

    sp = draw_tile(style, a, b, 40, rng)
    h, w = sp.rgba.shape[:2]
    m = int(0.6 * h)
    bg = np.full((h + 2 * m, w + 2 * m, 3), rng.integers(40, 200, 3), np.uint8)
    alpha = sp.rgba[..., 3:4].astype(np.float32) / 255
    roi = bg[m:m + h, m:m + w].astype(np.float32)
    bg[m:m + h, m:m + w] = (roi * (1 - alpha) + sp.rgba[..., :3].astype(np.float32) * alpha).astype(np.uint8)
    return bg, np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float32)


def tiles(count: int, model: str) -> None:
    from lab.synth.tileface import random_style
    from lab.training.half_data import _degrade
    from vision.halfreader import HalfReader

    reader = HalfReader(Path(model) / "half_reader.onnx")
    for set_max in (6, 9, 12, 15, 18):
        rng = np.random.default_rng(set_max)
        line = []
        for lo, hi in BANDS[:7]:
            crops, truth = [], []
            for _ in range(count):
                a, b = (int(v) for v in rng.integers(0, set_max + 1, 2))
                picture, corners = _tile_picture(rng, random_style(rng, set_max), a, b)
                crop = _degrade(rng, picture, corners, float(rng.uniform(lo, hi)))
                if crop is not None:
                    crops.append(crop)
                    truth.append((a, b))
            probs = reader.probabilities(crops)[:, :, :set_max + 1]
            right = sum(int(p[0].argmax()) == a and int(p[1].argmax()) == b for (a, b), p in zip(truth, probs))
            line.append(f"{lo}-{hi} px {right / len(truth):.3f}")
        print(f"double-{set_max:<2d} exact tile: " + "  ".join(line), flush=True)


def rounds(seeds: list[int], n: int, model: str, sets: tuple[int, ...] = (6, 9, 12, 15)) -> None:
    from lab.synth.sequence import SequenceRenderer, plan_sequence, round_name, sequence_rng
    from vision.imageio import LoadedImage
    from vision.recognize import Recognizer
    from vision.types import tile_length

    rec = Recognizer(model)
    rows = []
    for seed, k in ((s, k) for s in seeds for k in range(n)):
        plan = plan_sequence(sequence_rng(seed, k), (1280, 720), sets[k % len(sets)])
        frame = plan.frames[-1]
        img = SequenceRenderer(plan).frame(frame.index)
        found = rec.recognize_loaded(LoadedImage(img, 1.0, img.shape[1], img.shape[0], "frame"), plan.set_max).tiles
        centres = np.array([d.corners.mean(0) for d in found]) if found else np.zeros((0, 2))
        for tid in frame.tiles:
            corners = plan.image_corners(tid, frame.camera)
            t = plan.tiles[tid]
            length = tile_length(corners)
            gap = np.linalg.norm(centres - corners.mean(0), axis=1) if len(found) else np.array([np.inf])
            j = int(gap.argmin())
            if gap[j] > 0.3 * length:
                result = "missed"
            else:
                result = "right" if sorted(found[j].pips) == sorted((t.a, t.b)) else "wrong"
            rows.append((plan.set_max, length, result))
        print(f"{round_name(seed, k)}: double-{plan.set_max}, {len(frame.tiles)} tiles", file=sys.stderr, flush=True)
    for set_max in sorted({r[0] for r in rows}):
        print(f"double-{set_max}:")
        for lo, hi in BANDS:
            band = [r for r in rows if r[0] == set_max and lo <= r[1] < hi]
            if band:
                wrong = sum(r[2] == "wrong" for r in band) / len(band)
                missed = sum(r[2] == "missed" for r in band) / len(band)
                print(f"  {lo:3d}-{hi:3d} px: {len(band):5d} tiles, wrong {wrong:.3f}, missed {missed:.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("tiles")
    t.add_argument("--count", type=int, default=400, help="tiles per set and band")
    r = sub.add_parser("rounds")
    r.add_argument("--seed", type=int, nargs="+", default=[28, 29])
    r.add_argument("--rounds", type=int, default=60)
    for p in (t, r):
        p.add_argument("--model", default=str(Path(__file__).resolve().parents[1] / "models"))
    args = ap.parse_args()
    if args.what == "tiles":
        tiles(args.count, args.model)
    else:
        rounds(args.seed, args.rounds, args.model)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
