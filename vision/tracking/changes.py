"""What changed between the board and the latest still observations, found as one value.

A decision's steps act on the changes (`Changes`); finding them (`detect_changes`) reads only the
board tiles, the observations and the few facts it is given (how many observations a decision and a
removal rest on, the last play, the last motion, how a place is compared with its settled picture),
so it can be checked on a hand-built board and readings. It changes neither, with one exception
that is not a change of either: whether a tile's place still looks as it did when the board settled
is remembered on the observation that was asked (`Observation.unchanged`), since the answer is a
fact of that frame's pixels.

Tiles found new are not here: finding them votes over every reading since the last motion and
corrects the board as it goes (a board tile misread, a loose tile played), so it stays with the
tracker (`Observing._new_tiles`); so do flagged tiles turned round, which are looked for after the
board has taken those corrections.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

from engine import Tile

from .board import BoardTile, Observation, TileStatus, same_picture, tile_patch
from .geometry import TilePose
from .tuning import PictureConfig

Found = tuple[Tile, TilePose, Observation]
"""A tile to place: its reading, where it lies, and the observation that first showed it."""


@dataclass(frozen=True)
class Changes:
    """What the latest observations show changed on the board."""

    gone: tuple[BoardTile, ...] = ()
    """Board tiles laid before the last motion that nothing in any observation of the removal
    window shows (those observations resting on two runs of the recognizer at least)."""
    gone_at: Observation | None = None
    """The first observation of the removal window: where the tiles gone are reported gone."""
    shown_again: tuple[Tile, ...] = ()
    """Board tiles missing (or among `gone`) that all but one of the decision's observations show:
    back, where they are still missing when the step acts."""
    replaced: tuple[tuple[Tile, Found], ...] = ()
    """Board tiles whose place reads as one other tile in every observation of the removal window
    (all but one, for a flagged tile), resting on two runs of the recognizer at least, with that
    reading: the step keeps those still on the board whose reading is not a board tile."""


NO_CHANGES = Changes()


def readings(observations: Sequence[Observation]) -> int:
    """How many runs of the recognizer these observations rest on (a reused reading is one)."""
    return len({o.read for o in observations})


def is_last_play(bt: BoardTile, last_play: Tile | None) -> bool:
    """Whether `bt` is the round's last play, still standing as a legal one (`last_play`: its tile)."""
    return last_play is not None and last_play == bt.tile and bt.status == TileStatus.LEGAL


def looks_unchanged(bt: BoardTile, obs: Observation, pictures: PictureConfig) -> bool:
    """Whether `bt`'s place in `obs` still looks as it did when the board last settled, compared as
    `pictures` says (the answer is remembered on `obs`)."""
    if bt.patch is None or obs.image is None or obs.motion is not None:
        return False
    known = obs.unchanged.get(bt.tile)
    if known is None:
        cur = tile_patch(obs.image, bt.pose, pictures)
        known = obs.unchanged[bt.tile] = cur is not None and same_picture(bt.patch, cur, pictures)
    return known


def still_there(bt: BoardTile, obs: Observation, last_play: Tile | None,
                pictures: PictureConfig) -> bool:
    """Whether `obs` shows something at `bt`'s place: the tile itself, another reading of it, for a
    tile that cannot be taken back (a spinner, an older play) any reading lying on it, or the very
    picture the place showed when the board last settled; the recognizer can make one tile into
    another, or miss it, and a layout tile read as something else or not at all has not left the
    table."""
    if bt.tile in obs.seen or bt.tile in obs.conflicts:
        return True
    if bt.tile in obs.covered and bt.status in (TileStatus.SPINNER, TileStatus.LEGAL, TileStatus.JOINED) and \
            not is_last_play(bt, last_play):
        return True
    # read as nothing at all, but its place looks as it did: the reader lost it, the
    # tile did not leave (on 45-px tiles a double-12 layout loses a few in every reading)
    return looks_unchanged(bt, obs, pictures)


def tiles_gone(board: Mapping[Tile, BoardTile], span: Sequence[Observation], last_play: Tile | None,
               last_motion: int, pictures: PictureConfig) -> list[BoardTile]:
    """Board tiles absent from every observation of `span`, read twice at least. A tile is never
    taken away without a hand, so only tiles laid before the last motion can have gone; one that
    merely stops being read is the reader's failure, not a change."""
    if readings(span) < 2:
        return []
    return [bt for bt in board.values() if not bt.missing and last_motion > bt.frame
            and not any(still_there(bt, o, last_play, pictures) for o in span)]


def shown_again(board: Mapping[Tile, BoardTile], recent: Sequence[Observation],
                gone: Sequence[BoardTile] = ()) -> list[Tile]:
    """Board tiles missing (or in `gone`) that all but one of `recent` show, in board order."""
    need = len(recent) - 1
    found_gone = {id(bt) for bt in gone}
    return [bt.tile for bt in board.values() if (bt.missing or id(bt) in found_gone)
            and sum(bt.tile in o.seen for o in recent) >= need]


def replacements(board: Mapping[Tile, BoardTile], span: Sequence[Observation]) -> dict[Tile, Found]:
    """Board tiles whose place reads as one other tile in every observation of `span` (a take-back
    and a new tile under one hand), by tile: the reading, where it lay last, and the first
    observation to read it. Readings of tiles on the board are left in (see `Changes.replaced`)."""
    need = len(span)
    out: dict[Tile, Found] = {}
    keys = set().union(*(o.conflicts.keys() for o in span))
    for old in keys:
        # a tile flagged illegal was judged from its readings alone: a clear majority of
        # readings saying otherwise is enough to read it again
        bt = board.get(old)
        enough = need - 1 if bt is not None and bt.status == TileStatus.ILLEGAL else need
        reads = [(o, o.conflicts[old]) for o in span if old in o.conflicts and old not in o.seen]
        if len(reads) < enough or readings([o for o, _ in reads]) < 2:
            continue  # (one reading repeated is one reading: a flip of a placed tile is noise)
        votes = Counter(tile for _, (tile, _) in reads)
        tile, n = votes.most_common(1)[0]
        if n < enough:
            continue
        first = next(o for o, (t, _) in reads if t == tile)
        pose = next(p for _, (t, p) in reversed(reads) if t == tile)
        out[old] = (tile, pose, first)
    return out


def detect_changes(board: Mapping[Tile, BoardTile], window: Sequence[Observation], *, window_size: int,
                   remove_window: int, last_play: Tile | None, last_motion: int,
                   pictures: PictureConfig = PictureConfig()) -> Changes:
    """What `window` (the tracker's still observations, oldest first) shows changed on `board`:
    tiles gone and places read as other tiles over the last `remove_window` observations (once the
    window holds that many), tiles back over the last `window_size`. `last_play`: the tile of the
    round's last play (it can be taken back, so a reading over it does not keep it); `last_motion`:
    the frame something last moved in; `pictures`: how a place is compared with its settled picture."""
    recent = window[-window_size:]
    if len(window) < remove_window:
        return Changes(shown_again=tuple(shown_again(board, recent)))
    span = window[-remove_window:]
    gone = tiles_gone(board, span, last_play, last_motion, pictures)
    return Changes(gone=tuple(gone), gone_at=span[0], shown_again=tuple(shown_again(board, recent, gone)),
                   replaced=tuple(replacements(board, span).items()))
