"""From detected tiles to the engine's layout: which end of which tile touches which.

Steps (each a function below):
1. `contacts`: geometry proposes contacts (an end against another tile's end or side,
   a double crosswise, a 45-degree toe), each with a cost in tile widths.
2. `link`: cheapest first, contacts become edges of a forest; pip values confirm them
   (a matching pair of ends wins over a slightly closer mismatched one, and a mismatch
   is only believed when the tiles clearly touch). An ordinary tile's end takes one
   contact; a contact that would close a loop is set aside and reported.
3. `bridge`: where a detection is missing, the layout continues past a hole: a tile
   that would touch both sides is inferred from the geometry (its values from its two
   neighbours) and reported as a gap rather than leaving half the layout "loose".
4. `choose_spinner`: the double that roots the tree is the reading the engine's rules
   find most plausible (fewest violations), then the one that looks like a spinner
   (arms off its short ends, no 45-degree toes), then the round's double; ties are
   reported as ambiguities.
5. `audit_photo` runs the engine's audit on that reading and returns the report the CLI
   and the web API both print.

Loose tiles (hands, boneyard, stray detections) lie apart from the layout and are left
out of it; face-down tiles only ever block. A photo with no layout, several layouts, or
a heap of tiles gets a status and a one-line message instead of a graph.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from engine import AuditReport, HouseRules, Layout, LayoutEdge, LayoutTile, audit_layout

from .layout_geometry import (
    MIN_FACING,
    OVERLAP,
    TOUCH,
    Frames,
    angle_class,
    contact_table,
    estimate_ratio,
    make_frames,
    near_pairs,
    quads_overlap_depth,
    to_image,
    to_local,
)
from .types import Recognition, TileDetection

MISMATCH_TOUCH = 0.22
"""A contact whose ends disagree is believed only this close (tile widths): a proven
violation needs tiles that plainly touch, not two that merely lie near each other."""
MATCH_COST = 0.52
"""Worst contact (gap plus misfit, tile widths) still taken when the ends agree."""
MISMATCH_RANK = 0.3
"""Rank penalty for disagreeing ends: with two candidates, the matching one wins."""
AMBIGUOUS_MARGIN = 0.08
"""Two readings closer than this in cost are reported as ambiguous."""
GAP_TOUCH = 0.22
"""A tile inferred in a gap must touch its far neighbour at least this well (half the
leftover gap plus misfit, tile widths)."""
NEAR_LAYOUT = 0.6
"""Face-up tiles this close (tile widths) to the layout but not part of it are 'lying
apart' (a violation); farther ones are hands, boneyard or strays, and left out."""
HEAP_DEPTH = 0.25
"""Tiles reaching this far into each other are piled up, not laid out."""
MAX_GAPS = 8
TOE_REACH = 0.5 + 0.5 / np.sqrt(2) + 0.06
"""How a 45-degree toe is laid: its end's centre sits at the double's far corner, this
far (tile widths) from the double's middle along its length, just enough for the toe
to clear the straight toe beside it."""
SHORT_DOUBLE_BONUS = 0.3
"""Rank bonus (tile widths) for an inferred tile that fills a double's empty arm or toe."""
EVIDENCE_WEIGHT = 0.75
"""How many violations one piece of spinner-like geometry (an arm off a short end, or
minus a 45-degree toe) is worth when choosing the spinner."""


# ---------------------------------------------------------------------------- data


@dataclass
class Link:
    """One contact between two tiles: `u`'s half `uh` touches `v`'s half `vh`."""

    u: int
    uh: int
    v: int
    vh: int
    cost: float
    kind: str
    """"end" (end to end), "side" (end against a long side), "diagonal" (a 45-degree toe)."""
    gap: float
    """Distance between the tiles at the contact, in tile widths (negative: overlapping)."""
    alt_half: bool = False
    """The touched half could not be told apart (an end against the middle of a long side)."""


@dataclass
class Gap:
    """A tile the detector missed, inferred from the layout around the hole."""

    id: int
    pips: tuple[int, int]
    corners: np.ndarray
    between: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile": self.id,
            "pips": list(self.pips),
            "between": list(self.between),
            "corners": np.round(self.corners, 1).tolist(),
            "message": f"a tile is missing between tiles {self.between[0]} and {self.between[1]}; "
                       f"the layout reads as if {max(self.pips)}-{min(self.pips)} lies there",
        }


@dataclass
class LayoutReading:
    """What the picture says about the layout, before and after the engine's audit."""

    status: str
    """"ok", "several_layouts", "no_layout", "heap" or "no_tiles"."""
    message: str
    layout: Layout | None = None
    report: AuditReport | None = None
    pips: dict[int, tuple[int, int]] = field(default_factory=dict)
    corners: dict[int, np.ndarray] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    """Contacts in the main layout (tile ids, including inferred tiles)."""
    gaps: list[Gap] = field(default_factory=list)
    loose: list[int] = field(default_factory=list)
    near: list[int] = field(default_factory=list)
    """Loose tiles lying close to the layout (reported by the audit as not connected)."""
    others: list[list[int]] = field(default_factory=list)
    """Tile ids of other layouts in the picture (status "several_layouts")."""
    unread: list[int] = field(default_factory=list)
    face_down: list[int] = field(default_factory=list)
    ambiguities: list[str] = field(default_factory=list)
    extra_contacts: list[tuple[int, int]] = field(default_factory=list)
    """Tiles that touch although neither was laid against the other (set aside)."""
    spinner_candidates: list[dict[str, Any]] = field(default_factory=list)


def _name(p: tuple[int, int]) -> str:
    return f"{max(p)}-{min(p)}"


# ---------------------------------------------------------------------------- 1. contacts


def _links_from_table(tab, pips: np.ndarray, ratio: float, toucher_ids: np.ndarray,
                      touched_ids: np.ndarray) -> list[Link]:
    """Turn contact tests into candidate links, with a cost that says how well each fits
    one of the ways tiles are really laid:

    - end to end: the toucher runs along the tile, centred on its end;
    - end against a long side: square to it (an arm turning a corner, a crosswise
      double's parent, a spinner's arm), never parallel (that is tiles side by side);
    - diagonal: a 45-degree toe, only at a double's corner."""
    if len(tab.toucher) == 0:
        return []
    ok = (tab.dist <= TOUCH) & (tab.dist >= -OVERLAP) & (tab.facing >= MIN_FACING)
    ks, es = np.nonzero(ok)
    if len(ks) == 0:
        return []
    octant, dev = angle_class(tab.direction[ks, es])
    p = tab.local[ks, es]
    h = ratio / 2
    ax, ay = np.abs(p[:, 0]), np.abs(p[:, 1])
    at_end = (ay - h) > (ax - 0.5)
    s = tab.dist[ks, es]
    touched = touched_ids[tab.touched[ks]]
    double = pips[touched, 0] == pips[touched, 1]
    diagonal = octant % 2 == 1
    along = (octant == 0) | (octant == 4)
    cost = np.maximum(s, 0) + 1.5 * np.maximum(-s - 0.1, 0) + 0.25 * (1 - tab.facing[ks, es]) + 0.004 * dev
    cost += np.where(diagonal & (~double | (ay < h - 0.45)), 0.3, 0.0)
    end_plain = at_end & ~diagonal & ~double
    cost += np.where(end_plain & ~along, 0.3, 0.0)
    cost += np.where(end_plain, 0.5 * np.maximum(ax - 0.3, 0), 0.0)
    cost += np.where(~at_end & ~diagonal & along, 0.4, 0.0)  # side by side, not a play
    alt = ~at_end & ~diagonal & ~along & ~double & (ay < 0.15)  # an end against the middle of a long side
    kind = np.where(diagonal, "diagonal", np.where(at_end, "end", "side"))
    half = (p[:, 1] >= 0).astype(int)
    u = toucher_ids[tab.toucher[ks]]
    return [Link(int(a), int(e), int(b), int(hh), float(c), str(kd), float(ss), bool(al))
            for a, e, b, hh, c, kd, ss, al in zip(u.tolist(), es.tolist(), touched.tolist(), half.tolist(),
                                                    cost.tolist(), kind.tolist(), s.tolist(), alt.tolist())]


def contacts(frames: Frames, ids: np.ndarray, pips: np.ndarray) -> list[Link]:
    """Every plausible contact among the face-up tiles, the cheapest per pair of tiles.

    `ids[k]` is the row in `pips` (and in the caller's arrays) of frame k."""
    ia, ib = near_pairs(frames, frames, same=True)
    tab = contact_table(frames, frames, ia, ib)
    links = _links_from_table(tab, pips, frames.ratio, ids, ids)
    # deep overlaps are heaped tiles, not contacts
    return links


# ---------------------------------------------------------------------------- 2. link


class _Forest:
    """Union-find over tile rows, with one contact per end of each ordinary tile."""

    def __init__(self, n: int, doubles: np.ndarray) -> None:
        self.parent = list(range(n))
        self.doubles = doubles
        self.used: set[tuple[int, int]] = set()

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def add(self, double: bool) -> None:
        self.parent.append(len(self.parent))
        self.doubles = np.append(self.doubles, double)

    def free(self, tile: int, half: int) -> bool:
        return bool(self.doubles[tile]) or (tile, half) not in self.used

    def join(self, link: Link) -> None:
        self.parent[self.find(link.u)] = self.find(link.v)
        if not self.doubles[link.u]:
            self.used.add((link.u, link.uh))
        if not self.doubles[link.v]:
            self.used.add((link.v, link.vh))


def _value(pips: np.ndarray, tile: int, half: int) -> int:
    return int(pips[tile][half])


def _fix_half(link: Link, pips: np.ndarray) -> Link:
    """An end against the middle of a long side: take the half whose value matches."""
    if link.alt_half and _value(pips, link.v, link.vh) != _value(pips, link.u, link.uh):
        other = 1 - link.vh
        if _value(pips, link.v, other) == _value(pips, link.u, link.uh):
            link.vh = other
    return link


def _rank(link: Link, pips: np.ndarray) -> float:
    match = _value(pips, link.u, link.uh) == _value(pips, link.v, link.vh)
    return link.cost + (0.0 if match else MISMATCH_RANK)


def link(candidates: list[Link], n: int, pips: np.ndarray, forest: _Forest | None = None,
         notes: list[str] | None = None, extra: list[tuple[int, int]] | None = None) -> tuple[list[Link], _Forest]:
    """Keep the contacts that make a forest, best first (see the module docstring)."""
    doubles = pips[:, 0] == pips[:, 1]
    forest = forest or _Forest(n, doubles)
    best: dict[tuple[int, int], Link] = {}
    for c in candidates:
        _fix_half(c, pips)
        key = (min(c.u, c.v), max(c.u, c.v))
        old = best.get(key)
        if old is None or _rank(c, pips) < _rank(old, pips):
            best[key] = c
    ordered = sorted(best.values(), key=lambda c: _rank(c, pips))
    kept: list[Link] = []
    claims: dict[tuple[int, int], Link] = {}
    for c in ordered:
        match = _value(pips, c.u, c.uh) == _value(pips, c.v, c.vh)
        if c.cost > (MATCH_COST if match else MISMATCH_TOUCH):
            continue
        if not (forest.free(c.u, c.uh) and forest.free(c.v, c.vh)):
            if notes is not None and match and c.cost < 0.15:
                holder = claims.get((c.u, c.uh)) or claims.get((c.v, c.vh))
                if holder is not None and abs(_rank(holder, pips) - _rank(c, pips)) < AMBIGUOUS_MARGIN:
                    notes.append(f"tiles {c.u} and {c.v} could also be joined instead of "
                                 f"{holder.u} and {holder.v}; the closer contact was taken")
            continue
        if forest.find(c.u) == forest.find(c.v):
            if extra is not None and c.cost < 0.15:
                extra.append((c.u, c.v))
            continue
        forest.join(c)
        kept.append(c)
        if not doubles[c.u]:
            claims[(c.u, c.uh)] = c
        if not doubles[c.v]:
            claims[(c.v, c.vh)] = c
    return kept, forest


# ---------------------------------------------------------------------------- 3. bridge gaps


def _rect(centre: np.ndarray, axis: np.ndarray, ratio: float) -> np.ndarray:
    """Corners (label order) of a tile centred at `centre` whose end 1 lies along `axis`."""
    perp = np.array([axis[1], -axis[0]])
    h = ratio / 2
    return np.array([centre + x * perp + y * axis for x, y in ((-0.5, -h), (0.5, -h), (0.5, h), (-0.5, h))])


def _rot(v: np.ndarray, deg: float) -> np.ndarray:
    a = np.radians(deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _shapes_from_end(half: int, ratio: float) -> list[tuple[np.ndarray, str]]:
    """Where a missing tile could lie against end `half` of a tile, in that tile's frame."""
    R, g = ratio, 0.02
    sg = -1.0 if half == 0 else 1.0
    out = np.array([0.0, sg])
    side = np.array([1.0, 0.0])
    tip = out * R / 2
    shapes = [(_rect(tip + out * (g + R / 2), out, R), "along")]
    shapes.append((_rect(tip + out * (g + 0.5), side, R), "across"))
    for s in (-1.0, 1.0):
        shapes.append((_rect(tip + out * (g + 0.5) + side * s * (R / 2 - 0.5), side, R), "across-off"))
        # the missing tile turned the corner: its end against this tile's long side
        shapes.append((_rect(out * (R / 2 - 0.5) + side * s * (0.5 + g + R / 2), side * s, R), "turn"))
        # this tile is a 45-degree toe of a missing double
        d = _rot(-out, -45.0 * s)
        p = np.array([-d[1], d[0]])
        dep = max(0.0, R / 2 - TOE_REACH) + 0.02
        centre = tip - d * (0.5 + dep) - s * p * TOE_REACH
        shapes.append((_rect(centre, p, R), "toe-double"))
    return shapes


def _shapes_from_double(ratio: float) -> list[tuple[np.ndarray, str]]:
    """Where a missing arm or toe could lie against a double, in the double's frame."""
    R, g = ratio, 0.02
    shapes = []
    for sx in (-1.0, 1.0):
        out = np.array([sx, 0.0])
        for off in (0.0, -(R / 2 - 0.5), R / 2 - 0.5):
            shapes.append((_rect(out * (0.5 + g + R / 2) + np.array([0.0, off]), out, R), "arm"))
        for sy in (-1.0, 1.0):  # 45-degree toes at the four corners (see `TOE_REACH`)
            u = np.array([sx, sy]) / np.sqrt(2)
            q = np.array([sx * (0.5 + max(0.0, R / 2 - TOE_REACH) + 0.03), sy * TOE_REACH])
            shapes.append((_rect(q + u * R / 2, u, R), "toe"))
    for sy in (-1.0, 1.0):
        out = np.array([0.0, sy])
        # arms off a short end sit a little further out when the long-side arms overhang
        for gg in (g, g + 0.12):
            shapes.append((_rect(out * (R / 2 + gg + R / 2), out, R), "arm"))
    return shapes


@dataclass
class _Hypothesis:
    corners: np.ndarray
    source: int
    source_half: int
    half_at_source: int
    target: int
    target_half: int
    half_at_target: int
    cost: float
    rank: float = 0.0
    double: bool = False


class _Board:
    """The face-up tiles as rows (real detections first, inferred tiles appended)."""

    def __init__(self, corners: np.ndarray, ids: list[int], pips: np.ndarray, ratio: float) -> None:
        self.corners = corners
        self.ids = ids
        self.pips = pips
        self.ratio = ratio
        self.frames = make_frames(corners, ratio)

    def add(self, corners: np.ndarray, tile_id: int, pips: tuple[int, int]) -> int:
        self.corners = np.concatenate([self.corners, corners[None]])
        self.ids.append(tile_id)
        self.pips = np.vstack([self.pips, np.array(pips)[None]])
        self.frames = make_frames(self.corners, self.ratio)
        return len(self.ids) - 1


def _in_row(frames: Frames) -> np.ndarray:
    """Tiles with a neighbour alongside, long side to long side: a hand laid out in a row."""
    ia, ib = near_pairs(frames, frames, same=True, reach=0.0)
    out = np.zeros(len(frames), bool)
    if len(ia) == 0:
        return out
    rel = to_local(frames, ib, frames.centre[ia][:, None, :])[:, 0]
    alongside = (np.abs(rel[:, 0]) < 1.35) & (np.abs(rel[:, 0]) > 0.9) & (np.abs(rel[:, 1]) < 0.5)
    axis_a = frames.ends[ia, 1] - frames.ends[ia, 0]
    axis_b = frames.ends[ib, 1] - frames.ends[ib, 0]
    cos = np.abs((axis_a * axis_b).sum(1)) / (np.linalg.norm(axis_a, axis=1) * np.linalg.norm(axis_b, axis=1) + 1e-9)
    out[ia[alongside & (cos > 0.95)]] = True
    return out


def bridge(board: _Board, forest: _Forest, obstacles: np.ndarray, next_id: int,
           kept: list[Link], notes: list[str], extra: list[tuple[int, int]], spinner_arms: int = 4) -> list[Gap]:
    """Infer tiles the detector missed where the layout plainly continues past a hole.

    Each round finds the best single tile that would touch a free end (or a double) on
    one side and a tile of another group on the other, lying clear of everything else;
    it joins the board as a tile like any other, so a missing double picks up all its
    toes and a missing spinner all its arms."""
    gaps: list[Gap] = []
    R = board.ratio
    in_row: np.ndarray | None = None
    for _ in range(MAX_GAPS):
        frames, pips = board.frames, board.pips
        n = len(frames)
        comp = np.array([forest.find(i) for i in range(n)])
        size = np.bincount(comp, minlength=n)[comp]
        # only groups of two or more tiles are worth joining: a lone tile beyond a hole
        # changes nothing the audit can prove, and lone tiles are mostly hands and strays
        # (except off a double: a spinner or chickie short of an arm or toe would be
        # reported unfinished, so a lone tile just beyond its empty slot is worth a look)
        big = size >= 2
        doubles = pips[:, 0] == pips[:, 1]
        degree = np.zeros(n, int)
        for lk in kept:
            degree[lk.u] += 1
            degree[lk.v] += 1
        short = doubles & big & (degree < max(4, spinner_arms))
        if len(set(comp[big].tolist())) <= 1 and not short.any():
            break
        d = np.linalg.norm(frames.centre[:, None] - frames.centre[None], axis=2)
        reach = (2.0 * R + 1.5) * np.maximum(frames.width[:, None], frames.width[None])
        if in_row is None:
            in_row = _in_row(frames)
        in_row = np.concatenate([in_row, np.zeros(n - len(in_row), bool)])
        lone = ~big & ~in_row
        pair_ok = (big[:, None] & big[None, :]) | (short[:, None] & lone[None, :])
        other = (comp[:, None] != comp[None]) & (d < reach) & pair_ok
        visible = {(int(max(p)), int(min(p))) for p in pips}
        obst = make_frames(np.concatenate([obstacles] + [g.corners[None] for g in gaps]), R)
        best: _Hypothesis | None = None
        for j in np.nonzero(other.any(1))[0]:
            if doubles[j]:
                starts = [(_shapes_from_double(R), None)]
            else:
                starts = [(_shapes_from_end(h, R), h) for h in (0, 1) if (int(j), h) not in forest.used]
            targets = np.nonzero(other[j])[0]
            for shapes, half in starts:
                local = np.stack([sh for sh, _ in shapes])
                quads = to_image(frames, np.full(len(local), j), local)
                end_on = np.array([kind in END_ON for _, kind in shapes])
                for hyp in _hypotheses(quads, end_on, int(j), half, targets, frames, pips, forest, obst, R, visible,
                                       lone):
                    if hyp.cost > GAP_TOUCH:
                        continue
                    # the rules' preference: a spinner or chickie short of an arm or toe with
                    # play beyond it is a violation, so a reading that fills its empty slot wins;
                    # a missing double should pick up all the arms or toes around its place
                    hyp.rank = hyp.cost - (SHORT_DOUBLE_BONUS if short[hyp.source] or short[hyp.target] else 0.0)
                    if hyp.double:
                        hyp.rank -= 0.3 * _attachments(hyp, frames, comp, forest)
                    if best is None or hyp.rank < best.rank:
                        best = hyp
        if best is None:
            break
        v_src = int(pips[best.source][best.source_half])
        v_tgt = int(pips[best.target][best.target_half])
        vals = [v_src, v_src]
        if best.half_at_target != best.half_at_source:
            vals[best.half_at_target] = v_tgt
        row = board.add(best.corners, next_id + len(gaps), (vals[0], vals[1]))
        forest.add(vals[0] == vals[1])
        gaps.append(Gap(board.ids[row], (vals[0], vals[1]), best.corners,
                        (int(board.ids[best.source]), int(board.ids[best.target]))))
        for lk in (Link(best.source, best.source_half, row, best.half_at_source, 0.0, "gap", 0.0),
                   Link(best.target, best.target_half, row, best.half_at_target, best.cost, "gap", 0.0)):
            forest.join(lk)
            kept.append(lk)
        # the inferred tile may touch more groups (a missing double's other toes)
        f = board.frames
        ia, ib = near_pairs(f, f, same=True)
        sel = (ia == row) | (ib == row)
        cands = _links_from_table(contact_table(f, f, ia[sel], ib[sel]), board.pips, R,
                                  np.arange(len(f)), np.arange(len(f)))
        more, _ = link(cands, len(f), board.pips, forest, notes, extra)
        kept.extend(more)
    return gaps


END_ON = ("along", "turn", "arm", "toe")
"""Guessed placements whose end (not side) meets the tile they were guessed from."""


def _hypotheses(quads: np.ndarray, end_on: np.ndarray, j: int, half: int | None, targets: np.ndarray, frames: Frames,
                pips: np.ndarray, forest: _Forest, obstacles: Frames, ratio: float,
                visible: set[tuple[int, int]], lone: np.ndarray) -> list[_Hypothesis]:
    """Placements among `quads` for a missing tile next to tile j that also touch a tile
    of another group, and lie clear of everything else (the cheapest per placement).

    The missing tile's values follow from its two neighbours; a reading that would make
    it a tile seen elsewhere in the picture is dropped (a set has one of each), and a
    lone tile on the far side must sit squarely against it. The missing tile is placed
    flush against tile j, but in truth the leftover gap is shared by both of its sides
    (each contact has its own few millimetres), so half the far-side gap is the cost."""
    hf = make_frames(quads, ratio)
    s = len(quads)
    # contacts: hypothesis ends -> targets, and target ends -> hypothesis
    hi = np.repeat(np.arange(s), len(targets))
    ti = np.tile(targets, s)
    a = contact_table(hf, frames, hi, ti)
    b = contact_table(frames, hf, ti, hi)
    found: dict[int, _Hypothesis] = {}
    seen: dict[tuple[int, int], int] = {}
    for p in pips.tolist():
        key = (max(p), min(p))
        seen[key] = seen.get(key, 0) + 1
    # where the hypothesis meets tile j (to know which of its halves faces j)
    jc = frames.ends[j, half] if half is not None else frames.centre[j]
    dist_j = np.linalg.norm(hf.ends - jc[None, None, :], axis=2)  # (S, 2)
    half_at_src = dist_j.argmin(1)
    # clear of every other tile: no tile reaches into the hypothesis and it reaches into none
    ob_i, ob_j = near_pairs(hf, obstacles, same=False, reach=0.3)
    deep = np.zeros(s)
    if len(ob_i):
        d1 = quads_overlap_depth(hf, obstacles, ob_i, ob_j)
        d2 = quads_overlap_depth(obstacles, hf, ob_j, ob_i)
        np.maximum.at(deep, ob_i, np.maximum(d1, d2))
    for k in range(len(hi)):
        h, t = int(hi[k]), int(ti[k])
        doubles_t = pips[t][0] == pips[t][1]
        src_half = int(half_at_src[h])
        options = []  # (cost, half of the hypothesis at t, half of t, corners)
        if deep[h] <= 0.12:
            for e in (0, 1):  # the hypothesis' end e against target t (its side or end)
                if a.dist[k, e] <= TOUCH and a.dist[k, e] >= -OVERLAP and a.facing[k, e] > 0.5:
                    th = 0 if a.local[k, e, 1] < 0 else 1
                    if doubles_t or (t, th) not in forest.used:
                        options.append((0.5 * max(a.dist[k, e], 0) + 0.3 * (1 - a.facing[k, e]), e, th, quads[h]))
        for e in (0, 1):  # target t's end e against the hypothesis
            if (t, e) in forest.used and not doubles_t:
                continue
            if not (-OVERLAP <= b.dist[k, e] <= TOUCH and b.facing[k, e] > 0.5):
                continue
            px, py = b.local[k, e]
            h_half = 0 if py < 0 else 1
            on_end = abs(py) - ratio / 2 > abs(px) - 0.5  # against the hypothesis' short end
            if not end_on[h] or h_half == src_half or not on_end:
                if deep[h] <= 0.12:
                    options.append((0.5 * max(b.dist[k, e], 0) + 0.3 * (1 - b.facing[k, e]), h_half, e, quads[h]))
                continue
            # end to end on both sides: refit the tile between the two ends it must touch
            fit = _refit(hf, h, src_half, frames.ends[t, e])
            if fit is None:
                continue
            cost, corners = fit
            if _overlap(corners, obstacles, ratio) > 0.12:
                continue
            options.append((cost + 0.3 * (1 - b.facing[k, e]), h_half, e, corners))
        for cost, h_half, t_half, corners in options:
            v_src = int(pips[j][half if half is not None else 0])
            v_tgt = int(pips[t][t_half])
            if h_half == src_half and v_src != v_tgt:
                continue  # both neighbours on one half: only a double (crosswise) does that
            if (max(v_src, v_tgt), min(v_src, v_tgt)) in visible:
                continue
            if lone[t] and (cost > 0.15 or seen[(max(pips[t]), min(pips[t]))] > 1):
                continue  # a lone tile must sit squarely, and not be a second copy of a tile
            cand = _Hypothesis(corners, j, half if half is not None else 0, src_half, t, t_half, h_half,
                               float(cost), double=v_src == v_tgt)
            if h not in found or cand.cost < found[h].cost:
                found[h] = cand
    return list(found.values())


def _refit(hf: Frames, h: int, src_half: int, target_end: np.ndarray) -> tuple[float, np.ndarray] | None:
    """Lay the missing tile straight from its end at the source to the target's end.

    A rigid guess drifts with every degree of jitter along the arm; fitting the tile
    between the two ends it must touch is what a person does looking at the hole.
    Returns (cost, corners) or None when the hole is not one tile long."""
    anchor = hf.ends[h, src_half]
    far = hf.ends[h, 1 - src_half]
    v = target_end - anchor
    span = float(np.linalg.norm(v))
    length, width = float(hf.length[h]), float(hf.width[h])
    if span < 1e-6 or width < 1e-6:
        return None
    guess = far - anchor
    cos = float(np.dot(v, guess) / (span * np.linalg.norm(guess) + 1e-9))
    if cos < np.cos(np.radians(12)):
        return None
    excess = (span - length) / width  # the gaps on both sides, in tile widths
    if not -0.15 <= excess <= 0.5:
        return None
    axis = v / span
    perp = np.array([axis[1], -axis[0]])
    e0, e1 = (anchor, target_end) if src_half == 0 else (target_end, anchor)
    if src_half == 1:
        axis, perp = -axis, -perp
    corners = np.array([e0 - perp * width / 2, e0 + perp * width / 2, e1 + perp * width / 2, e1 - perp * width / 2])
    return 0.5 * max(excess, 0.0) + max(-excess - 0.05, 0.0) + 0.2 * (1 - cos) * 10, corners


def _overlap(corners: np.ndarray, obstacles: Frames, ratio: float) -> float:
    """How deep a quad and the nearest obstacle reach into each other (tile widths)."""
    qf = make_frames(corners[None], ratio)
    ia, ib = near_pairs(qf, obstacles, same=False, reach=0.3)
    if len(ia) == 0:
        return 0.0
    return float(max(quads_overlap_depth(qf, obstacles, ia, ib).max(), quads_overlap_depth(obstacles, qf, ib, ia).max()))


def _attachments(hyp: _Hypothesis, frames: Frames, comp: np.ndarray, forest: _Forest) -> int:
    """How many more groups of tiles a missing double placed here would pick up."""
    hf = make_frames(hyp.corners[None], frames.ratio)
    ia, ib = near_pairs(frames, hf, same=False)
    if len(ia) == 0:
        return 0
    tab = contact_table(frames, hf, ia, ib)
    groups = set()
    skip = {comp[hyp.source], comp[hyp.target]}
    for k in range(len(ia)):
        r = int(ia[k])
        if comp[r] in skip:
            continue
        for e in (0, 1):
            if (r, e) in forest.used and not forest.doubles[r]:
                continue
            if -OVERLAP <= tab.dist[k, e] <= TOUCH and tab.facing[k, e] > 0.5:
                groups.add(int(comp[r]))
    return len(groups)


# ---------------------------------------------------------------------------- 4. spinner


def _spinner_evidence(tile: int, links: list[Link]) -> float:
    """How much a double looks like the spinner: arms off its short ends (+1 each),
    45-degree toes (-1 each: that is a chickie)."""
    score = 0.0
    for lk in links:
        if lk.v == tile and lk.kind == "end":
            score += 1.0
        if lk.u == tile and lk.kind == "end":
            score += 1.0
        if (lk.v == tile or lk.u == tile) and lk.kind == "diagonal":
            score -= 1.0
    return score


def choose_spinner(layout: Layout, candidates: list[int], evidence: dict[int, float], set_max: int,
                   rules: HouseRules, round_double: int | None, centrality: dict[int, float]
                   ) -> tuple[int | None, AuditReport, list[dict[str, Any]], list[str]]:
    """Root the tree at the double the rules find most plausible (see module docstring)."""
    notes: list[str] = []
    if not candidates:
        return None, audit_layout(layout, set_max, rules, round_double), [], notes

    def prior(t: int) -> tuple[float, float, float]:
        value = next(x.pips[0] for x in layout.tiles if x.id == t)
        rd = 1.0 if round_double is not None and value == round_double else 0.0
        return (evidence.get(t, 0.0), rd, -centrality.get(t, 0.0))

    order = sorted(candidates, key=prior, reverse=True)
    tried: list[dict[str, Any]] = []
    best: tuple[float, int, AuditReport] | None = None
    for t in order:
        layout.spinner_id = t
        rep = audit_layout(layout, set_max, rules, round_double)
        score = len(rep.violations) - EVIDENCE_WEIGHT * evidence.get(t, 0.0)
        tried.append({"tile": t, "violations": len(rep.violations), "evidence": evidence.get(t, 0.0),
                      "score": score})
        if best is None or score < best[0]:
            best = (score, t, rep)
        if not rep.violations and t == order[0]:
            break  # the likeliest-looking double reads clean: nothing can beat it
    assert best is not None
    _, spinner, report = best
    layout.spinner_id = spinner
    close = [x for x in tried if x["tile"] != spinner and x["score"] - best[0] < 0.5]
    if close:
        alt = min(close, key=lambda x: x["score"])
        notes.append(
            f"tile {alt['tile']} could be the spinner as well as tile {spinner} "
            f"({alt['violations']} against {len(report.violations)} violation(s)); tile {spinner} was taken "
            "as it looks more like a spinner" if alt["evidence"] < evidence.get(spinner, 0.0) else
            f"tile {alt['tile']} could be the spinner as well as tile {spinner}; tile {spinner} was taken"
        )
    elif len(tried) > 1 and tried[0]["tile"] != spinner:
        notes.append(
            f"tile {tried[0]['tile']} looks most like the spinner, but reading tile {spinner} as the spinner "
            f"explains the picture with fewer violations"
        )
    return spinner, report, tried, notes


# ---------------------------------------------------------------------------- putting it together


def read_layout(tiles: Sequence[TileDetection], face_down: Sequence[TileDetection] = (), set_max: int = 12,
                rules: HouseRules | None = None, round_double: int | None = None) -> LayoutReading:
    """Detections in, the layout the engine should audit out (plus what else was seen)."""
    rules = rules or HouseRules()
    read = [t for t in tiles if t.pips is not None and not t.face_down]
    unread = [t for t in tiles if t.pips is None and not t.face_down]
    downs = list(face_down) + [t for t in tiles if t.face_down]
    reading = LayoutReading("ok", "", unread=[t.id for t in unread], face_down=[t.id for t in downs])
    if not read:
        reading.status = "no_layout" if downs or unread else "no_tiles"
        reading.message = ("no face-up tiles in the picture" if reading.status == "no_layout"
                           else "no tiles found in the picture")
        return reading
    corners = np.stack([np.asarray(t.corners, np.float64).reshape(4, 2) for t in read])
    ratio = estimate_ratio(corners)
    board = _Board(corners, [t.id for t in read], np.array([[int(t.pips[0]), int(t.pips[1])] for t in read]), ratio)
    n_real = len(read)
    for t in read:
        reading.pips[t.id] = (int(t.pips[0]), int(t.pips[1]))
    for t in list(read) + downs + unread:
        reading.corners[t.id] = np.asarray(t.corners, np.float64).reshape(4, 2)

    # heaps: tiles lying on each other
    blockers = [np.asarray(t.corners, np.float64).reshape(4, 2) for t in downs + unread]
    all_corners = np.concatenate([corners, np.stack(blockers)]) if blockers else corners
    everything = make_frames(all_corners, ratio)
    hi, hj = near_pairs(everything, everything, same=True, reach=0.0)
    up = hi < n_real  # a messy boneyard of face-down tiles is not a reason to give up
    hi, hj = hi[up], hj[up]
    if len(hi):
        depth = quads_overlap_depth(everything, everything, hi, hj)
        piled = {(min(a, b), max(a, b)) for a, b, dd in zip(hi.tolist(), hj.tolist(), depth) if dd > HEAP_DEPTH}
        if len(piled) >= max(3, 0.2 * n_real):
            reading.status = "heap"
            reading.message = (f"the tiles are piled up ({len(piled)} pairs lie on each other): "
                               "spread them out to read a layout")
            reading.loose = sorted(t.id for t in read)
            return reading

    notes: list[str] = []
    extra: list[tuple[int, int]] = []
    kept, forest = link(contacts(board.frames, np.arange(n_real), board.pips), n_real, board.pips,
                        notes=notes, extra=extra)
    next_id = max(t.id for t in list(tiles) + list(face_down)) + 1
    reading.gaps = bridge(board, forest, all_corners, next_id, kept, notes, extra, rules.spinner_arms)
    for g in reading.gaps:
        reading.pips[g.id] = g.pips
        reading.corners[g.id] = g.corners
    ids = board.ids
    links = [Link(ids[k.u], k.uh, ids[k.v], k.vh, k.cost, k.kind, k.gap, k.alt_half) for k in kept]
    reading.ambiguities = notes
    reading.extra_contacts = [(ids[a], ids[b]) for a, b in extra]

    # groups of touching tiles: the main layout, other layouts, loose tiles
    members: dict[int, list[int]] = {}
    for r in range(len(ids)):
        members.setdefault(forest.find(r), []).append(r)
    pips = board.pips
    is_double = pips[:, 0] == pips[:, 1]
    groups = [sorted(m) for m in members.values() if len(m) >= 2 and is_double[m].any()]
    if not groups:
        if n_real == 1 and is_double[0]:
            groups = [[0]]  # a lone double: the spinner, nothing on it yet
        else:
            reading.status = "no_layout"
            reading.message = (f"no layout: {n_real} face-up tile{'s' if n_real != 1 else ''} and none of them "
                               "laid against a double")
            reading.loose = sorted(ids[:n_real])
            return reading

    def weight(m: list[int]) -> tuple[int, int]:
        has_round = int(round_double is not None and any(is_double[r] and pips[r][0] == round_double for r in m))
        return (len(m), has_round)

    groups.sort(key=weight, reverse=True)
    main = groups[0]
    others = [m for m in groups[1:] if len(m) >= 3]
    reading.others = [sorted(ids[r] for r in m) for m in others]
    main_set = set(main)
    in_other = {r for m in others for r in m}
    outside = [r for r in range(n_real) if r not in main_set and r not in in_other]
    near: list[int] = []
    far: list[int] = []
    if outside:
        f = board.frames
        orows = np.array(outside)
        mrows = np.array(main)
        ia = np.repeat(orows, len(mrows))
        ib = np.tile(mrows, len(orows))
        tab = contact_table(f, f, ia, ib)
        tab2 = contact_table(f, f, ib, ia)
        closest = np.minimum(np.minimum(tab.dist.min(1), tab.corner_dist.min(1)),
                             np.minimum(tab2.dist.min(1), tab2.corner_dist.min(1)))
        per = closest.reshape(len(orows), len(mrows)).min(1)
        for r, dd in zip(outside, per):
            (near if dd <= NEAR_LAYOUT else far).append(r)
    reading.near = sorted(ids[r] for r in near)
    reading.loose = sorted([ids[r] for r in far] + [t for m in reading.others for t in m])
    main_ids = {ids[r] for r in main}
    main_links = [k for k in links if k.u in main_ids and k.v in main_ids]
    reading.links = main_links
    layout_ids = sorted(main_ids | set(reading.near))
    layout = Layout(
        [LayoutTile(t, reading.pips[t]) for t in layout_ids],
        [LayoutEdge(k.u, reading.pips[k.u][k.uh], k.v, reading.pips[k.v][k.vh]) for k in main_links],
    )

    # the spinner
    cand = [ids[r] for r in main if is_double[r]]
    evidence = {t: _spinner_evidence(t, main_links) for t in cand}
    fr = board.frames
    centre = fr.centre[main].mean(0)
    scale = float(np.median(fr.width)) or 1.0
    row_of = {t: r for r, t in enumerate(ids)}
    centrality = {t: float(np.linalg.norm(fr.centre[row_of[t]] - centre)) / scale for t in cand}
    spinner, report, tried, sp_notes = choose_spinner(layout, cand, evidence, set_max, rules, round_double,
                                                      centrality)
    reading.ambiguities += sp_notes
    reading.spinner_candidates = tried
    reading.layout = layout
    reading.report = report
    if others:
        sizes = ", ".join(str(len(m)) for m in [main] + others)
        reading.status = "several_layouts"
        reading.message = f"{1 + len(others)} separate layouts ({sizes} tiles); the largest is audited"
    else:
        gaps = len(reading.gaps)
        reading.message = f"one layout of {len(main)} tiles" + (
            f", {gaps} of them missing from the picture and inferred" if gaps else "")
    return reading


# ---------------------------------------------------------------------------- the report


def reading_to_dict(reading: LayoutReading, detections: Sequence[TileDetection] = ()) -> dict[str, Any]:
    """The `chickenfoot audit --json` object (also what the web API returns)."""
    report = reading.report
    tiles = []
    rounded = (np.round(np.stack([np.asarray(t.corners, np.float64).reshape(4, 2) for t in detections]), 1).tolist()
               if len(detections) else [])
    for t, c in zip(detections, rounded):
        tiles.append({"id": t.id, "pips": None if t.pips is None or t.face_down else [int(v) for v in t.pips],
                      "corners": c, "face_down": bool(t.face_down)})
    for g in reading.gaps:
        tiles.append({"id": g.id, "pips": list(g.pips), "corners": np.round(g.corners, 1).tolist(),
                      "face_down": False, "inferred": True})
    layout: dict[str, Any] = {"spinner": None, "edges": [], "chickies": [], "arms": []}
    open_ends: list[dict[str, Any]] = []
    violations: list[dict[str, Any]] = []
    if report is not None and reading.layout is not None:
        parents = report.parents
        edges = []
        for e in reading.layout.edges:
            # orient child -> parent as the audit read the tree
            if parents.get(e.to_id) == e.from_id:
                edges.append({"from": e.to_id, "from_pips": e.to_pips, "to": e.from_id, "to_pips": e.from_pips})
            else:
                edges.append({"from": e.from_id, "from_pips": e.from_pips, "to": e.to_id, "to_pips": e.to_pips})
        layout = {
            "spinner": report.spinner_id,
            "edges": edges,
            "chickies": [{"tile": c.tile_id, "toes": list(c.toe_ids), "missing": c.missing} for c in report.chickies],
            "arms": list(report.arms),
        }
        open_ends = [{"tile": o.tile_id, "value": o.value, "free": o.free, "playable_now": o.playable_now,
                      "accepts": o.accepts} for o in report.open_ends]
        violations = [v.to_dict() for v in report.violations]
    return {
        "status": reading.status,
        "message": reading.message,
        "tiles": tiles,
        "layout": layout,
        "open_ends": open_ends,
        "violations": violations,
        "loose_tiles": list(reading.loose),
        "gaps": [g.to_dict() for g in reading.gaps],
        "ambiguities": list(reading.ambiguities),
        "other_layouts": [list(m) for m in reading.others],
        "unread_tiles": list(reading.unread),
        "face_down_tiles": list(reading.face_down),
        "warnings": _warnings(reading),
    }


def _warnings(reading: LayoutReading) -> list[str]:
    """Things worth a look that the engine cannot prove from the picture."""
    out = []
    if reading.layout is not None:
        in_layout = {t.id for t in reading.layout.tiles}
        seen: dict[tuple[int, int], int] = {}
        for t in in_layout:
            p = reading.pips[t]
            seen[(max(p), min(p))] = t
        for t in reading.loose:
            p = reading.pips.get(t)
            if p is not None and (max(p), min(p)) in seen:
                out.append(f"{_name(p)} (tile {t}) lies apart from the layout but the layout has "
                           f"{_name(p)} as well (tile {seen[(max(p), min(p))]}): one of them is misread or a cheat")
    if reading.extra_contacts:
        pairs = ", ".join(f"{a}-{b}" for a, b in reading.extra_contacts[:5])
        out.append(f"tiles touching without being laid on each other: {pairs}")
    if reading.unread:
        out.append(f"{len(reading.unread)} tile(s) could not be read and are left out of the layout")
    return out


def audit_detections(tiles: Sequence[TileDetection], face_down: Sequence[TileDetection] = (), set_max: int = 12,
                     rules: HouseRules | None = None, round_double: int | None = None) -> dict[str, Any]:
    """Layout + audit for detections (the stage `chickenfoot eval-layout` measures)."""
    t0 = time.perf_counter()
    rules = rules or HouseRules()
    reading = read_layout(tiles, face_down, set_max, rules, round_double)
    out = reading_to_dict(reading, list(tiles) + list(face_down))
    out["set"] = set_max
    out["round_double"] = round_double
    out["house_rules"] = rules.to_dict()
    out["layout_seconds"] = round(time.perf_counter() - t0, 4)
    return out


def audit_photo(recognition: Recognition, set_max: int | None = None, rules: HouseRules | None = None,
                round_double: int | None = None, pixels: np.ndarray | None = None,
                to_pixels: float = 1.0) -> dict[str, Any]:
    """Photo reading -> layout audit report: the one function the CLI and the web API call.

    With `pixels` (the decoded photo, BGR) and `to_pixels` (original-image coordinates to
    those pixels, i.e. 1 / LoadedImage.scale), a verdict that a spinner or chickie was
    left short is checked against the photo first (`vision.layout_pixels`): a tile the
    detector missed in the empty place withdraws it."""
    rules = rules or HouseRules()
    smax = set_max or recognition.set_max
    out = audit_detections(recognition.tiles, recognition.face_down, smax, rules, round_double)
    if pixels is not None:
        from .layout_pixels import second_look

        t0 = time.perf_counter()
        second_look(pixels, to_pixels, out, rules.spinner_arms)
        out["layout_seconds"] = round(out["layout_seconds"] + time.perf_counter() - t0, 4)
    out = {"image": recognition.image, "width": recognition.width, "height": recognition.height, **out}
    out["warnings"] = list(recognition.warnings) + out["warnings"]
    out["seconds"] = round(recognition.seconds + out["layout_seconds"], 3)
    return out


def annotate_layout(img: Any, rec: Recognition | None, audit: dict[str, Any]) -> np.ndarray:
    """The audit drawn on the photo (see `vision.annotate_layout`); the web API looks for it here."""
    from .annotate_layout import annotate_layout as draw

    return draw(img, rec, audit)
