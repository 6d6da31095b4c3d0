"""The deal advisor: how many tiles to deal, measured by playing many rounds.

The published "42 divided by the players" table is one number per table size and
says nothing about how often a round so dealt stalls: with few tiles left in the
boneyard, a round blocks more often and ends with more points stranded in hands.
`advise` deals and plays thousands of rounds for each hand size around the
table's (`deal_and_play_fast`: dealt and opened as the engine does, played out quickly),
with players of several styles seated in turn, and reports for each size the
share of rounds that stall, how long rounds last and the points left in hands.
It recommends the largest hand that keeps stalls at or below a chosen share,
since a bigger hand means a longer round with more to decide.
"""
from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from .deal import GameConfig
from .errors import ConfigError
from .fastplay import STYLE_WORDS, STYLES, deal_and_play_fast
from .rules import HouseRules, table_hand_size


@dataclass(frozen=True)
class AdviceTuning:
    """How much to play and what counts as too many stalls."""

    rounds: int = 10_000
    """Rounds played for each hand size."""
    below: int = 2
    """Hand sizes tried below the table's."""
    above: int = 2
    """Hand sizes tried above it (as far as the set still leaves a boneyard)."""
    max_stall_share: float = 0.35
    """The most stalled rounds a recommended hand size may have: under the 37% a published
    Mexican Train engine's soak test found and called the sign of a bad deal table."""
    styles: tuple[str, ...] = STYLES
    """Playing styles, seated in turn and rotated every round."""
    workers: int | None = None
    """Processes to play in (None: one per hand size, up to the machine's cores)."""

    def __post_init__(self) -> None:
        if not isinstance(self.rounds, int) or self.rounds < 1:
            raise ConfigError(f"rounds must be a whole number, 1 or more, got {self.rounds!r}")
        if not self.styles or any(s not in STYLES for s in self.styles):
            raise ConfigError(f"styles must be chosen from {', '.join(STYLES)}, got {list(self.styles)}")
        if not 0 <= self.max_stall_share <= 1:
            raise ConfigError(f"max_stall_share must lie between 0 and 1, got {self.max_stall_share}")


@dataclass(frozen=True)
class HandSizeStats:
    """What playing `rounds` rounds dealt `hand_size` tiles each showed."""

    hand_size: int
    rounds: int
    stalled: int
    boneyard: int
    """Tiles left to draw after the deal."""
    plays_mean: float
    """Tiles laid per round, after the spinner."""
    turns_mean: float
    points_left_mean: float
    """Points left in a hand at the end of a round, per player."""
    points_left_stalled: float
    """The same, over stalled rounds only (0 when none stalled)."""
    style_points: dict[str, float] = field(default_factory=dict)
    """Points left per hand, by the style of the hand's player."""
    style_out: dict[str, float] = field(default_factory=dict)
    """Share of a style's seats that went out."""

    @property
    def stall_share(self) -> float:
        return self.stalled / self.rounds if self.rounds else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stall_share"] = round(self.stall_share, 4)
        for k in ("plays_mean", "turns_mean", "points_left_mean", "points_left_stalled"):
            d[k] = round(d[k], 2)
        d["style_points"] = {k: round(v, 2) for k, v in self.style_points.items()}
        d["style_out"] = {k: round(v, 4) for k, v in self.style_out.items()}
        return d


@dataclass
class Advice:
    players: int
    set_max: int
    rules: HouseRules
    table_size: int
    """The hand the 42 / players table deals."""
    rows: list[HandSizeStats]
    recommended: int
    reason: str
    seconds: float
    tuning: AdviceTuning
    seed: int | None = None

    def row(self, hand_size: int) -> HandSizeStats:
        return next(r for r in self.rows if r.hand_size == hand_size)

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players, "set": self.set_max, "table_hand_size": self.table_size,
            "recommended": self.recommended, "reason": self.reason,
            "rounds_per_size": self.tuning.rounds, "max_stall_share": self.tuning.max_stall_share,
            "styles": {s: STYLE_WORDS[s] for s in self.tuning.styles},
            "sizes": [r.to_dict() for r in self.rows], "seconds": round(self.seconds, 3), "seed": self.seed,
            "rules": self.rules.to_dict(),
        }

    def table(self) -> str:
        """The advice as a person reads it."""
        lines = [f"double-{self.set_max}, {self.players} players: {self.tuning.rounds} rounds per hand size, "
                 f"styles {', '.join(self.tuning.styles)}",
                 " hand  boneyard  stalled  plays/round  turns/round  points left/hand"]
        for r in self.rows:
            mark = "  <- table" if r.hand_size == self.table_size else ""
            mark += "  <- recommended" if r.hand_size == self.recommended else ""
            lines.append(f" {r.hand_size:>4}  {r.boneyard:>8}  {r.stall_share:>6.1%}  {r.plays_mean:>11.1f}  "
                         f"{r.turns_mean:>11.1f}  {r.points_left_mean:>16.1f}{mark}")
        lines.append(f"recommended: {self.recommended} tiles each; {self.reason}")
        lines.append(f"rules: {self.rules.describe()}")
        lines.append(f"{len(self.rows) * self.tuning.rounds} rounds in {self.seconds:.2f} s")
        return "\n".join(lines)


def hand_sizes(players: int, set_max: int, rules: HouseRules, tuning: AdviceTuning) -> list[int]:
    """The table's hand size and those around it that the set can deal with a boneyard left."""
    table = table_hand_size(players, rules.table_half_up)
    sizes = []
    for size in range(max(1, table - tuning.below), table + tuning.above + 1):
        try:
            GameConfig(players, set_max, rules.replace(hand_size=size))
        except ConfigError:
            continue
        sizes.append(size)
    return sizes


def measure_hand_size(players: int, set_max: int, rules: HouseRules, hand_size: int, rounds: int,
                      styles: Sequence[str] = STYLES, seed: int | None = None) -> HandSizeStats:
    """Deal and play `rounds` rounds with `hand_size` tiles each (round doubles taken in turn)."""
    config = GameConfig(players, set_max, rules.replace(hand_size=hand_size))
    rng = random.Random(None if seed is None else f"{seed}/{players}/{set_max}/{hand_size}")
    k_styles = len(styles)
    seat_styles = [[styles[(p + k) % k_styles] for p in range(players)] for k in range(k_styles)]
    stalled = plays = turns = left = left_stalled = 0
    points = {s: 0 for s in styles}
    seats = {s: 0 for s in styles}
    outs = {s: 0 for s in styles}
    n_rounds = config.rounds
    for k in range(rounds):
        order = seat_styles[k % k_styles]
        result = deal_and_play_fast(config, k % n_rounds, order, rng)
        plays += result.plays
        turns += result.turns
        total = sum(result.raw)
        left += total
        if result.stalemate:
            stalled += 1
            left_stalled += total
        for p, style in enumerate(order):
            points[style] += result.raw[p]
            seats[style] += 1
        if result.winner is not None:
            outs[order[result.winner]] += 1
    hands = rounds * players
    return HandSizeStats(
        hand_size=hand_size, rounds=rounds, stalled=stalled,
        boneyard=config.tile_count - players * hand_size,
        plays_mean=plays / rounds, turns_mean=turns / rounds, points_left_mean=left / hands,
        points_left_stalled=left_stalled / (stalled * players) if stalled else 0.0,
        style_points={s: points[s] / seats[s] for s in styles if seats[s]},
        style_out={s: outs[s] / seats[s] for s in styles if seats[s]},
    )


def recommend(rows: Sequence[HandSizeStats], max_stall_share: float) -> tuple[int, str]:
    """The largest hand size whose rounds stall no more than `max_stall_share`; failing that, the
    one that stalls least. Returns the size and why, in words."""
    fine = [r for r in rows if r.stall_share <= max_stall_share]
    if fine:
        best = max(fine, key=lambda r: r.hand_size)
        return best.hand_size, (f"the largest hand whose rounds stall no more than {max_stall_share:.0%} of the time "
                                f"({best.stall_share:.1%})")
    best = min(rows, key=lambda r: (r.stall_share, -r.hand_size))
    return best.hand_size, (f"no hand size tried keeps stalls at or below {max_stall_share:.0%}; this one stalls "
                            f"least ({best.stall_share:.1%})")


def advise(players: int, set_max: int = 9, rules: HouseRules | None = None, tuning: AdviceTuning | None = None,
           seed: int | None = None) -> Advice:
    """Play `tuning.rounds` rounds for each hand size around the table's and recommend one.

    Raises `ConfigError` for a table the set cannot deal for. A given `seed` makes the answer
    repeatable, however many processes play it."""
    rules = rules or HouseRules()
    tuning = tuning or AdviceTuning()
    GameConfig(players, set_max, rules)  # the table itself must be possible
    sizes = hand_sizes(players, set_max, rules, tuning)
    if not sizes:
        raise ConfigError(f"a double-{set_max} set cannot deal any hand size near the table's to {players} players")
    start = time.perf_counter()
    jobs = [(players, set_max, rules, size, tuning.rounds, tuning.styles, seed) for size in sizes]
    workers = tuning.workers if tuning.workers is not None else min(len(sizes), os.cpu_count() or 1)
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            rows = list(pool.map(_measure, jobs))
    else:
        rows = [_measure(job) for job in jobs]
    recommended, reason = recommend(rows, tuning.max_stall_share)
    return Advice(players, set_max, rules, table_hand_size(players, rules.table_half_up), rows, recommended,
                  reason, time.perf_counter() - start, tuning, seed)


def _measure(job: tuple[Any, ...]) -> HandSizeStats:
    return measure_hand_size(*job)
