"""A whole game: one round per double, scores carried from round to round.

Split as in OpenSpiel: `Game` is the immutable description (seats, set, house
rules) that hands out fresh states; `GameState` is one game in progress, which
can be cloned and written out as a game record at any point.
"""
from __future__ import annotations

import random
from typing import Any

from .deal import Deal, GameConfig, make_deal
from .errors import RoundOver
from .round import RoundResult, RoundState
from .rules import HouseRules
from .scoring import ScoreSheet, Standing

RECORD_FORMAT = "chickenfoot-game"
RECORD_VERSION = 1


class Game:
    """The rules of one particular game; it creates states and never changes."""

    __slots__ = ("config",)

    def __init__(self, config: GameConfig | None = None, *, players: int | None = None, set_max: int = 9,
                 rules: HouseRules | None = None) -> None:
        if config is None:
            if players is None:
                raise TypeError("Game needs a GameConfig or players=")
            config = GameConfig(players, set_max, rules or HouseRules())
        self.config = config

    @property
    def num_players(self) -> int:
        return self.config.players

    @property
    def num_rounds(self) -> int:
        return self.config.rounds

    def new_initial_state(self) -> "GameState":
        return GameState(self.config)

    def new_round(self, round_index: int = 0, rng: random.Random | None = None, deal: Deal | None = None) -> RoundState:
        if deal is None:
            return RoundState.random(self.config, round_index, rng)
        return RoundState(self.config, round_index, deal)


class GameState:
    """Rounds played so far, the round in progress, and the score sheet."""

    __slots__ = ("config", "sheet", "results", "rounds", "current")

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.sheet = ScoreSheet(config.players, config.rules)
        self.results: list[RoundResult] = []
        self.rounds: list[RoundState] = []
        """Finished rounds, kept for the game record."""
        self.current: RoundState | None = None

    @property
    def round_index(self) -> int:
        """Index of the round being played, or of the next one to deal."""
        return len(self.results)

    def is_over(self) -> bool:
        return len(self.results) >= self.config.rounds

    def start_round(self, rng: random.Random | None = None, deal: Deal | None = None) -> RoundState:
        if self.is_over():
            raise RoundOver("the game is over: every double has had its round")
        if self.current is not None:
            raise RoundOver("finish the current round before dealing the next")
        index = self.round_index
        used = self.used_doubles()
        if deal is None:
            deal = make_deal(self.config, rng or random.Random(), index)
            self.current = RoundState(self.config, index, deal, check_deal=False, used_doubles=used)
        else:
            self.current = RoundState(self.config, index, deal, used_doubles=used, rng=rng)
        return self.current

    def used_doubles(self) -> frozenset[int]:
        """Doubles that started a finished round: crossed out on the score sheet."""
        return frozenset(r.spinner.high for r in self.results)

    def finish_round(self) -> RoundResult:
        """Score the round in progress (it must be over) and add it to the sheet."""
        if self.current is None:
            raise RoundOver("no round is being played")
        result = self.current.result()
        self.results.append(result)
        self.rounds.append(self.current)
        self.sheet.add_round(result.double, result.scores)
        self.current = None
        return result

    def totals(self) -> list[int]:
        return self.sheet.totals()

    def standings(self) -> list[Standing]:
        return self.sheet.standings()

    def clone(self) -> "GameState":
        other = GameState.__new__(GameState)
        other.config = self.config
        other.sheet = self.sheet.copy()
        other.results = list(self.results)
        other.rounds = list(self.rounds)  # finished rounds never change again
        other.current = None if self.current is None else self.current.clone()
        return other

    def to_record(self, player_names: list[str] | None = None) -> dict[str, Any]:
        """The whole game so far, replayable with `engine.record.load_record`."""
        rounds = [r.to_record() for r in self.rounds]
        if self.current is not None:
            rounds.append(self.current.to_record())
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "players": self.config.players,
            "set": self.config.set_max,
            "rules": self.config.rules.to_dict(),
            "rounds": rounds,
            "scores": self.sheet.to_dict(),
        }
        if player_names is not None:
            record["player_names"] = list(player_names)
        return record
