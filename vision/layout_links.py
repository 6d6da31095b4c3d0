"""Contacts between tiles, and the forest of plays they make.

Geometry (`vision.layout_geometry`) proposes contacts; here each gets a cost that says
how well it fits one of the ways tiles are really laid, and the cheapest are kept as
long as they make a forest: an ordinary tile's end takes one contact, and a contact
that would close a loop is set aside (tiles can touch without being played on each
other). Pip values confirm contacts: with two candidates the matching pair of ends
wins, and a mismatch is only believed where the tiles plainly touch.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .layout_geometry import Frames, angle_class, contact_table, near_pairs
from .table_audit import AuditConfig


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


# ---------------------------------------------------------------------------- contacts


def links_from_table(tab, pips: np.ndarray, ratio: float, toucher_ids: np.ndarray,
                     touched_ids: np.ndarray, config: AuditConfig) -> list[Link]:
    """Turn contact tests into candidate links, with a cost that says how well each fits
    one of the ways tiles are really laid:

    - end to end: the toucher runs along the tile, centred on its end;
    - end against a long side: square to it (an arm turning a corner, a crosswise
      double's parent, a spinner's arm), never parallel (that is tiles side by side);
    - diagonal: a 45-degree toe, only at a double's corner."""
    if len(tab.toucher) == 0:
        return []
    ok = (tab.dist <= config.touch) & (tab.dist >= -config.overlap) & (tab.facing >= config.min_facing)
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


def contacts(frames: Frames, ids: np.ndarray, pips: np.ndarray, config: AuditConfig) -> list[Link]:
    """Every plausible contact among the face-up tiles, the cheapest per pair of tiles.

    `ids[k]` is the row in `pips` (and in the caller's arrays) of frame k."""
    ia, ib = near_pairs(frames, frames, same=True)
    tab = contact_table(frames, frames, ia, ib)
    return links_from_table(tab, pips, frames.ratio, ids, ids, config)


# ---------------------------------------------------------------------------- the forest


class Forest:
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


def _rank(link: Link, pips: np.ndarray, config: AuditConfig) -> float:
    match = _value(pips, link.u, link.uh) == _value(pips, link.v, link.vh)
    return link.cost + (0.0 if match else config.mismatch_rank)


def link(candidates: list[Link], n: int, pips: np.ndarray, forest: Forest | None = None,
         notes: list[str] | None = None, extra: list[tuple[int, int]] | None = None, *,
         config: AuditConfig) -> tuple[list[Link], Forest]:
    """Keep the contacts that make a forest, best first (see the module docstring); how near and how
    much better a contact must be come from `config` (`match_cost`, `mismatch_touch`,
    `mismatch_rank`, `ambiguous_margin`)."""
    doubles = pips[:, 0] == pips[:, 1]
    forest = forest or Forest(n, doubles)
    best: dict[tuple[int, int], Link] = {}
    for c in candidates:
        _fix_half(c, pips)
        key = (min(c.u, c.v), max(c.u, c.v))
        old = best.get(key)
        if old is None or _rank(c, pips, config) < _rank(old, pips, config):
            best[key] = c
    ordered = sorted(best.values(), key=lambda c: _rank(c, pips, config))
    kept: list[Link] = []
    claims: dict[tuple[int, int], Link] = {}
    for c in ordered:
        match = _value(pips, c.u, c.uh) == _value(pips, c.v, c.vh)
        if c.cost > (config.match_cost if match else config.mismatch_touch):
            continue
        if not (forest.free(c.u, c.uh) and forest.free(c.v, c.vh)):
            if notes is not None and match and c.cost < 0.15:
                holder = claims.get((c.u, c.uh)) or claims.get((c.v, c.vh))
                margin = abs(_rank(holder, pips, config) - _rank(c, pips, config)) if holder is not None else None
                if margin is not None and margin < config.ambiguous_margin:
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
