"""The layout on the table: a tree rooted at the spinner.

The board is stored flat and append-only (tiles are never taken back), with
immutable `Placement` and `OpenEnd` records, so cloning a board for search or for
checking a play costs a couple of list copies instead of a deep copy. Walkers that
want a real tree (the renderer) ask for `tree()`, a fresh snapshot of `BoardNode`s.

Open-end ids are `placement index * 8 + slot`, so an id never changes once issued
and can be recomputed from where a tile lies: slot is the arm (spinner) or toe
(chickie) index, and 0 for the single free end of an ordinary tile.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Literal

from .tiles import Tile

Kind = Literal["spinner", "chickie", "tile"]
SLOT_STRIDE = 8


@dataclass(slots=True)
class Placement:
    """One tile on the board, as laid. Read-only by convention: clones share these
    records (not frozen only because frozen dataclasses are 3x slower to create)."""

    index: int
    """Order in which the tile reached the board (the spinner is 0)."""
    tile: Tile
    parent: int | None
    """Index of the placement this tile was laid against; None for the spinner."""
    slot: int | None
    """Arm index (spinner parent) or toe index (chickie parent); None otherwise."""
    facing: int
    """Value of the end that touches the parent (the spinner's own value for the spinner)."""
    outer: int
    """Value left open on the far side (a double's value for a double)."""
    kind: Kind
    player: int | None

    @property
    def is_double(self) -> bool:
        return self.tile.is_double

    @property
    def end_id(self) -> int | None:
        """Id of the open end this tile was laid on."""
        if self.parent is None:
            return None
        return self.parent * SLOT_STRIDE + (self.slot or 0)


@dataclass(slots=True)
class OpenEnd:
    """A place where a tile may be laid: its value and the tile it hangs off.
    Read-only by convention, shared between clones like `Placement`."""

    id: int
    value: int
    node: int
    """Index of the placement it hangs off."""
    tile: Tile
    slot: int | None
    """Arm or toe index when it hangs off a double; None on an ordinary tile."""

    def __str__(self) -> str:
        where = f"{self.tile}" if self.slot is None else f"{self.tile} slot {self.slot}"
        return f"open {self.value} on {where}"


@dataclass(slots=True)
class BoardNode:
    """A tree view of one placement, for code that walks the layout from the spinner."""

    index: int
    tile: Tile
    facing: int
    outer: int
    kind: Kind
    slot: int | None
    player: int | None
    capacity: int
    """Slots this tile offers its children: spinner arms, 3 toes, or 1."""
    children: list["BoardNode"] = field(default_factory=list)
    open_slots: list[int] = field(default_factory=list)
    """Slot indices on this tile still empty (for an ordinary tile: [0] if its end is open)."""

    @property
    def is_double(self) -> bool:
        return self.tile.is_double

    @property
    def is_chickie(self) -> bool:
        return self.kind == "chickie"

    def walk(self) -> Iterator["BoardNode"]:
        """Every node below and including this one, parents before children."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


class Board:
    """Tiles laid so far, the open ends, and which double (if any) must be fed next."""

    __slots__ = ("spinner_arms", "placements", "open_ends", "counts", "pending", "pending_missing")

    def __init__(self, set_max: int, spinner_arms: int = 4) -> None:
        self.spinner_arms = spinner_arms
        self.placements: list[Placement] = []
        self.open_ends: dict[int, OpenEnd] = {}
        self.counts: list[int] = [0] * (set_max + 1)
        """Open ends per value, whatever the pending double."""
        self.pending: int | None = None
        """Placement index of the spinner or chickie that must be completed first."""
        self.pending_missing = 0

    def clone(self) -> "Board":
        other = Board.__new__(Board)
        other.spinner_arms = self.spinner_arms
        other.placements = self.placements.copy()
        other.open_ends = self.open_ends.copy()
        other.counts = self.counts.copy()
        other.pending = self.pending
        other.pending_missing = self.pending_missing
        return other

    # --- reading -----------------------------------------------------------------

    @property
    def spinner(self) -> Placement | None:
        return self.placements[0] if self.placements else None

    def __len__(self) -> int:
        return len(self.placements)

    def tiles(self) -> list[Tile]:
        return [p.tile for p in self.placements]

    def capacity(self, placement: Placement) -> int:
        if placement.kind == "spinner":
            return self.spinner_arms
        if placement.kind == "chickie":
            return 3
        return 1

    def pending_placement(self) -> Placement | None:
        return None if self.pending is None else self.placements[self.pending]

    def forced_ends(self) -> list[OpenEnd] | None:
        """The only ends play may go on now, or None when every open end is allowed."""
        if self.pending is None:
            return None
        base = self.pending * SLOT_STRIDE
        ends = self.open_ends
        return [ends[base + s] for s in range(self.capacity(self.placements[self.pending])) if base + s in ends]

    def playable_ends(self) -> list[OpenEnd]:
        forced = self.forced_ends()
        return list(self.open_ends.values()) if forced is None else forced

    def placement_of(self, tile: Tile) -> Placement | None:
        for p in self.placements:
            if p.tile is tile:
                return p
        return None

    def end_at(self, tile: Tile, slot: int | None = None) -> OpenEnd | None:
        """The open end on `tile` (at `slot` for a double; the first free one if slot is None)."""
        p = self.placement_of(tile)
        if p is None:
            return None
        base = p.index * SLOT_STRIDE
        if slot is not None:
            return self.open_ends.get(base + slot)
        for s in range(self.capacity(p)):
            end = self.open_ends.get(base + s)
            if end is not None:
                return end
        return None

    def children(self, index: int) -> list[Placement]:
        kids = [p for p in self.placements if p.parent == index]
        kids.sort(key=lambda p: (p.slot or 0, p.index))
        return kids

    def tree(self) -> BoardNode | None:
        """A fresh tree of the layout rooted at the spinner."""
        if not self.placements:
            return None
        nodes = [
            BoardNode(
                index=p.index, tile=p.tile, facing=p.facing, outer=p.outer, kind=p.kind,
                slot=p.slot, player=p.player, capacity=self.capacity(p),
            )
            for p in self.placements
        ]
        for p in self.placements:
            if p.parent is not None:
                nodes[p.parent].children.append(nodes[p.index])
        for node in nodes:
            node.children.sort(key=lambda n: (n.slot or 0, n.index))
            base = node.index * SLOT_STRIDE
            node.open_slots = [s for s in range(node.capacity) if base + s in self.open_ends]
        return nodes[0]

    # --- changing ----------------------------------------------------------------

    def place_spinner(self, tile: Tile, player: int | None = None) -> Placement:
        if self.placements:
            raise ValueError("the board already has a spinner")
        if not tile.is_double:
            raise ValueError(f"the spinner must be a double, got {tile}")
        value = tile.high
        placement = Placement(0, tile, None, None, value, value, "spinner", player)
        self.placements.append(placement)
        for s in range(self.spinner_arms):
            self.open_ends[s] = OpenEnd(s, value, 0, tile, s)
        self.counts[value] += self.spinner_arms
        self.pending = 0
        self.pending_missing = self.spinner_arms
        return placement

    def place(self, tile: Tile, end: OpenEnd, player: int | None = None, facing: int | None = None) -> Placement:
        """Lay `tile` on `end`; the caller has checked that the play is legal, or that the table
        kept it although it was not (`facing`: the tile's value that touches, where it is not the
        end's)."""
        index = len(self.placements)
        value = end.value
        parent = end.node
        del self.open_ends[end.id]
        counts = self.counts
        counts[value] -= 1
        if self.pending == parent:
            self.pending_missing -= 1
            if self.pending_missing == 0:
                self.pending = None
        base = index * SLOT_STRIDE
        if facing is None:
            facing = value
        if tile.is_double:
            face = tile.high
            placement = Placement(index, tile, parent, end.slot, face, face, "chickie", player)
            for s in range(3):
                self.open_ends[base + s] = OpenEnd(base + s, face, index, tile, s)
            counts[face] += 3
            self.pending = index
            self.pending_missing = 3
        else:
            outer = tile.low if tile.high == facing else tile.high
            placement = Placement(index, tile, parent, end.slot, facing, outer, "tile", player)
            self.open_ends[base] = OpenEnd(base, outer, index, tile, None)
            counts[outer] += 1
        self.placements.append(placement)
        return placement
