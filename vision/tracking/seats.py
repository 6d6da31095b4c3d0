"""Where the hands come from: the seat whose arm laid a tile, and the turns it says were passed.

A camera does not see players draw and pass, but it sees the arm that lays a tile come into the
picture from one side. With the seats' directions known, the hands that came in during the last
motion say who played; a play from further round the table than the engine expects means the
players in between drew and passed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .referee import Referee

@dataclass
class Seats:
    """The seats' directions and the hands seen coming in since the last still stretch."""

    directions: list[float] | None = None
    """Direction (radians, image coordinates, from the middle of the picture) in which each
    player's arm comes into the picture, in seat order; None where not known."""
    entries: list[tuple[int, tuple[float, float]]] = field(default_factory=list)
    """(frame, where a hand came in, as fractions of the picture's width and height), oldest first."""

    def hand_came_in(self, frame: int, entry: tuple[float, float], kept: int) -> None:
        """A hand came into the picture at `entry` in `frame`; the latest `kept` are remembered
        (`TrackerConfig.kept_hands`)."""
        self.entries.append((frame, entry))
        del self.entries[:-kept]

    def new_motion(self) -> None:
        """A new stretch of motion began: hands seen before it are not this one's."""
        self.entries.clear()

    def seat_of_hand(self, before: int, size: Sequence[float]) -> int | None:
        """The seat the last hand before frame `before` came from, in a picture of `size`
        (width, height), if seats are known and the hand came in near one."""
        if not self.directions:
            return None
        entry = next((e for f, e in reversed(self.entries) if f < before), None)
        if entry is None:
            return None
        size_ = np.array(size, float)
        point = np.array(entry) * size_
        centre = size_ / 2
        angle = math.atan2(point[1] - centre[1], point[0] - centre[0])
        gaps = [abs((angle - s + math.pi) % (2 * math.pi) - math.pi) for s in self.directions]
        best = int(np.argmin(gaps))
        spacing = 2 * math.pi / len(self.directions)
        return best if gaps[best] < 0.6 * spacing else None

    def follow_hand(self, referee: Referee, players: int, before: int, size: Sequence[float]) -> None:
        """If the hand that laid the tile seen at frame `before` came from another seat than
        `referee` expects, the players in between drew and passed: noted with `referee`."""
        if not self.directions:
            return
        seat = self.seat_of_hand(before, size)
        if seat is None or seat == referee.turn:
            return
        if players >= 3 and (seat - referee.turn) % players == players - 1:
            # everyone else passing is rarer than an earlier hand misjudged: take back the
            # latest pass inferred from a hand instead (or keep the turn order if none)
            referee.forget_pass()
            return
        referee.note_pass((seat - 1) % players)
