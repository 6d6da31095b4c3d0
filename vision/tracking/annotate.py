"""Draw what the tracker believes over a frame: for the annotated video and the live view."""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from .events import TrackEvent
from .tracker import TrackerState

COLOURS = {"spinner": (0, 215, 255), "legal": (60, 200, 60), "illegal": (0, 0, 255), "joined": (200, 160, 60),
           "loose": (160, 160, 160)}


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int]) -> None:
    thick = max(1, int(round(scale * 2)))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = org
    cv2.rectangle(img, (x - 3, y - th - 4), (x + tw + 3, y + base), (0, 0, 0), -1)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def annotate_frame(frame: np.ndarray, state: TrackerState, recent: Sequence[TrackEvent] = ()) -> np.ndarray:
    """A copy of `frame` with each known tile outlined by status, whose turn it is, and the
    latest events."""
    out = frame.copy()
    scale = max(0.45, out.shape[1] / 2200)
    for t in state.tiles:
        c = np.array(t["corners"], np.float32)
        colour = COLOURS.get(t["status"], (255, 255, 255))
        if t.get("missing"):
            colour = (128, 128, 128)
        cv2.polylines(out, [c.astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        _text(out, t["tile"], tuple(c.mean(0).astype(int) - [int(20 * scale), 0]), scale * 0.8, colour)
    head = []
    if state.round_index is not None:
        head.append(f"round {state.round_index + 1} (double-{state.round_double})")
    if state.turn is not None:
        head.append(f"player {state.turn} to play")
    if state.must_feed:
        head.append(f"{state.must_feed} must be fed first")
    totals = state.scores.get("totals") if state.scores else None
    if totals and state.scores.get("rounds"):
        head.append("totals " + " ".join(str(x) for x in totals))
    y = int(30 * scale * 1.6)
    if head:
        _text(out, " | ".join(head), (10, y), scale, (255, 255, 255))
    for ev in list(recent)[-3:]:
        y += int(32 * scale * 1.6)
        colour = (0, 0, 255) if getattr(ev, "legal", True) is False else (255, 255, 255)
        _text(out, ev.describe()[:110], (10, y), scale, colour)
    return out
