"""Table scenes: real Chicken Foot layouts, played by the engine and laid out as people lay them.

A round is dealt and played at random by the rules engine, and every play is given a
place on the table as it is made: along an arm tiles touch end to end (small gaps,
a few degrees off), a double lies crosswise with its long side against the parent's
end, a chickie's three toes leave the double's far long side (one straight, two at
45 degrees with their ends at the double's far corners), and an arm that would run
off the table or into another arm turns 90 degrees, its next tile's end against the
long side of the last tile's free half. When no legal play has room, the round
stops there, so every picture shows a position the rules allow.

Hands lie in rows at the table's edges (mostly face down, sometimes shown), the
boneyard is a loose block of face-down tiles. `Scene.layout` is the ground truth in
the engine's terms (which end of which tile touches which end of which tile), and
planted variants break one rule on purpose with the violation code the audit must
report in `Scene.meta["planted"]`.

All layout geometry is worked out in tile-width units (a tile is 1 wide and
`style.ratio` long) and scaled onto the camera's table plane at the end.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import GameConfig, HouseRules, Layout, LayoutEdge, LayoutTile, Tile, audit_layout, make_deal
from engine.round import RoundState
from engine.tiles import SUPPORTED_SETS

from .scene import Camera, Placement, Scene, TileLabel, _apply_h, quads_overlap, random_camera, render_scene, tile_corners
from .tileface import TileStyle, random_style


class LayoutFailed(RuntimeError):
    """The round planner found no table that fits the picture with these draws."""

PLANT_KINDS: tuple[str, ...] = (
    "ends_do_not_match",  # a tile laid with the wrong number against its neighbour
    "too_many_toes",  # a fourth toe on a chickie
    "too_many_arms",  # a fifth arm on a four-armed spinner
    "duplicate_tile",  # the same tile twice in the layout
    "chickie_unfinished",  # play went on beyond a chickie that still lacks a toe
)
PLANT_CHANCE = 0.2
"""Share of scenes with a planted violation when the caller does not choose."""

CLEARANCE = 0.35
"""Tile widths kept free between tiles that are not laid against each other, so that
every contact in the ground truth is a play and nothing else looks like one."""
GAP_MAX = 0.04
"""Largest gap between touching tiles, in tile widths (people do not push them flush)."""
JITTER_DEG = 3.0
"""Largest turn off the ideal angle, per tile (errors accumulate along an arm)."""
DIAG_CLEAR = 0.06
"""Room between a diagonal toe and the straight toe, in tile widths."""


# ---------------------------------------------------------------------------- geometry helpers

def _unit(angle: float) -> np.ndarray:
    return np.array([math.cos(angle), math.sin(angle)])


def _perp(v: np.ndarray) -> np.ndarray:
    return np.array([-v[1], v[0]])


def _rot(v: np.ndarray, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _angle_for_end0(direction: np.ndarray) -> float:
    """`Placement.angle` that points end 0 along `direction` (end 0 is 'up' at angle 0)."""
    return math.atan2(direction[0], -direction[1])


def _quad(cx: float, cy: float, angle: float, ratio: float) -> np.ndarray:
    return tile_corners(Placement(cx, cy, angle, 0, 0), 1.0, ratio).astype(np.float64)


@dataclass
class Node:
    """One layout tile on the table, in tile-width units."""

    index: int
    """Board placement index (0 is the spinner); renumbered after planting."""
    a: int
    """Value at end 0 (as drawn)."""
    b: int
    centre: np.ndarray
    out: np.ndarray
    """Unit direction from the parent towards this tile's children (toes for a double)."""
    angle: float
    facing: int
    """Value of the end laid against the parent (the double's value for a double)."""
    outer: int
    parent: int | None
    slot: int | None
    kind: str
    """"spinner", "chickie" or "tile"."""
    quad: np.ndarray
    children: list[int] = field(default_factory=list)
    spots: list[str] = field(default_factory=list)
    """For doubles: where each slot's child goes ("side+0.5", "end+", "straight", "diag-" ...)."""

    @property
    def is_double(self) -> bool:
        return self.a == self.b


@dataclass
class Pose:
    centre: np.ndarray
    out: np.ndarray
    angle: float
    quad: np.ndarray
    how: str


class Table:
    """Tiles placed so far and the box they must stay in; answers 'is there room here?'."""

    def __init__(self, box: tuple[float, float, float, float], ratio: float) -> None:
        self.box = box
        self.ratio = ratio
        self.nodes: list[Node] = []
        self._centres = np.zeros((0, 2))

    def add(self, node: Node) -> None:
        self.nodes.append(node)
        self._centres = np.vstack([self._centres, node.centre[None]])

    def pop(self) -> None:
        self.nodes.pop()
        self._centres = self._centres[:-1]

    def room(self, quad: np.ndarray, parent: int | None, siblings: set[int] = frozenset(),
             relaxed: bool = False) -> bool:
        """Whether a tile fits at `quad`: inside the box, clear of the tiles around it.

        It may touch its parent and sit beside its siblings (arms, toes). `relaxed` (for
        planted tiles squeezed in) lets it lie alongside anything, as long as no end of it
        comes near another tile and no other tile's end comes near it, which is what
        would make a contact that is not a play."""
        x0, y0, x1, y1 = self.box
        if (quad[:, 0] < x0).any() or (quad[:, 0] > x1).any() or (quad[:, 1] < y0).any() or (quad[:, 1] > y1).any():
            return False
        if not len(self.nodes):
            return True
        c = quad.mean(0)
        near = np.nonzero(np.hypot(*(self._centres - c).T) < self.ratio + CLEARANCE + 0.2)[0]
        shrunk = c + (quad - c) * 0.985
        ends = _end_mids(quad)
        for i in near:
            node = self.nodes[i]
            if node.index == parent:
                if quads_overlap(shrunk, node.quad):
                    return False
            elif node.index in siblings:
                if quads_overlap(shrunk, node.quad):
                    return False
            elif relaxed:
                if quads_overlap(quad, node.quad, gap=0.03):
                    return False
                if min(_point_quad_distance(e, node.quad) for e in ends) < CLEARANCE:
                    return False
                if min(_point_quad_distance(e, quad) for e in _end_mids(node.quad)) < CLEARANCE:
                    return False
            elif quads_overlap(quad, node.quad, gap=CLEARANCE):
                return False
        return True


def _end_mids(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (quad[0] + quad[1]) / 2, (quad[2] + quad[3]) / 2


def _point_quad_distance(pt: np.ndarray, quad: np.ndarray) -> float:
    """Distance from a point to a convex quad (0 inside), whichever way the quad winds."""
    best = math.inf
    crosses = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        e = b - a
        t = min(1.0, max(0.0, float(np.dot(pt - a, e) / (np.dot(e, e) + 1e-12))))
        best = min(best, float(np.hypot(*(pt - (a + t * e)))))
        crosses.append(e[0] * (pt[1] - a[1]) - e[1] * (pt[0] - a[0]))
    if all(x >= 0 for x in crosses) or all(x <= 0 for x in crosses):
        return 0.0
    return best


def _jitter(rng: random.Random) -> tuple[float, float]:
    """A small turn off the ideal angle and the gap that keeps the turned tile clear."""
    turn = math.radians(rng.uniform(-JITTER_DEG, JITTER_DEG))
    return turn, rng.uniform(0.0, GAP_MAX)


def _pose_along(touch: np.ndarray, out: np.ndarray, double: bool, ratio: float, rng: random.Random,
                offset: float = 0.0, away: np.ndarray | None = None) -> Pose:
    """A tile whose near end (or, for a double, near long side) lies against `touch`.

    `offset` slides a crosswise double along its own axis (unused for now: doubles are
    centred on the parent's end, as people lay them). `away`: a neighbour lies alongside,
    so the small turn goes away from it (people splay such tiles, never cross them)."""
    turn, gap = _jitter(rng)
    if away is not None and float(np.dot(_rot(out, turn), away)) < 0:
        turn = -turn
    d = _rot(out, turn)
    half_span = ratio / 2 if double else 0.5
    gap += half_span * abs(math.sin(turn))
    depth = 0.5 if double else ratio / 2
    centre = touch + d * (gap + depth) + _perp(d) * offset
    if double:
        end0 = _perp(d) if rng.random() < 0.5 else -_perp(d)
        angle = _angle_for_end0(end0)
    else:
        angle = _angle_for_end0(-d)  # end 0 towards the parent; swapped later at random
    return Pose(centre, d, angle, _quad(centre[0], centre[1], angle, ratio), "")


def candidate_poses(table: Table, parent: Node, slot: int | None, child_double: bool, rng: random.Random,
                    spot: str | None = None) -> list[Pose]:
    """Where a child of `parent` may go, best first: straight on, then turned either way."""
    R = table.ratio
    c, d = parent.centre, parent.out
    poses: list[Pose] = []
    if parent.is_double:
        p = _perp(d)
        where = spot if spot is not None else parent.spots[slot or 0]
        if parent.kind == "spinner":
            axis = _unit(parent.angle - math.pi / 2)  # end-0 direction of the spinner
            across = _perp(axis)
            if where.startswith("side"):
                sign = 1.0 if where[4] == "+" else -1.0
                off = float(where[5:])
                touch = c + across * sign * 0.5 + axis * off
                pose = _pose_along(touch, across * sign, False, R, rng,
                                   away=axis * math.copysign(1.0, off) if abs(off) > 0.25 else None)
            else:
                sign = 1.0 if where[3] == "+" else -1.0
                # arms off centre on the long sides overhang the spinner's ends a little:
                # the end arms sit that much further out, so the corners do not collide
                wide = any(sp.startswith("side") and abs(float(sp[5:])) > 0.25 for sp in parent.spots)
                extra = max(0.0, 1.01 - R / 2) + 0.04 if wide else 0.0
                touch = c + axis * sign * (R / 2 + extra)
                pose = _pose_along(touch, axis * sign, False, R, rng)
            pose.how = where
            poses.append(pose)
        elif where == "straight":
            pose = _pose_along(c + d * 0.5, d, False, R, rng)
            pose.how = where
            poses.append(pose)
        elif where.startswith("diag") or where.startswith("back"):
            # diagonal toes: end centre at the double's far corner, turned 45 degrees out;
            # "back" (a planted fourth toe) is the same at a near corner, turned back
            s = 1.0 if where[4] == "+" else -1.0
            f = d if where.startswith("diag") else -d
            turn, gap = _jitter(rng)
            u = _rot((f + s * p) / math.sqrt(2), turn)
            lam = 0.5 + 0.5 / math.sqrt(2) + DIAG_CLEAR
            dep = max(0.0, R / 2 - lam) + gap + 0.5 * abs(math.sin(turn))
            q = c + f * (0.5 + dep) + s * p * lam
            centre = q + u * R / 2
            angle = _angle_for_end0(-u)
            poses.append(Pose(centre, u, angle, _quad(centre[0], centre[1], angle, R), where))
        return poses
    end = c + d * R / 2
    pose = _pose_along(end, d, child_double, R, rng)
    pose.how = "straight"
    poses.append(pose)
    if not child_double:  # a double never turns a corner: it lies across the arm
        sides = [1.0, -1.0]
        rng.shuffle(sides)
        for s in sides:
            n = _perp(d) * s
            touch = c + d * (R / 2 - 0.5) + n * 0.5
            pose = _pose_along(touch, n, False, R, rng)
            pose.how = "turn"
            poses.append(pose)
    return poses


def _siblings(table: Table, parent: Node) -> set[int]:
    return set(parent.children) if parent.is_double else set()


def fit_play(table, state, play, rng):
    """The table node `play` would become, or None when it has no room there (a double also
    needs room for its three toes). Shared by table scenes and game sequences."""
    end = state.board.open_ends[play.end]
    parent = table.nodes[end.node]
    pose = find_room(table, parent, end.slot, play.tile.is_double, rng)
    if pose is None:
        return None
    node = _new_node(len(table.nodes), play.tile, end.value, pose, parent, end.slot,
                     "chickie" if play.tile.is_double else "tile", rng)
    if node.is_double:
        spots = ["straight", "diag+", "diag-"]
        rng.shuffle(spots)
        node.spots = spots
        if not toes_have_room(table, node, rng):
            return None
    return node


def find_room(table: Table, parent: Node, slot: int | None, child_double: bool, rng: random.Random,
              spot: str | None = None, relaxed: bool = False) -> Pose | None:
    near = _siblings(table, parent)
    if spot is not None and spot.startswith("back") and parent.parent is not None:
        near = near | {parent.parent}  # a fourth toe squeezed in lies beside the chickie's parent
    tries = [candidate_poses(table, parent, slot, child_double, rng, spot) for _ in range(3)]
    for i in range(len(tries[0])):  # straight on first, each way tried with fresh jitter
        for poses in tries:
            if table.room(poses[i].quad, parent.index, near, relaxed):
                return poses[i]
    return None


def toes_have_room(table: Table, double: Node, rng: random.Random) -> bool:
    """Look ahead before laying a double: its three toes must fit too, or the round
    would stall with a chickie nobody can finish."""
    table.add(double)
    try:
        return all(find_room(table, double, s, False, rng) is not None for s in range(3))
    finally:
        table.pop()


# ---------------------------------------------------------------------------- playing a round onto the table

@dataclass
class TableRound:
    nodes: list[Node]
    hands: list[list[Tile]]
    boneyard: list[Tile]
    rules: HouseRules
    players: int
    round_double: int
    plays: int
    stopped: str
    """"round_over", "max_plays" or "no_room"."""
    over: bool


def _spinner_spots(arms: int, rng: random.Random, off_centre: bool = False) -> list[str]:
    if arms == 6:
        spots = ["side+-0.51", "side++0.51", "side--0.51", "side-+0.51", "end+", "end-"]
    else:
        offs = [0.0, 0.0]
        if off_centre or rng.random() < 0.4:  # people often lay the long-side arms off centre
            offs[rng.randrange(2)] = rng.choice([-0.51, 0.51])
        spots = [f"side+{offs[0]:+.2f}", f"side-{offs[1]:+.2f}", "end+", "end-"]
    rng.shuffle(spots)
    return spots


def _new_node(index: int, tile: Tile, facing: int, pose: Pose, parent: Node | None, slot: int | None, kind: str,
              rng: random.Random) -> Node:
    outer = tile.other(facing) if not tile.is_double else facing
    angle = pose.angle
    a, b = facing, outer
    if not tile.is_double and rng.random() < 0.5:  # the camera does not know which end is "0"
        a, b = outer, facing
        angle += math.pi
    return Node(index, a, b, pose.centre, pose.out, angle, facing, outer,
                None if parent is None else parent.index, slot, kind, pose.quad)


def play_table_round(rng: random.Random, set_max: int, rules: HouseRules, players: int,
                     box: tuple[float, float, float, float], ratio: float, max_plays: int,
                     round_index: int | None = None, off_centre: bool = False) -> TableRound:
    """Deal and play a round at random, giving every play a place on the table."""
    config = GameConfig(players, set_max, rules)
    if round_index is None:
        round_index = rng.randrange(set_max + 1)
    state = RoundState(config, round_index, make_deal(config, rng, round_index), check_deal=False)
    table = Table(box, ratio)
    sp = state.board.placements[0]
    x0, y0, x1, y1 = box
    centre = np.array([rng.uniform(x0 + 0.4 * (x1 - x0), x0 + 0.6 * (x1 - x0)),
                       rng.uniform(y0 + 0.4 * (y1 - y0), y0 + 0.6 * (y1 - y0))])
    angle = rng.choice([0.0, math.pi / 2, math.pi, -math.pi / 2]) + math.radians(rng.uniform(-4, 4))
    axis = np.array([math.sin(angle), -math.cos(angle)])
    pose = Pose(centre, _perp(axis), angle, _quad(centre[0], centre[1], angle, ratio), "")
    spinner = _new_node(0, sp.tile, sp.facing, pose, None, None, "spinner", rng)
    spinner.spots = _spinner_spots(rules.spinner_arms, rng, off_centre)
    table.add(spinner)

    plays = 0
    stopped = "round_over"
    while not state.is_over():
        if plays >= max_plays:
            stopped = "max_plays"
            break
        options = state.legal_plays()
        if options:
            rng.shuffle(options)
            done = False
            for play in options:
                node = fit_play(table, state, play, rng)
                if node is None:
                    continue
                placed = state.play(play)
                assert placed.index == node.index and placed.facing == node.facing
                table.nodes[node.parent].children.append(node.index)
                table.add(node)
                plays += 1
                done = True
                break
            if not done:
                stopped = "no_room"
                break
        elif state.can_draw():
            state.draw()
        else:
            state.pass_turn()
    return TableRound(table.nodes, [list(h) for h in state.hands], list(state.boneyard), rules, players,
                      state.round_double, plays, stopped, state.is_over())


# ---------------------------------------------------------------------------- planting violations

def _subtree(nodes: dict[int, Node], index: int) -> list[int]:
    out, stack = [], [index]
    while stack:
        i = stack.pop()
        out.append(i)
        stack.extend(nodes[i].children)
    return out


def _spare_tiles(tr: TableRound, nodes: dict[int, Node]) -> list[Tile]:
    """Tiles not on the board (boneyard first, then hands): what a cheat would lay."""
    used = {Tile(n.a, n.b) for n in nodes.values()}
    spare = [t for t in tr.boneyard if t not in used]
    spare += [t for h in tr.hands for t in h if t not in used]
    return spare


def _take(tr: TableRound, tile: Tile) -> None:
    if tile in tr.boneyard:
        tr.boneyard.remove(tile)
        return
    for h in tr.hands:
        if tile in h:
            h.remove(tile)
            return


def _set_values(node: Node, facing: int, outer: int, rng: random.Random) -> None:
    """Give an ordinary layout tile new values, keeping which physical end faces the parent."""
    toward_parent_is_a = node.a == node.facing and node.b == node.outer
    node.facing, node.outer = facing, outer
    node.a, node.b = (facing, outer) if toward_parent_is_a else (outer, facing)


def _value_on(parent: Node) -> int:
    return parent.outer


def plant(tr: TableRound, kind: str, rng: random.Random, ratio: float,
          box: tuple[float, float, float, float]) -> list[int] | None:
    """Break one rule in the finished layout; returns the board indices involved, or None
    when this layout offers no place to do it."""
    nodes = {n.index: n for n in tr.nodes}
    table = Table(box, ratio)
    for n in tr.nodes:
        table.add(n)
    leaves = [n for n in tr.nodes if n.kind == "tile" and not n.children]
    rng.shuffle(leaves)
    if kind == "ends_do_not_match":
        for leaf in leaves:
            p = _value_on(nodes[leaf.parent])
            spare = [t for t in _spare_tiles(tr, nodes) if not t.has(p) and not t.is_double]
            if not spare:
                continue
            tile = rng.choice(spare)
            _take(tr, tile)
            hi, lo = (tile.high, tile.low) if rng.random() < 0.5 else (tile.low, tile.high)
            _set_values(leaf, hi, lo, rng)
            return [leaf.index, leaf.parent]
        return None
    if kind == "duplicate_tile":
        for leaf in leaves:
            p = leaf.facing
            others = [n for n in tr.nodes if n.index != leaf.index and not n.is_double and p in (n.a, n.b)]
            if not others:
                continue
            twin = rng.choice(others)
            other = twin.b if twin.a == p else twin.a
            _set_values(leaf, p, other, rng)
            return [leaf.index, twin.index]
        return None
    if kind == "too_many_arms":
        spinner = nodes[0]
        if tr.rules.spinner_arms != 4 or len(spinner.children) != 4:
            return None
        taken = {nodes[c].slot for c in spinner.children}
        spots = [spinner.spots[s] for s in sorted(taken)]
        free = []
        for s in spots:
            if s.startswith("side") and abs(float(s[5:])) > 0.25:
                free.append(f"{s[:5]}{-float(s[5:]):+.2f}")
        v = spinner.a
        spare = [t for t in _spare_tiles(tr, nodes) if t.has(v) and not t.is_double]
        rng.shuffle(free)
        for spot in free:
            if not spare:
                break
            pose = find_room(table, spinner, None, False, rng, spot, relaxed=True)
            if pose is None:
                continue
            tile = spare[0]
            _take(tr, tile)
            node = _new_node(max(nodes) + 1, tile, v, pose, spinner, len(spinner.children), "tile", rng)
            spinner.children.append(node.index)
            tr.nodes.append(node)
            return [0, node.index]
        return None
    if kind == "too_many_toes":
        chickies = [n for n in tr.nodes if n.kind == "chickie" and len(n.children) == 3]
        rng.shuffle(chickies)
        for ch in chickies:
            v = ch.a
            spare = [t for t in _spare_tiles(tr, nodes) if t.has(v) and not t.is_double]
            if not spare:
                continue
            for spot in rng.sample(["back+", "back-"], 2):
                pose = find_room(table, ch, None, False, rng, spot)
                if pose is None:
                    continue
                tile = spare[0]
                _take(tr, tile)
                node = _new_node(max(nodes) + 1, tile, v, pose, ch, 3, "tile", rng)
                ch.children.append(node.index)
                tr.nodes.append(node)
                return [ch.index, node.index]
        return None
    if kind == "chickie_unfinished":
        chickies = [n for n in tr.nodes if n.kind == "chickie" and len(n.children) == 3]
        rng.shuffle(chickies)
        for ch in chickies:
            toes = list(ch.children)
            rng.shuffle(toes)
            grown = [t for t in toes if nodes[t].children]
            if not grown:
                # lay one more tile on a toe first, so that play went on past the chickie
                for t in toes:
                    toe = nodes[t]
                    spare = [x for x in _spare_tiles(tr, nodes) if x.has(toe.outer) and not x.is_double]
                    pose = find_room(table, toe, None, False, rng) if spare else None
                    if pose is None:
                        continue
                    tile = spare[0]
                    _take(tr, tile)
                    node = _new_node(max(nodes) + 1, tile, toe.outer, pose, toe, None, "tile", rng)
                    toe.children.append(node.index)
                    tr.nodes.append(node)
                    nodes[node.index] = node
                    grown = [t]
                    break
            if not grown:
                continue
            victim = next(t for t in toes if t != grown[0])
            gone = set(_subtree(nodes, victim))
            ch.children.remove(victim)
            tr.nodes[:] = [n for n in tr.nodes if n.index not in gone]
            beyond = [c for c in nodes[grown[0]].children]
            return [ch.index, *beyond]
        return None
    raise ValueError(f"unknown violation to plant: {kind!r}; choose one of {', '.join(PLANT_KINDS)}")


# ---------------------------------------------------------------------------- hands and boneyard

def _row(tiles: list[Tile], face_down: bool, ratio: float, rng: random.Random,
         per_row: int = 10) -> list[tuple[float, float, float, int, int, bool]]:
    """A hand laid flat, tiles side by side in rows of at most `per_row` (a big hand of
    the 42/players rule takes two): (x, y, angle, a, b, face_down), rows along x."""
    out = []
    rows = [tiles[i:i + per_row] for i in range(0, len(tiles), per_row)]
    for r, row in enumerate(rows):
        x = 0.0
        items = []
        for t in row:
            a, b = (t.high, t.low) if rng.random() < 0.5 else (t.low, t.high)
            items.append((x, r * (ratio + rng.uniform(0.15, 0.35)) + rng.uniform(-0.08, 0.08),
                          math.radians(rng.uniform(-4, 4)) + rng.choice([0.0, math.pi]), a, b, face_down))
            x += 1.0 + rng.uniform(0.08, 0.3)
        shift = x / 2 - 0.5
        out += [(x - shift, y, ang, a, b, fd) for x, y, ang, a, b, fd in items]
    mid = (min(y for _, y, *_ in out) + max(y for _, y, *_ in out)) / 2  # the block centred on the row line
    return [(x, y - mid, ang, a, b, fd) for x, y, ang, a, b, fd in out]


def _block(tiles: list[Tile], ratio: float, rng: random.Random) -> list[tuple[float, float, float, int, int, bool]]:
    """The boneyard: face-down tiles pushed into a loose block."""
    n = len(tiles)
    cols = max(1, int(round(math.sqrt(n * ratio * rng.uniform(0.6, 1.6)))))
    out = []
    for i, t in enumerate(tiles):
        r, c = divmod(i, cols)
        x = c * (1.0 + rng.uniform(0.15, 0.35)) + rng.uniform(-0.08, 0.08)
        y = r * (ratio + rng.uniform(0.15, 0.4)) + rng.uniform(-0.08, 0.08)
        ang = math.radians(rng.uniform(-6, 6)) + rng.choice([0.0, math.pi])
        out.append((x, y, ang, t.high, t.low, True))
    xs = np.array([[x, y] for x, y, *_ in out])
    mid = (xs.min(0) + xs.max(0)) / 2
    return [(x - mid[0], y - mid[1], ang, a, b, fd) for x, y, ang, a, b, fd in out]


def _extent(items: list[tuple[float, float, float, int, int, bool]], ratio: float) -> np.ndarray:
    q = np.vstack([_quad(x, y, ang, ratio) for x, y, ang, *_ in items])
    return np.array([q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()])


def _boxes_apart(a: np.ndarray, b: np.ndarray, gap: float) -> bool:
    return a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1]


def surroundings(tr: TableRound, ratio: float, rng: random.Random, reveal: bool
                 ) -> list[tuple[float, float, float, int, int, bool]]:
    """Hands in rows at the table's edges and the boneyard in a free spot beside the layout."""
    q = np.vstack([n.quad for n in tr.nodes])
    lay = np.array([q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()])
    out: list[tuple[float, float, float, int, int, bool]] = []
    placed: list[np.ndarray] = [lay]
    edges = ["bottom", "top", "left", "right"]
    rng.shuffle(edges)
    per_edge: dict[str, int] = {}
    for p, hand in enumerate(tr.hands):
        if not hand:
            continue
        edge = edges[p % 4]
        k = per_edge.get(edge, 0)
        per_edge[edge] = k + 1
        face_down = not reveal and rng.random() < 0.85
        row = _row(hand, face_down, ratio, rng)
        ext = _extent(row, ratio)
        margin = rng.uniform(1.5, 3.0)
        along = (ext[2] - ext[0]) + 1.5
        if edge in ("bottom", "top"):
            cx = (lay[0] + lay[2]) / 2 + k * along
            cy = lay[3] + margin - ext[1] if edge == "bottom" else lay[1] - margin - ext[3]
            items = [(x + cx, y + cy, ang, a, b, fd) for x, y, ang, a, b, fd in row]
        else:
            cx = lay[2] + margin + (ext[3] - ext[1]) / 2 if edge == "right" else lay[0] - margin - (ext[3] - ext[1]) / 2
            cy = (lay[1] + lay[3]) / 2 + k * along
            items = [(-y + cx, x + cy, ang + math.pi / 2, a, b, fd) for x, y, ang, a, b, fd in row]
        box = _extent(items, ratio)
        for _ in range(12):  # slide along the edge until it clears what is there
            if all(_boxes_apart(box, o, 0.8) for o in placed[1:]):
                break
            shift = np.array([along, 0.0]) if edge in ("bottom", "top") else np.array([0.0, along])
            items = [(x + shift[0], y + shift[1], ang, a, b, fd) for x, y, ang, a, b, fd in items]
            box = _extent(items, ratio)
        placed.append(box)
        out.extend(items)
    if tr.boneyard:
        block = _block(list(tr.boneyard), ratio, rng)
        ext = _extent(block, ratio)
        w, h = ext[2] - ext[0], ext[3] - ext[1]
        everything = np.array([min(b[0] for b in placed), min(b[1] for b in placed),
                               max(b[2] for b in placed), max(b[3] for b in placed)])
        spots = [
            (lay[2] + 1.8 + w / 2, lay[1] + h / 2), (lay[0] - 1.8 - w / 2, lay[3] - h / 2),
            (lay[2] + 1.8 + w / 2, lay[3] - h / 2), (lay[0] - 1.8 - w / 2, lay[1] + h / 2),
            (lay[0] + w / 2, lay[1] - 1.8 - h / 2), (lay[2] - w / 2, lay[3] + 1.8 + h / 2),
        ]
        rng.shuffle(spots)
        spots.append((everything[2] + 1.5 + w / 2, (everything[1] + everything[3]) / 2))
        for sx, sy in spots:
            items = [(x + sx, y + sy, ang, a, b, fd) for x, y, ang, a, b, fd in block]
            box = _extent(items, ratio)
            if all(_boxes_apart(box, o, 1.2) for o in placed):
                break
        out.extend(items)
    return out


# ---------------------------------------------------------------------------- the scene

@dataclass
class TablePlan:
    """Everything about a table scene except its pixels: enough to evaluate the layout stage."""

    placements: list[Placement]
    """Plane pixels; layout tiles first (id = index), then hands, then the boneyard."""
    camera: Camera
    style: TileStyle
    tile_w: float
    """Tile width on the table plane, in plane pixels."""
    size: tuple[int, int]
    set_max: int
    layout: dict[str, Any]
    meta: dict[str, Any]

    def labels(self) -> list[TileLabel]:
        """Tile corners projected into the photo, without rendering it (no visibility, no pips)."""
        out = []
        L = self.tile_w * self.style.ratio
        for i, p in enumerate(self.placements):
            corners = _apply_h(self.camera.hm, tile_corners(p, self.tile_w, L)).astype(np.float32)
            out.append(TileLabel(i, (p.a, p.b), corners, p.face_down, [], 0, 1.0, p.node))
        return out


def truth_layout(layout: dict[str, Any], tiles: list[TileLabel] | list[tuple[int, int]]) -> Layout:
    """The engine's `Layout` for a table scene's ground truth (`Scene.layout`)."""
    pips = {}
    for t in tiles:
        if isinstance(t, TileLabel):
            pips[t.id] = t.pips
    ids = layout["tiles"]
    return Layout(
        [LayoutTile(i, tuple(pips[i]) if pips else tuple(layout["pips"][str(i)])) for i in ids],
        [LayoutEdge(e["from"], e["from_pips"], e["to"], e["to_pips"]) for e in layout["edges"]],
        spinner_id=layout["spinner"],
    )


def _layout_dict(nodes: list[Node], rules: HouseRules) -> tuple[dict[str, Any], dict[int, int]]:
    order = sorted(nodes, key=lambda n: n.index)
    ids = {n.index: i for i, n in enumerate(order)}
    by = {n.index: n for n in order}
    edges = []
    for n in order:
        if n.parent is not None:
            edges.append({"from": ids[n.index], "from_pips": n.facing, "to": ids[n.parent],
                          "to_pips": _value_on(by[n.parent])})
    chickies = [{"tile": ids[n.index], "toes": [ids[c] for c in n.children], "missing": max(0, 3 - len(n.children))}
                for n in order if n.kind == "chickie"]
    spinner = by[0]
    return {
        "spinner": ids[0],
        "tiles": [ids[n.index] for n in order],
        "pips": {str(ids[n.index]): [n.a, n.b] for n in order},
        "edges": edges,
        "chickies": chickies,
        "arms": [ids[c] for c in spinner.children],
        "spinner_arms": rules.spinner_arms,
        "nodes": {str(ids[n.index]): n.index for n in order},
        "how": {str(ids[n.index]): (by[n.parent].spots[n.slot] if n.parent is not None and by[n.parent].is_double
                                    and n.slot is not None and n.slot < len(by[n.parent].spots) else
                                    ("toe4" if n.parent is not None and by[n.parent].is_double else
                                     ("" if n.parent is None else "along")))
                for n in order},
    }, ids


def _fit(quads: np.ndarray, cam: Camera, rng: random.Random) -> tuple[float, np.ndarray]:
    """Scale (plane px per tile width) and offset that put `quads` inside the camera's view."""
    x0, y0, x1, y1 = cam.region
    lo, hi = quads.min(0), quads.max(0)
    span = hi - lo
    room = np.array([x1 - x0, y1 - y0])
    s = float(min(room / span)) * rng.uniform(0.9, 0.98)
    slack = room - span * s
    off = np.array([x0, y0]) - lo * s + slack * np.array([rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)])
    return s, off


def plan_table(rng: np.random.Generator, size: tuple[int, int] = (1280, 960), set_max: int | None = None,
               plant_kind: str | None = "random", style: TileStyle | None = None,
               max_tiles: int | None = None, face: str | None = None, steep: bool = False) -> TablePlan:
    """Play a round onto a table and frame it for the camera.

    `plant_kind`: None for a legal layout, one of `PLANT_KINDS`, or "random" (a planted
    violation in `PLANT_CHANCE` of scenes)."""
    W, H = size
    set_max = int(set_max if set_max is not None else rng.choice(SUPPORTED_SETS, p=[0.15, 0.25, 0.3, 0.15, 0.15]))
    if plant_kind == "random":
        plant_kind = str(rng.choice(PLANT_KINDS)) if rng.random() < PLANT_CHANCE else None
    if plant_kind is not None and plant_kind not in PLANT_KINDS:
        raise ValueError(f"unknown violation to plant: {plant_kind!r}; choose one of {', '.join(PLANT_KINDS)}")
    style = style or random_style(rng, set_max, face)
    ratio = style.ratio
    py = random.Random(int(rng.integers(0, 2**63 - 1)))
    cam = random_camera(rng, W, H, steep=steep)
    aspect = (cam.region[2] - cam.region[0]) / (cam.region[3] - cam.region[1])
    for attempt in range(40):
        rules = HouseRules(
            hand_size=py.choice([7, 7, "table"]) if set_max >= 9 else 5,
            spinner_arms=4 if plant_kind == "too_many_arms" else py.choice([4, 4, 4, 6]),
        )
        max_players = {6: 4, 9: 6, 12: 8, 15: 8, 18: 8}[set_max]
        players = py.randint(2, max_players)
        try:
            GameConfig(players, set_max, rules)
        except ValueError:
            continue
        bh = py.uniform(12, 22) if set_max >= 9 else py.uniform(9, 14)
        box = (0.0, 0.0, bh * aspect * py.uniform(0.85, 1.1), bh)
        cap = max_tiles if max_tiles is not None else py.choice([py.randint(3, 20), py.randint(15, 45), py.randint(30, 75)])
        tr = play_table_round(py, set_max, rules, players, box, ratio, cap,
                              off_centre=plant_kind == "too_many_arms")
        involved: list[int] = []
        if plant_kind is not None:
            got = plant(tr, plant_kind, py, ratio, box)
            if got is None:
                continue
            involved = got
        # renumber nodes 0..n-1 in board order and build the truth
        layout, ids = _layout_dict(tr.nodes, rules)
        truth = truth_layout(layout, [])
        report = audit_layout(truth, set_max, rules, tr.round_double)
        broken = report.rules_broken()
        expected = [] if plant_kind is None else [plant_kind]
        if broken != expected:
            continue  # the plant broke something else as well (or the layout is not what we meant)
        break
    else:
        raise LayoutFailed("could not lay out a table scene in 40 attempts")

    reveal = tr.over and py.random() < 0.5
    around = surroundings(tr, ratio, py, reveal)
    nodes = sorted(tr.nodes, key=lambda n: n.index)
    items = [(n.centre[0], n.centre[1], n.angle, n.a, n.b, False, ids[n.index]) for n in nodes]
    items += [(x, y, ang, a, b, fd, None) for x, y, ang, a, b, fd in around]
    # turn the whole table a little, as tables are never square to the camera
    turn = math.radians(py.uniform(-8, 8))
    ct, st = math.cos(turn), math.sin(turn)
    items = [(ct * x - st * y, st * x + ct * y, ang + turn, a, b, fd, nd) for x, y, ang, a, b, fd, nd in items]
    quads = np.vstack([_quad(x, y, ang, ratio) for x, y, ang, *_ in items])
    if py.random() < 0.3:  # frame the layout and let the hands run off the edge of the photo
        lay_q = np.vstack([_quad(x, y, ang, ratio) for x, y, ang, a, b, fd, nd in items if nd is not None])
        s, off = _fit(lay_q, cam, rng)
        s = min(s, _fit(quads, cam, rng)[0] * 1.35)
        centre_lay = (lay_q.min(0) + lay_q.max(0)) / 2
        region_c = np.array([(cam.region[0] + cam.region[2]) / 2, (cam.region[1] + cam.region[3]) / 2])
        off = region_c - centre_lay * s
    else:
        s, off = _fit(quads, cam, rng)
    placements = [Placement(float(x * s + off[0]), float(y * s + off[1]), float(ang), int(a), int(b), bool(fd), nd)
                  for x, y, ang, a, b, fd, nd in items]
    meta = {
        "rules": rules.to_dict(),
        "players": tr.players,
        "round_double": tr.round_double,
        "plays": tr.plays,
        "stopped": tr.stopped,
        "round_over": tr.over,
        "layout_tiles": len(nodes),
        "hand_tiles": sum(len(h) for h in tr.hands),
        "boneyard_tiles": len(tr.boneyard),
        "tile_width_plane": round(s, 2),
        "planted": [] if plant_kind is None else [{"rule": plant_kind, "tiles": sorted(ids[i] for i in involved if i in ids)}],
    }
    return TablePlan(placements, cam, style, s, size, set_max, layout, meta)


def render_table(rng: np.random.Generator, size: tuple[int, int] = (1280, 960), set_max: int | None = None,
                 plant_kind: str | None = "random", face: str | None = None, steep: bool = False) -> Scene:
    """A photographed Chicken Foot table: the layout, hands at the edges, the boneyard. `face`:
    as `random_style`'s; `steep`: as `random_camera`'s."""
    plan = plan_table(rng, size, set_max, plant_kind, face=face, steep=steep)
    clutter = int(rng.integers(0, 3)) if rng.random() < 0.3 else 0
    scene = render_scene(rng, plan.placements, plan.style, size, plan.tile_w, plan.camera, "table", plan.set_max,
                         hands=int(rng.random() < 0.1), clutter=clutter)
    scene.layout = plan.layout
    scene.meta = plan.meta
    return scene
