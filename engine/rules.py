"""House rules: every point on which the published Chicken Foot texts disagree.

Players agree on these before the first round and may not change them during a
game, so `HouseRules` is immutable and travels with every score and game record;
a score is meaningless without knowing what a double-blank was worth.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

from .errors import ConfigError

HandSize = int | Literal["table"]
StartDouble = Literal["required", "highest_available"]

START_DOUBLE_CHOICES: tuple[str, ...] = ("required", "highest_available")
SPINNER_ARM_CHOICES: tuple[int, ...] = (4, 6)
DOUBLE_BLANK_CHOICES: tuple[int, ...] = (0, 25, 50)
CHICKIE_TOES = 3
MIN_PLAYERS = 2
MAX_PLAYERS = 10


class HouseRulesError(ConfigError):
    """A house-rules value outside what any published variant allows."""


def table_hand_size(players: int, half_up: bool = True) -> int:
    """Tiles per player by the "42 divided by the number of players" table.

    Only four players land exactly on a half (10.5); the published table says 11,
    some tables round it down to 10, hence `half_up`.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ConfigError(f"players must be between {MIN_PLAYERS} and {MAX_PLAYERS}, got {players}")
    whole, rest = divmod(42, players)
    twice = 2 * rest
    if twice > players or (twice == players and half_up):
        whole += 1
    return whole


@dataclass(frozen=True, slots=True)
class HouseRules:
    """Options agreed at the table; defaults are the plainest reading of the rules."""

    hand_size: HandSize = 7
    """Tiles dealt to each player: a fixed number, or "table" for 42 / players."""
    table_half_up: bool = True
    """With hand_size "table" and four players: True deals 11 tiles, False deals 10."""
    spinner_arms: int = 4
    """Tiles the starting double takes before anything else: 4, or 6 ("double chickenfoot")."""
    start_double: StartDouble = "required"
    """"required": the round's double must start it (drawn for if nobody holds it);
    "highest_available": the highest double at or below it that someone holds."""
    first_round_draw: bool = False
    """First round only: everyone draws a tile, the highest tile plays first."""
    voluntary_draw: bool = False
    """A player may draw and pass even when holding a tile that fits."""
    double_blank_value: int = 0
    """Points for a double-blank left in hand: 0 (its pips), 25 or 50."""
    curved_scoring: bool = False
    """When nobody went out, subtract the lowest hand from every hand."""
    chickenlittle: bool = False
    """A player left with one tile must announce it or draw (or skip a turn)."""

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        hs = self.hand_size
        if isinstance(hs, bool) or not (hs == "table" or (isinstance(hs, int) and hs >= 1)):
            raise HouseRulesError(
                f"hand_size must be a whole number of tiles (1 or more) or \"table\", got {hs!r}"
            )
        for name in ("table_half_up", "first_round_draw", "voluntary_draw", "curved_scoring", "chickenlittle"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise HouseRulesError(f"{name} must be true or false, got {value!r}")
        if isinstance(self.spinner_arms, bool) or self.spinner_arms not in SPINNER_ARM_CHOICES:
            raise HouseRulesError(
                f"spinner_arms must be 4 or 6 (the \"double chickenfoot\"), got {self.spinner_arms!r}"
            )
        if self.start_double not in START_DOUBLE_CHOICES:
            raise HouseRulesError(
                f"start_double must be \"required\" or \"highest_available\", got {self.start_double!r}"
            )
        if isinstance(self.double_blank_value, bool) or self.double_blank_value not in DOUBLE_BLANK_CHOICES:
            raise HouseRulesError(
                f"double_blank_value must be 0, 25 or 50, got {self.double_blank_value!r}"
            )

    def hand_size_for(self, players: int) -> int:
        if self.hand_size == "table":
            return table_hand_size(players, self.table_half_up)
        return int(self.hand_size)

    def replace(self, **changes: Any) -> "HouseRules":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HouseRules":
        if not isinstance(data, dict):
            raise HouseRulesError(f"house rules must be a JSON object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise HouseRulesError(
                f"unknown house rule {', '.join(map(repr, unknown))}; known rules are {', '.join(sorted(known))}"
            )
        return cls(**data)

    def to_json(self, **dumps_kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **dumps_kwargs)

    @classmethod
    def from_json(cls, text: str) -> "HouseRules":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise HouseRulesError(f"house rules are not valid JSON: {exc}") from None
        return cls.from_dict(data)

    def describe(self) -> str:
        """One line for the foot of a score sheet, so nobody argues about the count later."""
        hand = "42/players tiles" if self.hand_size == "table" else f"{self.hand_size} tiles"
        if self.hand_size == "table":
            hand += " (4 players: 11)" if self.table_half_up else " (4 players: 10)"
        parts = [
            f"hand {hand}",
            f"spinner {self.spinner_arms} arms",
            "start with highest available double" if self.start_double == "highest_available"
            else "start with the round's double",
        ]
        if self.first_round_draw:
            parts.append("first round: highest drawn tile starts")
        if self.voluntary_draw:
            parts.append("voluntary draw")
        parts.append(f"double-blank {self.double_blank_value}")
        if self.curved_scoring:
            parts.append("curved scoring")
        if self.chickenlittle:
            parts.append("chickenlittle")
        return ", ".join(parts)

    @classmethod
    def preset(cls, name: str) -> "HouseRules":
        """The rules as one published source states them."""
        try:
            return PRESETS[name]
        except KeyError:
            raise HouseRulesError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}") from None


PRESETS: dict[str, HouseRules] = {
    "plain": HouseRules(),
    "encyclopedia": HouseRules(first_round_draw=True),
    "montgomery": HouseRules(hand_size="table", spinner_arms=6, voluntary_draw=True, double_blank_value=50),
    "howto": HouseRules(double_blank_value=50),
    "escale": HouseRules(hand_size=5),
}
