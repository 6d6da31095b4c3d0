"""How the tracker decides on its latest still observations: a declared order of steps.

Each step is a function of one `Decision` that returns the events it made; `decide` runs them
in the order of `STEPS`, and a step that decides everything alone (a knocked camera) ends the
decision. The order matters: a tile gone is found before new tiles are placed, a place read as
another tile is judged before the tiles found new are played (a take-back and a play under one
hand), loose tiles are explained last, once every play the readings show is on the board, and
the board settles only on what every step left.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from engine import Tile

from .board import BoardTile, Observation, TileStatus, tile_patch
from .changes import NO_CHANGES, Changes, Found, detect_changes, is_last_play, looks_unchanged, readings
from .events import BoardDisturbed, TrackEvent
from .observing import fresh_observations
from .pictures import read_at_place

if TYPE_CHECKING:
    from .tracker import Tracker

@dataclass
class Decision:
    """What the steps of one decision share: the observations decided on and what was made of them."""

    tracker: Tracker
    recent: list[Observation]
    """The latest `window_size` observations of the window."""
    changed: bool = False
    """Whether a step changed the board (the board then settles on the readings that showed it)."""
    done: bool = False
    """Set by a step that decided everything alone: the steps after it do not run."""
    changes: Changes = NO_CHANGES
    """What the observations show changed on the board (`find_changes`)."""
    replaced: dict[Tile, Found] = field(default_factory=dict)
    """Board tiles whose place reads as another tile in every recent observation."""
    found: list[Found] = field(default_factory=list)
    """Tiles to place once the board tiles are judged."""
    read_otherwise: list[tuple[BoardTile, Tile]] = field(default_factory=list)
    """Board tiles whose unchanged place reads as another tile: misread, now or when laid."""


Step = Callable[[Decision], list[TrackEvent]]


def ask_for_fresh_reading(tracker: Tracker) -> None:
    """Ask for the next still frame to be read afresh where a play to flag, or a flagged tile
    turned round, rests on too few runs of the recognizer."""
    window = tracker.window
    if readings(window) < tracker.tuning.flag_runs and tracker.flags.would_flag(window[-1]):
        tracker.runs.ask_fresh()
    elif readings(window) < tracker.tuning.flag_max_reads and \
            any(tracker.flags.would_flag(o) for o in fresh_observations(window[:-1])):
        # an earlier reading of this still picture showed a play to flag that the last one
        # missed: read afresh rather than let the missing reading stand for the frames to come.
        # Why: a planted 2-0 on ~30-px double-15 tiles lay still for 13 frames, read in the
        # first of two readings and missed in the second, which was then reused for every
        # frame after; one sighting in three was never flagged
        tracker.runs.ask_fresh()
    if readings(window) < 2 and tracker._turned_around(window[-1:]):
        tracker.runs.ask_fresh()  # a second reading before a flagged tile turned round is taken back


def camera_knocked(d: Decision) -> list[TrackEvent]:
    """A knocked camera first: every observation since must agree on the move; it re-registers
    the whole board, and nothing else is decided on these observations."""
    moved = [o.motion is not None for o in d.recent]
    if moved[-1] and sum(moved) >= len(d.recent) - 1:
        d.done = True
        return d.tracker._camera_moved(d.recent)
    return []


def follow_small_knock(d: Decision) -> list[TrackEvent]:
    """A small knock seen in every observation is followed without a word, so tiles keep
    matching their places."""
    if all(o.drift is not None for o in d.recent):
        d.tracker._follow_camera(d.recent[-1].drift)
    return []


def picture_laid_tiles(d: Decision) -> list[TrackEvent]:
    """A tile laid since the board last settled takes how its place looks from the first still
    frame after it was placed where the reader read a tile there (refreshed whenever the board
    settles; a frame after it was taken back unseen shows bare table)."""
    latest = d.recent[-1]
    if latest.motion is None and latest.image is not None:
        for bt in d.tracker.board.values():
            if bt.patch is None and not bt.missing and read_at_place(bt.tile, latest):
                bt.patch = tile_patch(latest.image, bt.pose, d.tracker.tuning.pictures)
    return []


def find_changes(d: Decision) -> list[TrackEvent]:
    """What the observations show changed (`changes.detect_changes`), found once the board has
    followed the camera and pictured the tiles laid since it settled, before any step acts."""
    tr = d.tracker
    d.changes = detect_changes(tr.board, tr.window, window_size=tr.window_size, remove_window=tr.remove_window,
                               last_play=tr.book.last_played(), last_motion=tr._last_motion,
                               pictures=tr.tuning.pictures)
    return []


def tiles_gone(d: Decision) -> list[TrackEvent]:
    """Board tiles absent from every observation of the removal window, taken away."""
    if not d.changes.gone:
        return []
    assert d.changes.gone_at is not None
    d.changed = True
    return d.tracker._tiles_gone(list(d.changes.gone), d.changes.gone_at)


def tiles_back(d: Decision) -> list[TrackEvent]:
    """Tiles reported missing that all but one recent observation shows again."""
    board = d.tracker.board
    back = [board[t] for t in d.changes.shown_again if t in board and board[t].missing]
    if not back:
        return []
    for bt in back:
        bt.missing = False
    return [BoardDisturbed(d.recent[-1].frame, d.recent[-1].t, returned=[str(bt.tile) for bt in back])]


def read_changes(d: Decision) -> list[TrackEvent]:
    """What the readings show changed: board tiles' places read as other tiles, and tiles new to
    the board (finding them may correct board tiles misread, reported with them)."""
    tr = d.tracker
    d.replaced = {old: found for old, found in d.changes.replaced if old in tr.board and found[0] not in tr.board}
    d.found = tr._new_tiles(d.recent)
    if not tr._pending:
        return []
    events, tr._pending = tr._pending, []
    d.changed = True
    tr._reassociate()  # corrected places now read as their tiles (not taken back below)
    return events


def turned_around(d: Decision) -> list[TrackEvent]:
    """A flagged tile turned end for end where it lies: the player put the play right; it is
    taken back and judged again as it lies now."""
    tr = d.tracker
    events: list[TrackEvent] = []
    for bt, pose in tr._turned_around(d.recent) if readings(d.recent) >= 2 else []:
        events.extend(tr._take_back(bt, d.recent[0]))
        d.found.append((bt.tile, pose, d.recent[0]))
    return events


def replaced_readings(d: Decision) -> list[TrackEvent]:
    """Judge each board tile whose place reads as another tile: a misreading (now or when it was
    laid), a loose tile read better, or a play taken back and another laid in its place."""
    tr = d.tracker
    events: list[TrackEvent] = []
    for old, (tile, pose, first) in d.replaced.items():
        bt = tr.board.get(old)
        if bt is None:
            continue
        if tr.table.is_superseded(old, tile):
            # this place read as `tile` before and was corrected to `old`: the reader
            # flipping back is a misreading, not a second take-back of the same tile
            tr.table.note_misread(old, tile)
            continue
        if bt.status == TileStatus.LOOSE:
            # set apart on a reading every recent one contradicts: no play to take back, and
            # the tile read there now may be one (see `_place`)
            tr.table.lift(old)
            d.found.append((tile, pose, first))
            d.changed = True
            continue
        if bt.status != TileStatus.ILLEGAL and looks_unchanged(bt, d.recent[-1], tr.tuning.pictures):
            # its place looks as it did when the board settled with it there: the same tile,
            # read another way now (a tile taken back and another laid there changes it);
            # which reading is wrong: the one the reader was unsure of
            fixed = tr._correct_misread_play(bt, tile, d.recent)
            if fixed:
                events.extend(fixed)
                d.changed = True
                continue
            d.read_otherwise.append((bt, tile))  # (corrected by `recoloured`, where the colour says so)
            continue
        if bt.status == TileStatus.ILLEGAL or is_last_play(bt, tr.book.last_played()):
            if bt.status == TileStatus.ILLEGAL:
                tr.table.supersede(tile, old)
            events.extend(tr._take_back(bt, first))
            d.found.append((tile, pose, first))
            d.changed = True
        elif not tr.table.is_known_misread(old, tile):
            tr.table.note_misread(old, tile)
    return events


def recoloured(d: Decision) -> list[TrackEvent]:
    """Board tiles read otherwise in unchanged places are corrected together where the pip
    colours say so; otherwise the other readings are remembered as misreadings."""
    tr = d.tracker
    fixed = tr._correct_recoloured(d.read_otherwise, d.recent) if d.read_otherwise else []
    if fixed:
        d.changed = True
        return fixed
    for bt, tile in d.read_otherwise:
        tr.table.note_misread(bt.tile, tile)
    return []


def place_found(d: Decision) -> list[TrackEvent]:
    """Place the tiles found. The last play gone from every recent reading as the next tile
    arrives was taken back before (a hand or a flicker kept the take-back from being seen on its
    own), unless it still lies there, read as itself (see `_lost_in_place`)."""
    if not d.found:
        return []
    tr = d.tracker
    events: list[TrackEvent] = []
    for bt in list(tr.board.values()):
        if (bt.status == TileStatus.ILLEGAL or is_last_play(bt, tr.book.last_played())) and \
                readings(d.recent) >= 2 and \
                all(bt.tile not in o.seen and bt.tile not in o.conflicts for o in d.recent) and \
                not tr._lost_in_place(bt, d.recent):
            events.extend(tr._take_back(bt, d.recent[0]))
    events.extend(tr._place(d.found))
    d.changed = True
    return events


def explain_loose(d: Decision) -> list[TrackEvent]:
    """Tiles lying apart from the layout, once every play is placed: a re-reading that makes
    them plays is entered (see `_explain_loose`)."""
    events = d.tracker._explain_loose(d.recent[-1])
    if events:
        d.changed = True
    return events


def settle(d: Decision) -> list[TrackEvent]:
    """After a change, the readings that showed it now agree with the board: settle at once
    rather than read more frames of a picture that has stopped changing. Without one, settle once
    the removal window is clear, or after `TrackerConfig.max_unsettled_reads` reads without a decision."""
    tr = d.tracker
    if d.changed:
        events = tr._advise_on_size(d.recent[-1])
        tr._picture_new_tiles()
        tr._reassociate()
        tr._reads_since_change = 0
        recent = tr.window[-tr.window_size:]
        tr.settled = not tr._unresolved(recent) and all(not o.new and not o.conflicts for o in recent)
        if tr.settled:
            tr._refresh_poses(recent)
            tr.gate.set_reference()
        return events
    tr._reads_since_change += 1
    clear = not tr._unresolved(tr.window[-tr.remove_window:])
    if not tr.settled and len(tr.window) >= tr.remove_window and (
            clear or tr._reads_since_change >= tr.tuning.max_unsettled_reads):
        tr._refresh_poses(tr.window[-tr.remove_window:])
        tr.settled = True
        tr.gate.set_reference()
    return []


STEPS: tuple[Step, ...] = (
    camera_knocked,
    follow_small_knock,
    picture_laid_tiles,
    find_changes,
    tiles_gone,
    tiles_back,
    read_changes,
    turned_around,
    replaced_readings,
    recoloured,
    place_found,
    explain_loose,
    settle,
)
"""The order in which a decision's steps run."""


def decide(tracker: Tracker, steps: tuple[Step, ...] = STEPS) -> list[TrackEvent]:
    """Every step of `steps` in order over the tracker's latest `window_size` observations, once
    the window holds that many; the events they made, in the order made."""
    ask_for_fresh_reading(tracker)
    if len(tracker.window) < tracker.window_size:
        return []
    d = Decision(tracker, tracker.window[-tracker.window_size:])
    events: list[TrackEvent] = []
    for step in steps:
        events.extend(step(d))
        if d.done:
            break
    return events
