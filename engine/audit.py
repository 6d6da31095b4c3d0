"""Judging a still picture of the table.

The camera sees tiles and which ends touch, never the order they were played
in, so the audit reports only what a single picture proves: an end laid against
the wrong number, a crowded spinner or chickie, a double left short while play
went on past it, a tile seen twice or not in the set, tiles lying apart. Edges
may come in either direction; the audit orients them into a tree from the spinner.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .board import Board
from .errors import plural
from .rulecodes import Rule
from .rules import CHICKIE_TOES, HouseRules

if TYPE_CHECKING:
    from .round import RoundState

# --- the contract with the vision side (keep these names) ------------------------


@dataclass(frozen=True)
class LayoutTile:
    id: int
    """Detection id."""
    pips: tuple[int, int]
    """Values of end 0 and end 1 as seen along the tile."""


@dataclass(frozen=True)
class LayoutEdge:
    from_id: int
    from_pips: int
    """The end (value) of tile from_id that touches."""
    to_id: int
    to_pips: int
    """The end (value) of tile to_id that is touched."""


@dataclass
class Layout:
    tiles: list[LayoutTile]
    edges: list[LayoutEdge]
    spinner_id: int | None = None
    """If the camera knows it; otherwise the audit infers it (a double at the root)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "tiles": [{"id": t.id, "pips": list(t.pips)} for t in self.tiles],
            "edges": [
                {"from_id": e.from_id, "from_pips": e.from_pips, "to_id": e.to_id, "to_pips": e.to_pips}
                for e in self.edges
            ],
            "spinner_id": self.spinner_id,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Layout":
        return cls(
            tiles=[LayoutTile(int(t["id"]), (int(t["pips"][0]), int(t["pips"][1]))) for t in data["tiles"]],
            edges=[
                LayoutEdge(int(e["from_id"]), int(e["from_pips"]), int(e["to_id"]), int(e["to_pips"]))
                for e in data["edges"]
            ],
            spinner_id=data.get("spinner_id"),
        )


# --- the report ---------------------------------------------------------------------

@dataclass(frozen=True)
class Violation:
    rule: Rule
    message: str
    tiles: list[int]

    def to_dict(self) -> dict[str, Any]:
        return {"rule": str(self.rule), "message": self.message, "tiles": list(self.tiles)}


@dataclass(frozen=True)
class ChickieInfo:
    tile_id: int
    toe_ids: list[int]
    missing: int

    def to_dict(self) -> dict[str, Any]:
        return {"tile_id": self.tile_id, "toe_ids": list(self.toe_ids), "missing": self.missing}


@dataclass(frozen=True)
class OpenEndInfo:
    tile_id: int
    value: int
    free: int
    """How many tiles this end can still take (spinner arms, chickie toes, or 1)."""
    playable_now: bool
    """False while an unfinished spinner or chickie elsewhere must be fed first."""

    @property
    def accepts(self) -> int | None:
        """The value a tile needs to go here now, or None if nothing may go here yet."""
        return self.value if self.playable_now else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "tile_id": self.tile_id, "value": self.value, "free": self.free,
            "playable_now": self.playable_now, "accepts": self.accepts,
        }


@dataclass
class AuditReport:
    violations: list[Violation] = field(default_factory=list)
    spinner_id: int | None = None
    spinner_inferred: bool = False
    arms: list[int] = field(default_factory=list)
    chickies: list[ChickieInfo] = field(default_factory=list)
    open_ends: list[OpenEndInfo] = field(default_factory=list)
    loose_tile_ids: list[int] = field(default_factory=list)
    parents: dict[int, int | None] = field(default_factory=dict)
    """Each connected tile's parent in the tree from the spinner (None for the spinner)."""
    rules: HouseRules | None = None

    @property
    def ok(self) -> bool:
        return not self.violations

    def rules_broken(self) -> list[str]:
        return sorted({v.rule for v in self.violations})

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "violations": [v.to_dict() for v in self.violations],
            "spinner_id": self.spinner_id,
            "spinner_inferred": self.spinner_inferred,
            "arms": list(self.arms),
            "chickies": [c.to_dict() for c in self.chickies],
            "open_ends": [o.to_dict() for o in self.open_ends],
            "loose_tile_ids": list(self.loose_tile_ids),
            "parents": {str(k): v for k, v in self.parents.items()},
            "rules": None if self.rules is None else self.rules.to_dict(),
        }


# --- the audit ------------------------------------------------------------------------


def _name(pips: tuple[int, int]) -> str:
    a, b = pips
    return f"{max(a, b)}-{min(a, b)}"


Adjacency = dict[int, list[tuple[int, int, int]]]
"""For each tile id, its contacts: (neighbour, the value of this tile's end, the value of the neighbour's)."""


@dataclass
class _Tree:
    """The layout as a tree from the spinner: the picture's contacts oriented away from it, in the
    order a breadth-first walk meets the tiles."""
    tiles: dict[int, tuple[int, int]]
    adjacency: Adjacency
    spinner: int
    parent: dict[int, int | None] = field(default_factory=dict)
    facing: dict[int, int] = field(default_factory=dict)
    """The value on each tile that touches its parent."""
    depth: dict[int, int] = field(default_factory=dict)
    children: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    """Each tile's children, with the value on the tile each one touches."""
    order: list[int] = field(default_factory=list)

    def is_double(self, tid: int) -> bool:
        a, b = self.tiles[tid]
        return a == b

    def name(self, tid: int) -> str:
        return _name(self.tiles[tid])


def audit_layout(layout: Layout, set_max: int, rules: HouseRules, round_double: int | None = None) -> AuditReport:
    """Every rule violation a still picture of `layout` proves, with the tiles involved.

    The checks run in a fixed order and each adds its violations in turn: the tiles (ids, the
    set), the contacts, the spinner, the tree from it (extra contacts, tiles apart, ends used
    twice), the spinner's arms, the chickies, and last the open ends the report lists."""
    report = AuditReport(rules=rules)
    out = report.violations
    tiles = _read_tiles(layout, out)
    out += _set_violations(tiles, set_max)
    adjacency = _read_contacts(layout, tiles, out)
    if not tiles:
        return report
    spinner = layout.spinner_id if layout.spinner_id in tiles else None
    if spinner is None:
        spinner = _infer_spinner(tiles, adjacency, round_double)
        report.spinner_inferred = spinner is not None
    if spinner is None:
        out.append(_violation(Rule.NO_SPINNER, "there is no double on the table to start the layout from", list(tiles)))
        report.loose_tile_ids = sorted(tiles)
        return report
    report.spinner_id = spinner
    out += _spinner_violations(tiles, spinner, rules, round_double)
    tree = _grow_tree(tiles, adjacency, spinner, out)
    report.parents = dict(tree.parent)
    report.loose_tile_ids = sorted(set(tiles) - set(tree.parent))
    out += _loose_violations(tree, report.loose_tile_ids)
    out += _end_used_twice_violations(tree)
    report.arms = [c for c, _ in tree.children[spinner]]
    out += _arm_violations(tree, report.arms, rules)
    spinner_short = tree.is_double(spinner) and len(report.arms) < rules.spinner_arms
    report.chickies = _chickies(tree)
    out += _chickie_violations(tree, report.chickies)
    unfinished = [c.tile_id for c in report.chickies if c.missing]
    forced = {spinner} if spinner_short else (set(unfinished) if unfinished else None)
    report.open_ends = _open_ends(tree, rules, forced)
    return report


def _violation(rule: Rule, message: str, tiles: list[int]) -> Violation:
    return Violation(rule, message, sorted(set(tiles)))


def _read_tiles(layout: Layout, out: list[Violation]) -> dict[int, tuple[int, int]]:
    """The tiles by id; an id used twice is a broken hand-over (the second is left out)."""
    tiles: dict[int, tuple[int, int]] = {}
    for t in layout.tiles:
        if t.id in tiles:
            out.append(_violation(Rule.BAD_EDGE, f"detection id {t.id} is used for two tiles", [t.id]))
            continue
        tiles[t.id] = (int(t.pips[0]), int(t.pips[1]))
    return tiles


def _set_violations(tiles: dict[int, tuple[int, int]], set_max: int) -> list[Violation]:
    """Tiles that cannot exist in this set, and tiles seen twice (a set has one of each)."""
    out = []
    by_value: dict[tuple[int, int], list[int]] = {}
    for tid, (a, b) in tiles.items():
        if not (0 <= a <= set_max and 0 <= b <= set_max):
            out.append(_violation(Rule.TILE_NOT_IN_SET, f"{_name((a, b))} is not in a double-{set_max} set", [tid]))
        by_value.setdefault((max(a, b), min(a, b)), []).append(tid)
    for key, ids in by_value.items():
        if len(ids) > 1:
            out.append(_violation(Rule.DUPLICATE_TILE,
                                  f"{_name(key)} appears {len(ids)} times; a set has one of each tile", ids))
    return out


def _read_contacts(layout: Layout, tiles: dict[int, tuple[int, int]], out: list[Violation]) -> Adjacency:
    """The contacts, deduplicated and undirected. A contact naming an unknown tile, a tile touching
    itself or an end a tile does not have is a broken hand-over and left out; ends that touch with
    different numbers are a violation, and the contact is kept (the tree still grows through it)."""
    adjacency: Adjacency = {tid: [] for tid in tiles}
    seen: set[frozenset[tuple[int, int]]] = set()
    for e in layout.edges:
        if e.from_id not in tiles or e.to_id not in tiles:
            known = [i for i in (e.from_id, e.to_id) if i in tiles]
            out.append(_violation(Rule.BAD_EDGE, f"a contact names tile id "
                                  f"{e.from_id if e.from_id not in tiles else e.to_id}, which is not in the layout",
                                  known))
            continue
        if e.from_id == e.to_id:
            out.append(_violation(Rule.BAD_EDGE, f"tile {_name(tiles[e.from_id])} is said to touch itself",
                                  [e.from_id]))
            continue
        bad = [(i, v) for i, v in ((e.from_id, e.from_pips), (e.to_id, e.to_pips)) if v not in tiles[i]]
        if bad:
            i, v = bad[0]
            out.append(_violation(Rule.BAD_EDGE, f"{_name(tiles[i])} has no {v} end to touch with",
                                  [e.from_id, e.to_id]))
            continue
        contact = frozenset({(e.from_id, e.from_pips), (e.to_id, e.to_pips)})
        if contact in seen:
            continue
        seen.add(contact)
        if e.from_pips != e.to_pips:
            out.append(_violation(
                Rule.ENDS_DO_NOT_MATCH,
                f"the {e.from_pips} of {_name(tiles[e.from_id])} touches the {e.to_pips} of "
                f"{_name(tiles[e.to_id])}; touching ends must show the same number",
                [e.from_id, e.to_id]))
        adjacency[e.from_id].append((e.to_id, e.from_pips, e.to_pips))
        adjacency[e.to_id].append((e.from_id, e.to_pips, e.from_pips))
    return adjacency


def _spinner_violations(tiles: dict[int, tuple[int, int]], spinner: int, rules: HouseRules,
                        round_double: int | None) -> list[Violation]:
    """The layout starts from a double, and from the round's double where the house rules say so."""
    a, b = tiles[spinner]
    if a != b:
        return [_violation(Rule.SPINNER_NOT_DOUBLE, f"the starting tile {_name((a, b))} is not a double", [spinner])]
    if round_double is not None and rules.start_double != "highest_unused" and (
            a > round_double or (a != round_double and rules.start_double == "required")):
        return [_violation(Rule.WRONG_SPINNER,
                           f"this round starts with the double-{round_double}, but the spinner is {_name((a, b))}",
                           [spinner])]
    return []


def _grow_tree(tiles: dict[int, tuple[int, int]], adjacency: Adjacency, spinner: int,
               out: list[Violation]) -> _Tree:
    """The contacts oriented into a tree from the spinner, breadth first. Each tile is laid
    against exactly one other, so a contact between two tiles already in the tree is not a play:
    reported once per pair, and left out of the tree."""
    tree = _Tree(tiles, adjacency, spinner, parent={spinner: None}, facing={spinner: tiles[spinner][0]},
                 depth={spinner: 0}, children={spinner: []}, order=[spinner])
    queue = deque([spinner])
    extra: set[frozenset[int]] = set()
    while queue:
        tid = queue.popleft()
        for nb, mine, theirs in adjacency[tid]:
            if nb == tree.parent[tid] and (nb, mine, theirs) == _parent_contact(tid, tree.parent, tree.facing,
                                                                                 adjacency):
                continue
            if nb in tree.parent:
                pair = frozenset({tid, nb})
                if pair not in extra:
                    extra.add(pair)
                    out.append(_violation(
                        Rule.EXTRA_CONNECTION,
                        f"{tree.name(tid)} and {tree.name(nb)} touch, but each tile is laid against "
                        "exactly one other; one of these contacts is not a play",
                        [tid, nb]))
                continue
            tree.parent[nb] = tid
            tree.facing[nb] = theirs
            tree.depth[nb] = tree.depth[tid] + 1
            tree.children[tid].append((nb, mine))
            tree.children[nb] = []
            tree.order.append(nb)
            queue.append(nb)
    return tree


def _loose_violations(tree: _Tree, loose: list[int]) -> list[Violation]:
    """Tiles lying apart from the layout: one violation per group of them that touch each other."""
    out = []
    remaining = set(loose)
    while remaining:
        start = min(remaining)
        group = {start}
        stack = [start]
        while stack:
            for nb, _, _ in tree.adjacency[stack.pop()]:
                if nb in remaining and nb not in group:
                    group.add(nb)
                    stack.append(nb)
        remaining -= group
        names = ", ".join(tree.name(i) for i in sorted(group))
        out.append(_violation(Rule.NOT_CONNECTED,
                              f"{names} {'is' if len(group) == 1 else 'are'} not connected to the layout",
                              sorted(group)))
    return out


def _end_used_twice_violations(tree: _Tree) -> list[Violation]:
    """An ordinary tile offers one end to its parent and one to a child: an end touching two
    tiles is a violation."""
    out = []
    for tid in tree.order:
        if tree.is_double(tid):
            continue
        contacts: dict[int, list[int]] = {}
        parent = tree.parent[tid]
        if parent is not None:
            contacts.setdefault(tree.facing[tid], []).append(parent)
        for child, mine in tree.children[tid]:
            contacts.setdefault(mine, []).append(child)
        for value, who in contacts.items():
            if len(who) > 1:
                out.append(_violation(
                    Rule.END_USED_TWICE,
                    f"the {value} end of {tree.name(tid)} touches {len(who)} tiles; an end takes one",
                    [tid, *who]))
    return out


def _arm_violations(tree: _Tree, arms: list[int], rules: HouseRules) -> list[Violation]:
    """The spinner takes the house rules' number of arms, and play goes past it only once it has
    them all."""
    spinner = tree.spinner
    if not tree.is_double(spinner):
        return []
    if len(arms) > rules.spinner_arms:
        return [_violation(Rule.TOO_MANY_ARMS,
                           f"the spinner {tree.name(spinner)} has {len(arms)} arms; it takes {rules.spinner_arms}",
                           [spinner, *arms])]
    beyond = [t for t in tree.order if tree.depth[t] >= 2]
    if len(arms) < rules.spinner_arms and beyond:
        missing = rules.spinner_arms - len(arms)
        return [_violation(Rule.SPINNER_ARMS_UNFINISHED,
                           f"play went past the spinner {tree.name(spinner)} while it still needed "
                           f"{plural(missing, 'more arm')}",
                           [spinner, *beyond])]
    return []


def _chickies(tree: _Tree) -> list[ChickieInfo]:
    """Every double after the spinner is a chickie: its toes, and how many it still lacks."""
    out = []
    for tid in tree.order:
        if tid != tree.spinner and tree.is_double(tid):
            toes = [c for c, _ in tree.children[tid]]
            out.append(ChickieInfo(tid, toes, max(0, CHICKIE_TOES - len(toes))))
    return out


def _chickie_violations(tree: _Tree, chickies: list[ChickieInfo]) -> list[Violation]:
    """A chickie takes three toes, and play goes beyond it only once it has them; two chickies
    unfinished at once means one was played while the other still waited."""
    out = []
    for c in chickies:
        if len(c.toe_ids) > CHICKIE_TOES:
            out.append(_violation(Rule.TOO_MANY_TOES, f"the chickie on {tree.name(c.tile_id)} has "
                                  f"{len(c.toe_ids)} toes; it takes {CHICKIE_TOES}", [c.tile_id, *c.toe_ids]))
        below = _descendants(c.tile_id, tree.children, min_depth=2) if c.missing else []
        if below:
            out.append(_violation(
                Rule.CHICKIE_UNFINISHED,
                f"tiles were laid beyond the toes of the chickie on {tree.name(c.tile_id)} while it still "
                f"needed {plural(c.missing, 'more toe')}",
                [c.tile_id, *below]))
    unfinished = [c.tile_id for c in chickies if c.missing]
    if len(unfinished) > 1:
        names = ", ".join(tree.name(t) for t in unfinished)
        out.append(_violation(
            Rule.CHICKIE_UNFINISHED,
            f"{plural(len(unfinished), 'chickie')} ({names}) are unfinished at once: one was played while "
            "another still needed toes",
            unfinished))
    return out


def _open_ends(tree: _Tree, rules: HouseRules, forced: set[int] | None) -> list[OpenEndInfo]:
    """The open ends and how many tiles each still takes; while a short spinner (or else an
    unfinished chickie) must be fed first, only its ends (`forced`) take a tile now."""
    out = []
    for tid in tree.order:
        if tree.is_double(tid):
            free = (rules.spinner_arms if tid == tree.spinner else CHICKIE_TOES) - len(tree.children[tid])
            value = tree.tiles[tid][0]
        else:
            a, b = tree.tiles[tid]
            if tree.parent[tid] is None:
                continue  # a non-double "spinner" is already reported
            value = b if tree.facing[tid] == a else a
            free = 0 if value in [mine for _, mine in tree.children[tid]] else 1
        if free > 0:
            out.append(OpenEndInfo(tid, value, free, forced is None or tid in forced))
    return out


def _parent_contact(tid: int, parent: dict[int, int | None], facing: dict[int, int], adjacency: Adjacency) -> tuple[int, int, int] | None:
    """The one contact that made `tid` a child (so other contacts with the parent count as extra)."""
    p = parent[tid]
    if p is None:
        return None
    for nb, mine, theirs in adjacency[tid]:
        if nb == p and mine == facing[tid]:
            return (nb, mine, theirs)
    return None


def _descendants(tid: int, children: dict[int, list[tuple[int, int]]], min_depth: int) -> list[int]:
    found: list[int] = []
    stack = [(c, 1) for c, _ in children[tid]]
    while stack:
        node, d = stack.pop()
        if d >= min_depth:
            found.append(node)
        stack.extend((c, d + 1) for c, _ in children[node])
    return sorted(found)


def _infer_spinner(
    tiles: dict[int, tuple[int, int]], adjacency: dict[int, list[tuple[int, int, int]]], round_double: int | None
) -> int | None:
    """Pick the double most likely to be the root when the camera could not tell.

    A picture cannot tell a finished chickie from a four-armed spinner, so prefer the
    round's double when known, then the double in the biggest group of touching tiles,
    then the most contacts, then the most central, then the highest value.
    """
    doubles = [tid for tid, (a, b) in tiles.items() if a == b]
    if not doubles:
        return None
    if round_double is not None:
        matching = [t for t in doubles if tiles[t][0] == round_double]
        if matching:
            doubles = matching

    def reach(start: int) -> dict[int, int]:
        dist = {start: 0}
        queue = deque([start])
        while queue:
            t = queue.popleft()
            for nb, _, _ in adjacency[t]:
                if nb not in dist:
                    dist[nb] = dist[t] + 1
                    queue.append(nb)
        return dist

    def key(tid: int) -> tuple[int, int, int, int, int]:
        dist = reach(tid)
        return (len(dist), len(adjacency[tid]), -max(dist.values()), tiles[tid][0], -tid)

    return max(doubles, key=key)


# --- building layouts -----------------------------------------------------------------


def layout_from_round(state: "RoundState") -> Layout:
    """The board of a round as the camera would hand it over."""
    return layout_from_board(state.board)


def layout_from_board(board: Board) -> Layout:
    """The board as the camera would hand it over: one id per placement, child-to-parent edges."""
    tiles = [LayoutTile(p.index, (p.facing, p.outer)) for p in board.placements]
    edges = [
        LayoutEdge(p.index, p.facing, p.parent, p.facing)
        for p in board.placements
        if p.parent is not None
    ]
    return Layout(tiles, edges, spinner_id=0 if board.placements else None)


class LayoutBuilder:
    """Lay out tiles by hand, legal or not, for tests and for the vision team's fixtures.

    >>> b = LayoutBuilder()
    >>> s = b.tile(9, 9)
    >>> arm = b.tile(9, 4, on=s)
    >>> bad = b.tile(3, 5, on=arm, touching=4)   # a 3 laid against a 4
    >>> layout = b.build(spinner_id=s)
    """

    def __init__(self) -> None:
        self.tiles: list[LayoutTile] = []
        self.edges: list[LayoutEdge] = []
        self._next = 0
        self._pips: dict[int, tuple[int, int]] = {}

    def tile(self, a: int, b: int, on: int | None = None, *, touching: int | None = None,
             tile_id: int | None = None) -> int:
        """Add tile a-b; with `on`, its `a` end touches that tile's `touching` value (default: a)."""
        tid = self._next if tile_id is None else tile_id
        self._next = max(self._next, tid) + 1
        self.tiles.append(LayoutTile(tid, (a, b)))
        self._pips[tid] = (a, b)
        if on is not None:
            self.edges.append(LayoutEdge(tid, a, on, a if touching is None else touching))
        return tid

    def connect(self, from_id: int, from_pips: int, to_id: int, to_pips: int) -> None:
        self.edges.append(LayoutEdge(from_id, from_pips, to_id, to_pips))

    def build(self, spinner_id: int | None = None) -> Layout:
        return Layout(list(self.tiles), list(self.edges), spinner_id)
