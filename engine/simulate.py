"""Random legal play: whole games for throughput and invariant checks, single
rounds for the renderer and for tests.

The random player picks from what the state offers (`playable_tiles`/`ends_for`)
and then plays through the ordinary checked `play()`, so every simulated turn
also cross-checks the move generator against the rule checks.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from .deal import GameConfig, make_deal
from .errors import IllegalPlay
from .game import GameState
from .round import RoundResult, RoundState
from .rules import HouseRules
from .scoring import curved
from .tiles import full_set

VOLUNTARY_DRAW_CHANCE = 0.1
"""How often the random player draws although it could play (voluntary-draw rule)."""
ANNOUNCE_CHANCE = 0.75
"""How often the random player remembers to call its last tile (Chickenlittle rule)."""
PASS_ON_DRAWN_CHANCE = 0.1
"""How often the random player keeps a drawn tile that would fit."""


def random_step(state: RoundState, rnd: Any) -> str:
    """Take one random legal action for the player whose turn it is; returns its kind.

    `rnd` is a `random.Random().random` bound method: one float per decision keeps
    this fast enough for hundreds of games a second.
    """
    tiles = state.playable_tiles()
    drawn = state._drawn
    if tiles and drawn is None and state._voluntary and state._boneyard and rnd() < VOLUNTARY_DRAW_CHANCE:
        tiles = []  # draw although something fits
    elif tiles and drawn is not None and rnd() < PASS_ON_DRAWN_CHANCE and not state.rules.must_play_drawn:
        tiles = []  # keep the drawn tile and pass
    if tiles:
        tile = tiles[int(rnd() * len(tiles))]
        ends = state.ends_for(tile)
        state.play(tile, ends[int(rnd() * len(ends))])
        kind = "play"
    elif drawn is None and state._boneyard:
        state.draw()
        kind = "draw"
    else:
        state.pass_turn()
        kind = "pass"
    if state._windows:
        # Whoever is down to one tile (just now, or again after a skipped turn) may call it.
        for player in list(state._windows):
            if rnd() < ANNOUNCE_CHANCE:
                state.announce(player)
    return kind


def action_limit(state: RoundState) -> int:
    """A bound no legal round can reach: each tile is drawn and played at most once,
    and between two such events every seat passes at most once (plus skips)."""
    tiles = state.config.tile_count
    return 4 * tiles * (state.players + 1) + 100


def play_out(state: RoundState, rng: random.Random, max_plays: int | None = None) -> RoundState:
    """Play random legal turns until the round ends, or until `max_plays` tiles were laid."""
    rnd = rng.random
    limit = action_limit(state)
    plays = 0
    steps = 0
    while not state._over:
        if random_step(state, rnd) == "play":
            plays += 1
            if max_plays is not None and plays >= max_plays:
                break
        steps += 1
        if steps > limit:
            raise RuntimeError(f"round did not end within {limit} actions: {state!r}")
    return state


def random_round(
    set_max: int = 9,
    players: int = 4,
    rng: random.Random | None = None,
    rules: HouseRules | None = None,
    *,
    max_plays: int | None = None,
    round_index: int = 0,
) -> RoundState:
    """A round dealt and played at random to its end (or stopped after `max_plays` tiles)."""
    rng = rng or random.Random()
    config = GameConfig(players, set_max, rules or HouseRules())
    state = RoundState(config, round_index, make_deal(config, rng, round_index), check_deal=False)
    return play_out(state, rng, max_plays)


def random_game(config: GameConfig, rng: random.Random) -> GameState:
    """A complete game, every round played at random."""
    game = GameState(config)
    while not game.is_over():
        play_out(game.start_round(rng), rng)
        game.finish_round()
    return game


def round_invariant_problems(
    state: RoundState, full: frozenset[Any] | None = None, result: RoundResult | None = None
) -> list[str]:
    """What is wrong with a finished round, if anything (empty list when all is well)."""
    problems: list[str] = []
    tiles = [t for h in state._hands for t in h]
    tiles.extend(p.tile for p in state.board.placements)
    tiles.extend(state._boneyard)
    expected = full if full is not None else frozenset(full_set(state.set_max))
    if len(tiles) != len(expected) or set(tiles) != expected:
        problems.append("tiles lost or duplicated: hands + board + boneyard is not exactly one set")
    if not state._over:
        problems.append("round did not end")
        return problems
    if state._winner is not None:
        if state._hands[state._winner]:
            problems.append("the winner still holds tiles")
    else:
        if state._boneyard:
            problems.append("stalemate declared with tiles left in the boneyard")
        if any(state._fits(h) for h in state._hands):
            problems.append("stalemate declared while a player could still play")
    if result is None:
        result = state.result()
    blank = state.rules.double_blank_value
    raw = [sum(t.pips if t.pips else blank for t in h) for h in state._hands]
    if list(result.raw) != raw:
        problems.append("raw scores do not match the hands")
    if list(result.scores) != curved(raw, state.rules, went_out=state._winner is not None):
        problems.append("scores do not add up")
    if state._winner is not None and result.scores[state._winner] != 0:
        problems.append("the player who went out did not score zero")
    return problems


@dataclass
class SimulationResult:
    games: int
    rounds: int
    seconds: float
    stalemates: int
    invariant_violations: int
    players: int
    set_max: int
    rules: HouseRules
    plays: int = 0
    problems: list[str] = field(default_factory=list)
    """The first few invariant problems found, for a person to read."""
    wins: list[int] = field(default_factory=list)
    """Games won (rank 1, shared ties included) per seat."""

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def stalemate_fraction(self) -> float:
        return self.stalemates / self.rounds if self.rounds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games_per_second, 2),
            "stalemate_fraction": round(self.stalemate_fraction, 4),
            "invariant_violations": self.invariant_violations,
            "players": self.players,
            "set": self.set_max,
            "hand_size": self.rules.hand_size_for(self.players),
            "plays": self.plays,
            "wins": self.wins,
            "problems": self.problems,
            "rules": self.rules.to_dict(),
        }

    def summary(self) -> str:
        return "\n".join([
            f"{self.games} games of double-{self.set_max} with {self.players} players "
            f"({self.rounds} rounds) in {self.seconds:.2f} s: {self.games_per_second:.1f} games/s",
            f"stalemates: {self.stalemate_fraction:.1%} of rounds",
            f"invariant violations: {self.invariant_violations}",
            f"wins per seat: {', '.join(f'P{p} {w}' for p, w in enumerate(self.wins))}",
            f"rules: {self.rules.describe()}",
        ])


def simulate(
    games: int,
    players: int = 4,
    set_max: int = 9,
    seed: int | None = None,
    rules: HouseRules | None = None,
    *,
    check_invariants: bool = True,
) -> SimulationResult:
    """Play `games` complete random games and check the engine's invariants as it goes.

    Invariants: every tile exists exactly once (hands + board + boneyard), every
    play the move generator offers is accepted by the rule checks, every round
    ends, and the scores add up (round by round and in the game totals).
    Raises `ConfigError` (a ValueError) for impossible settings.
    """
    rules = rules or HouseRules()
    config = GameConfig(players, set_max, rules)
    rng = random.Random(seed)
    rnd = rng.random
    full = frozenset(full_set(set_max))
    limit_per_round = 4 * config.tile_count * (players + 1) + 100
    rounds = stalemates = violations = plays = 0
    problems: list[str] = []
    wins = [0] * players

    def note(problem: str) -> None:
        nonlocal violations
        violations += 1
        if len(problems) < 10:
            problems.append(problem)

    start = time.perf_counter()
    for g in range(games):
        sheet_totals = [0] * players
        game = GameState(config)
        for r in range(config.rounds):
            state = game.start_round(rng)
            steps = 0
            try:
                while not state._over:
                    steps += 1
                    if steps > limit_per_round:
                        break
                    if random_step(state, rnd) == "play":
                        plays += 1
            except IllegalPlay as exc:
                note(f"game {g} round {r}: offered play refused: {exc.code}: {exc.message}")
                break
            if not state._over:
                note(f"game {g} round {r}: round did not end within {limit_per_round} actions")
                break
            result = game.finish_round()
            if check_invariants:
                for problem in round_invariant_problems(state, full, result):
                    note(f"game {g} round {r}: {problem}")
            rounds += 1
            if result.stalemate:
                stalemates += 1
            for p in range(players):
                sheet_totals[p] += result.scores[p]
        if check_invariants and game.is_over():
            if game.totals() != sheet_totals:
                note(f"game {g}: totals do not equal the sum of the rounds")
        for s in game.standings():
            if s.rank == 1:
                wins[s.player] += 1
    seconds = time.perf_counter() - start
    return SimulationResult(
        games=games, rounds=rounds, seconds=seconds, stalemates=stalemates,
        invariant_violations=violations, players=players, set_max=set_max, rules=rules,
        plays=plays, problems=problems, wins=wins,
    )
