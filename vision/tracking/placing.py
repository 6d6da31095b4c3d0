"""Changes made to the board: tiles placed, taken back, gone, and rounds started.

New tiles are placed in play order (each against the tile it lies on); the last play gone is a
take-back, any other tile gone a disturbed board.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from engine import Tile

from .board import BoardTile, Observation, TileStatus, identity
from .changes import is_last_play
from .observing import clusters
from .closer import DenseGuess
from .events import BoardCleared, BoardDisturbed, Notice, PlayCorrected, RoundStarted, TileTakenBack, TrackEvent
from .geometry import TilePose

Options = list[tuple[float, BoardTile, Any]]
"""Board tiles a new tile may lie against, best first (`Judge.candidates`)."""


class Placing:
    """Changes to the board: methods of `Tracker` (a mixin: placing a play tries the corrections of
    `closer` before it is entered, and follows the hand that laid it)."""

    def _follow_hand(self, obs: Observation) -> None:
        """If the hand that laid this tile came from another seat than the engine expects, the
        players in between drew and passed (which a camera does not see)."""
        if self.current is not None:
            self.hand_seats.follow_hand(self.current.referee, self.config.players, obs.frame, self._picture_size())

    def _take_back(self, bt: BoardTile, obs: Observation) -> list[TrackEvent]:
        self.table.lift(bt.tile)
        self.table.drop_flag_view(bt.tile)
        if bt.status == TileStatus.ILLEGAL:
            if self.current is not None:
                for item in self.current.illegal:
                    if item["tile"] == str(bt.tile) and item.get("taken_back_frame") is None:
                        item["taken_back_frame"] = obs.frame
            return [TileTakenBack(obs.frame, obs.t, str(bt.tile), bt.player, False)]
        assert self.current is not None
        guess = self.table.take_dense_guess(bt.tile)
        if guess is not None and len(self.current.referee.plays) == guess.plays:
            return self._undo_dense_guess(bt, guess, obs)
        play = self.current.referee.take_back()
        return [TileTakenBack(obs.frame, obs.t, str(bt.tile), play.player, True)]

    def _undo_dense_guess(self, bt: BoardTile, guess: DenseGuess, obs: Observation) -> list[TrackEvent]:
        """`bt`, a play taken as legal on a guessed misread end (`_dense_end_misread`), taken back
        before the next play: players take back the plays the table calls illegal and keep the
        legal ones, so it was laid as read. The guess is undone (the tile it lay against is as
        read again), and the play as read is flagged at the frame it was laid, and taken back.

        Why: in 12 fresh double-15 rounds (seed 38) two planted plays, a 15-12 laid on the 13 of
        a 13-8 and a 15-1 on the 13 of a 13-7, were taken for misread ends and went unflagged;
        the second left the arm misread for the rest of the round."""
        assert self.current is not None
        referee = self.current.referee
        events: list[TrackEvent] = []
        play = referee.take_back()  # (`_take_back` has taken it off the board)
        self.table.unsupersede(bt.tile, guess.read)
        on = play.on
        parent = self.board.get(guess.corrected) if guess.corrected is not None else None
        if parent is not None and guess.was_pose is not None:
            was = Tile(*guess.was_pose.pips)
            inner = guess.was_pose.pips[parent.touching or 0]  # (never None: see `_dense_end_misread`)
            undone = referee.replace(parent.tile, was, inner)
            if undone is not None:
                self.table.unsupersede(parent.tile, was)
                events += self._enter_correction(
                    parent, was, TilePose(parent.pose.corners, guess.was_pose.pips), parent.touching, undone,
                    obs, f"{parent.tile} was {was} after all: {guess.read}, laid against it, was taken back at once")
                on = was
        err = referee.judge(guess.read, on, guess.touching).error
        rule, message = (err.code, err.message) if err is not None else (None, f"{guess.read} was taken back at once")
        laid = next((o for o in self.window if o.frame == bt.frame), obs)
        flag = self.flags.raise_flag(guess.read, guess.pose, play.player, self.board.get(on) if on else None, on, rule,
                                     message, laid, frame=bt.frame, taken_back=obs.frame)
        return [*events,
                PlayCorrected(obs.frame, obs.t, str(guess.read), str(bt.tile),
                              f"{bt.tile} was taken back at once: it was laid as read, {guess.read}, and is flagged"),
                flag,
                TileTakenBack(obs.frame, obs.t, str(guess.read), play.player, False)]

    def _tiles_gone(self, gone: list[BoardTile], obs: Observation) -> list[TrackEvent]:
        events: list[TrackEvent] = []
        in_round = [bt for bt in self.board.values() if bt.status != TileStatus.LOOSE]
        if len(in_round) >= 2 and all(bt in gone for bt in in_round):
            return self._board_cleared(obs)
        missing = []
        # the newest first, so a take-back of the last play is seen before older tiles
        for bt in sorted(gone, key=lambda b: -b.frame):
            if bt.status == TileStatus.LOOSE:
                self.table.lift(bt.tile)
            elif bt.status == TileStatus.ILLEGAL or is_last_play(bt, self.book.last_played()):
                events.extend(self._take_back(bt, obs))
            elif bt.status == TileStatus.LEGAL and self.current is not None and \
                    (play := self.current.referee.take_back_entered_with_last(bt.tile)) is not None:
                # two tiles first seen in one reading were entered in a guessed order, and the
                # one taken back was entered first (a 14-4 taken back after an 11-3
                # seen with it was "missing", and the 11-4 laid on its later place was flagged)
                self.table.lift(bt.tile)
                self.table.drop_flag_view(bt.tile)
                events.append(TileTakenBack(obs.frame, obs.t, str(bt.tile), play.player, True))
            elif not bt.missing:
                bt.missing = True
                missing.append(str(bt.tile))
        if missing:
            events.append(BoardDisturbed(obs.frame, obs.t, missing=missing))
        return events

    def _board_cleared(self, obs: Observation) -> list[TrackEvent]:
        """Every tile gone at once: the round's tiles were swept up."""
        n = sum(1 for bt in self.board.values() if bt.status != TileStatus.LOOSE)
        self.table.clear()
        return [BoardCleared(obs.frame, obs.t, n, self.current is None)]

    def _place(self, found: list[tuple[Tile, TilePose, Observation]]) -> list[TrackEvent]:
        """Tiles found new or moved, placed: a moved tile disturbs the board; new tiles start the
        round (no board yet) or are placed one at a time, each the first in play order that lies
        against the board now, judged once the reader's likely misses and misreads around it
        are corrected; tiles touching nothing are set apart."""
        events: list[TrackEvent] = []
        moved = [(t, p, o) for t, p, o in found if t in self.board]
        fresh: list[tuple[Tile, TilePose, Observation]] = []
        for t, p, o in found:  # a replacement can also be found as a new tile: once is enough
            if t not in self.board and all(t != f[0] for f in fresh):
                fresh.append((t, p, o))
        if moved:
            o = moved[0][2]
            events.append(BoardDisturbed(o.frame, o.t, moved=[str(t) for t, _, _ in moved]))
        if not fresh:
            return events
        if self.current is None or not any(bt.status != TileStatus.LOOSE for bt in self.board.values()):
            events.extend(self._start_round(fresh))
            fresh = [(t, p, o) for t, p, o in fresh if t not in self.board]
        # the tile seen first goes first, unless another order is one the rules accept better
        # (a toe read late, after the tile played beyond the finished chickie: toe first)
        pending = sorted(fresh, key=lambda item: item[2].frame)
        if len(pending) > 1 and self.current is not None:
            pending = self._play_order(pending)
        window_clusters = clusters(self.window)  # the window does not change while placing
        loose: list[str] = []
        while pending:
            tile, pose, obs, cands = self._next_to_place(pending)
            if tile in self.board:
                continue  # played a moment ago, found on a closer look while judging another tile
            if not cands:
                placed = self._place_touching_nothing(tile, pose, obs, window_clusters, events, loose)
                if placed is None:
                    continue
                tile, pose, cands = placed
            self._enter_checked(tile, pose, obs, cands, events, alone=len(fresh) == 1)
        events.extend(self._after_placing(found[0][2], loose))
        return events

    def _next_to_place(self, pending: list[tuple[Tile, TilePose, Observation]]) \
            -> tuple[Tile, TilePose, Observation, Options]:
        """Take from `pending`, in its order, the first tile that lies against the board now (or
        the first, when none does), with the board tiles it may lie against."""
        options = [(k, self.judge.candidates(item[1])) for k, item in enumerate(pending)]
        placeable = [(k, c) for k, c in options if c]
        k, cands = placeable[0] if placeable else options[0]
        tile, pose, obs = pending.pop(k)
        return tile, pose, obs, cands

    def _place_touching_nothing(self, tile: Tile, pose: TilePose, obs: Observation, window_clusters: list[list[tuple[int, TilePose]]],
                                events: list[TrackEvent], loose: list[str]) -> tuple[Tile, TilePose, Options] | None:
        """A new tile touching no board tile it could lie against: the tile it lies on found on a
        closer look, a legal place a little further off (the camera's corners are never exact),
        a missed tile between it and an open end, or a closer reading as another tile; else it
        waits (a neighbour still being read, or a second box on a placed tile) or is set apart
        beside the layout. Returns what to judge, or None (events and `loose` told what was done)."""
        between = self._parent_from_closer_look(tile, pose, obs)
        if between:
            events.extend(between)
            cands = self.judge.candidates(pose)
            if cands:
                return tile, pose, cands
        wide = self.judge.candidates(pose, reach=2.0)
        legal = [c for c in wide
                 if self.current is not None
                 and self.current.referee.judge(tile, c[1].tile, pose.pips[c[2].touching]).legal]
        if legal:
            return tile, pose, legal[:1]
        if self._undecided_near(pose, window_clusters):
            return None  # the tile it lies against may still be being read: wait for it
        if (hole := self._hole_before(tile, pose)) is not None:
            events.extend(self._fill_hole(*hole, tile, obs))
            return tile, pose, self.judge.candidates(pose)
        if self._lies_on_board_tile(pose):
            return None  # a second box on a tile already placed: tiles lying flat do not overlap
        if (reread := self._reread_from_closer_look(tile, pose, [], obs)) is not None:
            # read closer, it is another tile, and one the rules accept where it lies (a 0-0 laid
            # across an arm's end, read 2-0, touched nothing a 2-0 could go on)
            note, tile, pose, cands = reread
            events.append(note)
            return tile, pose, cands
        # touching nothing a tile could be laid against: set down beside the layout (or a reading
        # of something that is not a tile), not a play to judge
        self.table.lay(BoardTile(tile, pose, TileStatus.LOOSE, None, None, None, obs.frame))
        loose.append(str(tile))
        return None

    def _enter_checked(self, tile: Tile, pose: TilePose, obs: Observation, cands: Options,
                       events: list[TrackEvent], alone: bool) -> None:
        """Enter the play of `tile` once what would wrongly flag it is ruled out: a flagged parent
        read again, a flag the table let stand, a missed tile between it and an open end, a reading
        resting on one run of the recognizer (the next frame is read afresh first, and the play
        waits), a closer reading of it, a closer look where the rules say something is missing, a
        misread dense end. `alone`: the only tile found, so the hand that laid it is followed."""
        fixed = self.flags.reread_flagged_parent(tile, pose, cands, obs, self.window)
        if fixed:
            events.extend(fixed)
            cands = self.judge.candidates(pose) or cands
        if self.flags.let_stand(cands[0][1] if cands else None, obs):
            cands = self.judge.candidates(pose) or cands  # before the checks that precede a flag
        if not self.judge.ruling(tile, pose, cands)[2].legal and \
                (hole := self._hole_before(tile, pose)) is not None:
            # it touches a tile it cannot go on, but lies a tile's length beyond an open end the
            # one tile between would make it legal: that tile was missed, not the rules
            events.extend(self._fill_hole(*hole, tile, obs))
            cands = self.judge.candidates(pose) or cands
        if self.flags.unsure(tile, pose, cands, self.window):
            self.runs.ask_fresh()  # read the next frame afresh before flagging anyone
            return
        reread = self._reread_from_closer_look(tile, pose, cands, obs)
        if reread is not None:
            note, tile, pose, cands = reread
            events.append(note)
        closer = self._look_closer(tile, pose, cands, obs)
        if closer:
            events.extend(closer)
            cands = self.judge.candidates(pose) or cands
        misread = self._dense_end_misread(tile, pose, cands, obs)
        if misread is not None:
            events.extend(misread[0])
            tile, pose = misread[1], misread[2]
            cands = self.judge.candidates(pose) or cands
        if alone:
            self._follow_hand(obs)  # (a play read with others at once came from no one hand)
        events.append(self.plays.enter(tile, pose, obs, cands))

    def _after_placing(self, o: Observation, loose: list[str]) -> list[TrackEvent]:
        """A tile set apart earlier may now touch a tile laid since (a chickie read after its toe):
        it was a play all along. Tiles set apart now are reported, and flags raised while a double
        waited are judged again."""
        events: list[TrackEvent] = []
        for bt in [b for b in self.board.values() if b.status == TileStatus.LOOSE and str(b.tile) not in loose]:
            cands = self.judge.candidates(bt.pose)
            if cands:
                self.table.lift(bt.tile)
                events.append(self.plays.enter(bt.tile, bt.pose, o, cands))
        if loose:
            events.append(BoardDisturbed(o.frame, o.t, loose=loose))
        if self.table.flag_views:
            events.extend(self.flags.rejudge_waiting(o, self.window))
        return events

    def _play_order(self, items: list[tuple[Tile, TilePose, Observation]]) -> list[tuple[Tile, TilePose, Observation]]:
        """Several tiles appeared at once (two plays under one hand, or a missed still moment):
        the order the engine finds fewest faults with, trying every order of up to four tiles."""
        import itertools

        if len(items) > 4:
            return items
        assert self.current is not None
        best: tuple[int, int, list] | None = None
        for k, order in enumerate(itertools.permutations(items)):
            referee = self.current.referee.copy()
            placed: dict[Tile, BoardTile] = {}
            faults = 0
            for tile, pose, obs in order:
                cands = self.judge.candidates(pose, extra=placed, referee=referee)
                verdict = None
                for score, bt, contact in cands:
                    if score > cands[0][0] + self.tuning.alternative_margin:
                        break
                    v = referee.judge(tile, bt.tile, pose.pips[contact.touching])
                    if v.legal:
                        verdict = v
                        referee.accept(tile, v, obs.frame, obs.t)
                        placed[tile] = BoardTile(tile, pose, TileStatus.LEGAL, v.player, bt.tile, contact.touching,
                                                 obs.frame)
                        break
                if verdict is None:
                    faults += 1
            if best is None or faults < best[0]:
                best = (faults, k, list(order))
            if faults == 0:
                break
        assert best is not None
        return best[2]

    def _lies_on_board_tile(self, pose: TilePose) -> bool:
        """Whether `pose` covers a good part (a third) of a tile of the layout."""
        import cv2

        quad = pose.corners.astype(np.float32)
        area = abs(cv2.contourArea(quad))
        for bt in self.board.values():
            if bt.status == TileStatus.LOOSE or bt.missing:
                continue
            other = bt.pose.corners.astype(np.float32)
            small = min(area, abs(cv2.contourArea(other)))
            if small > 0 and cv2.intersectConvexConvex(quad, other)[0] > self.tuning.overlap_same_tile * small:
                return True
        return False

    def _undecided_near(self, pose: TilePose, clusters: list[list[tuple[int, TilePose]]]) -> bool:
        """Whether a new reading near `pose` (another place; `clusters` of the window's new
        readings) is still waiting for its values."""
        for cl in clusters:
            ref = cl[-1][1]
            d = float(np.hypot(*(ref.centre - pose.centre)))
            if 0.4 * ref.length < d < 2.5 * ref.length and len({k for k, _ in cl}) >= 2 and \
                    identity(ref, self.config.set_max) not in self.board:
                return True
        return False

    def _start_round(self, fresh: list[tuple[Tile, TilePose, Observation]]) -> list[TrackEvent]:
        doubles = [item for item in fresh if item[0].is_double]
        if not doubles and self._lone_spinner_misread(fresh):
            doubles = fresh
        if not doubles:
            return []
        events: list[TrackEvent] = []
        if len(fresh) == 1:
            spinner_item = doubles[0]
        else:  # joined a round in progress: the spinner is the double nearest the middle of the layout
            mid = np.mean([p.centre for _, p, _ in fresh], axis=0)
            spinner_item = min(doubles, key=lambda it: np.hypot(*(it[1].centre - mid)))
        tile, pose, obs = spinner_item
        round_index = self.book.round_index_for(tile)
        round_double = self.config.set_max - round_index
        if self.book.told_round_double(tile) is not None and tile != Tile(round_double, round_double):
            # told which round this is, and the rules say it starts with that double: a spinner
            # read as another double (a 11-11 read as 9-9 on a crowded table), or laid alone and
            # read as a tile with one of its values, is misread, and following the misreading
            # would make every play on it look illegal
            want = Tile(round_double, round_double)
            events.append(Notice(obs.frame, obs.t, f"the spinner was read as {tile}; this round starts with {want}, "
                                                   f"so it is taken as {want}"))
            self.table.supersede(want, tile)
            tile, pose = want, TilePose(pose.corners, (round_double, round_double))
        referee = self.book.begin_round(tile, round_index).referee
        self.table.start_round()
        self.table.lay(BoardTile(tile, pose, TileStatus.SPINNER, referee.spinner_player, None, None, obs.frame))
        events.append(RoundStarted(obs.frame, obs.t, str(tile), round_index, round_double, referee.first_player))
        if len(fresh) > 1:
            events.append(Notice(obs.frame, obs.t, f"joined a round in progress: {len(fresh)} tiles on the table; "
                                                   "plays are credited in turn order from the spinner"))
        return events

    def _lone_spinner_misread(self, fresh: list[tuple[Tile, TilePose, Observation]]) -> bool:
        """Whether the one tile on an empty table, read as a tile that is not a double but carries
        the double this round must start with, is that double misread: the spinner is laid first
        and alone. (A far double-13 read as 14-13 in the only frame read while it lay alone was set
        apart as a loose tile, and every play of the round after it with it.)"""
        if len(fresh) != 1 or self.board:
            return False
        tile = fresh[0][0]
        return self.book.told_round_double(tile) in (tile.high, tile.low)
