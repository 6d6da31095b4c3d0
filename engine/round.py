"""One round of Chicken Foot, from the spinner to going out or stalemate.

`RoundState` is the single place that decides what a turn may do. Every action
checks everything before it changes anything, so a refused action (an
`IllegalPlay`) leaves the state exactly as it was and callers can probe moves
without cloning. The state is cheap to clone for search and for tests.

Turn model: a player either plays a tile, or draws one (only when nothing fits,
unless the voluntary-draw rule is on) and then may play that drawn tile or pass;
with an empty boneyard a player who cannot play passes. Playing any tile,
a double included, ends the turn.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .board import SLOT_STRIDE, Board, OpenEnd, Placement
from .deal import Deal, GameConfig, draw_and_return, make_deal
from .errors import (
    AlreadyDrew,
    BoneyardEmpty,
    CannotUndo,
    ChickieUnfinished,
    EndsDoNotMatch,
    MustDrawFirst,
    MustPlay,
    NoSuchOpenEnd,
    NothingToAnnounce,
    NotYourTurn,
    OnlyDrawnTile,
    RoundOver,
    SpinnerArmsUnfinished,
    TileNotInBoneyard,
    TileNotInHand,
    TileNotInSet,
    plural,
)
from .rules import HouseRules
from .scoring import round_scores
from .tiles import Tile

if TYPE_CHECKING:
    from .audit import Layout


@dataclass(frozen=True, slots=True)
class Play:
    """Lay `tile` on the open end with id `end`."""

    tile: Tile
    end: int

    def __str__(self) -> str:
        return f"{self.tile} on end {self.end}"


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended and what each seat scored, under which rules."""

    round_index: int
    double: int
    """The double the round was meant to start with."""
    spinner: Tile
    winner: int | None
    stalemate: bool
    hands: tuple[tuple[Tile, ...], ...]
    raw: tuple[int, ...]
    """Points in each hand before curving."""
    scores: tuple[int, ...]
    rules: HouseRules

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round_index,
            "double": self.double,
            "spinner": str(self.spinner),
            "winner": self.winner,
            "stalemate": self.stalemate,
            "hands": [[str(t) for t in h] for h in self.hands],
            "raw": list(self.raw),
            "scores": list(self.scores),
            "rules": self.rules.to_dict(),
        }


# History entries are tuples so recording costs next to nothing while playing:
#   ("play", player, tile, end_id) ("draw", player, tile) ("pass", player)
#   ("announce", player) and automatic ones ("penalty", player, tile | None), ("skip", player)
HistoryEntry = tuple[Any, ...]


class RoundState:
    """A round in progress: hands, boneyard, board, whose turn, and what has happened."""

    __slots__ = (
        "config", "rules", "players", "set_max", "round_index", "round_double", "deal",
        "board", "spinner_player", "first_player", "opening_draws", "start_draw",
        "_hands", "_boneyard", "_turn", "_drawn", "_over", "_winner", "_stalemate",
        "_history", "_windows", "_skips", "_voluntary", "_little", "used_doubles", "_undo_floor",
    )

    def __init__(self, config: GameConfig, round_index: int, deal: Deal, *, check_deal: bool = True,
                 used_doubles: frozenset[int] = frozenset(), rng: random.Random | None = None) -> None:
        """`used_doubles`: values of the doubles that started earlier rounds (crossed out on the
        score sheet; start_double "highest_unused" skips them). `rng`: mixes the first-round draw
        back into the boneyard when the deal does not say what was drawn."""
        if check_deal:
            deal.check(config)
        if config.rules.first_round_draw and round_index == 0 and deal.start_draw is None:
            deal = _with_start_draw(deal, config.players, rng or random.Random())
        self.config = config
        self.rules = rules = config.rules
        self.players = n = config.players
        self.set_max = config.set_max
        self.round_index = round_index
        self.round_double = config.round_double(round_index)
        self.deal = deal
        self.board = Board(config.set_max, rules.spinner_arms)
        self._hands: list[list[Tile]] = [list(h) for h in deal.hands]
        self._boneyard: list[Tile] = list(reversed(deal.boneyard))  # top of the pile is the end
        self._drawn: Tile | None = None
        self._over = False
        self._winner: int | None = None
        self._stalemate = False
        self._history: list[HistoryEntry] = []
        self._windows: list[int] = []  # players who must still announce their last tile
        self._skips: list[int] = [0] * n
        self._voluntary = rules.voluntary_draw
        self._little = rules.chickenlittle
        self.opening_draws: list[tuple[int, Tile]] = []
        self.start_draw: tuple[Tile, ...] | None = None
        self.used_doubles = frozenset(used_doubles)
        self._undo_floor = 0

        starter: int | None = None
        if rules.first_round_draw and round_index == 0 and deal.start_draw is not None:
            drawn = self.start_draw = deal.start_draw
            # Highest tile starts: most pips, then the higher end (which makes the order total).
            starter = max(range(n), key=lambda p: (drawn[p].pips, drawn[p].high, -p))
        spinner, holder = self._find_spinner(starter if starter is not None else deal.first_seat)
        if rules.start_double == "highest_unused":
            self.round_double = spinner.high  # the score sheet row is the double crossed out
        self._hands[holder].remove(spinner)
        self.board.place_spinner(spinner, holder)
        self.spinner_player = holder
        self._turn = starter if starter is not None else (holder + 1) % n
        self.first_player = self._turn
        for p, hand in enumerate(self._hands):
            if not hand:  # a one-tile hand that was the spinner
                self._over = True
                self._winner = p
                return
        if not self._boneyard:
            self._check_stalemate()

    @classmethod
    def random(cls, config: GameConfig, round_index: int = 0, rng: random.Random | None = None) -> "RoundState":
        rng = rng or random.Random()
        return cls(config, round_index, make_deal(config, rng, round_index), check_deal=False)

    # --- opening -----------------------------------------------------------------

    def _find_spinner(self, first_drawer: int) -> tuple[Tile, int]:
        target = self.round_double
        hands = self._hands
        fits: Callable[[Tile], bool]
        if self.rules.start_double == "highest_unused":
            used = self.used_doubles
            fits = lambda t: t.is_double and t.high not in used  # noqa: E731
            held = [(t, p) for p, hand in enumerate(hands) for t in hand if fits(t)]
            if held:
                return max(held, key=lambda tp: tp[0].high)
        elif self.rules.start_double == "required":
            wanted = Tile(target, target)
            for p, hand in enumerate(hands):
                if wanted in hand:
                    return wanted, p
            fits = lambda t: t is wanted  # noqa: E731
        else:
            best: tuple[Tile, int] | None = None
            for p, hand in enumerate(hands):
                for t in hand:
                    if t.is_double and t.high <= target and (best is None or t.high > best[0].high):
                        best = (t, p)
            if best is not None:
                return best
            fits = lambda t: t.is_double and t.high <= target  # noqa: E731
        if self.rules.double_draw == "everyone":
            return self._draw_for_double_together(first_drawer, fits)
        return self._draw_for_double_in_turn(first_drawer, fits)

    def _draw_for_double_in_turn(self, first_drawer: int, fits: Callable[[Tile], bool]) -> tuple[Tile, int]:
        """Nobody holds it: seats draw in turn, keeping what they draw, until it shows up."""
        hands = self._hands
        p = first_drawer
        while self._boneyard:
            tile = self._boneyard.pop()
            hands[p].append(tile)
            self.opening_draws.append((p, tile))
            if fits(tile):
                return tile, p
            p = (p + 1) % self.players
        raise AssertionError("the starting double was neither dealt nor in the boneyard")

    def _draw_for_double_together(self, first_drawer: int, fits: Callable[[Tile], bool]) -> tuple[Tile, int]:
        """Nobody holds it: "Every player must draw one domino. This process repeats until
        someone draws the double"; of doubles drawn in the same pass, the highest starts.
        Everyone keeps what they drew. A pass the boneyard runs out in ends early."""
        hands = self._hands
        n = self.players
        while self._boneyard:
            found: list[tuple[Tile, int]] = []
            for k in range(n):
                if not self._boneyard:
                    break
                p = (first_drawer + k) % n
                tile = self._boneyard.pop()
                hands[p].append(tile)
                self.opening_draws.append((p, tile))
                if fits(tile):
                    found.append((tile, p))
            if found:
                return max(found, key=lambda tp: tp[0].high)
        raise AssertionError("the starting double was neither dealt nor in the boneyard")

    # --- reading -----------------------------------------------------------------

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def spinner(self) -> Tile:
        return self.board.placements[0].tile

    @property
    def hands(self) -> tuple[tuple[Tile, ...], ...]:
        return tuple(tuple(h) for h in self._hands)

    def hand(self, player: int) -> tuple[Tile, ...]:
        return tuple(self._hands[player])

    @property
    def boneyard(self) -> tuple[Tile, ...]:
        """Remaining boneyard in drawing order."""
        return tuple(reversed(self._boneyard))

    @property
    def boneyard_count(self) -> int:
        return len(self._boneyard)

    @property
    def drawn_tile(self) -> Tile | None:
        """The tile the current player drew this turn, if they drew."""
        return self._drawn

    @property
    def history(self) -> list[HistoryEntry]:
        return list(self._history)

    @property
    def unannounced(self) -> tuple[int, ...]:
        """Players who are down to one tile and have not yet called it (Chickenlittle)."""
        return tuple(self._windows)

    @property
    def skips(self) -> tuple[int, ...]:
        return tuple(self._skips)

    def open_ends(self) -> list[OpenEnd]:
        return list(self.board.open_ends.values())

    def is_over(self) -> bool:
        return self._over

    @property
    def winner(self) -> int | None:
        return self._winner

    @property
    def stalemate(self) -> bool:
        return self._stalemate

    def tile_locations(self) -> dict[Tile, str]:
        """Where every tile is: "hand:<p>", "board" or "boneyard" (for invariant checks)."""
        where: dict[Tile, str] = {}
        for p, hand in enumerate(self._hands):
            for t in hand:
                where[t] = f"hand:{p}"
        for pl in self.board.placements:
            where[pl.tile] = "board"
        for t in self._boneyard:
            where[t] = "boneyard"
        return where

    # --- what may be done --------------------------------------------------------

    def _fits(self, hand: Iterable[Tile]) -> bool:
        b = self.board
        if b.pending is not None:
            v = b.placements[b.pending].outer
            for t in hand:
                if t.high == v or t.low == v:
                    return True
            return False
        c = b.counts
        for t in hand:
            if c[t.high] or c[t.low]:
                return True
        return False

    def can_play(self, player: int | None = None) -> bool:
        """Whether `player` (default: whoever's turn it is) holds a tile that fits now."""
        if self._over:
            return False
        if player is None or player == self._turn:
            if self._drawn is not None:
                return self._fits((self._drawn,))
            player = self._turn
        return self._fits(self._hands[player])

    def playable_tiles(self) -> list[Tile]:
        """Tiles the current player may lay this turn (each on at least one end)."""
        if self._over:
            return []
        hand = self._hands[self._turn] if self._drawn is None else (self._drawn,)
        b = self.board
        if b.pending is not None:
            v = b.placements[b.pending].outer
            return [t for t in hand if t.high == v or t.low == v]
        c = b.counts
        return [t for t in hand if c[t.high] or c[t.low]]

    def ends_for(self, tile: Tile) -> list[int]:
        """Ids of the open ends `tile` may go on now, ignoring whose hand it is in."""
        b = self.board
        h, lo = tile.high, tile.low
        if b.pending is not None:
            base = b.pending * SLOT_STRIDE
            v = b.placements[b.pending].outer
            if h != v and lo != v:
                return []
            return [e for e in range(base, base + SLOT_STRIDE) if e in b.open_ends]
        return [e.id for e in b.open_ends.values() if e.value == h or e.value == lo]

    def legal_plays(self) -> list[Play]:
        """Every play the current player may make now, one per tile and open end."""
        return [Play(t, e) for t in self.playable_tiles() for e in self.ends_for(t)]

    def can_draw(self) -> bool:
        if self._over or self._drawn is not None or not self._boneyard:
            return False
        return self._voluntary or not self._fits(self._hands[self._turn])

    def can_pass(self) -> bool:
        if self._over:
            return False
        if self._drawn is not None:
            return not (self.rules.must_play_drawn and self._fits((self._drawn,)))
        return not self._boneyard and not self._fits(self._hands[self._turn])

    # --- checks ------------------------------------------------------------------

    def _check_turn(self, player: int | None) -> int:
        if self._over:
            raise RoundOver("the round is over")
        p = self._turn
        if player is not None and player != p:
            raise NotYourTurn(f"it is player {p}'s turn, not player {player}'s")
        return p

    def _check_play(self, tile: Tile, end_id: int, player: int | None) -> tuple[Tile, OpenEnd]:
        if self._over:
            raise RoundOver("the round is over")
        p = self._turn
        if player is not None and player != p:
            raise NotYourTurn(f"it is player {p}'s turn, not player {player}'s")
        if type(tile) is not Tile:
            tile = Tile.parse(tile)
        if tile.high > self.set_max:
            raise TileNotInSet(f"{tile} is not in a double-{self.set_max} set")
        if tile not in self._hands[p]:
            raise TileNotInHand(f"player {p} does not hold {tile}")
        drawn = self._drawn
        if drawn is not None and tile is not drawn:
            raise OnlyDrawnTile(f"after drawing you may only play the tile you drew ({drawn}) or pass")
        b = self.board
        end = b.open_ends.get(end_id)
        if end is None:
            raise NoSuchOpenEnd(f"there is no open end {end_id} on the board")
        if b.pending is not None and end.node != b.pending:
            double = b.placements[b.pending]
            if double.kind == "spinner":
                raise SpinnerArmsUnfinished(
                    f"the spinner {double.tile} needs {plural(b.pending_missing, 'more arm')} "
                    "before you can play elsewhere"
                )
            raise ChickieUnfinished(
                f"the chickie on {double.tile} needs {plural(b.pending_missing, 'more toe')} "
                "before you can play elsewhere"
            )
        if end.value != tile.high and end.value != tile.low:
            raise EndsDoNotMatch(f"{tile} has no {end.value} to lay against the open {end.value} on {end.tile}")
        return tile, end

    def check_play(self, play: Play | Tile, end: int | None = None, *, player: int | None = None) -> None:
        """Raise the `IllegalPlay` that `play` would raise, without playing it."""
        tile, end_id = _split_play(play, end)
        self._check_play(tile, end_id, player)

    # --- actions -----------------------------------------------------------------

    def play(self, play: Play | Tile, end: int | None = None, *, player: int | None = None) -> Placement:
        """Lay a tile: `play(Play(tile, end))` or `play(tile, end)`."""
        if end is None:
            tile, end_id = _split_play(play, end)
        else:
            tile, end_id = play, end  # type: ignore[assignment]
        tile, open_end = self._check_play(tile, end_id, player)
        return self._lay(tile, open_end, ("play", self._turn, tile, end_id))

    def force_play(self, tile: Tile, end: int, *, player: int | None = None, facing: int | None = None,
                   waive: bool = False) -> Placement:
        """Lay a tile that breaks a rule but that the table kept: nobody took it back, and the
        next play was made (built on it, or elsewhere). Play goes on from the table as it is, so
        the round must hold it; only what the placement itself needs is checked (whose turn, the
        tile in hand, a free end to lay it on). `facing`: the tile's value that touches, where it
        is not the open end's (a tile laid with the wrong number against it). `waive`: the spinner
        or chickie that had to be fed first no longer holds play up (the table went on without
        feeding it; its free ends stay open). The history keeps the play apart from legal ones
        ("stood"), so a record says which plays broke a rule."""
        p = self._check_turn(player)
        if type(tile) is not Tile:
            tile = Tile.parse(tile)
        if tile not in self._hands[p]:
            raise TileNotInHand(f"player {p} does not hold {tile}")
        open_end = self.board.open_ends.get(end)
        if open_end is None:
            raise NoSuchOpenEnd(f"there is no open end {end} on the board")
        if facing is not None and facing not in (tile.high, tile.low):
            raise EndsDoNotMatch(f"{tile} has no {facing} to lay against the open end")
        if waive:
            self.board.pending, self.board.pending_missing = None, 0
        return self._lay(tile, open_end, ("stood", p, tile, end, facing, waive), facing)

    def _lay(self, tile: Tile, open_end: OpenEnd, entry: HistoryEntry, facing: int | None = None) -> Placement:
        p = self._turn
        hand = self._hands[p]
        hand.remove(tile)
        self._history.append(entry)
        placement = self.board.place(tile, open_end, p, facing)
        self._drawn = None
        if not hand:
            self._over = True
            self._winner = p
            self._windows.clear()
            return placement
        if self._little:
            self._close_windows(p)
            if len(hand) == 1 and p not in self._windows:
                self._windows.append(p)
        self._end_turn()
        return placement

    def draw(self, *, player: int | None = None, tile: Tile | None = None) -> Tile:
        """Draw the top tile (or, when a camera saw which one, that `tile`)."""
        p = self._check_turn(player)
        if self._drawn is not None:
            raise AlreadyDrew("you have already drawn this turn; play the tile you drew or pass")
        pile = self._boneyard
        if not pile:
            raise BoneyardEmpty("the boneyard is empty, so you pass instead of drawing")
        hand = self._hands[p]
        if not self._voluntary and self._fits(hand):
            raise MustPlay("you hold a tile that fits, so you must play instead of drawing")
        if tile is not None:
            tile = Tile.parse(tile)
            try:
                i = pile.index(tile)
            except ValueError:
                raise TileNotInBoneyard(f"{tile} is not in the boneyard") from None
            pile[i], pile[-1] = pile[-1], pile[i]
        drawn = pile.pop()
        hand.append(drawn)
        self._drawn = drawn
        self._history.append(("draw", p, drawn))
        if self._little and p in self._windows:
            self._windows.remove(p)  # two tiles again: nothing left to announce
        if not pile:
            self._check_stalemate()
        return drawn

    def pass_turn(self, *, player: int | None = None) -> None:
        p = self._check_turn(player)
        if self._drawn is None:
            if self._boneyard:
                raise MustDrawFirst("draw a tile from the boneyard before passing")
            if self._fits(self._hands[p]):
                raise MustPlay("you hold a tile that fits, so you must play it")
        elif self.rules.must_play_drawn and self._fits((self._drawn,)):
            raise MustPlay(f"the tile you drew ({self._drawn}) fits, so you must play it")
        self._history.append(("pass", p))
        self._end_turn()

    def announce(self, player: int) -> None:
        """Call "Chickenlittle": `player` is down to one tile."""
        if self._over:
            raise RoundOver("the round is over")
        if not self._little:
            raise NothingToAnnounce("the Chickenlittle rule is not in play in this game")
        if player not in self._windows:
            raise NothingToAnnounce(f"player {player} has no last tile to announce now")
        self._windows.remove(player)
        self._history.append(("announce", player))

    def undo(self) -> HistoryEntry:
        """Take back the last action (play, draw, pass or announce) and what it set off
        (penalty draws, skipped turns, the end of the round); returns the action taken back.

        Montgomery: "The domino just played may be picked up and replaced with another only
        if the next person has not laid down a domino." Read as: an action may be taken
        back until another player acts after it; once someone else has acted, even if that
        was taken back in turn, what came before stays. The round is rebuilt by replaying
        the deal and every other action, so playing costs nothing extra for undo.
        """
        actions = [i for i, e in enumerate(self._history) if e[0] not in _AUTOMATIC]
        if len(actions) <= self._undo_floor:
            if not actions:
                raise CannotUndo("there is nothing to take back yet")
            raise CannotUndo("another player has acted since, so that cannot be taken back")
        last = self._history[actions[-1]]
        earlier = [self._history[i] for i in actions[:-1]]
        rebuilt = RoundState(self.config, self.round_index, self.deal, check_deal=False,
                             used_doubles=self.used_doubles)
        for entry in earlier:
            rebuilt._redo(entry)
        floor = self._undo_floor
        if earlier and earlier[-1][1] != last[1]:
            floor = len(earlier)  # the undone action's player came after: what is before stays
        for name in RoundState.__slots__:
            setattr(self, name, getattr(rebuilt, name))
        self._undo_floor = floor
        return last

    def _redo(self, entry: HistoryEntry) -> None:
        """Make one recorded action again (for `undo`)."""
        kind, p = entry[0], entry[1]
        if kind == "play":
            self.play(entry[2], entry[3], player=p)
        elif kind == "stood":
            self.force_play(entry[2], entry[3], player=p, facing=entry[4], waive=entry[5])
        elif kind == "draw":
            self.draw(player=p, tile=entry[2])
        elif kind == "pass":
            self.pass_turn(player=p)
        else:
            self.announce(p)

    # --- bookkeeping -------------------------------------------------------------

    def _close_windows(self, actor: int) -> None:
        # Another player laid a tile before the last-tile call: the caller pays for forgetting.
        # Only a play closes the call: "if the next player manages to play a domino before
        # 'Chickenlittle' is called ... he/she must draw a domino"; drawing or passing does not.
        windows = self._windows
        if not windows:
            return
        for q in [q for q in windows if q != actor]:
            windows.remove(q)
            pile = self._boneyard
            if pile:
                tile = pile.pop()
                self._hands[q].append(tile)
                self._history.append(("penalty", q, tile))
            else:
                self._skips[q] += 1
                self._history.append(("penalty", q, None))

    def _end_turn(self) -> None:
        self._drawn = None
        n = self.players
        t = (self._turn + 1) % n
        if self._little:
            skips = self._skips
            guard = 0
            while skips[t] and guard < n:
                skips[t] -= 1
                guard += 1
                self._history.append(("skip", t))
                if len(self._hands[t]) == 1 and t not in self._windows:
                    self._windows.append(t)  # still has to call the last tile
                t = (t + 1) % n
        self._turn = t
        if not self._boneyard:
            self._check_stalemate()

    def _check_stalemate(self) -> None:
        """End the round when the boneyard is empty and no hand holds a tile that fits."""
        if self._over or self._boneyard:
            return
        fits = self._fits
        hands = self._hands
        if fits(hands[self._turn]):  # usually the player to move can, so ask them first
            return
        for hand in hands:
            if fits(hand):
                return
        self._over = True
        self._stalemate = True
        self._windows.clear()

    # --- results and copies ------------------------------------------------------

    def result(self) -> RoundResult:
        if not self._over:
            raise RoundOver("the round is still being played")
        raw, scores = round_scores(self._hands, self.rules)
        return RoundResult(
            round_index=self.round_index,
            double=self.round_double,
            spinner=self.spinner,
            winner=self._winner,
            stalemate=self._stalemate,
            hands=self.hands,
            raw=tuple(raw),
            scores=tuple(scores),
            rules=self.rules,
        )

    def clone(self) -> "RoundState":
        other = RoundState.__new__(RoundState)
        other.config = self.config
        other.rules = self.rules
        other.players = self.players
        other.set_max = self.set_max
        other.round_index = self.round_index
        other.round_double = self.round_double
        other.deal = self.deal
        other.spinner_player = self.spinner_player
        other.first_player = self.first_player
        other.start_draw = self.start_draw
        other._turn = self._turn
        other._drawn = self._drawn
        other._over = self._over
        other._winner = self._winner
        other._stalemate = self._stalemate
        other._voluntary = self._voluntary
        other._little = self._little
        other.board = self.board.clone()
        other._hands = [h.copy() for h in self._hands]
        other._boneyard = self._boneyard.copy()
        other._history = self._history.copy()
        other._windows = self._windows.copy()
        other._skips = self._skips.copy()
        other.opening_draws = self.opening_draws.copy()
        other.used_doubles = self.used_doubles
        other._undo_floor = self._undo_floor
        return other

    def to_layout(self) -> "Layout":
        """The board as the camera would report it, for `audit_layout`."""
        from .audit import layout_from_board

        return layout_from_board(self.board)

    def to_record(self) -> dict[str, Any]:
        """This round as it goes into a game record (see `engine.record`)."""
        turns: list[dict[str, Any]] = []
        placements = self.board.placements
        for entry in self._history:
            kind = entry[0]
            if kind in ("play", "stood"):
                p, tile, end_id = entry[1:4]
                parent = placements[end_id // SLOT_STRIDE]
                turn: dict[str, Any] = {"type": "play", "player": p, "tile": str(tile), "on": str(parent.tile)}
                if parent.tile.is_double:
                    turn["slot"] = end_id % SLOT_STRIDE
                turn["end"] = end_id
                if kind == "stood":
                    turn["stood"] = True
                    if entry[4] is not None:
                        turn["facing"] = entry[4]
                    if entry[5]:
                        turn["waived"] = True
            elif kind == "draw":
                turn = {"type": "draw", "player": entry[1], "tile": str(entry[2])}
            elif kind == "pass":
                turn = {"type": "pass", "player": entry[1]}
            elif kind == "announce":
                turn = {"type": "announce", "player": entry[1]}
            elif kind == "penalty":
                turn = {"type": "penalty", "player": entry[1], "tile": None if entry[2] is None else str(entry[2]),
                        "auto": True}
            else:
                turn = {"type": "skip", "player": entry[1], "auto": True}
            turns.append(turn)
        record: dict[str, Any] = {
            "index": self.round_index,
            "double": self.round_double,
            "deal": self.deal.to_dict(),
            "opening": {
                "spinner": str(self.spinner),
                "spinner_player": self.spinner_player,
                "draws": [[p, str(t)] for p, t in self.opening_draws],
                "start_draw": None if self.start_draw is None else [str(t) for t in self.start_draw],
                "first_player": self.first_player,
            },
            "turns": turns,
        }
        if self._over:
            record["result"] = self.result().to_dict()
        return record

    def __repr__(self) -> str:
        status = "over" if self._over else f"player {self._turn} to play"
        return (
            f"<RoundState double-{self.round_double} round, {len(self.board)} tiles on board, "
            f"{len(self._boneyard)} in boneyard, {status}>"
        )


_AUTOMATIC = frozenset({"penalty", "skip"})
"""History entries the engine makes itself, as consequences of an action."""


def _with_start_draw(deal: Deal, players: int, rng: random.Random) -> Deal:
    """The deal with its first-round draw made: the next tile for each player, put back
    and mixed in, so the record of the round replays it exactly."""
    drawn, boneyard = draw_and_return(list(deal.boneyard), players, rng)
    return Deal(deal.hands, tuple(boneyard), deal.first_seat, drawn)


def _split_play(play: Play | Tile, end: int | None) -> tuple[Tile, int]:
    if isinstance(play, Play):
        return play.tile, play.end
    if end is None:
        raise TypeError("play(tile, end) needs the id of the open end")
    return play, end
