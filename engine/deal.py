"""Who is playing with what, and what a round starts from.

`GameConfig` fixes the things that hold for a whole game (seats, set, house
rules) and refuses impossible ones up front; `Deal` is the shuffled start of one
round, kept as data so a game record can replay it exactly.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError, DealError
from .rules import MIN_PLAYERS, HouseRules
from .tiles import SUPPORTED_SETS, Tile, full_set, tile_count


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Players, set and house rules: everything agreed before the first deal."""

    players: int
    set_max: int = 9
    rules: HouseRules = field(default_factory=HouseRules)

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ConfigError(f"players must be a whole number, got {self.players!r}")
        if self.players < MIN_PLAYERS:
            raise ConfigError(f"players must be at least {MIN_PLAYERS}, got {self.players}")
        if self.set_max not in SUPPORTED_SETS:
            raise ConfigError(
                f"unsupported set double-{self.set_max}; choose one of "
                + ", ".join(f"double-{n}" for n in SUPPORTED_SETS)
            )
        if not isinstance(self.rules, HouseRules):
            raise ConfigError("rules must be a HouseRules object")
        # No fixed upper bound: "un ensemble double-douze est excellent pour plus de 10 joueurs,
        # chacun ayant 7 dominos"; the set's tiles (hands plus a boneyard) are the limit.
        check_deal_possible(self.players, self.set_max, self.rules.hand_size_for(self.players))
        if self.rules.first_round_draw:
            check_start_draw_possible(self.players, self.set_max, self.hand_size)

    @property
    def hand_size(self) -> int:
        return self.rules.hand_size_for(self.players)

    @property
    def tile_count(self) -> int:
        return tile_count(self.set_max)

    @property
    def rounds(self) -> int:
        """One round per double, from the highest down to double-blank."""
        return self.set_max + 1

    def round_double(self, round_index: int) -> int:
        """The double a round is meant to start with (the row label on the score sheet)."""
        if not 0 <= round_index <= self.set_max:
            raise ConfigError(f"round index must be between 0 and {self.set_max}, got {round_index}")
        return self.set_max - round_index

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "set": self.set_max, "rules": self.rules.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GameConfig":
        return cls(int(data["players"]), int(data["set"]), HouseRules.from_dict(data.get("rules", {})))


def check_deal_possible(players: int, set_max: int, hand_size: int) -> None:
    """Refuse hands that would empty the set: a round needs a boneyard to draw from."""
    total = tile_count(set_max)
    dealt = players * hand_size
    if dealt >= total:
        raise DealError(
            f"cannot deal {hand_size} tiles to each of {players} players from the {total} tiles of a "
            f"double-{set_max} set and still leave a boneyard ({dealt} tiles needed, at most "
            f"{total - 1} allowed); use a bigger set or a smaller hand size"
        )


def check_start_draw_possible(players: int, set_max: int, hand_size: int) -> None:
    """Refuse a first-round draw the boneyard cannot give: every player draws one tile."""
    left = tile_count(set_max) - players * hand_size
    if left < players:
        raise DealError(
            f"the first-round draw needs one tile for each of {players} players, but the boneyard "
            f"of a double-{set_max} set holds only {left} after dealing {hand_size} each"
        )


def max_players(set_max: int, rules: HouseRules | None = None) -> int:
    """Most players a set seats under `rules`: every hand dealt and a boneyard left (one tile
    per player with the first-round draw). Not a fixed ten: a double-12 set seats twelve."""
    rules = rules or HouseRules()
    best = MIN_PLAYERS - 1
    players = MIN_PLAYERS
    while players < tile_count(set_max):
        try:
            GameConfig(players, set_max, rules)
        except ConfigError:
            if rules.hand_size != "table":
                break  # fixed hands: more players only need more tiles
        else:
            best = players
        players += 1
    return best


@dataclass(frozen=True, slots=True)
class Deal:
    """The start of a round: each seat's hand and the boneyard in drawing order."""

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]
    """Index 0 is drawn first."""
    first_seat: int = 0
    """Seat that draws first when nobody holds the double the round needs."""
    start_draw: tuple[Tile, ...] | None = None
    """First-round draw for the starter (one tile per seat, looked at and put back)."""

    def check(self, config: GameConfig) -> None:
        if len(self.hands) != config.players:
            raise DealError(f"the deal has {len(self.hands)} hands for {config.players} players")
        seen: set[Tile] = set()
        for tile in (t for h in self.hands for t in h):
            if tile in seen:
                raise DealError(f"tile {tile} is dealt twice")
            seen.add(tile)
        for tile in self.boneyard:
            if tile in seen:
                raise DealError(f"tile {tile} is both dealt and in the boneyard, or twice in the boneyard")
            seen.add(tile)
        expected = set(full_set(config.set_max))
        if seen != expected:
            extra = sorted(seen - expected)
            missing = sorted(expected - seen)
            parts = []
            if extra:
                parts.append("not in the set: " + ", ".join(map(str, extra)))
            if missing:
                parts.append("missing: " + ", ".join(map(str, missing)))
            raise DealError("the deal is not exactly one double-%d set (%s)" % (config.set_max, "; ".join(parts)))
        if not self.boneyard:
            raise DealError("the deal leaves no boneyard")
        if not 0 <= self.first_seat < config.players:
            raise DealError(f"first_seat must name a seat between 0 and {config.players - 1}")
        if self.start_draw is not None:
            check_start_draw(self.start_draw, self.boneyard, config.players)

    @classmethod
    def arrange(
        cls,
        config: GameConfig,
        hands: list[list[Tile | str]],
        boneyard_top: list[Tile | str] = (),  # type: ignore[assignment]
        *,
        first_seat: int = 0,
        start_draw: list[Tile | str] | None = None,
    ) -> "Deal":
        """A deal with chosen hands; every other tile goes to the boneyard, `boneyard_top`
        first (drawn in that order), the rest highest first. For set-ups seen by a camera,
        teaching positions and tests."""
        hand_tiles = tuple(tuple(Tile.parse(t) for t in h) for h in hands)
        top = [Tile.parse(t) for t in boneyard_top]
        used = {t for h in hand_tiles for t in h} | set(top)
        rest = [t for t in full_set(config.set_max) if t not in used]
        deal = cls(
            hand_tiles, tuple(top + rest), first_seat,
            None if start_draw is None else tuple(Tile.parse(t) for t in start_draw),
        )
        deal.check(config)
        return deal

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [[str(t) for t in h] for h in self.hands],
            "boneyard": [str(t) for t in self.boneyard],
            "first_seat": self.first_seat,
            "start_draw": None if self.start_draw is None else [str(t) for t in self.start_draw],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Deal":
        start = data.get("start_draw")
        return cls(
            hands=tuple(tuple(Tile.parse(t) for t in h) for h in data["hands"]),
            boneyard=tuple(Tile.parse(t) for t in data["boneyard"]),
            first_seat=int(data.get("first_seat", 0)),
            start_draw=None if start is None else tuple(Tile.parse(t) for t in start),
        )


def check_start_draw(start_draw: tuple[Tile, ...], boneyard: tuple[Tile, ...] | list[Tile], players: int) -> None:
    """A first-round draw is one different boneyard tile per player."""
    if len(boneyard) < players:
        raise DealError(
            f"the first-round draw needs one tile for each of {players} players, "
            f"but the boneyard holds only {len(boneyard)}"
        )
    if len(start_draw) != players:
        raise DealError(f"start_draw needs one tile per player ({players}), got {len(start_draw)}")
    seen: set[Tile] = set()
    for tile in start_draw:
        if tile in seen:
            raise DealError(f"start_draw names {tile} twice; each player draws a different tile")
        seen.add(tile)
    if any(t not in boneyard for t in start_draw):
        raise DealError("start_draw tiles must come from the boneyard")


def shuffled(tiles: list[Tile], rng: random.Random) -> list[Tile]:
    """`tiles` in random order (sorting on random keys: several times faster than rng.shuffle)."""
    rnd = rng.random
    tiles.sort(key=lambda _tile: rnd())
    return tiles


def draw_and_return(boneyard: list[Tile], players: int, rng: random.Random) -> tuple[tuple[Tile, ...], list[Tile]]:
    """The first-round draw: each player takes the next tile, then "everyone returns their drawn
    domino to the boneyard", where they are mixed in again so they are not the next tiles drawn."""
    check_start_draw(tuple(boneyard[:players]), boneyard, players)
    drawn = tuple(boneyard[:players])
    return drawn, shuffled(list(boneyard), rng)


def make_deal(config: GameConfig, rng: random.Random, round_index: int = 0) -> Deal:
    """Shuffle and deal; the first seat rotates with the round so no seat always draws first.
    The first round's start draw is made here too, with the same random source, so the deal
    records both what was drawn and the boneyard after those tiles went back."""
    tiles = shuffled(full_set(config.set_max), rng)
    h = config.hand_size
    n = config.players
    hands = tuple(tuple(tiles[i * h:(i + 1) * h]) for i in range(n))
    boneyard = tiles[n * h:]
    start_draw = None
    if config.rules.first_round_draw and round_index == 0:
        start_draw, boneyard = draw_and_return(boneyard, n, rng)
    return Deal(hands, tuple(boneyard), round_index % n, start_draw)
