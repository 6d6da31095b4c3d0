"""Checking a frozen configuration's values and reading one from an object of names.

The recognizer's and the tracker's configurations (and the smaller ones inside them) share these
steps so that each refuses the same mistakes the same way: a value of the wrong kind where the
configuration is built (a threshold given as text would otherwise fail deep inside a reading, or a
flag given as 0 pass unnoticed), and an unknown name where it is read from an object (a misspelt
setting left at its default would change nothing while seeming to). Each configuration keeps its
own words for these refusals (`Wording`): its users know them.

What a field holds is read from its annotation: `bool`, `int` (a whole number), `float` (any
number), `tuple[int, int]` or `tuple[float, float]` (that many), `tuple[float, ...]` (one or more),
or a smaller frozen configuration (given as an object of its own names).
"""
from __future__ import annotations

from dataclasses import MISSING, Field, dataclass, fields, is_dataclass
from numbers import Integral, Real
from typing import Any, ClassVar, Self


@dataclass(frozen=True)
class Wording:
    """How a configuration words its refusals: `value` takes {name}, {kind} and {value}, `unknown`
    {names} and {known}, `not_object` {type}; `prefix` goes before every name (a smaller
    configuration's place in the one that holds it, e.g. "faces.")."""

    error: type[ValueError]
    value: str
    unknown: str
    not_object: str
    prefix: str = ""
    quoted: bool = False
    """Unknown names written as Python writes strings ('name'), not bare."""


def _whole(v: Any) -> bool:
    return isinstance(v, Integral) and not isinstance(v, bool)


def _number(v: Any) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool)


def _default(f: Field) -> Any:
    return f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]


def nested(cls: type) -> dict[str, type]:
    """The fields of `cls` that hold a smaller configuration, and its class."""
    return {f.name: type(d) for f in fields(cls) if is_dataclass(d := _default(f))}


def _problem(f: Field, value: Any) -> str | None:
    """What `value` must be for field `f`, where it is not; None where it is."""
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    if kind == "bool":
        return None if isinstance(value, bool) else "true or false"
    if kind == "int":
        return None if _whole(value) else "a whole number"
    if kind == "float":
        return None if _number(value) else "a number"
    if kind.startswith("tuple["):
        parts = [p.strip() for p in kind[len("tuple["):-1].split(",")]
        whole = parts[0] == "int"
        each = _whole if whole else _number
        what = "whole numbers" if whole else "numbers"
        if parts[-1] == "...":
            ok = isinstance(value, tuple) and len(value) > 0 and all(map(each, value))
            return None if ok else f"one or more {what}"
        ok = isinstance(value, tuple) and len(value) == len(parts) and all(map(each, value))
        return None if ok else f"{len(parts)} {what}"
    default = _default(f)
    if is_dataclass(default):
        return None if isinstance(value, type(default)) else "an object of settings"
    raise TypeError(f"a configuration field of a kind not checked: {f.name}: {kind}")


def check_values(config: Any, wording: Wording) -> None:
    """Refuse (`wording.error`) the first value of the wrong kind; a list given for a tuple (JSON
    has no tuples) is kept as a tuple. Called from a frozen configuration's `__post_init__`."""
    for f in fields(config):
        value = getattr(config, f.name)
        if isinstance(value, list) and str(f.type).startswith("tuple["):
            object.__setattr__(config, f.name, value := tuple(value))
        kind = _problem(f, value)
        if kind is not None:
            raise wording.error(wording.value.format(name=wording.prefix + f.name, kind=kind, value=value))


def to_plain(config: Any) -> dict[str, Any]:
    """Every setting by name, as JSON writes it: tuples as lists, a smaller configuration as an object."""
    out: dict[str, Any] = {}
    for f in fields(config):
        value = getattr(config, f.name)
        out[f.name] = to_plain(value) if is_dataclass(value) else list(value) if isinstance(value, tuple) else value
    return out


def from_plain(cls: type, data: Any, wording: Wording) -> Any:
    """A configuration from an object of setting names; settings not given keep their defaults, and a
    smaller configuration is given as an object of its own names (those not given keep theirs).
    Unknown names are refused, not ignored."""
    if not isinstance(data, dict):
        raise wording.error(wording.not_object.format(type=type(data).__name__))
    known = [f.name for f in fields(cls)]
    unknown = sorted(str(k) for k in set(data) - set(known))
    if unknown:
        names = [wording.prefix + k for k in unknown]
        raise wording.error(wording.unknown.format(names=", ".join(map(repr, names) if wording.quoted else names),
                                                   known=", ".join(sorted(wording.prefix + k for k in known))))
    inner = nested(cls)
    return cls(**{k: inner[k].from_dict(v) if k in inner and isinstance(v, dict) else v for k, v in data.items()})


class Settings:
    """What every frozen configuration has: its values checked where it is built, `to_dict` (every
    setting, smaller configurations as objects of their own) and `from_dict` (settings not given
    keep their defaults; unknown names are refused, not ignored: a misspelt setting left at its
    default would change nothing while seeming to). A subclass names its `WORDING`."""

    WORDING: ClassVar[Wording]

    def __post_init__(self) -> None:
        check_values(self, self.WORDING)

    def to_dict(self) -> dict[str, Any]:
        return to_plain(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return from_plain(cls, data, cls.WORDING)
