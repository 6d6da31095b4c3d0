"""Layout audit figures with the real recognizer on rendered table photos.

`chickenfoot lab eval-layout` scores the layout and audit on detections derived from the truth
(noise added, nothing misread); this reads the rendered photos with the committed models first,
as `chickenfoot audit` does, so misread and missed tiles count too:

    chickenfoot lab synth --kind table --count 40 --seed 2614 --no-crops --out /tmp/tables
    python scripts/audit_rendered.py /tmp/tables/scenes [--no-level]

Detections are paired with the rendered tiles by centre (within 0.6 of the tile's width);
edges, spinner and planted violations are then scored as `lab.layout_eval.score_scene` does.
"""
from __future__ import annotations

import argparse
import json
import sys
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    from engine import HouseRules
    from lab.layout_eval import Detected, score_scene, summarise
    from vision.imageio import load_image
    from vision.layout import audit_photo
    from vision.recognize import Recognizer

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", type=Path, help="folder of rendered table scenes (JSON beside each picture)")
    ap.add_argument("--no-level", action="store_true", help="read the photos as they are (see vision.perspective)")
    args = ap.parse_args()

    rec = Recognizer()
    scores = []
    for js in sorted(args.scenes.glob("*.json")):
        scene = json.loads(js.read_text())
        img = load_image(js.with_suffix(".jpg"))
        reading = rec.recognize_loaded(img, scene["set"], level=not args.no_level)
        rules = HouseRules.from_dict(scene["meta"]["rules"])
        out = audit_photo(reading, scene["set"], rules, None, pixels=img.bgr, to_pixels=1 / img.scale).to_dict()
        ids = [t["id"] for t in scene["tiles"]]
        corners = [np.array(t["corners"], float) for t in scene["tiles"]]
        centres = np.array([c.mean(0) for c in corners])
        widths = np.array([np.linalg.norm(c[0] - c[1]) for c in corners])
        truth_of: dict[int, int] = {}
        false_ids: list[int] = []
        for t in reading.tiles + reading.face_down:
            d = np.linalg.norm(centres - t.corners.mean(0), axis=1)
            k = int(np.argmin(d))
            if d[k] < 0.6 * widths[k] and ids[k] not in truth_of.values():
                truth_of[t.id] = ids[k]
            else:
                false_ids.append(t.id)
        dropped = [i for i in ids if i not in truth_of.values()]
        plan = types.SimpleNamespace(layout=scene["layout"], meta=scene["meta"],
                                     placements={t["id"]: types.SimpleNamespace(a=t["pips"][0], b=t["pips"][1])
                                                 for t in scene["tiles"]})
        scores.append(score_scene(plan, Detected(reading.tiles, reading.face_down, truth_of, dropped, false_ids), out))
    s = summarise(scores)
    keys = ("tables", "edge_precision", "edge_recall", "spinner_found", "legal_tables", "legal_clean",
            "false_violations", "planted")
    print(json.dumps({k: s[k] for k in keys}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
