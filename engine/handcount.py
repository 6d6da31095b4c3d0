"""How many tiles each hand holds when nobody sees the hands: the last-tile watch.

A camera sees plays, never hands. But a hand's size is simple arithmetic, dealt
minus plays plus draws, and the Chickenlittle rule turns only on that size: a
player left with one tile must call it before the next player lays a tile, or
pays for forgetting. `HandTally` keeps that arithmetic for a table whose tiles are
unseen, from the actions people and the camera report, and applies the penalty
exactly as `RoundState` does (the tests run both side by side):

- a player who lays a tile and is left with one must call it (`unannounced`);
- the call is forgotten once another player lays a tile first; drawing or passing
  does not close it. The forgetful player draws a tile, or misses a turn when the
  boneyard is empty (the penalty's two forms);
- a player who draws back up to two tiles has nothing left to call; one who is
  skipped with one tile still must call it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

from .deal import GameConfig
from .errors import NothingToAnnounce, NotYourTurn, RoundOver

PenaltyForm = Literal["draw", "skip"]


@dataclass(frozen=True)
class Penalty:
    """A forgotten last-tile call and what it cost."""

    player: int
    form: PenaltyForm
    """"draw": one tile from the boneyard; "skip": the next turn (the boneyard was empty)."""
    by: int
    """The player whose play closed the call."""
    action: int
    """Index of that play among the actions the tally was given."""

    def sentence(self) -> str:
        cost = "draws a tile" if self.form == "draw" else "misses a turn (the boneyard is empty)"
        return f"player {self.player} did not call their last tile before player {self.by} played: " \
               f"player {self.player} {cost}"

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "form": self.form, "by": self.by, "action": self.action,
                "message": self.sentence()}


@dataclass
class HandTally:
    """Hand sizes, the boneyard count and the last-tile calls owed, from reported actions.

    Start it with `for_round` once the spinner is down; then report each action in
    order: `play`, `draw`, `pass_turn`, `announce`. Who acts is always given (a camera
    credits plays to seats), and the turn follows whoever acted, as at a real table.
    """

    players: int
    sizes: list[int]
    boneyard: int
    chickenlittle: bool
    turn: int
    unannounced: list[int] = field(default_factory=list)
    """Players down to one tile who have not called it, in the order they got there."""
    skips: list[int] = field(default_factory=list)
    penalties: list[Penalty] = field(default_factory=list)
    announced: list[int] = field(default_factory=list)
    """Calls made, in order."""
    actions: int = 0
    over: bool = False
    winner: int | None = None
    history: list[tuple[Any, ...]] = field(default_factory=list)
    """("play"|"draw"|"pass"|"announce", player) and the tally's own ("penalty", player, form),
    ("skip", player), in the order they happened."""

    def __post_init__(self) -> None:
        if not self.skips:
            self.skips = [0] * self.players

    @classmethod
    def for_round(cls, config: GameConfig, spinner_player: int, *, first_player: int | None = None,
                  opening_draws: Sequence[int] = ()) -> "HandTally":
        """The tally when the spinner is down: everyone holds the dealt hand, plus what they drew
        looking for the double (`opening_draws`: one seat per tile drawn), the spinner's layer one
        less. `first_player`: who plays first (default: after the spinner's layer)."""
        n = config.players
        sizes = [config.hand_size] * n
        for p in opening_draws:
            sizes[p] += 1
        sizes[spinner_player] -= 1
        boneyard = config.tile_count - n * config.hand_size - len(opening_draws)
        turn = (spinner_player + 1) % n if first_player is None else first_player
        tally = cls(n, sizes, boneyard, config.rules.chickenlittle, turn)
        if sizes[spinner_player] == 0:
            tally.over, tally.winner = True, spinner_player
        return tally

    # --- reading --------------------------------------------------------------------

    @property
    def last_tile(self) -> list[int]:
        """Players holding exactly one tile."""
        return [p for p, s in enumerate(self.sizes) if s == 1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "sizes": list(self.sizes), "boneyard": self.boneyard, "turn": self.turn,
            "last_tile": self.last_tile, "unannounced": list(self.unannounced),
            "chickenlittle": self.chickenlittle, "skips": list(self.skips),
            "penalties": [p.to_dict() for p in self.penalties], "over": self.over, "winner": self.winner,
        }

    # --- actions --------------------------------------------------------------------

    def _check(self, player: int) -> None:
        if self.over:
            raise RoundOver("the round is over")
        if not 0 <= player < self.players:
            raise NotYourTurn(f"there is no player {player} at this table")

    def play(self, player: int) -> None:
        """`player` laid a tile."""
        self._check(player)
        self.sizes[player] -= 1
        self.history.append(("play", player))
        index = self.actions
        self.actions += 1
        if self.sizes[player] <= 0:
            self.sizes[player] = 0
            self.over, self.winner = True, player
            self.unannounced.clear()
            return
        if self.chickenlittle:
            for q in [q for q in self.unannounced if q != player]:
                self.unannounced.remove(q)
                if self.boneyard > 0:
                    self.boneyard -= 1
                    self.sizes[q] += 1
                    form: PenaltyForm = "draw"
                else:
                    self.skips[q] += 1
                    form = "skip"
                self.penalties.append(Penalty(q, form, player, index))
                self.history.append(("penalty", q, form))
            if self.sizes[player] == 1 and player not in self.unannounced:
                self.unannounced.append(player)
        self.turn = player
        self._end_turn()

    def draw(self, player: int) -> None:
        """`player` drew a tile (in turn, or looking for the starting double)."""
        self._check(player)
        self.sizes[player] += 1
        self.boneyard = max(0, self.boneyard - 1)
        self.actions += 1
        self.history.append(("draw", player))
        if player in self.unannounced:
            self.unannounced.remove(player)  # two tiles again: nothing left to call

    def pass_turn(self, player: int) -> None:
        self._check(player)
        self.actions += 1
        self.history.append(("pass", player))
        self.turn = player
        self._end_turn()

    def announce(self, player: int) -> None:
        """`player` called their last tile."""
        self._check(player)
        if not self.chickenlittle:
            raise NothingToAnnounce("the Chickenlittle rule is not in play in this game")
        if player not in self.unannounced:
            raise NothingToAnnounce(f"player {player} has no last tile to announce now")
        self.unannounced.remove(player)
        self.announced.append(player)
        self.actions += 1
        self.history.append(("announce", player))

    def _end_turn(self) -> None:
        n = self.players
        t = (self.turn + 1) % n
        if self.chickenlittle:
            guard = 0
            while self.skips[t] and guard < n:
                self.skips[t] -= 1
                guard += 1
                self.history.append(("skip", t))
                if self.sizes[t] == 1 and t not in self.unannounced:
                    self.unannounced.append(t)  # still has to call the last tile
                t = (t + 1) % n
        self.turn = t
