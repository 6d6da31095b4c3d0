"""Closer looks: a place read again on a small crop, where the rules say a tile is missing or misread.

The recognizer reads a crop at up to twice its size, where it reads a whole frame at three
quarters: a small tile crowded among a chickie's toes that the whole frame never shows is found
there. Looks are made where a play is about to be flagged or a tile touches nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from engine import Tile
from engine.board import SLOT_STRIDE

from ..halfreader import SMALL_TILE_PX
from .board import BoardTile, Observation, TileStatus, angle_gap, at_place_of, identity
from .events import Notice, PlayCorrected, TilePlayed, TrackEvent
from .geometry import TilePose, point_quad_distance, pose_from_detection
from .pictures import approaches, with_first_reading
from .referee import Verdict
from .tuning import WAITING_DOUBLE_RULES, TrackerConfig


@dataclass
class DenseGuess:
    """A play entered as legal on a guessed misread dense end (`CloserLooks._dense_end_misread`)."""

    read: Tile
    """The tile as the reader read it."""
    pose: TilePose
    touching: int
    """The value read at its end against the layout."""
    plays: int
    """Plays entered once it was: while they are as many, it is the last."""
    was_pose: TilePose | None = None
    """The tile it lies against as read, where the guess corrected that one ..."""
    corrected: Tile | None = None
    """... and what it was corrected to."""


class LookLedger:
    """The closer looks of a still stretch: what each look read (a tile left undecided comes back
    at every still frame, and still frames reuse one reading: the same crop of the same pictures
    reads the same, so it is read once), how many places around tiles touching nothing were
    looked at (`TrackerConfig.close_look_places`), and which tiles' surroundings were."""

    def __init__(self, tuning: TrackerConfig) -> None:
        self.tuning = tuning
        self.made: dict[tuple[int, int, int, tuple[int, ...]], list[list[TilePose]]] = {}
        """Closer looks made, by place, reach and the readings whose pictures they read."""
        self.places_looked_at = 0
        """Places around tiles touching nothing looked at closer since the last motion."""
        self.looked_around: set[Tile] = set()
        """New tiles touching nothing whose surroundings were looked at closer since the last
        motion: one look per tile per still stretch."""

    def new_stretch(self) -> None:
        """Something moved: the next still stretch has its own places to look at."""
        self.looked_around.clear()
        self.places_looked_at = 0

    def first_look_around(self, tile: Tile) -> bool:
        """Whether `tile`'s surroundings were not looked at yet this stretch (they are now
        counted as looked at). Why: a tile left undecided comes back at every frame, and frames
        are read afresh while the board is unsettled: without this, two crops would be read for
        it at every frame."""
        if tile in self.looked_around:
            return False
        self.looked_around.add(tile)
        return True

    def looks(self, detector: Any, window: Sequence[Observation], around: TilePose,
              counted: bool = False) -> list[list[TilePose]]:
        """What `detector`'s closer look reads around `around` on up to `TrackerConfig.close_looks`
        still pictures of `window` (each a different reading's picture); [] when it cannot look,
        or when a `counted` look would go past `TrackerConfig.close_look_places` in this still
        stretch."""
        look = getattr(detector, "look_closer", None)
        if look is None:
            return []
        pictures, reads = [], []
        for o in reversed(window):
            if o.image is not None and o.motion is None and o.read not in reads and \
                    len(pictures) < self.tuning.close_looks:
                pictures.append(o.image)
                reads.append(o.read)
        reach = self.tuning.close_look_reach * around.length
        key = (int(round(around.centre[0])), int(round(around.centre[1])), int(round(reach)), tuple(reads))
        if key not in self.made:
            if counted:
                if self.places_looked_at >= self.tuning.close_look_places:
                    return []
                self.places_looked_at += 1
            if len(self.made) >= 64:
                self.made.clear()
            self.made[key] = [[p for p in (pose_from_detection(d) for d in look(img, around.centre, reach)
                                           if not getattr(d, "face_down", False)) if p is not None]
                              for img in pictures]
        return self.made[key]


class CloserLooks:
    """Closer looks: methods of `Tracker` (a mixin: a look reads the detector and the window, and
    what it finds is entered as a play or a correction that placing and the other corrections
    call for)."""

    def _look_closer(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]],
                     obs: Observation) -> list[TrackEvent]:
        """Before a play is flagged, read the place the flag depends on again, closer.

        A whole 1280x720 frame is read at three quarters of its size; a small crop around one
        tile is read at up to twice its own. So where the rules say a tile is missing or wrong,
        a closer look settles it, at one small reading per flag about to be raised:

        * a double still waiting for tiles (the play went elsewhere): the tile it waits for may
          lie there unread, a toe ~40 px long among a chickie's crowded toes on a double-15
          table. One found there that the engine accepts on that double is played first;
        * the tile the play lies against (or the waiting double itself) may be another tile,
          misread the same way in every frame (a 9-1 read as the double 9-9, a 13-9 as 15-9).
          When the closer look reads its place as a tile not yet played that the round still
          replays with, and with which this play is legal, the earlier play is corrected.

        Each look is made on up to two different pictures of the still board, and what it
        finds must be found in each. The play is then judged as usual. Only a detector with
        `look_closer` (the real recognizer) can do this."""
        if self.current is None or not hasattr(self.detector, "look_closer"):
            return []
        verdict = self.judge.ruling(tile, pose, candidates)[2]
        if verdict.legal or verdict.error is None:
            return []
        referee = self.current.referee
        waiting_rule = verdict.error.code in WAITING_DOUBLE_RULES
        if waiting_rule:
            waiting = referee.board.pending_placement()
            focus = self.board.get(waiting.tile) if waiting is not None else None
        else:
            focus = candidates[0][1] if candidates and candidates[0][1].status == TileStatus.LEGAL else None
        if focus is None or focus.missing:
            return []
        looks = self._closer_looks(focus.pose)
        if not looks:
            return []
        fixed = self._correct_from_closer_look(focus, tile, pose, candidates, looks, obs)
        if fixed or not waiting_rule:
            return fixed
        return self._missing_from_closer_look(focus, tile, looks, obs)

    def _reread_from_closer_look(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]],
                                 obs: Observation) -> tuple[Notice, Tile, TilePose, list[Any]] | None:
        """A new tile whose play the engine would flag, read again closer at its own place: when
        every closer look reads it there as one tile, not on the board, whose play the engine
        accepts, that is the tile (a notice, the tile, its pose and its candidates); else None.

        Why: the whole frame is read at three quarters of its size, and a tile just laid can be
        read wrong in every frame of the stretch: a 12-3 laid as a chickie's last toe on a
        double-15 table read 5-2 (0.58-0.65, with 8-2 and 3-2 as seconds) while both closer
        looks read 3-12 at 0.93; flagging 5-2 left the chickie open, and three more legal plays
        were flagged before the reader came round. A tile that is truly illegal reads the same
        closer, and is flagged as before (see `_look_closer`).

        A legal play read with a second reading about as likely (`TrackerConfig.unsure_reading_cost`) is read
        closer too: on a double-15 table a 13-9 read 13-12 (14-12 as likely) was played on
        13-11, the 9-0 laid on it read 12-0 the same way, and the real 12-0, laid later, could
        not be played; the closer look read 13-9 and 9-0 at 0.92. There the closer reading must
        itself be sure, as the whole frame's was not."""
        if self.current is None or not hasattr(self.detector, "look_closer"):
            return None
        legal = self.judge.ruling(tile, pose, candidates)[2].legal
        if legal and not any(cost < self.tuning.unsure_reading_cost for _, cost in pose.second):
            return None
        looks = self._closer_looks(pose)
        if not looks:
            return None
        there = self._found_in_every_look(looks, lambda p: at_place_of(p, pose))
        if len(there) != 1:
            return None
        found = there[0]
        new = identity(found, self.config.set_max)
        if new is None or new == tile or new in self.board:
            return None
        if legal and any(cost < self.tuning.sure_reading_cost for _, cost in found.second):
            return None
        cands = self.judge.candidates(found)
        if not cands or not self.judge.ruling(new, found, cands)[2].legal:
            return None
        note = Notice(obs.frame, obs.t, f"{tile} was {new} misread: a closer look reads {new} there")
        return note, new, found, cands

    def _closer_looks(self, around: TilePose, counted: bool = False) -> list[list[TilePose]]:
        """What the detector's closer look reads around `around` on the window's still pictures
        (`LookLedger.looks`)."""
        return self.looks.looks(self.detector, self.window, around, counted)

    def _parent_from_closer_look(self, tile: Tile, pose: TilePose, obs: Observation) -> list[TrackEvent]:
        """A tile that touches nothing on the board may lie against a tile the reader missed in
        every frame (a double across an arm, read at 0.5 confidence one frame in three): before
        it is set down apart, or joined to a tile further off, a closer look around it may find
        that tile. One every closer look found, that the engine accepts where it lies, and
        against which `tile` is then legal, is played first (see `_look_closer`)."""
        if self.current is None or not hasattr(self.detector, "look_closer") or \
                not self.looks.first_look_around(tile):
            return []
        looks = self._closer_looks(pose, counted=True)
        if not looks:
            return []
        referee = self.current.referee
        for found in self._found_in_every_look(looks, lambda p: self._unplayed_reading(p, tile)):
            new = identity(found, self.config.set_max)
            assert new is not None
            for score, bt, contact in self.judge.candidates(found)[:2]:
                verdict = referee.judge(new, bt.tile, found.pips[contact.touching])
                if not verdict.legal:
                    continue
                placed = {new: BoardTile(new, found, TileStatus.LEGAL, verdict.player, bt.tile, contact.touching,
                                         obs.frame)}
                trial = referee.copy()
                trial.accept(new, verdict, obs.frame, obs.t, found.pips[contact.touching])
                on_it = [c for c in self.judge.candidates(pose, extra=placed, referee=trial) if c[1].tile == new]
                if not on_it or not trial.judge(tile, new, pose.pips[on_it[0][2].touching]).legal:
                    continue
                note = Notice(obs.frame, obs.t, f"{new} was found on a closer look: {tile} lies against it")
                return [note, self.plays.enter(new, found, obs, [(score, bt, contact)])]
        return []

    def _unplayed_reading(self, pose: TilePose, tile: Tile) -> bool:
        """Whether a closer look's reading is of a tile not on the board (nor `tile`, the one
        being judged) lying clear of the layout's tiles: a tile the reader had missed."""
        t = identity(pose, self.config.set_max)
        return t is not None and t != tile and t not in self.board and not self._lies_on_board_tile(pose)

    def _found_in_every_look(self, looks: list[list[TilePose]], keep: Callable[[TilePose], bool]) -> list[TilePose]:
        """Readings kept by `keep` in the first look that every other look also made (the same
        tile, about the same place)."""
        out = []
        for p in looks[0]:
            t = identity(p, self.config.set_max)
            if t is None or not keep(p):
                continue
            if all(any(identity(q, self.config.set_max) == t and np.hypot(*(q.centre - p.centre)) < 0.3 * p.length
                       for q in other) for other in looks[1:]):
                out.append(p)
        return out

    def _correct_from_closer_look(self, focus: BoardTile, tile: Tile, pose: TilePose,
                                  candidates: list[tuple[float, BoardTile, Any]], looks: list[list[TilePose]],
                                  obs: Observation) -> list[TrackEvent]:
        """The earlier play at `focus` corrected to what every closer look read there, when the
        round replays with it and `tile` is then legal (see `_look_closer`)."""
        assert self.current is not None
        referee = self.current.referee
        if focus.status != TileStatus.LEGAL:
            return []
        fp = focus.pose

        def in_its_place(p: TilePose) -> bool:
            return bool(np.hypot(*(p.centre - fp.centre)) < 0.3 * fp.length and angle_gap(p, fp) < 30)

        there = self._found_in_every_look(looks, in_its_place)
        if len(there) != 1:
            return []
        found = there[0]
        # the reading's ends in the board tile's order
        same_way = np.hypot(*(found.end_mid(0) - fp.end_mid(0))) <= np.hypot(*(found.end_mid(0) - fp.end_mid(1)))
        pips = found.pips if same_way else found.pips[::-1]
        new = Tile(*pips)
        if new == focus.tile or new in self.board or new == tile:
            return []
        touching = pips[focus.touching] if focus.touching is not None else None
        if touching is not None and touching != fp.pips[focus.touching]:
            return []  # the end against its parent was read right when the play was accepted
        trial = referee.copy()
        if trial.replace(focus.tile, new, touching) is None:
            return []
        new_pose = TilePose(fp.corners, (int(pips[0]), int(pips[1])))
        on = [(s, bt, c) for s, bt, c in candidates if bt.tile == focus.tile]
        if on:
            why = f"{tile} was laid against it"
            legal = trial.judge(tile, new, pose.pips[on[0][2].touching]).legal
        else:
            # the play lies elsewhere, flagged only because `focus` was read as a double waiting
            # for tiles (a 5-4 read 4-4 made a chickie, and the next play elsewhere was flagged)
            why = f"{tile} is legal where it lies once it is"
            legal = bool(candidates) and trial.judge(
                tile, candidates[0][1].tile, pose.pips[candidates[0][2].touching]).legal
        if not legal:
            return []
        old = focus.tile
        play = referee.replace(old, new, touching)
        assert play is not None
        msg = f"{old} was {new} misread: a closer look reads {new} there, and {why}, so the play is corrected"
        return self._enter_correction(focus, new, new_pose, focus.touching, play, obs, msg)

    def _dense_end_misread(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]],
                           obs: Observation) -> tuple[list[TrackEvent], Tile, TilePose] | None:
        """A play refused because its touching end does not match the open end it lies against,
        where both are dense values the half reader confuses on small tiles (`TrackerConfig.dense_confused`):
        one of the two ends was misread, and is mended where that explanation holds:

        * first the open end, the outer end of the tile laid before: that play is corrected, when
          the round replays with it and this play is then legal (events, and the tile and pose
          as they were);
        * else the new tile's touching end: it is the tile with the open end's value there, when
          that is a tile not played and no double (a notice, and that tile and pose).

        None where neither holds: the play is judged as read.

        Why: on small double-15 tiles the half reader reads runs of one value as its neighbour,
        sure of each (held out: 12-15 read right 0.88-0.89 of the time, 0-8 0.96-0.99), so the
        close second readings `Judge.ruling` tries are not there. A rendered round read 15-x tiles
        laid outward as 14-x; the 15-14 laid on the 15 of a "14-6" was flagged as laid the wrong
        way round, and such flags derailed the arm. Why the open end first: nothing checked it
        when its tile was played (any value may lie outward), while the new tile's touching end
        reached this point only if no close second reading of it fitted (`Judge.ruling`). Weighing
        the reader's own odds of both ends instead chose worse (in a rendered double-15
        round, 7 false flags against 3): it is sure of its misreadings. Only small
        tiles (`SMALL_TILE_PX`), whose ends the half reader reads by their pattern: a large
        tile's dots are counted one by one. A tile truly laid with such a neighbouring value
        against such an end is taken for a legal play: that cheat goes unflagged."""
        if self.current is None or not candidates:
            return None
        referee = self.current.referee
        _, focus, contact = candidates[0]
        if focus.status != TileStatus.LEGAL or focus.tile.is_double or focus.touching is None or focus.missing or \
                max(focus.pose.length, pose.length) >= SMALL_TILE_PX:
            return None
        inner, had = focus.pose.pips[focus.touching], focus.pose.pips[1 - focus.touching]
        near = contact.touching
        got = pose.pips[near]
        if min(had, got) < self.tuning.dense_confused or abs(had - got) > self.tuning.dense_confused_spread:
            return None
        # (checked last: the engine's ruling costs more than the checks above, and most plays are legal)
        verdict = self.judge.ruling(tile, pose, candidates)[2]
        if verdict.legal or verdict.error is None or verdict.error.code != "ends_do_not_match":
            return None

        def open_end() -> tuple[list[TrackEvent], Tile, TilePose] | None:
            new = Tile(inner, got)
            if new == tile or new in self.board or not new.in_set(self.config.set_max):
                return None
            trial = referee.copy()
            if trial.replace(focus.tile, new, inner) is None or not trial.judge(tile, new, got).legal:
                return None
            play = referee.replace(focus.tile, new, inner)
            assert play is not None
            self.table.note_dense_guess(tile, DenseGuess(tile, pose, got, len(referee.plays) + 1, focus.pose, new))
            pips = (inner, got) if focus.touching == 0 else (got, inner)
            msg = (f"{focus.tile} was {new} misread: {tile} was laid with its {got} against the end read "
                   f"{had}, a misread {got} on tiles this small, so the play is corrected")
            return (self._enter_correction(focus, new, TilePose(focus.pose.corners, pips), focus.touching, play,
                                           obs, msg), tile, pose)

        def near_end() -> tuple[list[TrackEvent], Tile, TilePose] | None:
            pips = (had, pose.pips[1]) if near == 0 else (pose.pips[0], had)
            alt = Tile(*pips)
            if alt.is_double or alt in self.board or not referee.judge(alt, focus.tile, had).legal:
                return None
            self.table.supersede(alt, tile)  # its place read as `tile` again is the same misreading
            self.table.note_dense_guess(alt, DenseGuess(tile, pose, got, len(referee.plays) + 1))
            note = Notice(obs.frame, obs.t, f"{tile} was {alt} misread: it lies against the {had} of {focus.tile}, "
                                            f"a misread {had} on tiles this small")
            return [note], alt, with_first_reading(TilePose(pose.corners, pips), pose)

        return open_end() or near_end()

    def _enter_correction(self, bt: BoardTile, new: Tile, pose: TilePose, touching: int | None, play: Any,
                          obs: Observation, message: str) -> list[TrackEvent]:
        """The board after the referee replaced the play of `bt` with `new` (`play`): `new` lies in
        its place, tiles laid on it now lie on `new`, and later readings of the old value there are
        the same misread. Returns the `PlayCorrected` and the corrected `TilePlayed`."""
        old = bt.tile
        self.table.lift(old)
        self.table.lay(BoardTile(new, pose, TileStatus.LEGAL, play.player, bt.on, touching, bt.frame, patch=bt.patch))
        for other in self.board.values():
            if other.on == old:
                other.on = new
        self.table.forget_legal_play(old)
        self.table.note_legal_play(new)
        self.table.supersede(new, old)
        slot = play.end % SLOT_STRIDE if play.on.is_double else None
        return [PlayCorrected(obs.frame, obs.t, str(new), str(old), message),
                TilePlayed(play.frame, play.t, str(new), play.player, str(play.on), slot, play.end)]

    def _missing_from_closer_look(self, double: BoardTile, tile: Tile, looks: list[list[TilePose]],
                                  obs: Observation) -> list[TrackEvent]:
        """Tiles every closer look found against the waiting `double` that the engine accepts
        there, played (see `_look_closer`)."""
        assert self.current is not None
        referee = self.current.referee
        events: list[TrackEvent] = []
        for found in self._found_in_every_look(looks, lambda p: self._unplayed_reading(p, tile)):
            new = identity(found, self.config.set_max)
            on_double = [c for c in self.judge.candidates(found) if c[1].tile == double.tile]
            if new is None or new in self.board or not on_double or \
                    not referee.judge(new, double.tile, found.pips[on_double[0][2].touching]).legal:
                continue
            events.append(Notice(obs.frame, obs.t, f"{new} was found on a closer look at {double.tile}, "
                                                   f"before {tile} was judged"))
            events.append(self.plays.enter(new, found, obs, on_double[:1]))
            waiting = referee.board.pending_placement()
            if waiting is None or waiting.tile != double.tile:
                break
        return events

    def _hole_before(self, tile: Tile, pose: TilePose) -> tuple[Tile, TilePose, BoardTile, Verdict] | None:
        """The one tile that must lie between the layout and `tile`, when `tile` lies a tile's
        length straight beyond an open end and nothing was read in between.

        The reader misses a tile now and then in every frame it is shown (a 40-px tile among
        sixty); without it, every tile laid beyond it would lie "apart" from the layout. The
        tile between is known without seeing it: its near end matches the open end, its far
        end the value of `tile` that points at it. Returns (that tile, its pose, the tile it
        goes on, the engine's verdict on it) when exactly one open end fits and the rules accept
        both plays. (A double between
        would lie across the arm, half a tile long: not inferred.)"""
        if self.current is None:
            return None
        referee = self.current.referee
        fits = []
        for bt in self.board.values():
            if bt.status not in (TileStatus.SPINNER, TileStatus.LEGAL) or bt.missing:
                continue
            slots = referee.open_slots(bt.tile)
            if not slots:
                continue
            need = referee.board.open_ends[slots[0]].value
            L, w = bt.pose.length, bt.pose.width
            for a, away, value in approaches(pose):
                if bt.tile.is_double:
                    quad = bt.pose.corners
                    gap = point_quad_distance(a, quad)
                    way = away
                    b = a - way * gap  # the outline point the straight arm leaves from
                    if point_quad_distance(b, quad) > 0.3 * w:
                        continue
                else:
                    if bt.free_end is None:
                        continue
                    b = bt.pose.end_mid(bt.free_end)
                    gap = float(np.hypot(*(a - b)))
                    way = (a - b) / max(gap, 1e-9)
                    if float(np.dot(bt.pose.axis(bt.free_end), way)) < 0.95 or float(np.dot(away, way)) < 0.95:
                        continue
                if not 0.85 * L <= gap <= 1.3 * L:
                    continue
                hole = Tile(need, value)
                if hole.is_double or hole in self.board or hole == tile or not hole.in_set(self.config.set_max):
                    continue
                side = np.array([-way[1], way[0]]) * w / 2
                far = b + way * gap
                middle = (b + far) / 2
                if any(np.hypot(*(o.pose.centre - middle)) < 0.5 * L for o in self.board.values()):
                    continue  # something was read in the gap (lying apart, or flagged): not a hole
                corners = np.array([b - side, b + side, far + side, far - side])
                fits.append((hole, TilePose(corners, (need, value)), bt))
        if len(fits) != 1:
            return None
        hole, hole_pose, parent = fits[0]
        trial = referee.copy()
        first = trial.judge(hole, parent.tile, hole_pose.pips[0])
        if not first.legal:
            return None
        trial.accept(hole, first, 0, 0.0, hole_pose.pips[0])
        if not trial.judge(tile, hole, hole_pose.pips[1]).legal:
            return None
        return hole, hole_pose, parent, first

    def _fill_hole(self, hole: Tile, pose: TilePose, parent: BoardTile, verdict: Verdict, tile: Tile,
                   obs: Observation) -> list[TrackEvent]:
        """Play the tile `_hole_before` found, saying so: it was inferred, not seen."""
        assert self.current is not None
        self.current.referee.accept(hole, verdict, obs.frame, obs.t, pose.pips[0])
        self.table.note_legal_play(hole)
        self.table.lay(BoardTile(hole, pose, TileStatus.LEGAL, verdict.player, parent.tile, 0, obs.frame))
        note = (f"{hole} was never read, but {tile} lies a tile beyond the open {pose.pips[0]} on "
                f"{parent.tile} with nothing seen between: {hole} is the only tile that fits there")
        return [Notice(obs.frame, obs.t, note),
                TilePlayed(obs.frame, obs.t, str(hole), verdict.player, str(parent.tile), verdict.slot, verdict.end)]
