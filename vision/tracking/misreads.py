"""Board tiles read as other tiles: which reading is wrong, and the correction.

A place that still looks as it did holds the same tile; the reading the reader was less sure of
(or the one the pip colours contradict) is the misreading.
"""
from __future__ import annotations

import numpy as np

from engine import Tile

from .board import BoardTile, Observation, TileStatus, identity, mean_pose
from .changes import readings
from .events import TrackEvent
from .geometry import TilePose


class Misreads:
    """Misread plays corrected: methods of `Tracker` (a mixin: observing a new tile calls on it, and
    it enters corrections through `closer` over the window's readings)."""

    def _correct_misread_play(self, bt: BoardTile, tile: Tile, recent: list[Observation]) -> list[TrackEvent]:
        """The play of `bt` corrected to `tile`, which every recent reading finds in its unchanged
        place, when the reader was unsure of `bt` (or boxed only part of a tile) and is sure of `tile`
        now, and the round replays
        with `tile` there (same parent, the same value against it).

        Why: a play is taken from the first few still readings, and those can be of a picture the
        reader is unsure of (a box taking in part of a neighbour: a 9-5 laid on 9-8 read 9-9,
        with 9-6 and 9-7 as close seconds). When later readings all read 9-5, sure, the first
        reading was the misread; keeping 9-9 lost the whole line built on the 5 (seven plays,
        each seen as a tile set down apart from the layout)."""
        if self.current is None or bt.status != TileStatus.LEGAL or tile in self.board or bt.touching is None \
                or self.table.is_superseded(bt.tile, tile):
            return []
        old = bt.tile
        poses = [o.conflicts[old][1] for o in recent if old in o.conflicts and o.conflicts[old][0] == tile]
        if not poses or any(cost < self.tuning.sure_reading_cost for p in poses for _, cost in p.second):
            return []
        boxed_short = bt.pose.length < self.tuning.short_box * poses[-1].length
        boxed_long = bt.pose.length * self.tuning.short_box > poses[-1].length
        if not (boxed_short or boxed_long) and \
                not any(cost < self.tuning.sure_reading_cost for _, cost in bt.pose.second):
            return []
        fp, now = bt.pose, poses[-1]
        touching = self._touching_end(bt, now)  # (bt.touching is known here)
        assert touching is not None
        if now.pips[touching] != fp.pips[bt.touching]:
            return []
        referee = self.current.referee
        play = referee.replace(old, tile, now.pips[touching])
        if play is None:
            return []
        obs = recent[-1]
        how = ("boxed only part of the tile" if boxed_short else
               "boxed it with part of a neighbour" if boxed_long else "were unsure")
        events = self._enter_correction(
            bt, tile, now, touching, play, obs,
            f"{old} was {tile} misread: every reading since reads {tile} in its place, sure, "
            f"where the first {how}, so the play is corrected")
        # a tile set down apart because it matched the misread value may now be a play on it
        for loose in sorted((b for b in self.board.values() if b.status == TileStatus.LOOSE), key=lambda b: b.frame):
            cands = self.judge.candidates(loose.pose)
            if cands:
                self.table.lift(loose.tile)
                first = next((o for o in self.window if o.frame == loose.frame), obs)
                events.append(self.plays.enter(loose.tile, loose.pose, first, cands))
        return events

    def _board_tile_misread(self, known: BoardTile, tile: Tile, pose: TilePose,
                            recent: list[Observation]) -> bool:
        """Whether the play of `known` (read as `tile`) was the misread, not the new reading of
        `tile` at another place: `known`'s own place now reads as another tile in every recent
        reading, sure, and the round replays with it corrected (together with plays laid on it
        whose places read otherwise now too), `tile` then legal where it lies. The corrections
        are entered (events in `_pending`) and True returned; otherwise nothing changes.

        Why: a play read from one camera position can be read otherwise, and rightly, from
        another (a double-15 15-14 read 14-13 until the camera was nudged). When the real 14-13
        is laid later, the set having one of each says one of the two readings is wrong; without
        this the new tile was dropped, its chickie stayed open and every later play elsewhere
        was flagged (in a rendered round, 20 false flags from one misread)."""
        if self.current is None or known.status != TileStatus.LEGAL or readings(recent) < 2:
            return False
        referee = self.current.referee
        fixes: dict[Tile, tuple[Tile, int | None]] = {}
        poses: dict[Tile, TilePose] = {}
        ends: dict[Tile, int] = {}
        queue = [known]
        while queue:
            bt = queue.pop(0)
            reading = self._steady_other_reading(bt, recent)
            if reading is None or reading[0] == tile or reading[0] in self.board or \
                    any(reading[0] == new for new, _ in fixes.values()):
                if bt is known:
                    return False
                continue  # read as before: kept as it is (the replay says whether it still fits)
            new, now = reading
            end = self._touching_end(bt, now)
            if end is None:
                return False
            fixes[bt.tile] = (new, now.pips[end])
            poses[bt.tile] = now
            ends[bt.tile] = end
            queue.extend(b for b in self.board.values() if b.on == bt.tile and b.status == TileStatus.LEGAL)
        trial = referee.copy()
        if trial.replace_many(fixes) is None:
            return False
        # each corrected tile's far end must be the end left open, as the pictures show it
        if any(trial.open_value(new) != poses[old].pips[1 - ends[old]]
               for old, (new, _) in fixes.items() if not new.is_double):
            return False
        cands = self.judge.candidates(pose)[:2]
        if not any(trial.judge(tile, fixes.get(bt.tile, (bt.tile, None))[0],
                               pose.pips[contact.touching]).legal for _, bt, contact in cands):
            return False
        plays = referee.replace_many(fixes)
        assert plays is not None
        obs = recent[-1]
        for (old, (new, _)), play in zip(list(fixes.items()), plays):
            self._pending.extend(self._enter_correction(
                self.board[old], new, poses[old], ends[old], play, obs,
                f"{old} was {new} misread: {tile} is laid at another place, and {old}'s place reads "
                f"{new} in every reading since, so the play is corrected"))
        return True

    @staticmethod
    def _read_by_colour(bt: BoardTile, tile: Tile, recent: list[Observation]) -> bool:
        """Whether `bt`'s place, read as `tile` in `recent`, was read so by its pips' colour in at
        least half of those readings (`TilePose.recoloured`)."""
        poses = [o.conflicts[bt.tile][1] for o in recent if bt.tile in o.conflicts and o.conflicts[bt.tile][0] == tile]
        return bool(poses) and 2 * sum(p.recoloured for p in poses) >= len(poses)

    def _correct_recoloured(self, items: list[tuple[BoardTile, Tile]], recent: list[Observation]) -> list[TrackEvent]:
        """The plays of board tiles whose places now read as other tiles, some of them by their
        pips' colour (`_read_by_colour`), the others sure, corrected together when the round
        replays with all of them; then flags raised since the first of them are judged again.

        Why: the half reader reads the dense values of a small double-15 tile the same wrong way
        on every such end (a 15 of three rows of five as a 13, sure at 0.7-0.9), so a line of 15s
        was played as a line of 13s, legal throughout; only when a true 13 of another colour was
        laid did the picture show the misread (`vision.colour_check`), every 15 then read as 15.
        One at a time, each correction broke the round (the 15-13 on the 15-0 did not replay
        while the 15-0 was still a 13-0), and the first readings, sure, were kept
        (`_correct_misread_play`): a rendered double-15 round lost a quarter of its plays so."""
        if self.current is None:
            return []
        fixes: dict[Tile, tuple[Tile, int | None]] = {}
        poses: dict[Tile, TilePose] = {}
        ends: dict[Tile, int] = {}
        by_colour: set[Tile] = set()
        for bt, tile in sorted(items, key=lambda it: (it[0].frame, str(it[0].tile))):  # in the order laid
            if bt.status != TileStatus.LEGAL or bt.touching is None or tile in self.board or \
                    self.table.is_superseded(bt.tile, tile):
                continue
            reads = [o.conflicts[bt.tile][1] for o in recent
                     if bt.tile in o.conflicts and o.conflicts[bt.tile][0] == tile]
            if self._read_by_colour(bt, tile, recent):
                by_colour.add(bt.tile)
            elif any(cost < self.tuning.sure_reading_cost for p in reads for _, cost in p.second):
                continue  # read otherwise, but not by colour and not sure: no part of the correction
            now = reads[-1]
            end = self._touching_end(bt, now)
            assert end is not None
            fixes[bt.tile] = (tile, now.pips[end])
            poses[bt.tile] = now
            ends[bt.tile] = end
        if not by_colour:
            return []  # sure readings that disagree, and nothing in the pictures to say which is right
        referee = self.current.referee
        trial = referee.copy()
        if trial.replace_many(fixes) is None:
            return []
        # each corrected tile's far end must be the end left open, as the pictures show it
        if any(trial.open_value(new) != poses[old].pips[1 - ends[old]]
               for old, (new, _) in fixes.items() if not new.is_double):
            return []
        first = min(self.board[old].frame for old in fixes)
        plays = referee.replace_many(fixes)
        assert plays is not None
        obs = recent[-1]
        events: list[TrackEvent] = []
        for (old, (new, _)), play in zip(list(fixes.items()), plays):
            why = ("where another tile's end of the value first read shows pips of another colour" if old in by_colour
                   else "sure, and the plays corrected with it by their pips' colour replay only so")
            events.extend(self._enter_correction(
                self.board[old], new, poses[old], ends[old], play, obs,
                f"{old} was {new} misread: its place reads {new} in every reading since, {why}, "
                f"so the play is corrected"))
        for bt in sorted((b for b in self.board.values()
                           if (b.status == TileStatus.ILLEGAL or b.stood) and b.frame >= first),
                         key=lambda b: b.frame):
            if self.board.get(bt.tile) is not bt or not (bt.status == TileStatus.ILLEGAL or bt.stood):
                continue
            msg = f"{bt.tile} was legal after all: the plays it was judged against were misread, and are corrected"
            withdrawn = self.flags.withdraw_stood(bt, [], obs, msg) if bt.stood else \
                self.flags.withdraw(bt, obs, msg, self.window)
            if withdrawn:
                events.extend(withdrawn)
                events.extend(self.flags.rejudge_built_on(bt.tile, obs, self.window))
        return events

    def _steady_other_reading(self, bt: BoardTile, recent: list[Observation]) -> tuple[Tile, TilePose] | None:
        """The one other tile `bt`'s place reads as in (all but one of) `recent`, sure every time."""
        reads = [o.conflicts[bt.tile] for o in recent if bt.tile in o.conflicts and bt.tile not in o.seen]
        if len(reads) < max(2, len(recent) - 1) or len({t for t, _ in reads}) != 1:
            return None
        if any(cost < self.tuning.sure_reading_cost for _, p in reads for _, cost in p.second):
            return None
        return reads[-1]

    @staticmethod
    def _touching_end(bt: BoardTile, now: TilePose) -> int | None:
        """Which end of a new reading `now` of `bt`'s place lies against `bt`'s parent: the one
        nearer the end that touched it before."""
        if bt.touching is None:
            return None
        near = bt.pose.end_mid(bt.touching)
        return 0 if np.hypot(*(now.end_mid(0) - near)) <= np.hypot(*(now.end_mid(1) - near)) else 1

    def _legal_of_twin_boxes(self, cl: list[tuple[int, TilePose]], a: Tile, b: Tile, need: int) -> Tile | None:
        """Of two readings of one place that come together, in one reading after another, the
        one the engine accepts there (None unless exactly one is legal).

        Two boxes at one place in the same picture are one tile boxed twice, the second box
        taking in part of a neighbour: tiles lying flat do not overlap. Reading the picture
        again gives the same two boxes, so waiting for fresh readings settles nothing; a
        phantom's values match no open end, the tile's own do."""
        if self.current is None:
            return None
        top = self.config.set_max
        reads: dict[Tile, set[int]] = {a: set(), b: set()}
        for k, p in cl:
            t = identity(p, top)
            if t in reads:
                reads[t].add(k)
        if len(reads[a] & reads[b]) < need:
            return None
        legal = []
        for t in (a, b):
            pose = mean_pose([p for _, p in cl if identity(p, top) == t])
            cands = self.judge.candidates(pose)
            if any(self.current.referee.judge(t, bt.tile, pose.pips[c.touching]).legal
                   for score, bt, c in cands if score <= cands[0][0] + self.tuning.alternative_margin):
                legal.append(t)
        return legal[0] if len(legal) == 1 else None

    def _place_unchanged(self, pose: TilePose, obs: Observation) -> bool:
        """Whether `pose`'s place looks in `obs` as it did on the board settled before the last
        motion: a tile laid changes the picture where it lies, so a "tile" at an unchanged place
        is something the reader made of what was already on the table (the strip of table
        between two tiles side by side, framed by their edges, reads as a tile, again and again)."""
        ref = self.table.before_motion
        if ref is None or obs.motion is not None:
            return False
        return ref.looks_alike(obs.image, pose, self.tuning.pictures)

    def _fits_open_end(self, pose: TilePose) -> bool:
        """Whether `pose` lies against an open end of the layout with that end's value: then a
        reading at a place that looks as it did before the last motion is taken for a tile the
        reader missed in the frames after it was laid, so that the board settled with it in the
        picture (in a rendered round, a 6-11 laid on the 11 of an 11-8 just before the camera was
        nudged went unread for the rest of the round, and two tiles played on it with it), not
        for the table read as a tile: that reading would have to give the end's very value."""
        if self.current is None:
            return False
        for _, bt, contact in self.judge.candidates(pose)[:2]:
            if bt.status not in (TileStatus.SPINNER, TileStatus.LEGAL, TileStatus.JOINED) or \
                    not self.current.referee.open_slots(bt.tile):
                continue
            value = bt.tile.high if bt.tile.is_double else bt.pose.pips[bt.free_end]
            if pose.pips[contact.touching] == value:
                return True
        return False

    def _misread_in_place(self, tile: Tile, pose: TilePose) -> tuple[Tile, TilePose] | None:
        """A new tile read as `tile`, which still lies in its own place: the reading is wrong
        somewhere. Of the readings one pip away on one end that are no board tile, the one the
        engine accepts where this tile lies is taken; failing any, the one whose end against the
        layout has the open end's value, which the engine refuses only for the moment's rules (a
        double waiting for its tiles, a spinner for its arms). With none, or more than one, the
        tracker waits for a better reading rather than guess.

        Why the second kind: a planted 14-7 laid on the 14 of a 15-14 while a chickie waited was
        read 15-7, a board tile, in every reading; with only legal readings considered it could
        never be a new tile, and a planted play is refused by definition (a box that
        also takes in part of the 15-14 is too long to lie against it, and that play is still missed)."""
        if self.current is None:
            return None
        a, b = pose.pips
        top = self.config.set_max
        legal: dict[Tile, TilePose] = {}
        fitting: dict[Tile, TilePose] = {}
        for na, nb in ((a - 1, b), (a + 1, b), (a, b - 1), (a, b + 1)):
            if not (0 <= na <= top and 0 <= nb <= top):
                continue
            alt = Tile(na, nb)
            if alt in self.board or alt in legal or alt in fitting:
                continue
            alt_pose = TilePose(pose.corners, (na, nb))
            if any(self.current.referee.judge(alt, bt.tile, alt_pose.pips[contact.touching]).legal
                   for _, bt, contact in self.judge.candidates(alt_pose)[:2]):
                legal[alt] = alt_pose
            elif self._fits_open_end(alt_pose):
                fitting[alt] = alt_pose
        fits = legal or fitting
        if len(fits) != 1:
            return None
        alt, alt_pose = next(iter(fits.items()))
        self.table.supersede(alt, tile)  # its place read as `tile` again is the same misreading
        return alt, alt_pose
