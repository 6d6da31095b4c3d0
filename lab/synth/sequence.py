"""Rendered game sequences: a round of Chicken Foot filmed as it is played.

Each sequence is one round dealt and played by the rules engine, laid on the table
with the table-scene geometry (`lab.synth.table`), and filmed by a fixed camera
at `FPS` frames a second: between plays the board sits still; for each play a hand
reaches in from the player's seat, lays the tile and withdraws, hiding part of the
board on the way; now and then the camera is nudged, the light flickers, a hand
comes in and leaves without playing, a player takes a play back, and planted
illegal plays are laid and then taken back. Draws and passes happen off camera
(the boneyard is off the table), as at a real table.

The plan (`SequencePlan`) is all geometry and ground truth and costs milliseconds,
so tracker evaluations on ground-truth-derived detections need no pixels at all;
`render_frame` draws the pixels of one frame when a test or the real recognizer
needs them. `generate_sequences` writes both to disk:

    <out>/seq_0000/truth.json        the plan (per-frame tiles, hands, camera, events)
    <out>/seq_0000/frames/000000.jpg one image per frame

Geometry is in tile-width units ("layout units"); `layout_to_canvas` scales them onto
the camera's table plane and each camera pose (`cameras[k]`, plane -> image) turns
that into pixels, so image corners for any tile in any frame are one matrix away.
"""
from __future__ import annotations

import json
import math
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

import cv2
import numpy as np

from engine import GameConfig, HouseRules, IllegalPlay, RoundState, Tile, make_deal

FPS = 10.0
"""Frames per second a round is planned at: every random draw of the plan (how long the board
sits still, where a hand is at each step) is made once per step of 1 / FPS seconds."""

SET_CHOICES = (6, 9, 12, 15)
"""Set sizes drawn when the caller does not choose (double-18 rounds run to 150 plays)."""

ILLEGAL_CHANCE = 0.07
"""Chance, at the start of a turn, that the player first lays a planted illegal tile."""
TAKE_BACK_CHANCE = 0.04
"""Chance that a legal play is taken back (and the turn played again)."""
IDLE_HAND_CHANCE = 0.06
"""Chance per turn of a hand reaching over the board without playing."""
NUDGE_CHANCE = 0.04
"""Chance per turn that the camera is knocked a little."""
FLICKER_CHANCE = 0.03
"""Chance per still frame of a one- or two-frame light flicker."""

ILLEGAL_KINDS = ("ends_do_not_match", "wrong_way_round", "elsewhere_while_pending", "no_free_slot")
"""How planted plays break the rules: a tile without the open end's number; a tile with it
but laid with its other end touching; a tile played elsewhere while a spinner or chickie
still needs tiles; a fifth arm or fourth toe on a full double."""

HAND_WIDTH = 2.6
"""Forearm width in tile widths (a hand is about three domino widths across)."""


# ---------------------------------------------------------------------------- plan data


@dataclass
class SeqTile:
    """One physical placement of a tile on the table (a tile taken back and laid again
    gets a new id), in layout units."""

    id: int
    a: int
    """Value at end 0 (corners 0-1)."""
    b: int
    cx: float
    cy: float
    angle: float
    parent: int | None
    """Plane id of the tile it is laid against (None for the spinner)."""
    node: int | None
    """Engine placement index for a legal play; None for a planted illegal tile."""

    def quad(self, ratio: float) -> np.ndarray:
        """Corners in layout units, label order (end0-left, end0-right, end1-right, end1-left)."""
        local = np.array([[-0.5, -ratio / 2], [0.5, -ratio / 2], [0.5, ratio / 2], [-0.5, ratio / 2]])
        c, s = math.cos(self.angle), math.sin(self.angle)
        rot = np.array([[c, -s], [s, c]])
        return local @ rot.T + np.array([self.cx, self.cy])

    @property
    def name(self) -> str:
        return str(Tile(self.a, self.b))


@dataclass
class SeqHand:
    """A hand over the table: fingertips `progress` of the way from `entry` to `target`."""

    player: int
    entry: tuple[float, float]
    target: tuple[float, float]
    progress: float

    def polygons(self) -> list[np.ndarray]:
        """Forearm, palm and fingers as convex polygons in layout units (what they hide)."""
        e = np.array(self.entry)
        g = np.array(self.target)
        u = g - e
        u /= np.linalg.norm(u) + 1e-9
        n = np.array([-u[1], u[0]])
        tip = e + (g - e) * self.progress + u * 0.6
        polys = []
        # fingers (four, slightly spread) and a thumb
        for k in range(4):
            off = (-0.9 + 0.6 * k)
            base = tip - u * 2.2 + n * off * 0.9
            end = tip - u * (0.25 * abs(k - 1.5)) + n * off
            polys.append(_bar(base, end, 0.5))
        polys.append(_bar(tip - u * 3.2 + n * 1.3, tip - u * 1.6 + n * 1.9, 0.6))
        palm_front, palm_back = tip - u * 1.9, tip - u * 4.8
        polys.append(np.array([palm_front - n * 1.35, palm_front + n * 1.35, palm_back + n * 1.2, palm_back - n * 1.2]))
        polys.append(_bar(palm_back + u * 0.3, e - u * 3.0, HAND_WIDTH))
        return polys


def _bar(p0: np.ndarray, p1: np.ndarray, width: float) -> np.ndarray:
    d = p1 - p0
    d = d / (np.linalg.norm(d) + 1e-9)
    n = np.array([-d[1], d[0]]) * width / 2
    return np.array([p0 - n, p0 + n, p1 + n, p1 - n])


@dataclass
class SeqFrame:
    index: int
    t: float
    tiles: list[int]
    """Plane ids on the table in this frame."""
    camera: int
    """Index into `SequencePlan.cameras`."""
    hand: SeqHand | None = None
    moving: bool = False
    """A hand or the camera is moving: what a perfect motion detector would report."""
    light: float = 1.0
    """Global brightness gain (flicker and drift)."""
    blur: float = 0.0
    """Motion-blur length in pixels (a knocked camera)."""


@dataclass
class SeqEvent:
    """Ground truth: something that happened at the table, from frame `frame` on."""

    kind: str
    """"spinner", "play", "take_back", "draw", "pass", "nudge" or "idle_hand"."""
    frame: int
    player: int | None = None
    tile: str | None = None
    tile_id: int | None = None
    on: str | None = None
    """The tile it was laid against (plays)."""
    parent_id: int | None = None
    slot: int | None = None
    legal: bool = True
    rule: str | None = None
    """Engine code of the rule a planted play breaks."""
    planted: str | None = None
    """Which `ILLEGAL_KINDS` was planted."""


@dataclass
class SequencePlan:
    set_max: int
    players: int
    rules: HouseRules
    round_index: int
    spinner_player: int
    ratio: float
    size: tuple[int, int]
    canvas: tuple[int, int]
    layout_to_canvas: np.ndarray
    """3x3: layout units -> table-plane (canvas) pixels."""
    cameras: list[np.ndarray]
    """3x3 each: canvas pixels -> image pixels; nudges append poses."""
    tile_w: float
    """Canvas pixels per tile width."""
    seats: list[tuple[float, float]]
    """Where each player's hand comes from (layout units, outside the view)."""
    tiles: list[SeqTile]
    frames: list[SeqFrame]
    events: list[SeqEvent]
    record: dict[str, Any]
    """The true round in the engine's game-record form (hands, draws and passes included)."""
    meta: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    """Seed for the pixels (style, surface, noise) when rendering."""
    fps: float = FPS
    """Frames per second it was filmed at (a frame's time is its index / fps)."""

    def homography(self, camera: int) -> np.ndarray:
        """Layout units -> image pixels for camera pose `camera`."""
        return self.cameras[camera] @ self.layout_to_canvas

    def image_corners(self, tile_id: int, camera: int) -> np.ndarray:
        return _apply(self.homography(camera), self.tiles[tile_id].quad(self.ratio)).astype(np.float32)

    def plays(self) -> list[SeqEvent]:
        """Tile-played events (legal and planted), spinner excluded."""
        return [e for e in self.events if e.kind == "play"]

    def to_dict(self) -> dict[str, Any]:
        def hand(h: SeqHand | None) -> Any:
            return None if h is None else {"player": h.player, "entry": list(h.entry), "target": list(h.target),
                                            "progress": round(h.progress, 3)}

        return {
            "format": "chickenfoot-sequence", "version": 1,
            "set": self.set_max, "players": self.players, "rules": self.rules.to_dict(),
            "round_index": self.round_index, "spinner_player": self.spinner_player,
            "ratio": self.ratio, "size": list(self.size), "canvas": list(self.canvas), "fps": self.fps,
            "layout_to_canvas": np.round(self.layout_to_canvas, 6).tolist(),
            "cameras": [np.round(c, 8).tolist() for c in self.cameras],
            "tile_w": self.tile_w, "seats": [list(s) for s in self.seats], "seed": self.seed,
            "tiles": [asdict(t) for t in self.tiles],
            "frames": [{"i": f.index, "t": round(f.t, 3), "tiles": f.tiles, "camera": f.camera, "hand": hand(f.hand),
                        "moving": f.moving, "light": round(f.light, 3), "blur": round(f.blur, 2)} for f in self.frames],
            "events": [{k: v for k, v in asdict(e).items() if v is not None} for e in self.events],
            "record": self.record,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SequencePlan":
        if d.get("format") != "chickenfoot-sequence":
            raise ValueError("not a chickenfoot sequence truth file")
        frames = []
        for f in d["frames"]:
            h = f.get("hand")
            hand = None if h is None else SeqHand(int(h["player"]), tuple(h["entry"]), tuple(h["target"]),
                                                  float(h["progress"]))
            frames.append(SeqFrame(int(f["i"]), float(f["t"]), list(f["tiles"]), int(f["camera"]), hand,
                                   bool(f["moving"]), float(f.get("light", 1.0)), float(f.get("blur", 0.0))))
        return cls(
            set_max=int(d["set"]), players=int(d["players"]), rules=HouseRules.from_dict(d["rules"]),
            round_index=int(d["round_index"]), spinner_player=int(d["spinner_player"]), ratio=float(d["ratio"]),
            size=tuple(d["size"]), canvas=tuple(d["canvas"]),
            layout_to_canvas=np.array(d["layout_to_canvas"], np.float64),
            cameras=[np.array(c, np.float64) for c in d["cameras"]], tile_w=float(d["tile_w"]),
            seats=[tuple(s) for s in d["seats"]], tiles=[SeqTile(**t) for t in d["tiles"]], frames=frames,
            events=[SeqEvent(**e) for e in d["events"]], record=d["record"], meta=d.get("meta", {}),
            seed=int(d.get("seed", 0)), fps=float(d.get("fps", FPS)),
        )


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, h).reshape(-1, 2)


# ---------------------------------------------------------------------------- planning a round


def random_round_setup(py: random.Random, set_max: int) -> tuple[int, HouseRules]:
    """Players and house rules a real table might use with this set (the deal must leave a boneyard)."""
    for _ in range(50):
        rules = HouseRules(
            hand_size=py.choice([7, 7, "table"]) if set_max >= 9 else py.choice([5, 7]),
            spinner_arms=py.choice([4, 4, 4, 6]),
        )
        players = py.randint(2, {6: 3, 9: 6, 12: 6, 15: 6, 18: 6}[set_max])
        try:
            GameConfig(players, set_max, rules)
        except ValueError:
            continue
        return players, rules
    return 2, HouseRules(hand_size=5)


class _Film:
    """Builds the frame list as the round is played: still stretches, hands, nudges.

    Filmed at `fps`, a whole multiple of `FPS`: each planned step becomes `fps / FPS` frames, a
    hand's position moving evenly between the step's planned positions. The random draws stay one
    per step, so the same seed films the same round, with the same timing in seconds, at any rate
    (a camera at 30 fps sees the round a 10-fps plan describes, three times as finely)."""

    def __init__(self, py: random.Random, fps: float = FPS) -> None:
        per_step = fps / FPS
        if per_step < 1 or abs(per_step - round(per_step)) > 1e-9:
            raise ValueError(f"a sequence is filmed at a whole multiple of {FPS:g} fps, not {fps:g}")
        self.py = py
        self.fps = float(fps)
        self.per_step = int(round(per_step))
        self.frames: list[SeqFrame] = []
        self.on_table: list[int] = []
        self.camera = 0
        self.drift = 1.0

    def _frame(self, hand: SeqHand | None = None, moving: bool = False, light: float | None = None,
               blur: float = 0.0, *, start: float | None = None) -> None:
        """One planned step: `per_step` frames. A hand's progress moves evenly from `start` (where
        the step before left it) to `hand.progress`; without a `start` it holds still."""
        self.drift = min(1.08, max(0.92, self.drift + self.py.gauss(0, 0.004)))
        for k in range(1, self.per_step + 1):
            h = hand
            if hand is not None and start is not None and k < self.per_step:
                h = SeqHand(hand.player, hand.entry, hand.target,
                            start + (hand.progress - start) * k / self.per_step)
            self.frames.append(SeqFrame(len(self.frames), len(self.frames) / self.fps, list(self.on_table),
                                        self.camera, h, moving, self.drift if light is None else light, blur))

    def still(self, n: int) -> None:
        py = self.py
        i = 0
        while i < n:
            if py.random() < FLICKER_CHANCE:
                gain = self.drift * py.choice([py.uniform(0.75, 0.9), py.uniform(1.1, 1.25)])
                for _ in range(min(n - i, py.randint(1, 2))):
                    self._frame(light=gain)
                    i += 1
            else:
                self._frame()
                i += 1

    def hand(self, player: int, entry: tuple[float, float], target: tuple[float, float],
             change: Any = None) -> int:
        """A hand reaches to `target`, `change()` happens under it, and it withdraws.
        Returns the first frame showing the change."""
        py = self.py
        reach = sorted(py.uniform(0.25, 0.95) for _ in range(py.randint(2, 3)))
        at = 0.0  # (a hand comes in from outside the view)
        for p in reach:
            self._frame(SeqHand(player, entry, target, p), moving=True, start=at)
            at = p
        if change is not None:
            change()
        first = len(self.frames)
        for _ in range(py.randint(1, 2)):
            self._frame(SeqHand(player, entry, target, 1.0), moving=True, start=at)
            at = 1.0
        for p in sorted((py.uniform(0.2, 0.9) for _ in range(py.randint(2, 3))), reverse=True):
            self._frame(SeqHand(player, entry, target, p), moving=True, start=at)
            at = p
        return first

    def nudge(self) -> None:
        self.camera += 1
        for _ in range(self.py.randint(1, 2)):
            self._frame(moving=True, blur=self.py.uniform(4, 14))


def plan_sequence(rng: np.random.Generator, size: tuple[int, int] = (1280, 720), set_max: int | None = None,
                  players: int | None = None, rules: HouseRules | None = None, *,
                  illegal_chance: float = ILLEGAL_CHANCE, max_plays: int | None = None,
                  round_index: int | None = None, fps: float = FPS) -> SequencePlan:
    """Deal and play one round at random, film it at `fps` (a whole multiple of `FPS`; see
    `_Film`), and return the plan with its ground truth."""
    from .scene import random_camera
    from .table import Table
    from .tileface import random_style

    W, H = size
    py = random.Random(int(rng.integers(0, 2**63 - 1)))
    set_max = int(set_max if set_max is not None else py.choice(SET_CHOICES))
    if players is None or rules is None:
        p0, r0 = random_round_setup(py, set_max)
        players = players or p0
        rules = rules or r0
    config = GameConfig(players, set_max, rules)
    ratio = float(random_style(np.random.default_rng(py.randrange(2**31)), set_max).ratio)
    drawn_round = py.randrange(set_max + 1)
    round_index = drawn_round if round_index is None else round_index
    state = RoundState(config, round_index, make_deal(config, py, round_index), check_deal=False)

    # a box sized for the tiles that will probably be played, in the camera's aspect
    expect = min(config.tile_count - 1, int(config.tile_count * 0.8))
    aspect = W / H * 1.1
    bh = math.sqrt(expect * ratio * 4.2 / aspect) + 4
    box = (0.0, 0.0, bh * aspect, bh)
    table = Table(box, ratio)
    film = _Film(py, fps)
    tiles: list[SeqTile] = []
    events: list[SeqEvent] = []
    node_of: dict[int, int] = {}  # engine placement index -> plane id

    centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    radius = 0.5 * math.hypot(box[2] - box[0], box[3] - box[1]) + 6
    base = math.pi / 2 + py.uniform(-0.3, 0.3)
    seats = [(float(centre[0] + radius * math.cos(base + 2 * math.pi * p / players)),
              float(centre[1] + radius * math.sin(base + 2 * math.pi * p / players))) for p in range(players)]

    # the spinner
    sp = state.board.placements[0]
    spinner_node = _spinner_node(py, sp.tile, sp.facing, centre, ratio, rules.spinner_arms)
    table.add(spinner_node)
    tiles.append(SeqTile(0, spinner_node.a, spinner_node.b, float(spinner_node.centre[0]),
                         float(spinner_node.centre[1]), float(spinner_node.angle), None, 0))
    node_of[0] = 0
    film.still(py.randint(4, 8))
    first = film.hand(state.spinner_player, seats[state.spinner_player], tuple(spinner_node.centre),
                      lambda: film.on_table.append(0))
    events.append(SeqEvent("spinner", first, state.spinner_player, sp.tile.__str__(), 0))
    film.still(py.randint(5, 10))

    stopped = "round_over"
    plays = 0
    history_seen = 0
    started_turn: tuple[int, int] | None = None
    while not state.is_over():
        # off-camera actions the engine recorded since we last looked (draws, passes, penalties)
        hist = state.history
        for h in hist[history_seen:]:
            if h[0] in ("draw", "pass"):
                events.append(SeqEvent(h[0], len(film.frames), h[1], str(h[2]) if h[0] == "draw" else None))
        history_seen = len(hist)
        if max_plays is not None and plays >= max_plays:
            stopped = "max_plays"
            break
        p = state.turn
        fresh_turn = started_turn != (p, len(hist)) and state.drawn_tile is None
        started_turn = (p, len(hist))
        if fresh_turn:
            if py.random() < NUDGE_CHANCE:
                film.nudge()
                events.append(SeqEvent("nudge", len(film.frames) - 1))
                film.still(py.randint(5, 10))
            if py.random() < IDLE_HAND_CHANCE:
                q = py.randrange(players)
                target = tuple(centre + np.array([py.uniform(-4, 4), py.uniform(-3, 3)]))
                f0 = film.hand(q, seats[q], target)
                events.append(SeqEvent("idle_hand", f0, q))
                film.still(py.randint(5, 10))
            if py.random() < illegal_chance:
                planted = _plant(py, state, table, tiles, node_of)
                if planted is not None:
                    tile_rec, ev, parent_node = planted
                    target = (tile_rec.cx, tile_rec.cy)
                    ev.frame = film.hand(p, seats[p], target, lambda: film.on_table.append(tile_rec.id))
                    events.append(ev)
                    film.still(py.randint(6, 14))
                    f1 = film.hand(p, seats[p], target, lambda: film.on_table.remove(tile_rec.id))
                    events.append(SeqEvent("take_back", f1, p, ev.tile, tile_rec.id))
                    parent_node.children.remove(table.nodes[-1].index)
                    table.pop()
                    film.still(py.randint(8, 14))
        options = state.legal_plays()
        if options and rules.voluntary_draw and state.drawn_tile is None and state.can_draw() and py.random() < 0.1:
            options = []
        if options:
            laid = _lay(py, state, table, options, tiles, node_of)
            if laid is None:
                stopped = "no_room"
                break
            tile_rec, ev, before = laid
            target = (tile_rec.cx, tile_rec.cy)
            ev.frame = film.hand(p, seats[p], target, lambda: film.on_table.append(tile_rec.id))
            events.append(ev)
            film.still(py.randint(5, 12))
            plays += 1
            if py.random() < TAKE_BACK_CHANCE and not state.is_over():
                f1 = film.hand(p, seats[p], target, lambda: film.on_table.remove(tile_rec.id))
                events.append(SeqEvent("take_back", f1, p, ev.tile, tile_rec.id))
                state = before
                node = table.nodes[-1]
                table.pop()
                table.nodes[node.parent].children.remove(node.index)
                del node_of[node.index]
                history_seen = len(state.history)
                started_turn = (state.turn, history_seen)
                film.still(py.randint(8, 14))
        elif state.can_draw():
            state.draw()
        else:
            state.pass_turn()
        for q in list(state.unannounced):
            if py.random() < 0.75:
                state.announce(q)
    hist = state.history
    for h in hist[history_seen:]:
        if h[0] in ("draw", "pass"):
            events.append(SeqEvent(h[0], len(film.frames), h[1], str(h[2]) if h[0] == "draw" else None))
    film.still(py.randint(8, 12))

    # frame the whole layout for the camera; nudges are small moves of the camera after that
    cam = random_camera(rng, W, H, tilt_max=0.6)
    used = [t for t in tiles]
    quads = np.vstack([t.quad(ratio) for t in used])
    x0, y0, x1, y1 = cam.region
    lo, hi = quads.min(0), quads.max(0)
    span = np.maximum(hi - lo, 1e-6)
    room = np.array([x1 - x0, y1 - y0])
    s = float(min(room / span)) * py.uniform(0.85, 0.95)
    s = min(s, 0.16 * H / ratio)  # a few tiles should not fill the picture
    fx, fy = py.uniform(0.3, 0.7), py.uniform(0.3, 0.7)
    turn = math.radians(py.uniform(-5, 5))
    margin = 0.01 * W
    for _attempt in range(30):
        off = np.array([x0, y0]) + (room - span * s) * np.array([fx, fy]) - lo * s
        c, s_ = math.cos(turn) * s, math.sin(turn) * s
        mid = (lo + hi) / 2
        # rotate about the layout's middle, scale, then move into the view
        to_canvas = np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1]])
        to_canvas[:2, 2] = off + mid * s - to_canvas[:2, :2] @ mid
        if _in_view(cam.hm @ to_canvas, quads, W, H, margin):
            break
        s *= 0.96
    # a wide border of table around the camera's canvas, so a knocked camera or a long
    # arm never shows the canvas edge (or its mirror image)
    mx, my = int(0.25 * cam.canvas_w), int(0.25 * cam.canvas_h)
    pad = np.array([[1.0, 0, mx], [0, 1.0, my], [0, 0, 1.0]])
    to_canvas = pad @ to_canvas
    canvas = (cam.canvas_w + 2 * mx, cam.canvas_h + 2 * my)
    # a knocked camera never loses tiles off the picture here: the evaluation is about
    # following the game, and no camera can follow a tile it does not see
    cameras = [cam.hm.astype(np.float64) @ np.linalg.inv(pad)]
    for _ in range(film.camera):
        for _try in range(20):
            nxt = _nudged(py, cameras[-1], W, H)
            if _in_view(nxt @ to_canvas, quads, W, H, margin):
                break
        else:
            nxt = cameras[-1]
        cameras.append(nxt)

    return SequencePlan(
        set_max=set_max, players=players, rules=rules, round_index=round_index,
        spinner_player=state.spinner_player, ratio=ratio, size=(W, H), canvas=canvas,
        layout_to_canvas=to_canvas, cameras=cameras, tile_w=s, seats=seats, tiles=tiles, frames=film.frames,
        events=events, record=state.to_record(),
        meta={"stopped": stopped, "plays": plays, "frames": len(film.frames), "box": list(box),
              "planted": sum(1 for e in events if e.planted), "take_backs": sum(1 for e in events if e.kind == "take_back")},
        seed=py.randrange(2**31), fps=film.fps,
    )


def _spinner_node(py: random.Random, tile: Tile, facing: int, centre: np.ndarray, ratio: float, arms: int) -> Any:
    from .table import Pose, _new_node, _quad, _spinner_spots

    angle = py.choice([0.0, math.pi / 2]) + math.radians(py.uniform(-4, 4))
    axis = np.array([math.sin(angle), -math.cos(angle)])
    pose = Pose(centre, np.array([-axis[1], axis[0]]), angle, _quad(centre[0], centre[1], angle, ratio), "")
    node = _new_node(0, tile, facing, pose, None, None, "spinner", py)
    node.spots = _spinner_spots(arms, py)
    return node


def _record_tile(tiles: list[SeqTile], node: Any, parent_id: int | None, engine_index: int | None) -> SeqTile:
    rec = SeqTile(len(tiles), int(node.a), int(node.b), float(node.centre[0]), float(node.centre[1]),
                  float(node.angle), parent_id, engine_index)
    tiles.append(rec)
    return rec


def _lay(py: random.Random, state: RoundState, table: Any, options: list, tiles: list[SeqTile],
         node_of: dict[int, int]) -> tuple[SeqTile, SeqEvent, RoundState] | None:
    """Make one legal play that has room on the table; None when none has."""
    from .table import fit_play

    options = list(options)
    py.shuffle(options)
    for play in options:
        end = state.board.open_ends[play.end]
        node = fit_play(table, state, play, py)
        if node is None:
            continue
        before = state.clone()
        player = state.turn
        placed = state.play(play)
        assert placed.index == node.index
        table.nodes[end.node].children.append(node.index)
        table.add(node)
        rec = _record_tile(tiles, node, node_of[end.node], placed.index)
        node_of[placed.index] = rec.id
        ev = SeqEvent("play", -1, player, str(play.tile), rec.id, str(end.tile), node_of[end.node],
                      end.slot if end.tile.is_double else None)
        return rec, ev, before
    return None


def _plant(py: random.Random, state: RoundState, table: Any, tiles: list[SeqTile],
           node_of: dict[int, int]) -> tuple[SeqTile, SeqEvent, Any] | None:
    """Lay a tile from the player's hand that the rules refuse right now; None if no such
    play has room. The tile is added to `table` (the caller pops it on take-back)."""
    from .table import _new_node, find_room

    board = state.board
    hand = list(state.hand(state.turn))
    kinds = list(ILLEGAL_KINDS)
    py.shuffle(kinds)
    for kind in kinds:
        tries: list[tuple[Tile, Any, int, int | None, str | None]] = []  # tile, parent node, facing, slot, spot
        if kind == "ends_do_not_match":
            ends = board.playable_ends()
            for e in ends:
                for t in hand:
                    if not t.has(e.value) and not t.is_double:
                        tries.append((t, table.nodes[e.node], t.high if py.random() < 0.5 else t.low, e.slot, None))
        elif kind == "wrong_way_round":
            for e in board.playable_ends():
                for t in hand:
                    if t.has(e.value) and not t.is_double:
                        tries.append((t, table.nodes[e.node], t.other(e.value), e.slot, None))
        elif kind == "elsewhere_while_pending":
            forced = board.forced_ends()
            if forced is None:
                continue
            pending = board.pending
            others = [e for e in board.open_ends.values() if e.node != pending]
            for e in others:
                for t in hand:
                    if t.has(e.value) and not t.is_double:
                        tries.append((t, table.nodes[e.node], e.value, e.slot, None))
        else:  # no_free_slot: a fifth arm on a full four-arm spinner, a fourth toe on a full chickie
            for pl in board.placements:
                if pl.kind == "tile":
                    continue
                base = pl.index * 8
                if any(base + s in board.open_ends for s in range(board.capacity(pl))):
                    continue
                node = table.nodes[pl.index]
                if pl.kind == "spinner":
                    if board.spinner_arms != 4:
                        continue
                    spots = [f"{s[:5]}{-float(s[5:]):+.2f}" for s in node.spots
                             if s.startswith("side") and abs(float(s[5:])) > 0.25]
                else:
                    spots = ["back+", "back-"]
                for t in hand:
                    if t.has(pl.outer) and not t.is_double:
                        for spot in spots:
                            tries.append((t, node, pl.outer, None, spot))
        py.shuffle(tries)
        for tile, parent, facing, slot, spot in tries[:12]:
            pose = find_room(table, parent, slot, False, py, spot, relaxed=spot is not None)
            if pose is None:
                continue
            # what the engine says about this play, with the end the tile is laid on
            if spot is not None:
                end_id = parent.index * 8 + 7  # no such slot: the double is full
            else:
                end_id = parent.index * 8 + (slot or 0)
            try:
                state.check_play(tile, end_id)
                code = "ends_do_not_match" if kind == "wrong_way_round" else None
            except IllegalPlay as exc:
                code = exc.code
            if code is None:
                continue
            node = _new_node(len(table.nodes), tile, facing, pose, parent, slot, "tile", py)
            parent.children.append(node.index)
            table.add(node)
            rec = _record_tile(tiles, node, node_of[parent.index], None)
            ev = SeqEvent("play", -1, state.turn, str(tile), rec.id, str(Tile(parent.a, parent.b)),
                          node_of[parent.index], slot if parent.is_double else None, legal=False, rule=code,
                          planted=kind)
            return rec, ev, parent
    return None


def _in_view(h: np.ndarray, quads: np.ndarray, W: int, H: int, margin: float) -> bool:
    pts = _apply(h, quads)
    return bool((pts[:, 0] >= margin).all() and (pts[:, 0] <= W - margin).all()
                and (pts[:, 1] >= margin).all() and (pts[:, 1] <= H - margin).all())


def _nudged(py: random.Random, hm: np.ndarray, W: int, H: int) -> np.ndarray:
    """The camera knocked a little: the picture turns, shifts and zooms slightly."""
    ang = math.radians(py.uniform(-1.5, 1.5))
    sc = 1 + py.uniform(-0.02, 0.02)
    tx, ty = py.uniform(-0.025, 0.025) * W, py.uniform(-0.025, 0.025) * H
    c, s = math.cos(ang) * sc, math.sin(ang) * sc
    cx, cy = W / 2, H / 2
    m = np.array([[c, -s, cx - c * cx + s * cy + tx], [s, c, cy - s * cx - c * cy + ty], [0, 0, 1]])
    return m @ hm


# ---------------------------------------------------------------------------- pixels


class SequenceRenderer:
    """Draws the frames of a plan. The table, light and tile sprites are fixed for the
    whole round (it is one table under one lamp); the board is drawn once per board
    state and reused, so a frame costs a warp, a hand and some sensor noise."""

    def __init__(self, plan: SequencePlan) -> None:
        from dataclasses import replace

        from .background import skin_rgb, surface
        from .tileface import random_style

        self.plan = plan
        rng = np.random.default_rng(plan.seed)
        self.rng = rng
        self.style = replace(random_style(rng, plan.set_max), ratio=plan.ratio)
        cw, ch = plan.canvas
        base = surface(rng, ch, cw, plan.tile_w)
        grad = cv2.resize(rng.uniform(0.75, 1.2, (3, 3)).astype(np.float32), (cw, ch), interpolation=cv2.INTER_CUBIC)
        temp = rng.uniform(-0.12, 0.12)
        gains = np.array([1 - temp, 1.0, 1 + temp], np.float32) * rng.uniform(0.9, 1.1, 3).astype(np.float32)
        self.light_map = grad[..., None] * gains[None, None, :]
        self.base = base  # RGB float, unlit
        self.light_dir = tuple(rng.normal(0, 1, 2) / 1.5)
        self.shadow_off = -np.array(self.light_dir) * plan.tile_w * rng.uniform(0.05, 0.15)
        self.skins = [skin_rgb(rng)[::-1] for _ in range(plan.players)]  # BGR
        self.blur_sigma = rng.uniform(0.0, 1.2)
        self.noise_sigma = rng.uniform(1.5, 6.0)
        W, H = plan.size
        self.noise = []
        for _ in range(4):
            n = np.empty((H, W), np.float32)
            cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
            cv2.randn(n, 0.0, self.noise_sigma)
            self.noise.append(np.repeat(n[..., None], 3, axis=2).astype(np.int16))
        self._sprites: dict[int, Any] = {}
        self._boards: dict[tuple[int, ...], np.ndarray] = {}
        self._order: list[tuple[int, ...]] = []

    def _sprite(self, tid: int) -> Any:
        from .tileface import draw_tile

        sp = self._sprites.get(tid)
        if sp is None:
            t = self.plan.tiles[tid]
            sp = self._sprites[tid] = draw_tile(self.style, t.a, t.b, int(round(self.plan.tile_w)), self.rng,
                                                False, self.light_dir)
        return sp

    def _draw_tile(self, canvas: np.ndarray, tid: int) -> None:
        from .scene import Placement, _composite, _sprite_affine

        plan = self.plan
        t = plan.tiles[tid]
        m = plan.layout_to_canvas
        cx, cy = (m @ np.array([t.cx, t.cy, 1.0]))[:2]
        turn = math.atan2(m[1, 0], m[0, 0])
        p = Placement(float(cx), float(cy), t.angle + turn, t.a, t.b)
        quad = _apply(m, t.quad(plan.ratio)).astype(np.float32)
        # soft shadow under the tile, then the tile's side, then its face
        x0, y0 = np.floor(quad.min(0) - plan.tile_w).astype(int)
        x1, y1 = np.ceil(quad.max(0) + plan.tile_w).astype(int)
        H, W = canvas.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        if x1 > x0 and y1 > y0:
            mask = np.zeros((y1 - y0, x1 - x0), np.float32)
            cv2.fillConvexPoly(mask, ((quad + self.shadow_off - [x0, y0]) * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
            mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, plan.tile_w * 0.08))
            canvas[y0:y1, x0:x1] *= (1 - 0.4 * mask)[..., None]
        thick = quad + np.array([0.0, 1.0]) * plan.tile_w * 0.12
        hull = cv2.convexHull(np.vstack([quad, thick]).astype(np.float32))
        cv2.fillConvexPoly(canvas, (hull * 16).astype(np.int32), tuple(float(c) for c in self.style.side_rgb),
                           cv2.LINE_AA, 4)
        sp = self._sprite(tid)
        _composite(canvas, sp.rgba, _sprite_affine(p, sp), None, tid)

    def board(self, tiles: list[int]) -> np.ndarray:
        """The lit table with these tiles on it, BGR uint8 on the table plane (cached)."""
        key = tuple(tiles)
        img = self._boards.get(key)
        if img is not None:
            return img
        canvas = self.base.copy()
        for tid in tiles:
            self._draw_tile(canvas, tid)
        lit = np.clip(canvas * self.light_map, 0, 255).astype(np.uint8)[..., ::-1]
        img = np.ascontiguousarray(lit)
        self._boards[key] = img
        self._order.append(key)
        if len(self._order) > 6:
            self._boards.pop(self._order.pop(0), None)
        return img

    def _hand(self, canvas: np.ndarray, hand: SeqHand) -> None:
        m = self.plan.layout_to_canvas
        polys = [(_apply(m, p) * 16).astype(np.int32) for p in hand.polygons()]
        shadow = canvas.copy()
        off = (self.shadow_off * 3 * 16).astype(np.int32)
        for p in polys:
            cv2.fillConvexPoly(shadow, p + off, (0, 0, 0), cv2.LINE_AA, 4)
        cv2.addWeighted(shadow, 0.3, canvas, 0.7, 0, dst=canvas)
        skin = np.array(self.skins[hand.player], np.float32)
        for k, p in enumerate(polys):
            shade = 0.85 + 0.05 * (k % 3)
            cv2.fillConvexPoly(canvas, p, tuple(float(c) for c in skin * shade), cv2.LINE_AA, 4)

    def frame(self, i: int) -> np.ndarray:
        """Frame `i` as a camera would deliver it: BGR uint8, `plan.size`."""
        plan = self.plan
        f = plan.frames[i]
        canvas = self.board(f.tiles)
        if f.hand is not None:
            canvas = canvas.copy()
            self._hand(canvas, f.hand)
        W, H = plan.size
        img = cv2.warpPerspective(canvas, plan.cameras[f.camera], (W, H), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REFLECT)
        if self.blur_sigma > 0.3:
            img = cv2.GaussianBlur(img, (0, 0), self.blur_sigma)
        if f.blur > 1:
            k = int(f.blur) | 1
            kern = np.zeros((k, k), np.float32)
            kern[k // 2, :] = 1.0 / k
            rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float((i * 37) % 180), 1.0)
            img = cv2.filter2D(img, -1, cv2.warpAffine(kern, rot, (k, k)))
        if abs(f.light - 1.0) > 1e-3:
            img = cv2.convertScaleAbs(img, alpha=f.light)
        noisy = img.astype(np.int16) + self.noise[i % len(self.noise)]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def frames(self) -> Iterator[np.ndarray]:
        for i in range(len(self.plan.frames)):
            yield self.frame(i)


def render_frame(plan: SequencePlan, i: int) -> np.ndarray:
    """One frame of a plan (builds a renderer; keep a `SequenceRenderer` for many frames)."""
    return SequenceRenderer(plan).frame(i)


# ---------------------------------------------------------------------------- files


def write_sequence(plan: SequencePlan, folder: str | Path, frames: bool = True, quality: int = 90) -> int:
    """Write truth.json and (optionally) every frame as JPEG; returns the frames written."""
    folder = Path(folder)
    (folder / "frames").mkdir(parents=True, exist_ok=True)
    (folder / "truth.json").write_text(json.dumps(plan.to_dict()))
    if not frames:
        return 0
    n = 0
    for i, img in enumerate(SequenceRenderer(plan).frames()):
        cv2.imwrite(str(folder / "frames" / f"{i:06d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        n += 1
    return n


def load_sequence(folder: str | Path) -> SequencePlan:
    path = Path(folder)
    if path.is_dir():
        path = path / "truth.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read sequence truth {path}: {exc}") from None
    return SequencePlan.from_dict(data)


def sequence_rng(seed: int, index: int) -> np.random.Generator:
    """Sequence `index` of a run: independent of how many are made or in what order."""
    return np.random.default_rng(np.random.SeedSequence([seed, index]))


def round_name(seed: int, index: int) -> str:
    """The name a run gives sequence `index` of `seed` (`sequence_rng`), in its reports and events."""
    return f"seed{seed}-{index}"


def generate_sequences(out: str | Path, count: int, seed: int = 0, size: tuple[int, int] | None = (1280, 720),
                       set_max: int | None = None) -> dict[str, Any]:
    """Render `count` rounds as frame sequences with per-frame ground truth (the synth
    command's "sequence" kind). Set sizes cycle through `SET_CHOICES` unless one is given."""
    t0 = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    size = tuple(size) if size else (1280, 720)
    images = 0
    summary = []
    for i in range(count):
        sm = set_max if set_max is not None else SET_CHOICES[i % len(SET_CHOICES)]
        plan = plan_sequence(sequence_rng(seed, i), size, sm)
        images += write_sequence(plan, out / f"seq_{i:04d}")
        summary.append({"folder": f"seq_{i:04d}", "set": plan.set_max, "players": plan.players,
                        "frames": len(plan.frames), "plays": len(plan.plays()),
                        "planted": plan.meta["planted"], "stopped": plan.meta["stopped"]})
    (out / "sequences.json").write_text(json.dumps({"seed": seed, "size": list(size), "sequences": summary}, indent=1))
    secs = time.perf_counter() - t0
    return {"images": images, "sequences": count, "seconds": round(secs, 2),
            "images_per_second": round(images / secs, 2) if secs > 0 else 0.0}
