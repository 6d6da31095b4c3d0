"""A contact sheet of rendered scenes with their labels drawn, for a person to compare with real photos."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np


def draw_labels(img: np.ndarray, label: dict) -> np.ndarray:
    out = img.copy()
    for t in label["tiles"]:
        c = np.array(t["corners"], np.int32)
        colour = (160, 160, 160) if t["face_down"] else (0, 200, 0)
        cv2.polylines(out, [c], True, colour, 2, cv2.LINE_AA)
        if not t["face_down"]:
            txt = f"{t['pips'][0]}-{t['pips'][1]}"
            cv2.putText(out, txt, tuple(c.mean(0).astype(int)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 255), 2, cv2.LINE_AA)
    return out


def contact_sheet(folder: str | Path, dest: str | Path, n: int = 12, cols: int = 4, cell: int = 400,
                  labelled: bool = True) -> Path:
    """Tile the first `n` scenes of `folder` (scenes/*.json + images) into one PNG."""
    scenes = sorted(Path(folder, "scenes").glob("*.json"))[:n]
    cells = []
    for f in scenes:
        lab = json.loads(f.read_text())
        img = cv2.imread(str(f.with_name(lab["image"])))
        if img is None:
            continue
        if labelled:
            img = draw_labels(img, lab)
        h, w = img.shape[:2]
        s = cell / max(h, w)
        small = cv2.resize(img, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA)
        canvas = np.full((cell, cell, 3), 40, np.uint8)
        canvas[: small.shape[0], : small.shape[1]] = small
        cells.append(canvas)
    if not cells:
        raise FileNotFoundError(f"no rendered scenes under {folder}/scenes")
    while len(cells) % cols:
        cells.append(np.full((cell, cell, 3), 40, np.uint8))
    rows = [np.hstack(cells[i:i + cols]) for i in range(0, len(cells), cols)]
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(dest), np.vstack(rows))
    return dest
