"""Tiles the detector missed: the layout continues past a hole, and the hole is reported.

Where two groups of tiles would join if one more tile lay between them, the missing
tile is inferred: every way a tile can lie against a free end (straight on, turned a
corner, a crosswise double, a 45-degree toe) or against a double (an arm, a toe) is
tried, and a placement must touch a tile of the other group, lie clear of every other
tile, and not be a tile seen elsewhere in the photo (a set has one of each; a stray
lying out of reach of the layout does not veto a hole, the conflict is noted). Its
values follow from its two neighbours. The inferred tile joins the board like any
other, so a missing double picks up all its toes and a missing spinner all its arms.
A lone tile (no neighbour of its own) is joined only where leaving it out would turn
one missed detection into a violation, or hide one: beyond a slot of a double (an
unfinished one, or one too many), or beyond a free end while lying close to the layout.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .layout_geometry import (
    Frames,
    closest_gap,
    contact_table,
    make_frames,
    near_pairs,
    quads_overlap_depth,
    to_image,
    to_local,
)
from .layout_links import Forest, Link, link, links_from_table
from .table_audit import AuditConfig

TOE_REACH = 0.5 + 0.5 / np.sqrt(2) + 0.06
"""How a 45-degree toe is laid: its end's centre sits at the double's far corner, this
far (tile widths) from the double's middle along its length, just enough for the toe
to clear the straight toe beside it."""


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




def _rect(centre: np.ndarray, axis: np.ndarray, ratio: float) -> np.ndarray:
    """Corners (label order) of a tile centred at `centre` whose end 1 lies along `axis`."""
    perp = np.array([axis[1], -axis[0]])
    h = ratio / 2
    return np.array([centre + x * perp + y * axis for x, y in ((-0.5, -h), (0.5, -h), (0.5, h), (-0.5, h))])


def _rot(v: np.ndarray, deg: float) -> np.ndarray:
    a = np.radians(deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


@lru_cache(maxsize=64)
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


@lru_cache(maxsize=32)
def shapes_from_double(ratio: float) -> list[tuple[np.ndarray, str]]:
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


def empty_slots(double: np.ndarray, parent: np.ndarray | None, obstacles: Frames, ratio: float) -> list[np.ndarray]:
    """Places beside a double (its corners) where a tile could lie that no detection
    covers: the arms of a spinner (no parent), or the toes of a chickie on the side
    away from its parent. Quads in the coordinates of `double` and `obstacles`."""
    frame = make_frames(np.asarray(double, np.float64)[None], ratio)
    shapes = shapes_from_double(ratio)
    quads = to_image(frame, np.zeros(len(shapes), int), np.stack([sh for sh, _ in shapes]))
    side = None
    if parent is not None:
        rel = (np.asarray(parent, np.float64).mean(0) - frame.centre[0]) @ frame.to_local[0, :2, :]
        side = np.sign(rel[0])
    out = []
    for (local, kind), quad in zip(shapes, quads):
        centre = local.mean(0)
        if side is not None:  # a chickie: toes leave the side away from its parent
            if np.sign(centre[0]) == side or abs(centre[0]) < 0.3:
                continue
        elif kind == "toe":
            continue  # the spinner takes arms, not 45-degree toes
        if overlap(quad, obstacles, ratio) > 0.1:
            continue
        out.append(quad)
    return out


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
    copy_of: int | None = None
    """Row of a stray tile lying apart that reads as the same tile."""


class Board:
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


def in_row(frames: Frames) -> np.ndarray:
    """Tiles with a neighbour alongside, long side to long side: a hand laid out in a row
    (in a layout only a spinner's arms lie like that, and they touch the spinner, which
    does not)."""
    ia, ib = near_pairs(frames, frames, same=True, reach=0.0)
    out = np.zeros(len(frames), bool)
    if len(ia) == 0:
        return out
    rel = to_local(frames, ib, frames.centre[ia][:, None, :])[:, 0]
    alongside = (np.abs(rel[:, 0]) < 1.35) & (np.abs(rel[:, 0]) > 0.9) & (np.abs(rel[:, 1]) < 0.5)
    axis_a = frames.ends[ia, 1] - frames.ends[ia, 0]
    axis_b = frames.ends[ib, 1] - frames.ends[ib, 0]
    cos = np.abs((axis_a * axis_b).sum(1)) / (np.linalg.norm(axis_a, axis=1) * np.linalg.norm(axis_b, axis=1) + 1e-9)
    pair = alongside & (cos > 0.95)
    out[ia[pair]] = True
    out[ib[pair]] = True  # lying alongside is mutual (measured in one frame, jitter may spoil the other)
    return out


def bridge(board: Board, forest: Forest, obstacles: np.ndarray, next_id: int,
           kept: list[Link], notes: list[str], extra: list[tuple[int, int]], spinner_arms: int,
           config: AuditConfig) -> list[Gap]:
    """Infer tiles the detector missed where the layout plainly continues past a hole.

    Each round finds the best single tile that would touch a free end (or a double) on
    one side and a tile of another group on the other, lying clear of everything else;
    it joins the board as a tile like any other, so a missing double picks up all its
    toes and a missing spinner all its arms."""
    gaps: list[Gap] = []
    R = board.ratio
    rows: np.ndarray | None = None
    for _ in range(config.max_gaps):
        frames, pips = board.frames, board.pips
        n = len(frames)
        comp = np.array([forest.find(i) for i in range(n)])
        size = np.bincount(comp, minlength=n)[comp]
        # groups of two or more tiles are joined to each other; a lone tile (hands and
        # strays are mostly lone) only where, left out, one missed detection would make a
        # violation or hide one: one tile beyond the empty slot of a short double (reported
        # unfinished) or beyond a missed arm or toe of a full one (one too many, hidden), or
        # one tile beyond a free end while lying within `config.near_layout` of a group (reported as
        # lying apart from the layout); it must lie squarely, and an ordinary tile (not a
        # double, which would open a chickie the picture cannot vouch for) fills the hole
        big = size >= 2
        doubles = pips[:, 0] == pips[:, 1]
        degree = np.zeros(n, int)
        for lk in kept:
            degree[lk.u] += 1
            degree[lk.v] += 1
        short = doubles & big & (degree < max(4, spinner_arms))
        if rows is None:
            rows = in_row(frames)
        rows = np.concatenate([rows, np.zeros(n - len(rows), bool)])
        lone = ~big & ~rows
        if len(set(comp[big].tolist())) <= 1 and not lone.any():
            break
        d = np.linalg.norm(frames.centre[:, None] - frames.centre[None], axis=2)
        reach = (2.0 * R + 1.5) * np.maximum(frames.width[:, None], frames.width[None])
        lone_near = lone.copy()
        if lone.any():
            near = config.near_layout
            lone_near[lone] = closest_gap(frames, np.nonzero(lone)[0], np.nonzero(big)[0], near) <= near
        pair_ok = ((big[:, None] & big[None, :]) | ((short | (doubles & big))[:, None] & lone[None, :])
                   | (big[:, None] & lone_near[None, :]))
        other = (comp[:, None] != comp[None]) & (d < reach) & pair_ok
        # a reading of the hole that makes it a tile seen elsewhere is ruled out (a set has
        # one of each), unless that copy lies alone out of a hole's reach of every group: a
        # stray or misread detection is weaker evidence than a hole one tile long (the
        # conflict is noted, and the copy is reported as lying apart with the same value)
        keys = [(int(max(p)), int(min(p))) for p in pips.tolist()]
        apart = lone.copy()
        if apart.any() and big.any():
            apart[apart] = (d[np.ix_(apart, big)] > reach[np.ix_(apart, big)]).all(1)  # beyond one hole
        visible = {k for k, a in zip(keys, apart) if not a}
        strays = {k: r for r, (k, a) in enumerate(zip(keys, apart)) if a and k not in visible}
        copies: dict[tuple[int, int], int] = {}  # for "a lone tile is not a second copy"
        for k, a in zip(keys, apart):
            if not a:
                copies[k] = copies.get(k, 0) + 1
        obst = make_frames(np.concatenate([obstacles] + [g.corners[None] for g in gaps]), R)
        best: _Hypothesis | None = None
        for j in np.nonzero(other.any(1))[0]:
            wj = frames.width[j]
            if doubles[j]:
                starts = [(shapes_from_double(R), None, np.nonzero(other[j])[0])]
            else:
                # only tiles within one tile's reach of this free end can be on the hole's far side
                starts = []
                for h in (0, 1):
                    if (int(j), h) in forest.used:
                        continue
                    gap = np.linalg.norm(frames.centre - frames.ends[j, h], axis=1)
                    near = np.nonzero(other[j] & (gap < (1.5 * R + 0.9) * wj))[0]
                    if len(near):
                        starts.append((_shapes_from_end(h, R), h, near))
            for shapes, half, targets in starts:
                local = np.stack([sh for sh, _ in shapes])
                quads = to_image(frames, np.full(len(local), j), local)
                end_on = np.array([kind in END_ON for _, kind in shapes])
                for hyp in _hypotheses(quads, end_on, int(j), half, targets, frames, pips, forest, obst, R, visible,
                                       lone, config, strays, bool(short[j]), copies):
                    if hyp.cost > config.gap_touch:
                        continue
                    # the rules' preference: a spinner or chickie short of an arm or toe with
                    # play beyond it is a violation, so a reading that fills its empty slot wins;
                    # a missing double should pick up all the arms or toes around its place
                    hyp.rank = hyp.cost - (config.short_double_bonus if short[hyp.source] or short[hyp.target] else 0.0)
                    if hyp.copy_of is not None:
                        hyp.rank += config.stray_copy_penalty
                    if hyp.double:
                        hyp.rank -= 0.3 * _attachments(hyp, frames, comp, forest, config)
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
        if best.copy_of is not None:
            notes.append(f"the tile missing between tiles {board.ids[best.source]} and {board.ids[best.target]} "
                         f"reads as {max(vals)}-{min(vals)}, which is also seen on tile {board.ids[best.copy_of]} "
                         "lying apart from the layout: one of the two is misread or a stray")
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
        cands = links_from_table(contact_table(f, f, ia[sel], ib[sel]), board.pips, R,
                                  np.arange(len(f)), np.arange(len(f)), config)
        more, _ = link(cands, len(f), board.pips, forest, notes, extra, config=config)
        kept.extend(more)
    return gaps


END_ON = ("along", "turn", "arm", "toe")
"""Guessed placements whose end (not side) meets the tile they were guessed from."""


def _hypotheses(quads: np.ndarray, end_on: np.ndarray, j: int, half: int | None, targets: np.ndarray, frames: Frames,
                pips: np.ndarray, forest: Forest, obstacles: Frames, ratio: float,
                visible: set[tuple[int, int]], lone: np.ndarray, config: AuditConfig,
                strays: dict[tuple[int, int], int] | None = None,
                double_to_lone: bool = True,
                seen: dict[tuple[int, int], int] | None = None) -> list[_Hypothesis]:
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
    if seen is None:
        seen = {}
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
                if a.dist[k, e] <= config.touch and a.dist[k, e] >= -config.overlap and a.facing[k, e] > 0.5:
                    th = 0 if a.local[k, e, 1] < 0 else 1
                    if doubles_t or (t, th) not in forest.used:
                        base = 0.5 * max(a.dist[k, e], 0)
                        held = base + 0.3 * (1 - a.facing[k, e])
                        fit = _square(a.local[k, e], a.direction[k, e], ratio, a.facing[k, e])
                        options.append((held if doubles_t else base + 0.3 * (1 - fit), e, th, quads[h], held))
        for e in (0, 1):  # target t's end e against the hypothesis
            if (t, e) in forest.used and not doubles_t:
                continue
            if not (-config.overlap <= b.dist[k, e] <= config.touch and b.facing[k, e] > 0.5):
                continue
            px, py = b.local[k, e]
            h_half = 0 if py < 0 else 1
            on_end = abs(py) - ratio / 2 > abs(px) - 0.5  # against the hypothesis' short end
            if not end_on[h] or h_half == src_half or not on_end:
                if deep[h] <= 0.12:
                    base = 0.5 * max(b.dist[k, e], 0)
                    fit = _square(b.local[k, e], b.direction[k, e], ratio, b.facing[k, e])
                    # (a double, inferred or touched, is held to `facing`: where along its side
                    # an end lands matters)
                    options.append((base + 0.3 * (1 - fit), h_half, e, quads[h], base + 0.3 * (1 - b.facing[k, e])))
                continue
            # end to end on both sides: refit the tile between the two ends it must touch
            fit = _refit(hf, h, src_half, frames.ends[t, e])
            if fit is None:
                continue
            cost, corners = fit
            if overlap(corners, obstacles, ratio) > 0.12:
                continue
            options.append((cost + 0.3 * (1 - b.facing[k, e]), h_half, e, corners, None))
        for cost, h_half, t_half, corners, cost_as_double in options:
            v_src = int(pips[j][half if half is not None else 0])
            v_tgt = int(pips[t][t_half])
            if v_src == v_tgt and cost_as_double is not None:
                cost = cost_as_double
            if h_half == src_half and v_src != v_tgt:
                continue  # both neighbours on one half: only a double (crosswise) does that
            value = (max(v_src, v_tgt), min(v_src, v_tgt))
            if value in visible or (strays is not None and strays.get(value) == t):
                continue
            if lone[t] and (cost > 0.15 or seen.get((max(pips[t]), min(pips[t])), 1) > 1):
                continue  # a lone tile must sit squarely, and not be a second copy of a tile
            if lone[t] and v_src == v_tgt and not double_to_lone:
                continue  # (see `bridge`: only an ordinary tile joins a lone tile to a free end)
            cand = _Hypothesis(corners, j, half if half is not None else 0, src_half, t, t_half, h_half,
                               float(cost), double=v_src == v_tgt, copy_of=(strays or {}).get(value))
            if h not in found or _weight(cand, config) < _weight(found[h], config):
                found[h] = cand
    return list(found.values())


def _weight(hyp: _Hypothesis, config: AuditConfig) -> float:
    return hyp.cost + (config.stray_copy_penalty if hyp.copy_of is not None else 0.0)


def _square(local: np.ndarray, direction: np.ndarray, ratio: float, facing: float) -> float:
    """How well an end meets an ordinary tile: `ContactTable.facing` (aimed at the
    touched tile's centre), or, if better, the cosine between the end's outward direction
    and the normal of the side it lands on. Facing undersells an end laid squarely
    against a long side near its far end, which is how an arm turns a corner."""
    on_end = abs(local[1]) - ratio / 2 > abs(local[0]) - 0.5
    return max(float(facing), float(abs(direction[1]) if on_end else abs(direction[0])))


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


def overlap(corners: np.ndarray, obstacles: Frames, ratio: float) -> float:
    """How deep a quad and the nearest obstacle reach into each other (tile widths)."""
    qf = make_frames(corners[None], ratio)
    ia, ib = near_pairs(qf, obstacles, same=False, reach=0.3)
    if len(ia) == 0:
        return 0.0
    return float(max(quads_overlap_depth(qf, obstacles, ia, ib).max(), quads_overlap_depth(obstacles, qf, ib, ia).max()))


def _attachments(hyp: _Hypothesis, frames: Frames, comp: np.ndarray, forest: Forest, config: AuditConfig) -> int:
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
            if -config.overlap <= tab.dist[k, e] <= config.touch and tab.facing[k, e] > 0.5:
                groups.add(int(comp[r]))
    return len(groups)
