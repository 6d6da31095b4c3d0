"""Counting hands at the end of a round and ranking players over a game.

Kept apart from play so the service can score a photo of leftover hands without
a round in progress, and so every score carries the house rules it was counted by.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .rules import HouseRules
from .tiles import Tile


def tile_score(tile: Tile, rules: HouseRules) -> int:
    if tile.pips == 0:
        return rules.double_blank_value
    return tile.pips


def hand_score(hand: Iterable[Tile], rules: HouseRules) -> int:
    blank = rules.double_blank_value
    return sum(t.pips if t.pips else blank for t in hand)


def curved(raw: Sequence[int], rules: HouseRules, went_out: bool | None = None) -> list[int]:
    """The points each player scores from the `raw` points left in hands.

    Curving (`HouseRules.curved_scoring`) only applies when nobody went out: it hands the lowest
    hand the zero that going out would have earned, and shifts everyone else by the same amount.
    `went_out`: whether a player emptied their hand, where the caller knows (hands or a round in
    play); where only totals were typed it is None, and a total of 0 is taken as a player who
    went out (curving by it would subtract nothing anyway)."""
    raw = list(raw)
    if went_out is None:
        went_out = 0 in raw
    if rules.curved_scoring and not went_out and raw:
        low = min(raw)
        return [r - low for r in raw]
    return raw


def round_scores(hands: Sequence[Iterable[Tile]], rules: HouseRules) -> tuple[list[int], list[int]]:
    """(raw, scored) points for each player's leftover tiles (see `curved`)."""
    hands = [list(h) for h in hands]
    raw = [hand_score(h, rules) for h in hands]
    return raw, curved(raw, rules, went_out=any(not h for h in hands))


@dataclass(frozen=True, slots=True)
class Standing:
    player: int
    total: int
    zero_rounds: int
    lowest_nonzero: int | None
    rank: int
    """1 for the winner; players still tied after both tie-breaks share a rank."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player, "total": self.total, "zero_rounds": self.zero_rounds,
            "lowest_nonzero": self.lowest_nonzero, "rank": self.rank,
        }


def _tie_key(total: int, rounds: Sequence[int]) -> tuple[int, int, float]:
    nonzero = [s for s in rounds if s != 0]
    lowest = min(nonzero) if nonzero else float("inf")
    # Lowest total wins; then most zero rounds; then the lowest single non-zero round.
    return (total, -sum(1 for s in rounds if s == 0), lowest)


def rank_players(per_round: Sequence[Sequence[int]], players: int) -> list[Standing]:
    """Standings from a list of rounds, each a list of one score per player."""
    columns = [[r[p] for r in per_round] for p in range(players)]
    keys = [_tie_key(sum(col), col) for col in columns]
    order = sorted(range(players), key=lambda p: (keys[p], p))
    standings: list[Standing] = []
    for position, p in enumerate(order):
        if position and keys[p] == keys[order[position - 1]]:
            rank = standings[-1].rank
        else:
            rank = position + 1
        nonzero = [s for s in columns[p] if s != 0]
        standings.append(
            Standing(p, sum(columns[p]), sum(1 for s in columns[p] if s == 0), min(nonzero) if nonzero else None, rank)
        )
    return standings


@dataclass
class ScoreSheet:
    """The running score: one row per round, totals, standings, and the rules used."""

    players: int
    rules: HouseRules
    rounds: list[list[int]] = field(default_factory=list)
    doubles: list[int] = field(default_factory=list)
    """The round's double (the row label on a paper score sheet)."""

    def add_round(self, double: int, scores: Sequence[int]) -> None:
        if len(scores) != self.players:
            raise ValueError(f"expected {self.players} scores, got {len(scores)}")
        self.rounds.append(list(scores))
        self.doubles.append(double)

    def totals(self) -> list[int]:
        return [sum(r[p] for r in self.rounds) for p in range(self.players)]

    def standings(self) -> list[Standing]:
        return rank_players(self.rounds, self.players)

    def winners(self) -> list[int]:
        return [s.player for s in self.standings() if s.rank == 1]

    def copy(self) -> "ScoreSheet":
        return ScoreSheet(self.players, self.rules, [list(r) for r in self.rounds], list(self.doubles))

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "rounds": [{"double": d, "scores": list(s)} for d, s in zip(self.doubles, self.rounds)],
            "totals": self.totals(),
            "standings": [s.to_dict() for s in self.standings()],
            "rules": self.rules.to_dict(),
            "rules_summary": self.rules.describe(),
        }

    def __str__(self) -> str:
        head = "double " + " ".join(f"P{p:<5}" for p in range(self.players))
        lines = [head]
        for d, row in zip(self.doubles, self.rounds):
            lines.append(f"{d:>6} " + " ".join(f"{s:<6}" for s in row))
        lines.append(" total " + " ".join(f"{t:<6}" for t in self.totals()))
        lines.append(f"rules: {self.rules.describe()}")
        return "\n".join(lines)
