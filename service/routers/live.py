"""WebSocket /api/v1/live: camera frames in, overlays and game events out.

Protocol (one JSON object per text message from the server):

- the client sends frames as binary messages (JPEG or PNG bytes) or as text
  `{"type": "frame", "image": "<base64 or data: URL>"}`; `{"type": "ping"}` is
  answered with `{"type": "pong"}`;
- every frame gets exactly one answer: `overlay` (tile outlines, in the frame's
  pixels), `skipped` (arrived sooner than `min_interval` after the last frame
  read) or `error` (not an image, too large...). A browser sends its next frame
  when the answer to the last one arrives, so a slow laptop never builds a queue;
- the table tells what the camera cannot see with `{"type": "table", "action": "draw" | "pass" |
  "announce", "player": seat}` (a draw, a pass, a last tile called); the answer is a `state`
  message (the tracker's state, with each hand's size) and any events that follow from it;
- `event` messages follow an overlay when the tracker has something to say
  (each with `event`, `frame`, `message` and the event's own fields):
  `tracking_started` (first frame), `round_started`, `tile_played`, `violation`
  (an illegal play: `rule` is the engine's rule code, `rule_message` its sentence,
  `evidence_url` the saved frame), `tile_taken_back`, `board_disturbed`,
  `camera_moved`, `board_cleared`, `notice`, `frame_rejected`.

Query parameters (all optional): `game_id` (a stored game: its players, set,
rules and next round are used, and the game's plays, take-backs and violations
are stored with it, see `GET /api/v1/games/{id}/live-events`), `set`, `house_rules`
(a preset name or a JSON object, read by `HouseRules.parse`), `players` (how many, 2-10; default 4, or the game's),
`spinner_player` (seat from 0 that laid the spinner; default 0) and `round_double`
(the double this round starts with; default: the game's next round, else taken
from the spinner).

Bad messages are answered with an error and the connection stays open; a client
that vanishes mid-message or mid-frame just ends its own connection.

The tracker is pluggable: `app.state.tracker_factory(LiveOptions)` makes one per
connection, with `feed(LoadedImage) -> list[dict]` and `close()`. The default is
the webcam tracker (`vision.tracking.live.LiveTracker`): a motion gate decides which
frames the recognizer reads, plays are judged by the rules engine as they are laid.
`RecognizerTracker` (reads every frame, reports tile changes) is kept as a simpler
stand-in.
"""
from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import secrets
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Protocol

from fastapi import APIRouter, Depends, WebSocket
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect, WebSocketState

from engine import ConfigError, GameConfig, HouseRules, HouseRulesError, Tile

from ..db import StoreError
from ..deps import ApiError, Settings, get_settings
from ..errorshape import one_line
from .common import check_set

log = logging.getLogger("chickenfoot.live")
router = APIRouter(prefix="/api/v1", tags=["live"])

MAX_CONSECUTIVE_ERRORS = 50
"""A client sending nothing but garbage this long is cut off; one bad frame never is."""


@dataclass(frozen=True)
class LiveOptions:
    """What a tracker knows about the game it watches."""

    set_max: int | None
    rules: HouseRules
    game_id: str | None
    model_dir: str | None
    round_double: int | None = None
    players: int | None = None
    """How many play (None: the tracker's default, 4)."""
    player_names: tuple[str, ...] | None = None
    spinner_player: int = 0
    """Seat (from 0) that laid this round's spinner."""
    evidence_dir: str | None = None
    """Where the frames of illegal plays are saved (one folder per connection)."""
    evidence_url: str | None = None
    """The URL prefix those frames are served under."""
    session: str | None = None
    """This connection's id (names its evidence folder and its stored events)."""


class Tracker(Protocol):
    def feed(self, image: Any) -> list[dict[str, Any]]:
        """Read one frame (`vision.imageio.LoadedImage`); return the messages to send, overlay first."""

    def close(self) -> None:
        """The connection is gone; free what the tracker holds."""


class BoardWatch:
    """Decides when the tiles in view have really changed.

    A change counts once the new multiset of tiles has been seen in
    `stable_frames` frames in a row, so one blurred frame or a hand passing over
    the table does not announce a phantom play.
    """

    def __init__(self, stable_frames: int = 2) -> None:
        self.stable_frames = stable_frames
        self.board: Counter[str] | None = None
        self._candidate: Counter[str] | None = None
        self._count = 0

    def update(self, seen: Counter[str]) -> dict[str, list[str]] | None:
        """None while nothing changed; else {"added", "removed", "tiles"} (the first frame counts as a change)."""
        if self.board is None:
            self.board = seen
            return {"added": sorted(seen.elements()), "removed": [], "tiles": sorted(seen.elements())}
        if seen == self.board:
            self._candidate, self._count = None, 0
            return None
        if seen == self._candidate:
            self._count += 1
        else:
            self._candidate, self._count = seen, 1
        if self._count < self.stable_frames:
            return None
        added, removed = sorted((seen - self.board).elements()), sorted((self.board - seen).elements())
        self.board, self._candidate, self._count = seen, None, 0
        return {"added": added, "removed": removed, "tiles": sorted(seen.elements())}


class RecognizerTracker:
    """Stand-in tracker: recognizes each frame it is given and reports when the tiles change."""

    def __init__(self, options: LiveOptions, stable_frames: int = 2) -> None:
        self.options = options
        self.frames = 0
        self.watch = BoardWatch(stable_frames)
        self._reported: set[str] = set()

    def feed(self, image: Any) -> list[dict[str, Any]]:
        from vision.recognize import get_recognizer

        self.frames += 1
        rec = get_recognizer(self.options.model_dir).recognize_loaded(image, self.options.set_max)
        out: list[dict[str, Any]] = [{
            "type": "overlay", "frame": self.frames, "width": rec.width, "height": rec.height,
            "tiles": [t.to_dict() for t in rec.tiles], "face_down": [t.to_dict() for t in rec.face_down],
            "total": rec.total, "seconds": round(rec.seconds, 3),
        }]
        first = self.watch.board is None
        change = self.watch.update(Counter(str(Tile(*t.pips)) for t in rec.tiles if t.pips is not None))
        if change is None:
            return out
        if first:
            out.append(_event("tracking_started", self.frames,
                              f"watching: {len(change['tiles'])} face-up tiles in view", tiles=change["tiles"]))
            return out
        parts = ([f"added {', '.join(change['added'])}"] if change["added"] else []) + \
                ([f"removed {', '.join(change['removed'])}"] if change["removed"] else [])
        out.append(_event("board_changed", self.frames, "board changed: " + "; ".join(parts), **change))
        out.extend(self._violations(rec))
        return out

    def _violations(self, rec: Any) -> list[dict[str, Any]]:
        """Flag plays against the rules when the layout reader is installed."""
        from .audit import layout_module

        layout = layout_module()
        if layout is None:
            return []
        try:
            audit = layout.audit_photo(rec, rec.set_max, self.options.rules, self.options.round_double)
        except Exception:  # noqa: BLE001 - a layout the reader cannot make sense of is not fatal here
            log.exception("layout audit failed on a live frame")
            return []
        events = []
        for v in audit.to_dict()["violations"]:
            key = json.dumps(v, sort_keys=True, default=str)
            if key in self._reported:
                continue
            self._reported.add(key)
            events.append(_event("violation", self.frames, v["message"] or "rule violation", violation=v))
        return events

    def close(self) -> None:
        self._reported.clear()


def _event(name: str, frame: int, message: str, **data: Any) -> dict[str, Any]:
    return {"type": "event", "event": name, "frame": frame, "message": message, "time": time.time(), **data}


def default_tracker_factory(options: LiveOptions) -> Tracker:
    from vision.tracking.live import LiveTracker

    return LiveTracker(options)


STORED_EVENTS = frozenset({"round_started", "tile_played", "violation", "tile_taken_back", "flag_withdrawn",
                           "play_corrected", "board_disturbed", "board_cleared", "camera_moved", "round_scored",
                           "last_tile", "chickenlittle_penalty", "round_blocked"})
"""Event kinds kept with a stored game (what happened at the table, not how the stream went)."""

SESSION_RE = re.compile(r"^[0-9a-f]{12}$")
EVIDENCE_RE = re.compile(r"^illegal_\d{6}_\d{1,2}-\d{1,2}\.jpg$")


def _whole(q: Any, name: str) -> int | None:
    text = q.get(name)
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise ApiError(422, "invalid_parameter", f"{name} must be a whole number, got {text[:20]!r}") from None


def _options(ws: WebSocket, settings: Settings) -> LiveOptions:
    q = ws.query_params
    game_id = q.get("game_id") or None
    set_max = check_set(_whole(q, "set"))
    round_double = _whole(q, "round_double")
    players = _whole(q, "players")
    spinner_player = _whole(q, "spinner_player") or 0
    rules = HouseRules.parse(q.get("house_rules"))
    names: tuple[str, ...] | None = None
    if game_id:
        store = ws.app.state.store
        game = store.get_game(game_id)
        rules, set_max = game.rules, set_max or game.config.set_max
        if players is not None and players != game.config.players:
            raise ApiError(422, "invalid_parameter", f"game {game_id} has {game.config.players} players, not {players}")
        players, names = game.config.players, tuple(game.players)
        if round_double is None:
            round_double = store.sheet(game_id)["next_double"]
    if players is not None and not 2 <= players <= 10:
        raise ApiError(422, "invalid_parameter", f"players must be 2 to 10, got {players}")
    seats = players or 4
    if not 0 <= spinner_player < seats:
        raise ApiError(422, "invalid_parameter",
                       f"spinner_player must be a seat from 0 to {seats - 1}, got {spinner_player}")
    try:
        config = GameConfig(seats, set_max or 9, rules)
    except ConfigError as exc:
        raise ApiError(422, "invalid_game", str(exc)) from None
    if round_double is not None and not 0 <= round_double <= config.set_max:
        raise ApiError(422, "invalid_parameter", f"round_double must be 0 to {config.set_max}, got {round_double}")
    session = secrets.token_hex(6)
    return LiveOptions(set_max, rules, game_id, settings.model_dir, round_double, players, names, spinner_player,
                       str(settings.live_evidence_dir / session), f"/api/v1/live/evidence/{session}", session)


@router.get("/live/evidence/{session}/{name}", response_class=FileResponse)
def evidence(session: str, name: str, settings: Settings = Depends(get_settings)) -> FileResponse:
    """The frame saved when a live connection flagged an illegal play (its `evidence_url`)."""
    path = settings.live_evidence_dir / session / name
    if not SESSION_RE.match(session) or not EVIDENCE_RE.match(name) or not path.is_file():
        raise ApiError(404, "not_found", "no such evidence frame")
    return FileResponse(path, media_type="image/jpeg")


def _frame_bytes(message: dict[str, Any]) -> bytes:
    """The image in one WebSocket message; raises ApiError for anything else."""
    if message.get("bytes") is not None:
        return message["bytes"]
    text = message.get("text")
    try:
        data = json.loads(text)
    except RecursionError:
        raise ApiError(400, "bad_message", "the message is not valid JSON: nested too deeply") from None
    except (TypeError, ValueError):
        raise ApiError(400, "bad_message", "send a frame as binary JPEG/PNG or JSON {\"type\": \"frame\", \"image\": base64}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_message", "a text message must be a JSON object")
    kind = data.get("type")
    if kind == "ping":
        raise _Pong()
    if kind == "table":
        raise _TableNote(data)
    if kind != "frame" or not isinstance(data.get("image"), str):
        raise ApiError(400, "bad_message", "unknown message; expected {\"type\": \"frame\", \"image\": base64} or {\"type\": \"ping\"}")
    b64 = data["image"]
    if b64.startswith("data:"):
        b64 = b64.partition(",")[2]
    try:
        return base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(400, "bad_frame", "the frame's \"image\" is not valid base64") from None


class _Pong(Exception):
    pass


class _TableNote(Exception):
    """A `table` message: what the players say happened (see the module docstring)."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__("table note")
        self.data = data


def _tell(tracker: Any, data: dict[str, Any]) -> list[dict[str, Any]]:
    from engine import IllegalPlay

    action, player = data.get("action"), data.get("player")
    if not hasattr(tracker, "tell"):
        raise ApiError(400, "bad_message", "this tracker takes no table notes")
    if action not in ("draw", "pass", "announce") or not isinstance(player, int) or isinstance(player, bool):
        raise ApiError(400, "bad_message", "a table note is {\"type\": \"table\", \"action\": \"draw\" | \"pass\" | "
                                           "\"announce\", \"player\": seat}")
    try:
        return tracker.tell(action, player)
    except (IllegalPlay, ValueError) as exc:
        raise ApiError(409, getattr(exc, "code", "refused"), getattr(exc, "message", str(exc))) from None


@router.websocket("/live")
async def live(ws: WebSocket) -> None:
    from vision.imageio import ImageError

    settings: Settings = ws.app.state.settings
    await ws.accept()
    try:
        options = _options(ws, settings)
    except (ApiError, StoreError, HouseRulesError) as exc:
        await _send(ws, {"type": "error", "error": getattr(exc, "code", "invalid"), "message": one_line(str(exc))})
        await _close(ws, 1008, str(exc))
        return
    try:
        tracker = await run_in_threadpool(ws.app.state.tracker_factory, options)
    except Exception as exc:  # noqa: BLE001 - e.g. the models cannot be loaded: say so, do not crash
        from vision.onnx_yolo import ModelError

        if isinstance(exc, (ModelError, OSError)):
            error = {"type": "error", "error": "models_unavailable",
                     "message": f"the tile models cannot be loaded: {exc}"}
        else:
            log.exception("could not start a live tracker")
            error = {"type": "error", "error": "internal", "message": "the live tracker could not be started"}
        await _send(ws, error)
        await _close(ws, 1011, error["message"])
        return
    slots = ws.app.state.slots
    store = ws.app.state.store if options.game_id else None
    last_read = 0.0
    frames = errors = 0
    await _send(ws, {"type": "ready", "min_interval": settings.live_min_interval,
                     "max_bytes": settings.max_upload_bytes, "set": options.set_max, "game_id": options.game_id,
                     "players": options.players, "spinner_player": options.spinner_player,
                     "round_double": options.round_double, "session": options.session})
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            frames += 1
            try:
                data = _frame_bytes(message)
                if len(data) > settings.max_upload_bytes:
                    raise ApiError(413, "frame_too_large", f"frame is {len(data)} bytes, over the {settings.max_upload_bytes}-byte limit")
                now = time.monotonic()
                if now - last_read < settings.live_min_interval:
                    if not await _send(ws, {"type": "skipped", "frame": frames, "reason": "throttled"}):
                        break
                    continue
                last_read = now
                replies = await run_in_threadpool(_read_frame, tracker, slots, data, frames, store, options)
                errors = 0
            except _Pong:
                replies = [{"type": "pong"}]
            except _TableNote as note:
                try:
                    replies = await run_in_threadpool(_tell, tracker, note.data)
                except ApiError as exc:
                    replies = [{"type": "error", "frame": frames, "error": exc.code, "message": exc.message}]
            except ApiError as exc:
                errors += 1
                replies = [{"type": "error", "frame": frames, "error": exc.code, "message": one_line(exc.message)}]
            except ImageError as exc:
                errors += 1
                replies = [{"type": "error", "frame": frames, "error": "bad_image", "message": one_line(str(exc))}]
            except Exception:  # noqa: BLE001 - one bad frame must not end the connection or the server
                errors += 1
                log.exception("live frame %d failed", frames)
                replies = [{"type": "error", "frame": frames, "error": "internal", "message": "this frame could not be read"}]
            sent = True
            for reply in replies:
                sent = await _send(ws, reply)
                if not sent:
                    break
            if not sent:
                break
            if errors >= MAX_CONSECUTIVE_ERRORS:
                await ws.close(code=1008, reason="too many bad messages")
                break
    except WebSocketDisconnect:
        pass
    finally:
        tracker.close()


def _read_frame(tracker: Tracker, slots: Any, data: bytes, frame: int, store: Any = None,
                options: LiveOptions | None = None) -> list[dict[str, Any]]:
    from vision.imageio import load_image

    with slots.hold():
        image = load_image(data, name=f"frame {frame}")
        replies = tracker.feed(image)
    if store is not None and options is not None and options.game_id:
        kept = [r for r in replies if r.get("type") == "event" and r.get("event") in STORED_EVENTS]
        if kept:
            # on disk before the answer goes out, like every other write to a game
            try:
                store.add_live_events(options.game_id, options.session or "", kept)
            except Exception:  # noqa: BLE001 - the game goes on; the page is told its record has a gap
                log.exception("could not store live events for game %s", options.game_id)
                replies.append(_event("notice", frame, "these events could not be stored with the game"))
    return replies


async def _close(ws: WebSocket, code: int, reason: str) -> None:
    """Close with a reason a client can show (a close frame's reason holds at most 123 bytes)."""
    reason = " ".join(reason.split())
    data = reason.encode("utf-8")
    if len(data) > 120:
        reason = data[:117].decode("utf-8", "ignore") + "..."
    try:
        await ws.close(code=code, reason=reason)
    except (RuntimeError, OSError, WebSocketDisconnect):
        pass


async def _send(ws: WebSocket, payload: dict[str, Any]) -> bool:
    """Send if the client is still there; False once it is gone (never raises for that)."""
    if ws.client_state != WebSocketState.CONNECTED or ws.application_state != WebSocketState.CONNECTED:
        return False
    try:
        await ws.send_text(json.dumps(payload))
        return True
    except (WebSocketDisconnect, RuntimeError, OSError):
        return False
    except Exception:  # noqa: BLE001 - e.g. the transport closed under us
        return False
