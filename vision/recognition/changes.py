"""What a stage did to a box, as data, and the notes and warnings rendered from it.

A candidate's trace holds (stage name, change) pairs in the order the stages made them; a
tile's notes are the rendered changes that carry a note, in that order. Code that needs a fact
(was the tile cut by the picture's edge? read again by its pips' colour?) asks the candidate's
flags, so the text is only ever written, never read back."""
from __future__ import annotations

from dataclasses import dataclass

from ..types import COLOUR_NOTE


@dataclass(frozen=True)
class Change:
    """Something a stage found or changed on one box. `note`: the text a person sees on the
    tile, or None where the change is only traced."""

    @property
    def note(self) -> str | None:
        return None


@dataclass(frozen=True)
class Reread(Change):
    """A stage changed the values read."""
    was: tuple[int, int] | None
    now: tuple[int, int]


@dataclass(frozen=True)
class Marked(Change):
    """A stage set a flag on the box (what the flag means is in `candidates.Flag`)."""
    flag: str


@dataclass(frozen=True)
class Dropped(Change):
    """The box was dropped: it is not a tile of its own (`why` names the rule)."""
    why: str


@dataclass(frozen=True)
class Recoloured(Change):
    """An end was read again because its pips' colour is not that of the value first read."""
    was: tuple[int, int]

    @property
    def note(self) -> str:
        return (f"{COLOUR_NOTE}: read {self.was[0]}-{self.was[1]}, but another tile's end of that value "
                f"has pips of another colour")


@dataclass(frozen=True)
class CutByEdge(Change):
    """The box reaches the picture's edge: the tile may go on beyond it."""

    @property
    def note(self) -> str:
        return "cut off by the edge of the picture: part of it may not be seen"


@dataclass(frozen=True)
class TakenForBack(Change):
    """A box boxed as a face shows neither a dot nor a divider, so it is a tile's back."""

    @property
    def note(self) -> str:
        return "boxed as face up, but it shows neither a dot nor a divider: a tile's back"


@dataclass(frozen=True)
class Capped(Change):
    """A value above the set's maximum was capped at it."""
    was: tuple[int, int]
    set_max: int

    @property
    def note(self) -> str:
        return f"read {self.was[0]}-{self.was[1]}, above the set's maximum {self.set_max}; capped"


@dataclass(frozen=True)
class Corrected(Change):
    """A reading another tile already has was replaced by its cheapest second reading."""
    was: tuple[int, int]
    now: tuple[int, int]

    @property
    def note(self) -> str:
        return (f"read {self.was[0]}-{self.was[1]}, which another tile already is; "
                f"corrected to {self.now[0]}-{self.now[1]}")


TraceEntry = tuple[str, Change]
"""(name of the stage, what it changed)."""


def notes_of(trace: list[TraceEntry]) -> list[str]:
    """A box's notes: its changes that carry one, in the order they were made."""
    return [change.note for _, change in trace if change.note is not None]


def repeated_tile_warning(key: tuple[int, int], times: int) -> str:
    """The warning for a tile read `times` times that no cheap second reading told apart."""
    said = "twice" if times == 2 else f"{times} times"
    return (f"tile {key[1]}-{key[0]} appears {said}; a set has one of each, so two sets are mixed "
            "or one of them is misread")


def cut_off_warning(n_cut: int) -> str | None:
    """The warning for `n_cut` faces cut by the picture's edge (None for none)."""
    if not n_cut:
        return None
    return (f"{n_cut} tile{'s' if n_cut > 1 else ''} cut off by the edge of the picture: "
            "the total may miss dots outside it")
