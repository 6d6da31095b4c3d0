"""Domino tiles and the standard double-N sets.

Tiles are interned: `Tile(6, 4)` and `Tile(4, 6)` return the very same object, so
hands, boards and dictionaries compare and hash tiles by identity on the hot path
of a simulation while still behaving as plain values everywhere else.
"""
from __future__ import annotations

from typing import Iterator

SUPPORTED_SETS: tuple[int, ...] = (6, 9, 12, 15, 18)
MAX_PIPS = 18

_INTERN: dict[tuple[int, int], "Tile"] = {}


class Tile:
    """An unordered pair of pip values; `high >= low` always holds."""

    __slots__ = ("high", "low", "pips", "is_double")

    high: int
    low: int
    pips: int
    is_double: bool

    def __new__(cls, a: int, b: int) -> "Tile":
        key = (a, b) if a >= b else (b, a)
        tile = _INTERN.get(key)
        if tile is not None:
            return tile
        if type(a) is not int or type(b) is not int:
            raise TypeError(f"tile ends must be integers, got {a!r} and {b!r}")
        if key[1] < 0 or key[0] > MAX_PIPS:
            raise ValueError(f"tile ends must lie between 0 and {MAX_PIPS}, got {a} and {b}")
        tile = object.__new__(cls)
        object.__setattr__(tile, "high", key[0])
        object.__setattr__(tile, "low", key[1])
        object.__setattr__(tile, "pips", key[0] + key[1])
        object.__setattr__(tile, "is_double", key[0] == key[1])
        _INTERN[key] = tile
        return tile

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Tile is immutable")

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        # Unpickling and copy.copy go back through __new__ and so stay interned.
        return (Tile, (self.high, self.low))

    # Equality and hashing are object identity (inherited from `object`, so they run
    # in C): interning makes identity and value equality the same thing.

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return (self.high, self.low) < (other.high, other.low)

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return (self.high, self.low) <= (other.high, other.low)

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return (self.high, self.low) > (other.high, other.low)

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return (self.high, self.low) >= (other.high, other.low)

    def __iter__(self) -> Iterator[int]:
        yield self.high
        yield self.low

    def __repr__(self) -> str:
        return f"Tile({self.high}, {self.low})"

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def has(self, value: int) -> bool:
        return self.high == value or self.low == value

    def other(self, value: int) -> int:
        """The end left open when this tile is laid with `value` against the layout."""
        if self.high == value:
            return self.low
        if self.low == value:
            return self.high
        raise ValueError(f"tile {self} has no {value} end")

    def in_set(self, set_max: int) -> bool:
        return self.high <= set_max

    @classmethod
    def parse(cls, text: str | "Tile" | list[int] | tuple[int, int]) -> "Tile":
        """Read "6-4", "6|4", "6:4", [6, 4] or a Tile, as records and command lines write them."""
        if isinstance(text, Tile):
            return text
        if isinstance(text, (list, tuple)):
            if len(text) != 2:
                raise ValueError(f"a tile has two ends, got {text!r}")
            return cls(int(text[0]), int(text[1]))
        if not isinstance(text, str):
            raise ValueError(f"cannot read a tile from {text!r}")
        for sep in ("-", "|", ":", "/"):
            if sep in text:
                left, _, right = text.strip().partition(sep)
                try:
                    return cls(int(left), int(right))
                except ValueError:
                    break
        raise ValueError(f"cannot read a tile from {text!r}; write it like \"6-4\"")


def check_set(set_max: int) -> None:
    if set_max not in SUPPORTED_SETS:
        raise ValueError(
            f"unsupported set double-{set_max}; choose one of "
            + ", ".join(f"double-{n}" for n in SUPPORTED_SETS)
        )


_FULL_SETS: dict[int, tuple[Tile, ...]] = {}


def full_set(set_max: int) -> list[Tile]:
    """Every tile of a double-`set_max` set, highest first (a new list each call)."""
    tiles = _FULL_SETS.get(set_max)
    if tiles is None:
        check_set(set_max)
        tiles = _FULL_SETS[set_max] = tuple(
            Tile(a, b) for a in range(set_max, -1, -1) for b in range(a, -1, -1)
        )
    return list(tiles)


def tile_count(set_max: int) -> int:
    return (set_max + 1) * (set_max + 2) // 2


def set_pip_total(set_max: int) -> int:
    """Pips on the whole set: each value appears set_max + 2 times."""
    return (set_max + 2) * set_max * (set_max + 1) // 2


def doubles(set_max: int) -> list[Tile]:
    """The set's doubles from highest to double-blank: one round each."""
    return [Tile(v, v) for v in range(set_max, -1, -1)]
