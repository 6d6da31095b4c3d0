"""Why a round is blocked: a proof from the open ends and the tiles accounted for.

A round stalls when nobody can lay a tile and nobody can draw. Whether that is
so follows from two things a table can check for itself: the value each open end
takes, and, for each such value, how many tiles carrying it exist in the set, how
many lie on the table, and how many are left that could still be in a hand. When
no tile of any value the open ends take can still be in a hand, no play is
possible and the round is blocked, whatever anyone holds.

Every tile not on the table is in a hand or in the boneyard, from where it can still be
drawn, so the verdict needs only the table; what differs is how sure the table is, and
the proof says which knowledge it rests on:

- "exact": a round the engine played or replayed; it also says which tiles are in the
  boneyard;
- "tracked": a round a camera followed play by play; the table is known exactly;
- "photo": one picture of the table; only what it shows is counted, so the proof
  holds "as far as the picture shows" (a tile it missed would change it).

A spinner or chickie that must be fed first narrows play to its own value; when
no tile of that value is left it can never be finished, and play is stuck behind
it even if other ends could take a tile: a dead chickie.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Literal, Sequence

from .board import SLOT_STRIDE, Board
from .errors import plural
from .tiles import Tile, full_set

if TYPE_CHECKING:
    from .round import RoundState

Basis = Literal["exact", "tracked", "photo"]

BASIS_WORDS: dict[str, str] = {
    "exact": "exact: every tile's place is known",
    "tracked": "exact for the table: every play was followed; hands are not seen",
    "photo": "as far as the picture shows",
}


@dataclass(frozen=True)
class EndFact:
    """One tile with free ends, the value they take, and whether play may go there now."""

    on: Tile
    value: int
    free: int
    """Tiles it can still take: spinner arms, chickie toes, or 1."""
    kind: str
    """"spinner", "chickie" or "tile"."""
    playable_now: bool
    """False while a spinner or chickie elsewhere must be fed first."""

    def to_dict(self) -> dict[str, Any]:
        return {"on": str(self.on), "value": self.value, "free": self.free, "kind": self.kind,
                "playable_now": self.playable_now}


@dataclass(frozen=True)
class ValueCount:
    """The tiles of one value: in the set, on the table, and the rest, which could still be in a
    hand (or be drawn into one)."""

    value: int
    in_set: int
    on_table: int
    possible: tuple[Tile, ...]
    """Tiles of this value not on the table."""
    in_boneyard: int | None = None
    """How many of `possible` lie in the boneyard, where it is known (exact)."""

    @property
    def in_hands(self) -> int:
        """Tiles of this value that could be in a hand: all not on the table (a tile in the
        boneyard can still be drawn into one)."""
        return len(self.possible)

    @property
    def exhausted(self) -> bool:
        return not self.possible

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "in_set": self.in_set, "on_table": self.on_table,
                "in_hands": self.in_hands, "in_boneyard": self.in_boneyard, "exhausted": self.exhausted,
                "possible": [str(t) for t in self.possible]}


@dataclass(frozen=True)
class DeadDouble:
    """A spinner or chickie short of tiles that the tiles left can no longer finish."""

    tile: Tile
    kind: str
    missing: int
    possible: int
    """Tiles of its value that could still be laid on it."""

    def sentence(self) -> str:
        what = "spinner" if self.kind == "spinner" else "chickie"
        need = plural(self.missing, "more arm" if self.kind == "spinner" else "more toe")
        if not self.possible:
            return f"the {what} on {self.tile} needs {need}, but every {self.tile.high} is accounted for"
        return (f"the {what} on {self.tile} needs {need}, but only {plural(self.possible, 'tile')} "
                f"of {self.tile.high} can still come")

    def to_dict(self) -> dict[str, Any]:
        return {"tile": str(self.tile), "kind": self.kind, "missing": self.missing, "possible": self.possible,
                "message": self.sentence()}


@dataclass
class BlockProof:
    """Whether play can go on, and the counts that prove it."""

    basis: Basis
    blocked: bool
    reason: str
    """One sentence for people."""
    ends: list[EndFact] = field(default_factory=list)
    values: list[ValueCount] = field(default_factory=list)
    """One per value an open end takes, lowest first."""
    dead: list[DeadDouble] = field(default_factory=list)
    waiting_on: Tile | None = None
    """The spinner or chickie that must be fed before anything else."""
    boneyard: int | None = None
    """Tiles left to draw, where known."""
    playable: list[Tile] = field(default_factory=list)
    """Tiles not on the table that could be laid now, by whoever holds or draws them."""
    unread: int = 0
    """Tiles in the picture whose values could not be read (photo)."""

    @property
    def cause(self) -> str | None:
        """"dead_chickie" or "dead_spinner" (play is stuck behind a double that cannot be
        finished), "values_exhausted", or None when not blocked."""
        if not self.blocked:
            return None
        stuck = next((d for d in self.dead if d.tile == self.waiting_on), None)
        if stuck is not None:
            return "dead_spinner" if stuck.kind == "spinner" else "dead_chickie"
        return "values_exhausted"

    def to_dict(self) -> dict[str, Any]:
        return {
            "basis": self.basis,
            "basis_words": BASIS_WORDS[self.basis],
            "blocked": self.blocked,
            "cause": self.cause,
            "reason": self.reason,
            "ends": [e.to_dict() for e in self.ends],
            "values": [v.to_dict() for v in self.values],
            "dead": [d.to_dict() for d in self.dead],
            "waiting_on": None if self.waiting_on is None else str(self.waiting_on),
            "boneyard": self.boneyard,
            "playable": [str(t) for t in self.playable],
            "unread": self.unread,
        }

    def lines(self) -> list[str]:
        """The proof as a person reads it at the table."""
        out = [("BLOCKED: " if self.blocked else "not blocked: ") + self.reason,
               f"  ({BASIS_WORDS[self.basis]})"]
        if self.boneyard is not None:
            out.append(f"  boneyard: {plural(self.boneyard, 'tile')}")
        out.append("  open ends:")
        for e in self.ends:
            room = f" x{e.free}" if e.free > 1 else ""
            when = "" if e.playable_now else " (waits: a double elsewhere must be fed first)"
            out.append(f"    {e.value} on {e.kind} {e.on}{room}{when}")
            out.append("  value  in set  on table  could be in hands")
        for v in self.values:
            note = "  used up" if v.exhausted else "  (" + ", ".join(map(str, v.possible)) + ")"
            if v.in_boneyard:
                note += f", {v.in_boneyard} of them in the boneyard"
            out.append(f"  {v.value:>5}  {v.in_set:>6}  {v.on_table:>8}  {v.in_hands:>17}{note}")
        for d in self.dead:
            out.append(f"  dead {d.kind}: {d.sentence()}")
        if self.unread:
            out.append(f"  {plural(self.unread, 'tile')} in the picture could not be read")
        return out


def explain_block(
    set_max: int,
    on_table: Iterable[Tile],
    ends: Sequence[EndFact],
    *,
    basis: Basis,
    boneyard: Iterable[Tile] | int | None = None,
    unread: int = 0,
) -> BlockProof:
    """The proof from the tiles on the table and its open ends.

    Every tile not on the table is in a hand or the boneyard, and a boneyard tile can still be
    drawn, so play can go on exactly when some tile not on the table fits an end that takes a tile
    now. Hence the verdict needs no hands; `boneyard` (its tiles where known, or how many) only
    adds detail, and tiles left to draw never unblock a round no tile fits.
    """
    table = set(on_table)
    pile: set[Tile] | None = None
    pile_count: int | None = None
    if isinstance(boneyard, int):
        pile_count = boneyard
    elif boneyard is not None:
        pile = set(boneyard)
        pile_count = len(pile)
    tiles = full_set(set_max)
    waiting = [e for e in ends if e.playable_now]
    forced = _forced(ends, waiting)
    counts: list[ValueCount] = []
    by_value: dict[int, ValueCount] = {}
    for v in sorted({e.value for e in ends}):
        carrying = [t for t in tiles if t.has(v)]
        left = tuple(t for t in carrying if t not in table)
        vc = ValueCount(v, len(carrying), len(carrying) - len(left), left,
                        None if pile is None else sum(1 for t in left if t in pile))
        counts.append(vc)
        by_value[v] = vc

    dead = [DeadDouble(e.on, e.kind, e.free, by_value[e.value].in_hands)
            for e in ends if e.kind != "tile" and e.on.is_double and by_value[e.value].in_hands < e.free]
    playable = sorted({t for e in waiting for t in by_value[e.value].possible}, reverse=True)
    proof = BlockProof(basis=basis, blocked=False, reason="", ends=list(ends), values=counts, dead=dead,
                       waiting_on=forced, boneyard=pile_count, playable=playable, unread=unread)
    if not ends:
        proof.reason = "the table shows no open end"
        return proof
    if playable:
        proof.reason = (f"{plural(len(playable), 'tile')} that {'fits' if len(playable) == 1 else 'fit'} "
                        f"{'is' if len(playable) == 1 else 'are'} not on the table: {', '.join(map(str, playable))}")
        return proof
    proof.blocked = True
    stuck = next((d for d in dead if d.tile == forced), None)
    if stuck is not None:
        proof.reason = f"{stuck.sentence()}, and nothing may be played elsewhere until it is finished"
    else:
        used = ", ".join(f"{vc.value}s ({vc.on_table} of {vc.in_set} on the table)"
                         for vc in counts if any(e.value == vc.value for e in waiting))
        proof.reason = f"every value the open ends take is used up: {used}"
    if pile_count:
        proof.reason += f"; drawing the {plural(pile_count, 'tile')} left in the boneyard cannot change that"
    return proof


def _forced(ends: Sequence[EndFact], waiting: Sequence[EndFact]) -> Tile | None:
    """The spinner or chickie that holds play up: the one double every playable end hangs off,
    when other ends must wait for it or it has the only free ends."""
    hung = {e.on for e in waiting}
    if len(hung) != 1:
        return None
    only = next(iter(hung))
    if not only.is_double or all(e.kind == "tile" for e in waiting):
        return None
    return only if len(waiting) < len(ends) or len(ends) == 1 else None


def board_ends(board: Board) -> list[EndFact]:
    """The open ends of an engine board, one fact per tile with free ends."""
    pending = board.pending
    facts: list[EndFact] = []
    seen: set[int] = set()
    for end in board.open_ends.values():
        node = end.node
        if node in seen:
            continue
        seen.add(node)
        placement = board.placements[node]
        base = node * SLOT_STRIDE
        free = sum(1 for s in range(board.capacity(placement)) if base + s in board.open_ends)
        facts.append(EndFact(placement.tile, end.value, free, placement.kind,
                             pending is None or pending == node))
    return facts


def explain_round(state: "RoundState") -> BlockProof:
    """The exact proof for a round the engine holds (every hand and the boneyard known)."""
    board = state.board
    return explain_block(state.set_max, board.tiles(), board_ends(board), basis="exact",
                         boneyard=state.boneyard)


def explain_board(board: Board, set_max: int, *, boneyard: int | None = None) -> BlockProof:
    """The proof for a table followed play by play, hands unseen (`boneyard`: tiles left to draw,
    where the table has counted them)."""
    return explain_block(set_max, board.tiles(), board_ends(board), basis="tracked", boneyard=boneyard)


def explain_audit(audit: dict[str, Any], set_max: int) -> BlockProof:
    """The proof from a photo's audit (the `chickenfoot audit --json` object): the layout's tiles
    count as on the table; tiles lying apart from it might be anyone's, so they do not; tiles on
    the layout whose values could not be read are reported."""
    pips = {t["id"]: t.get("pips") for t in audit.get("tiles", [])}
    layout = audit.get("layout") or {}
    ids: set[int] = set()
    if layout.get("spinner") is not None:
        ids.add(layout["spinner"])
    for e in layout.get("edges", []):
        ids.update((e["from"], e["to"]))

    def tile(tid: int) -> Tile | None:
        p = pips.get(tid)
        if not p:
            return None
        try:
            return Tile(int(p[0]), int(p[1]))
        except ValueError:
            return None

    on_table = [t for t in (tile(i) for i in sorted(ids)) if t is not None and t.in_set(set_max)]
    unread = sum(1 for i in ids if tile(i) is None)
    spinner = layout.get("spinner")
    chickies = {c["tile"] for c in layout.get("chickies", [])}
    ends: list[EndFact] = []
    for o in audit.get("open_ends", []):
        t = tile(o["tile"])
        if t is None:
            continue
        kind = "spinner" if o["tile"] == spinner else ("chickie" if o["tile"] in chickies else "tile")
        ends.append(EndFact(t, int(o["value"]), int(o.get("free", 1)), kind, bool(o.get("playable_now", True))))
    return explain_block(set_max, on_table, ends, basis="photo", unread=unread)
