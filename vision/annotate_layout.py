"""Draw a layout audit on the photo: what was read, how it hangs together, what is wrong.

Layout tiles are outlined in green, loose tiles (hands, boneyard, strays) in grey,
tiles inferred in a gap dashed in orange. Each contact is a line between the two
tiles' centres; the spinner and each chickie are ringed and labelled (a chickie with
its missing toes); each open end gets a dot with the value it accepts now. Every
violation is drawn in red over its tiles and numbered, with its message listed at the
top of the picture, so the photo alone tells a player what the referee saw.
"""
from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from .annotate import fit_for_drawing
from .imageio import LoadedImage

GREEN, GREY, ORANGE, RED = (60, 200, 60), (150, 150, 150), (0, 140, 255), (40, 40, 230)
CYAN, WHITE, BLACK, YELLOW = (230, 200, 40), (255, 255, 255), (0, 0, 0), (0, 220, 255)


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour, centre: bool = True) -> None:
    thick = max(1, int(round(scale * 2)))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = (int(org[0] - tw / 2), int(org[1] + th / 2)) if centre else (int(org[0]), int(org[1] + th))
    cv2.rectangle(img, (x - 3, y - th - 3), (x + tw + 3, y + base), BLACK, -1)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def _dashed(img: np.ndarray, quad: np.ndarray, colour, thick: int) -> None:
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        n = max(2, int(np.linalg.norm(b - a) / 8))
        for k in range(0, n, 2):
            p = a + (b - a) * k / n
            q = a + (b - a) * min(k + 1, n) / n
            cv2.line(img, tuple(p.astype(int)), tuple(q.astype(int)), colour, thick, cv2.LINE_AA)


def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for w in words:
        if len(line) + len(w) + 1 > width and line:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    if line:
        lines.append(line)
    return lines


def draw_audit(bgr: np.ndarray, audit: dict[str, Any], to_pixels: float = 1.0, max_side: int = 1600) -> np.ndarray:
    """A copy of `bgr` with `audit` (the `chickenfoot audit --json` object) drawn on it.

    `to_pixels` turns the audit's original-image coordinates into `bgr` pixels."""
    out, f = fit_for_drawing(bgr, to_pixels, max_side)
    scale = max(0.4, max(out.shape[:2]) / 2000)
    thick = max(1, int(round(scale * 3)))
    tiles = {t["id"]: t for t in audit.get("tiles", [])}
    quads = {tid: np.asarray(t["corners"], np.float64) * f for tid, t in tiles.items()}
    centre = {tid: q.mean(0) for tid, q in quads.items()}
    layout = audit.get("layout") or {}
    in_layout = {e["from"] for e in layout.get("edges", [])} | {e["to"] for e in layout.get("edges", [])}
    if layout.get("spinner") is not None:
        in_layout.add(layout["spinner"])
    loose = set(audit.get("loose_tiles", []))
    bad: dict[int, list[int]] = {}
    for k, v in enumerate(audit.get("violations", []), 1):
        for t in v.get("tiles", []):
            bad.setdefault(t, []).append(k)

    for tid, q in quads.items():
        t = tiles[tid]
        if t.get("inferred"):
            _dashed(out, q, ORANGE, thick)
            continue
        colour = GREEN if tid in in_layout else GREY
        if t.get("face_down") or tid in loose:
            colour = GREY
        cv2.polylines(out, [q.astype(np.int32)], True, colour, 1 if colour == GREY else thick, cv2.LINE_AA)
    for e in layout.get("edges", []):
        a, b = centre.get(e["from"]), centre.get(e["to"])
        if a is not None and b is not None:
            cv2.line(out, tuple(a.astype(int)), tuple(b.astype(int)), CYAN, thick, cv2.LINE_AA)
    if layout.get("spinner") in centre:
        c = centre[layout["spinner"]]
        r = int(np.linalg.norm(quads[layout["spinner"]][0] - quads[layout["spinner"]][2]) * 0.6)
        cv2.circle(out, tuple(c.astype(int)), r, YELLOW, thick, cv2.LINE_AA)
        _text(out, "spinner", (int(c[0]), int(c[1] - r - 10 * scale)), scale * 0.9, YELLOW)
    for ch in layout.get("chickies", []):
        c = centre.get(ch["tile"])
        if c is None:
            continue
        r = int(np.linalg.norm(quads[ch["tile"]][0] - quads[ch["tile"]][2]) * 0.6)
        cv2.circle(out, tuple(c.astype(int)), r, WHITE, thick, cv2.LINE_AA)
        label = "chickie" + (f" -{ch['missing']}" if ch.get("missing") else "")
        _text(out, label, (int(c[0]), int(c[1] + r + 10 * scale)), scale * 0.8, WHITE)
    for o in audit.get("open_ends", []):
        q = quads.get(o["tile"])
        if q is None:
            continue
        t = tiles[o["tile"]]
        pips = t.get("pips") or [None, None]
        # the free end is the half showing the open value, farthest from the parent
        ends = [(q[0] + q[1]) / 2, (q[2] + q[3]) / 2]
        spot = ends[1] if pips[1] == o["value"] and pips[0] != o["value"] else ends[0]
        if pips[0] == pips[1]:
            spot = q.mean(0)
        colour = GREEN if o.get("playable_now") else GREY
        cv2.circle(out, tuple(spot.astype(int)), max(3, thick * 2), colour, -1, cv2.LINE_AA)
        if pips[0] != pips[1]:
            _text(out, f"{o['value']}", (int(spot[0]), int(spot[1] - 14 * scale)), scale * 0.7, colour)
    for tid, ks in bad.items():
        q = quads.get(tid)
        if q is None:
            continue
        cv2.polylines(out, [q.astype(np.int32)], True, RED, thick + 1, cv2.LINE_AA)
        _text(out, ",".join(str(k) for k in ks[:3]), tuple(q.mean(0).astype(int)), scale * 0.8, RED)
    # header: status and every violation's message
    y = int(10 * scale)
    lines = [(audit.get("message") or audit.get("status", ""), WHITE)]
    for k, v in enumerate(audit.get("violations", []), 1):
        text = f"{k}. {v['message']}" + (" (unproven: a missed tile would explain it)" if v.get("unless_missed") else "")
        for i, line in enumerate(_wrap(text, 90)):
            lines.append((("   " if i else "") + line, RED))
    if not audit.get("violations") and audit.get("layout", {}).get("spinner") is not None:
        lines.append(("no violations", GREEN))
    for g in audit.get("gaps", []):
        lines.append((g["message"], ORANGE))
    for text, colour in lines[:14]:
        _text(out, text, (int(10 * scale), y), scale * 0.75, colour, centre=False)
        y += int(34 * scale)
    return out


def annotate_layout(img: LoadedImage, rec: Any, audit: dict[str, Any], max_side: int = 1600) -> np.ndarray:
    """The drawer the CLI and the web API use: `(LoadedImage, Recognition, audit dict) -> BGR`."""
    return draw_audit(img.bgr, audit, 1.0 / img.scale, max_side)
