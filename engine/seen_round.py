"""A round as seen from outside the table: the log of what was laid, and its replay.

Someone watching a table (a camera) sees the board, never the hands, the boneyard or who
drew. What they can keep is the order tiles were laid in, what each was laid against, and
the turns they were told (or worked out) were passed. `SeenRound` is that log as a value:
every edit returns a new log, so a change that the rules refuse is simply not kept, and
nothing has to be put back by hand.

Open-end ids are not stored: an end's id names its tile by the order tiles were laid in,
so each play keeps only which free end of its tile it went on (`LoggedPlay.slot`) and the
id follows from the order. Plays can then be moved, inserted or renamed without
renumbering anything.

`replay` turns the log into a `RoundState` that the engine judges exactly as live play
(whose turn, the open ends, a spinner or chickie that must be fed first, matching
numbers), raising the same `IllegalPlay`. Nobody saw the deal, so one is reconstructed to
fit the plays: each seat holds the tiles it played, plus one tile nobody played so that no
hand runs dry before the round really ends; every other tile is in the boneyard. Who made
each play follows from the turn order and the passes noted: nobody plays out of turn, so
a play by another seat than the engine expects means the seats in between drew and passed.

What the outside cannot see is left out of the replay's house rules (`seen_config`): a
player may draw at will (a pass is seen only as "nobody played"), there is no first-round
draw and no Chickenlittle call. None of these changes which tile may go where.

A take-back is an edit of the log (`upto`), not `RoundState.undo`: the reconstructed deal
follows the plays, so a round without its last play is dealt differently from the round
with it (the tile goes back among the unplayed ones), and the rules' limit on undoing after
another player acted does not apply to correcting what was seen.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Mapping, Sequence

from .board import SLOT_STRIDE
from .deal import Deal, GameConfig
from .errors import IllegalPlay, NoSuchOpenEnd
from .round import RoundState
from .tiles import Tile, full_set

Passes = tuple[tuple[int, int], ...]
"""Passes noted, as (plays laid before them, how many) pairs in order; counts are positive."""


@lru_cache(maxsize=32)
def seen_config(config: GameConfig) -> GameConfig:
    """The game as a seen round replays it: the table's players, set and house rules, less
    what nobody outside the hands can see (drawing at will, no first-round draw, no
    Chickenlittle calls), with the round started by the double that was seen."""
    rules = config.rules.replace(voluntary_draw=True, first_round_draw=False, chickenlittle=False,
                                 start_double="required")
    return GameConfig(config.players, config.set_max, rules)


@dataclass(frozen=True, slots=True)
class LoggedPlay:
    """One tile seen laid: what it was laid against, and how."""

    tile: Tile
    on: Tile
    """The tile it lies against (the spinner or an earlier play)."""
    slot: int = 0
    """Which of `on`'s free ends it took (0 on a plain tile; a double's arms and toes count up)."""
    touching: int | None = None
    """The value of the new tile's end that touches (None when unknown)."""
    stood: bool = False
    """It broke a rule, but the table kept it and play went on from it."""
    waived: bool = False
    """A stood play made elsewhere while a double waited: the table went on without feeding it."""
    frame: int = 0
    """When it was seen (the watcher's own count; the engine carries it and never reads it)."""
    t: float = 0.0
    """When it was seen, in seconds (carried like `frame`)."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """What a replay needs besides the log: the tiles to lay, who lays each, the passes the
    boneyard can feed, and the reconstructed hands."""

    tiles: list[Tile]
    seats: list[int]
    passes: dict[int, int]
    hands: list[list[Tile]]


@dataclass(frozen=True, slots=True)
class SeenReplay:
    """A log replayed: the round, and the seat that made each play (then the one whose turn a
    tile being judged would be)."""

    state: RoundState
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeenRound:
    """The log of a round seen from outside: the spinner, who laid it, the plays seen in the
    order they were laid, and the passes noted between them."""

    spinner: Tile
    spinner_player: int
    plays: tuple[LoggedPlay, ...] = ()
    passes: Passes = ()

    def __post_init__(self) -> None:
        if not self.spinner.is_double:
            raise ValueError(f"the spinner must be a double, got {self.spinner}")

    # --- reading --------------------------------------------------------------------

    def index(self, tile: Tile) -> int | None:
        """Where the play of `tile` is in the log (None when it was not played)."""
        return next((i for i, p in enumerate(self.plays) if p.tile == tile), None)

    def passes_noted(self) -> dict[int, int]:
        """Passes noted, by how many plays came before them."""
        return dict(self.passes)

    def ends(self) -> tuple[int, ...]:
        """The open-end id each play went on, as the order of the plays gives it."""
        place = {self.spinner: 0, **{p.tile: i + 1 for i, p in enumerate(self.plays)}}
        return tuple(place[p.on] * SLOT_STRIDE + p.slot for p in self.plays)

    # --- edits ----------------------------------------------------------------------

    def splice(self, k: int, remove: int, plays: Sequence[LoggedPlay]) -> "SeenRound":
        """The log with its plays `k` to `k + remove` taken out and `plays` put in their place.

        Passes keep to the plays they were noted between: those noted up to play `k` stay
        where they are (plays put in at `k` come after them); those noted before a later play
        that stays, or after the last one, stay before it (or at the end); those noted among
        the plays taken out keep their count from `k`, as far as the plays put in reach."""
        if not 0 <= k <= k + remove <= len(self.plays):
            raise ValueError(f"no plays {k} to {k + remove} in a log of {len(self.plays)}")
        grow = len(plays) - remove

        def moved(n: int) -> int:
            if n <= k:
                return n
            return n + grow if n >= k + remove else min(n, k + len(plays))

        passes: dict[int, int] = {}
        for n, count in self.passes:
            passes[moved(n)] = passes.get(moved(n), 0) + count
        return replace(self, plays=self.plays[:k] + tuple(plays) + self.plays[k + remove:],
                       passes=tuple(sorted(passes.items())))

    def append(self, play: LoggedPlay) -> "SeenRound":
        """The log with `play` laid next (after any passes noted since the last play)."""
        return self.splice(len(self.plays), 0, (play,))

    def upto(self, k: int) -> "SeenRound":
        """The log as it stood before play `k` was laid: its first `k` plays and the passes
        noted before the next."""
        return replace(self, plays=self.plays[:k], passes=tuple((n, c) for n, c in self.passes if n <= k))

    def retiled(self, fixes: Mapping[Tile, tuple[Tile, int | None]]) -> "SeenRound":
        """The log with each play of an old tile made a play of its new one (old -> (new,
        touching value, None to keep the one logged)), and the plays laid on it laid on the
        new tile."""
        def fixed(p: LoggedPlay) -> LoggedPlay:
            if p.tile in fixes:
                new, touching = fixes[p.tile]
                p = replace(p, tile=new, touching=p.touching if touching is None else touching)
            return replace(p, on=fixes[p.on][0]) if p.on in fixes else p

        return replace(self, plays=tuple(fixed(p) for p in self.plays))

    def add_pass(self, steps: int = 1) -> "SeenRound":
        """The log with `steps` more turns passed after its last play."""
        passes = dict(self.passes)
        passes[len(self.plays)] = passes.get(len(self.plays), 0) + steps
        return replace(self, passes=tuple(sorted(passes.items())))

    def drop_pass(self) -> "SeenRound":
        """The log without the latest pass noted (unchanged when none was)."""
        if not self.passes:
            return self
        (n, count), rest = self.passes[-1], self.passes[:-1]
        return replace(self, passes=rest + (((n, count - 1),) if count > 1 else ()))

    # --- replaying ------------------------------------------------------------------

    def seats(self, config: GameConfig, pending: Tile | None = None) -> tuple[int, ...]:
        """The seat that made each play (then the one whose turn `pending` would be, when it
        is a tile a replay would deal), in `config`'s game."""
        return tuple(self._plan(seen_config(config), pending).seats)

    def replay(self, config: GameConfig, pending: Tile | None = None) -> RoundState:
        """The round replayed from the log in `config`'s game, from a deal reconstructed to
        fit it; `pending`, a tile about to be judged, is dealt to the seat whose turn it would
        be (with the passes noted before it made). Raises `IllegalPlay` where the rules refuse
        a play of the log (a tile laid against one not in the layout before it included)."""
        return self.replayed(config, pending).state

    def replayed(self, config: GameConfig, pending: Tile | None = None) -> SeenReplay:
        """`replay`, with the seats it gave each play (one deal reconstructed for both)."""
        cfg = seen_config(config)
        plan = self._plan(cfg, pending)
        state = RoundState(cfg, cfg.set_max - self.spinner.high, Deal.arrange(cfg, plan.hands))
        place = {self.spinner: 0}
        for i, tile in enumerate(plan.tiles):
            for _ in range(plan.passes.get(i, 0)):
                _pass(state)
            if i < len(self.plays):
                play = self.plays[i]
                if play.on not in place:
                    raise NoSuchOpenEnd(f"{tile} is laid against {play.on}, which is not in the layout before it")
                end = place[play.on] * SLOT_STRIDE + play.slot
                if play.stood:
                    state.force_play(tile, end, player=plan.seats[i], facing=play.touching, waive=play.waived)
                else:
                    state.play(tile, end, player=plan.seats[i])
                place[tile] = i + 1
        if len(plan.tiles) == len(self.plays):  # passes after the last play
            for _ in range(plan.passes.get(len(plan.tiles), 0)):
                _pass(state)
        return SeenReplay(state, tuple(plan.seats))

    def _plan(self, cfg: GameConfig, pending: Tile | None) -> _Plan:
        """The deal and seats a replay under `cfg` uses. Each play's tile is dealt to the seat
        that made it; the boneyard keeps one tile per pass to draw; every seat also gets a tile
        nobody played while tiles last, so no hand empties before the round really ends."""
        n = cfg.players
        tiles = [p.tile for p in self.plays]
        if pending is not None and pending.in_set(cfg.set_max) and pending not in tiles and pending != self.spinner:
            tiles.append(pending)
        used = {self.spinner, *tiles}
        unused = [t for t in full_set(cfg.set_max) if t not in used]
        # a tile nobody played for every seat comes first (without it a hand could empty
        # mid-replay and end the round; when tiles run short the newest player goes without,
        # as their play is checked before their hand could empty); then as many passes as the
        # boneyard can feed draws, keeping the one tile a deal must leave there
        fill = max(0, min(n, len(unused) - 1))
        budget = max(0, len(unused) - 1 - fill)
        passes: dict[int, int] = {}
        for k, count in self.passes:
            take = min(count, budget)
            if take:
                passes[k] = take
                budget -= take
        # who plays each tile
        seats = []
        turn = (self.spinner_player + 1) % n
        for i in range(len(tiles)):
            turn = (turn + passes.get(i, 0)) % n
            seats.append(turn)
            turn = (turn + 1) % n
        hands: list[list[Tile]] = [[] for _ in range(n)]
        hands[self.spinner_player].append(self.spinner)
        for tile, seat in zip(tiles, seats):
            hands[seat].append(tile)
        spare = [t for t in unused if not t.is_double] + [t for t in unused if t.is_double]
        last = seats[-1] if seats else self.spinner_player
        for k in range(1, fill + 1):
            hands[(last + k) % n].append(spare.pop())
        return _Plan(tiles, seats, passes, hands)


def _pass(state: RoundState) -> bool:
    """Draw (when the boneyard allows) and pass for whoever's turn it is."""
    if state.is_over():
        return False
    try:
        if state.can_draw():
            state.draw()
        state.pass_turn()
    except IllegalPlay:
        return False
    return True
