"""The tracker's model of the table: the tiles on the board and what it remembers about each.

A board tile is more than its pose and `TileStatus`: the tracker also remembers how its place
was read since it was laid, which readings of it are known misreadings, which tiles it took as
played legally this round, which plays rest on a guess, and pictures of the table to compare
places with. Kept in one object with verbs for each change (lay, lift, note a reading of a
place, supersede a reading, ...), the parts of the tracker say what they do to the board
instead of each poking the same dicts and sets, and the board's memories change together where
they must (a knocked camera moves the tiles, the flag views and the kept pictures at once).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

import numpy as np

from engine import Tile

from .board import BoardTile, TileStatus
from .geometry import TilePose
from .pictures import Picture, as_3x3

if TYPE_CHECKING:
    from .closer import DenseGuess


FlagView = tuple[np.ndarray, np.ndarray]
"""The frame a play was flagged on, and the map from today's picture coordinates to that frame's."""


@dataclass
class TableModel:
    """The board tiles by identity (a set holds one of each), with their memories."""

    tiles: dict[Tile, BoardTile] = field(default_factory=dict)
    """The board: each tile the tracker accepted, by its value, in the order it was laid."""
    place_reads: dict[tuple[Tile, int], dict[Tile, set[int]]] = field(default_factory=dict)
    """For each board tile (and the frame it was laid at: a tile taken back and laid again, or
    laid in a later round, starts afresh), the other tiles its place was read as since, with
    the recognizer runs that read each."""
    misreads: set[tuple[Tile, Tile]] = field(default_factory=set)
    """(board tile, reading) pairs: the board tile's place read steadily as the other tile while
    it stayed in its place (kept as it was: the reader was sure of both)."""
    superseded: set[tuple[Tile, Tile]] = field(default_factory=set)
    """(tile, reading) pairs: a tile read as `reading` was found to be `tile` at the same place
    (a flag withdrawn, a misreading corrected): that reading there is the same misreading again."""
    support: dict[Tile, set[int]] = field(default_factory=dict)
    """Recognizer runs that read each tile found new as it is, since the board last moved."""
    alternatives: dict[Tile, list[tuple[Tile, TilePose]]] = field(default_factory=dict)
    """For a tile found new, the other values its place was read as often enough to weigh."""
    played_legally: set[Tile] = field(default_factory=set)
    """Tiles accepted as legal plays this round (one taken back in error may come back)."""
    dense_guesses: dict[Tile, DenseGuess] = field(default_factory=dict)
    """Plays taken as legal on a guessed misread dense end, by the tile entered: undone, and
    judged as read, if the tile is taken back before the next play."""
    flag_views: dict[Tile, FlagView] = field(default_factory=dict)
    """For a play flagged for feeding elsewhere while a double waited: the frame it was flagged
    on, and the map from today's picture coordinates to that frame's (the camera may have been
    knocked since)."""
    settled_image: Picture | None = None
    """The frame the board last settled on with every reading placed."""
    before_motion: Picture | None = None
    """`settled_image` as it was when the last motion began: a tile laid in that motion changed
    the picture at its place since (a tile missed at first and read only later still differs)."""
    still_before_motion: Picture | None = None
    """The last still frame before the last motion began, whatever the reader made of it: the
    table just before the hands that came in then."""

    # the tiles

    def lay(self, bt: BoardTile) -> None:
        """`bt` lies on the board (a tile already there is replaced where it stands in the order)."""
        self.tiles[bt.tile] = bt

    def lift(self, tile: Tile) -> None:
        """`tile` is off the board (it must be on it)."""
        del self.tiles[tile]

    def clear(self) -> None:
        """No tile on the board (the memories stay: a round is over, or the table was cleared)."""
        self.tiles.clear()

    def get(self, tile: Tile | None) -> BoardTile | None:
        return self.tiles.get(tile) if tile is not None else None

    def __contains__(self, tile: object) -> bool:
        return tile in self.tiles

    def __iter__(self) -> Iterator[Tile]:
        return iter(self.tiles)

    def __len__(self) -> int:
        return len(self.tiles)

    def start_round(self) -> None:
        """A new round: of the tiles, only those lying apart from the layout stay; no play of it is
        accepted yet, and no guess about the round before's plays stands."""
        self.played_legally = set()
        self.dense_guesses = {}
        self.tiles = {t: bt for t, bt in self.tiles.items() if bt.status == TileStatus.LOOSE}

    def follow_camera(self, m: np.ndarray) -> None:
        """The camera moved by `m` (old picture -> new): the tiles, each flag's view and the kept
        pictures move with it, together."""
        for bt in self.tiles.values():
            bt.pose = bt.pose.transformed(m)
        inv = np.linalg.inv(as_3x3(m))
        for tile, (image, to_then) in list(self.flag_views.items()):
            self.flag_views[tile] = (image, to_then @ inv)
        self.settled_image, self.before_motion, self.still_before_motion = (
            p.moved(m) if p is not None else None
            for p in (self.settled_image, self.before_motion, self.still_before_motion))

    # readings of places

    def note_place_read(self, bt: BoardTile, other: Tile, run: int) -> None:
        """`bt`'s place was read as `other` by recognizer run `run`."""
        self.place_reads.setdefault((bt.tile, bt.frame), {}).setdefault(other, set()).add(run)

    def place_readings(self) -> list[tuple[tuple[Tile, int], dict[Tile, set[int]]]]:
        """Every (board tile, frame laid) with the other readings of its place, in order."""
        return sorted(self.place_reads.items())

    def note_misread(self, tile: Tile, reading: Tile) -> None:
        """`tile`'s place is read steadily as `reading` while it stays there: the reader's habit."""
        self.misreads.add((tile, reading))

    def is_known_misread(self, tile: Tile, reading: Tile) -> bool:
        return (tile, reading) in self.misreads

    def supersede(self, tile: Tile, reading: Tile) -> None:
        """A tile read as `reading` was found to be `tile` at the same place."""
        self.superseded.add((tile, reading))

    def unsupersede(self, tile: Tile, reading: Tile) -> None:
        """`supersede` undone: the correction it noted was itself undone."""
        self.superseded.discard((tile, reading))

    def is_superseded(self, tile: Tile, reading: Tile) -> bool:
        """Whether `reading` at `tile`'s place is a misreading already corrected to `tile`."""
        return (tile, reading) in self.superseded

    # how sure the new tiles' readings are

    def support_of(self, tile: Tile) -> set[int] | None:
        """The recognizer runs that read `tile` as it is since the board last moved (None: none noted)."""
        return self.support.get(tile)

    def note_support(self, tile: Tile, runs: set[int]) -> None:
        self.support.setdefault(tile, set()).update(runs)

    def forget_support(self) -> None:
        """The board moved: readings before it are no support for what lies there now."""
        self.support.clear()

    def hold_support(self) -> dict[Tile, set[int]]:
        """The support so far, handed out to be kept (`restore_support`) and forgotten here."""
        held = dict(self.support)
        self.support.clear()
        return held

    def restore_support(self, held: dict[Tile, set[int]]) -> None:
        self.support = held

    def note_alternatives(self, tile: Tile, others: list[tuple[Tile, TilePose]]) -> None:
        """The other values `tile`'s place was read as, worth judging in its stead."""
        self.alternatives[tile] = others

    def alternatives_of(self, tile: Tile) -> list[tuple[Tile, TilePose]]:
        return self.alternatives.get(tile, [])

    def forget_alternatives(self, tile: Tile) -> None:
        self.alternatives.pop(tile, None)

    # plays

    def note_legal_play(self, tile: Tile) -> None:
        """`tile` was accepted as a legal play this round."""
        self.played_legally.add(tile)

    def forget_legal_play(self, tile: Tile) -> None:
        self.played_legally.discard(tile)

    def played_legally_this_round(self, tile: Tile) -> bool:
        return tile in self.played_legally

    def note_dense_guess(self, tile: Tile, guess: DenseGuess) -> None:
        """`tile` was entered on a guess about a misread dense end (undone if taken back soon)."""
        self.dense_guesses[tile] = guess

    def take_dense_guess(self, tile: Tile) -> DenseGuess | None:
        """The guess `tile` was entered on, forgotten here (None: it was read as it is)."""
        return self.dense_guesses.pop(tile, None)

    # flagged plays' pictures

    def keep_flag_view(self, tile: Tile, image: np.ndarray, to_then: np.ndarray) -> None:
        """The frame `tile`'s play was flagged on, to tell later what lay there then."""
        self.flag_views[tile] = (image, to_then)

    def drop_flag_view(self, tile: Tile) -> None:
        self.flag_views.pop(tile, None)

    def has_flag_view(self, tile: Tile) -> bool:
        return tile in self.flag_views

    def flag_view_items(self) -> list[tuple[Tile, FlagView]]:
        """Each flagged play's view (a copy: a caller may drop views as it goes)."""
        return list(self.flag_views.items())

    # pictures of the table

    def settle_picture(self, image: np.ndarray) -> None:
        """The board settled on `image` with every reading placed."""
        self.settled_image = Picture(image)

    def motion_began(self, last_still: np.ndarray | None) -> None:
        """Hands came in: keep the table as it was before them."""
        self.before_motion = self.settled_image
        self.still_before_motion = Picture(last_still) if last_still is not None else None
