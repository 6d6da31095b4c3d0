"""Close-ups of single tiles cut from rendered scenes (`lab.synth.closeup`), one folder per
identity, for `chickenfoot lab eval DIR --single-tiles`: every face-up tile at least 97 % visible
and 40 px long, with a margin of 0-8 % of its length, 280-460 px tall.

    chickenfoot lab synth --kind hand --count 60 --seed 2103 --size random --no-crops --out /tmp/h60
    python scripts/closeups.py /tmp/h60/scenes --out /tmp/cu_h60
    chickenfoot lab eval /tmp/cu_h60 --single-tiles
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from lab.synth.closeup import close_up


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", nargs="+", help="folders of rendered scenes (*.json beside *.jpg)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    n = 0
    for folder in args.scenes:
        for label in sorted(Path(folder).glob("*.json")):
            scene = json.loads(label.read_text())
            img = cv2.imread(str(label.with_suffix(".jpg")))
            for t in scene["tiles"]:
                c = np.array(t["corners"], np.float32)
                if t["face_down"] or t.get("visible", 1.0) < 0.97 or np.linalg.norm(c[0] - c[3]) < 40:
                    continue
                crop = close_up(img, c, float(rng.uniform(0.0, 0.08)), int(rng.uniform(280, 460)))
                a, b = t["pips"]
                dest = Path(args.out) / f"{a}-{b}"
                dest.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(dest / f"{label.stem}_{t['id']}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 90])
                n += 1
    print(f"{n} close-ups under {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
