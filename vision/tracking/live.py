"""The tracker behind the web service's live WebSocket (`service/routers/live.py`).

That protocol asks a tracker for `feed(LoadedImage) -> list[dict]` (an `overlay`
message first, then `event` messages) and `close()`; `LiveTracker` adapts `Tracker`
to it, so the service can swap its stand-in for this one through its tracker
factory without touching the protocol.
"""
from __future__ import annotations

import time
from typing import Any

from engine import GameConfig, HouseRules

from .tracker import RecognizerDetector, Tracker


class LiveTracker:
    """One per connection: frames from a browser camera in, overlay and event messages out."""

    def __init__(self, options: Any, recognizer: Any = None) -> None:
        rules = getattr(options, "rules", None) or HouseRules()
        set_max = getattr(options, "set_max", None) or 9
        players = getattr(options, "players", None) or 4
        self.config = GameConfig(players, set_max, rules)
        if recognizer is None:
            from vision.recognize import get_recognizer

            recognizer = get_recognizer(getattr(options, "model_dir", None))
        round_double = getattr(options, "round_double", None)
        self.tracker = Tracker(self.config, detector=RecognizerDetector(recognizer, set_max),
                               spinner_player=getattr(options, "spinner_player", 0) or 0,
                               round_index=None if round_double is None else set_max - round_double)
        self._t0 = time.monotonic()

    def feed(self, image: Any) -> list[dict[str, Any]]:
        frame = getattr(image, "bgr", image)
        events = self.tracker.push(frame, time.monotonic() - self._t0)
        state = self.tracker.state
        h, w = frame.shape[:2]
        out: list[dict[str, Any]] = [{
            "type": "overlay", "frame": self.tracker.frames, "width": w, "height": h,
            "tiles": state.tiles, "state": state.to_dict(),
        }]
        for ev in events:
            out.append({"type": "event", "event": ev.kind, "frame": ev.frame, "message": ev.describe(),
                        "time": time.time(), **{k: v for k, v in ev.to_dict().items() if k not in ("kind", "frame")}})
        return out

    def close(self) -> None:
        self.tracker.window.clear()
