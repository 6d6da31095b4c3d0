"""The tracker behind the web service's live WebSocket (`service/routers/live.py`).

That protocol asks a tracker for `feed(LoadedImage) -> list[dict]` (an `overlay`
message first, then `event` messages) and `close()`; `LiveTracker` adapts `Tracker`
to it, and the service makes one per connection (`default_tracker_factory`).

Events go out as the tracker names them (`round_started`, `tile_played`,
`tile_taken_back`, `board_disturbed`, `camera_moved`, ...), each with the tracker's
own fields, a `message` line for people and the tracker's frame index; an illegal play
goes out as a `violation` event (the protocol's name for it) carrying the engine's rule
code and message, the tile, the player, what it was laid on and, when the frame was
saved, the evidence image's name and URL. The first frame also answers with a
`tracking_started` event saying what is being watched.
"""
from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from engine import GameConfig, HouseRules

from .events import TilePlayed, TrackEvent
from .tracker import RecognizerDetector, Tracker


class LiveTracker:
    """One per connection: frames from a browser camera in, overlay and event messages out.

    `options` is the service's `LiveOptions` (any object with the same attributes will
    do): `set_max`, `rules`, `players`, `player_names`, `spinner_player`, `round_double`,
    `model_dir`, `evidence_dir` (where illegal plays' frames are saved; none saved without
    it) and `evidence_url` (the URL prefix those files are served under)."""

    def __init__(self, options: Any, recognizer: Any = None) -> None:
        rules = getattr(options, "rules", None) or HouseRules()
        set_max = getattr(options, "set_max", None) or 9
        names = getattr(options, "player_names", None)
        players = getattr(options, "players", None) or (len(names) if names else 4)
        self.config = GameConfig(players, set_max, rules)
        if recognizer is None:
            from vision.recognize import get_recognizer

            recognizer = get_recognizer(getattr(options, "model_dir", None))
        round_double = getattr(options, "round_double", None)
        evidence_dir = getattr(options, "evidence_dir", None)
        self.evidence_url = getattr(options, "evidence_url", None)
        self.tracker = Tracker(self.config, detector=RecognizerDetector(recognizer, set_max),
                               spinner_player=getattr(options, "spinner_player", 0) or 0,
                               round_index=None if round_double is None else set_max - round_double,
                               evidence_dir=evidence_dir, player_names=list(names) if names else None)
        self._t0: float | None = None

    def feed(self, image: Any) -> list[dict[str, Any]]:
        frame = getattr(image, "bgr", image)
        now = time.monotonic()
        first = self._t0 is None
        if self._t0 is None:
            self._t0 = now
        reads = self.tracker.frames_read
        events = self.tracker.push(frame, now - self._t0)
        state = self.tracker.state
        h, w = frame.shape[:2]
        out: list[dict[str, Any]] = [{
            "type": "overlay", "frame": self.tracker.frames, "width": w, "height": h,
            "tiles": self._tiles(), "read": self.tracker.frames_read > reads, "state": state.to_dict(),
        }]
        if first:
            cfg = self.config
            out.append(_message("tracking_started", self.tracker.frames - 1,
                                f"watching: double-{cfg.set_max} set, {cfg.players} players, "
                                f"rules: {cfg.rules.describe()}",
                                set=cfg.set_max, players=cfg.players))
        out.extend(self.message(ev) for ev in events)
        return out

    def message(self, ev: TrackEvent) -> dict[str, Any]:
        """One tracker event as a protocol `event` message."""
        data = {k: v for k, v in ev.to_dict().items() if k not in ("kind", "frame")}
        if isinstance(ev, TilePlayed) and not ev.legal:
            violation = {"rule": ev.rule, "message": ev.message, "tile": ev.tile, "player": ev.player, "on": ev.on,
                         "frame": ev.frame}
            extra: dict[str, Any] = {"rule": ev.rule, "rule_message": ev.message, "tile": ev.tile,
                                     "player": ev.player, "on": ev.on, "t": data.get("t")}
            if ev.evidence:
                name = Path(ev.evidence).name
                violation["evidence"] = extra["evidence"] = name
                if self.evidence_url:
                    violation["evidence_url"] = extra["evidence_url"] = f"{self.evidence_url.rstrip('/')}/{name}"
            # the sentence without the server's file path (the URL stands for it)
            return _message("violation", ev.frame, replace(ev, evidence=None).describe(), **extra,
                            violation=violation)
        data.pop("message", None)
        return _message(ev.kind, ev.frame, ev.describe(), **data)

    def tell(self, action: str, player: int) -> list[dict[str, Any]]:
        """What the table says the camera cannot see ("draw", "pass", "announce", see
        `Tracker.tell`): a `state` message with the hands as counted now, then any events."""
        events = self.tracker.tell(action, player)
        return [{"type": "state", "state": self.tracker.state.to_dict()}, *(self.message(ev) for ev in events)]

    def _tiles(self) -> list[dict[str, Any]]:
        """The tiles the tracker has accepted, in the shape the page draws (corners, pips) plus
        what the tracker knows of each (status: spinner, legal, illegal, joined, loose)."""
        return [{"id": k, "pips": list(bt.pose.pips), **bt.to_dict()}
                for k, bt in enumerate(self.tracker.board.values())]

    def close(self) -> None:
        self.tracker.window.clear()


def _message(name: str, frame: int, message: str, **data: Any) -> dict[str, Any]:
    return {**data, "type": "event", "event": name, "frame": frame, "message": message, "time": time.time()}
