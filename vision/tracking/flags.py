"""Flagged plays: raised on enough agreeing readings, let stand, withdrawn or judged again.

A flag rests on the readings, which can be wrong: it waits for several runs of the recognizer,
is withdrawn when the table shows the play was legal after all, and is let stand when play went
on from it. The flags are kept by a `FlagKeeper` the tracker holds, over the board model.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from engine import Tile
from engine.board import SLOT_STRIDE

from .board import BoardTile, Observation, TileStatus, identity
from .changes import readings
from .events import FlagWithdrawn, TilePlayed, TrackEvent
from .evidence import EventSink, FlagScene, emit
from .geometry import TilePose
from .pictures import place_looks_alike
from .tuning import WAITING_DOUBLE_RULES, PictureConfig, TrackerConfig

if TYPE_CHECKING:
    from engine import GameConfig

    from .bookkeeping import GameBook
    from .judging import Judge
    from .table import TableModel


class FlagKeeper:
    """Flags on plays: raised (recorded in the round's book and told to the sinks), let stand,
    withdrawn and judged again. It changes the board model and the round's referee, and asks the
    `Judge` where a tile could go; the tracker's window of observations is handed in where a
    flag weighs the readings."""

    def __init__(self, table: TableModel, book: GameBook, judge: Judge, sinks: list[EventSink],
                 config: GameConfig, tuning: TrackerConfig) -> None:
        self.table = table
        self.book = book
        self.judge = judge
        self.sinks = sinks
        """Told of each flagged play as it is made (`evidence.EventSink`)."""
        self.config = config
        self.tuning = tuning

    def rejudge_waiting(self, obs: Observation, window: Sequence[Observation]) -> list[TrackEvent]:
        """A play flagged because a double still waited for tiles is judged again when a tile
        the reader found only later turns out to have lain there already when the flag was
        raised (its place looked then as it looks now): the double was fed in time, the reader
        had missed its tile (a hand's shadow, a 40-px tile lost among sixty), and the play was
        legal. It is taken as played at its own frame and the flag is withdrawn."""
        if self.book.current is None or obs.image is None:
            return []
        events: list[TrackEvent] = []
        for tile, (image, to_then) in self.table.flag_view_items():
            bt = self.table.tiles.get(tile)
            if bt is None or not (bt.status == TileStatus.ILLEGAL or bt.stood):
                self.table.drop_flag_view(tile)
                continue
            # (a tile first seen with the flagged one may have been laid before it in the same
            # stretch of hands: the order the rules accept is the likelier one, as in `_play_order`)
            earlier = [b for b in self.table.tiles.values()
                       if b.status == TileStatus.LEGAL and not b.stood and b.frame >= bt.frame
                       and not self.table.has_flag_view(b.tile) and
                       self._lay_there_at(b, image, to_then, obs.image, self.tuning.pictures)]
            if not earlier:
                continue
            seen = ", ".join(str(b.tile) for b in earlier)
            msg = (f"{tile} was legal after all: {seen}, read only later, already lay on the table when it "
                   f"was played, so the flag on it is withdrawn")
            withdrawn = self.withdraw_stood(bt, earlier, obs, msg) if bt.stood else \
                self.withdraw(bt, obs, msg, window)
            if withdrawn:
                events.extend(withdrawn)
                events.extend(self.rejudge_built_on(tile, obs, window))
        return events

    def withdraw_stood(self, bt: BoardTile, earlier: list[BoardTile], obs: Observation,
                       message: str) -> list[TrackEvent]:
        """`withdraw` for a flagged play the table kept (`let_stand`): the tiles
        read only later go before it in the round, and it becomes a plain play, where the round
        replays so (no events if not)."""
        assert self.book.current is not None
        flag = self.standing(bt.tile)
        play = self.book.current.referee.stand_corrected(bt.tile, [b.tile for b in earlier])
        if flag is None or play is None:
            return []
        flag["withdrawn"] = True
        self.table.drop_flag_view(bt.tile)
        bt.stood = False
        bt.player = play.player
        slot = play.end % SLOT_STRIDE if play.on.is_double else None
        return [FlagWithdrawn(obs.frame, obs.t, str(bt.tile), str(bt.tile), message),
                TilePlayed(play.frame, play.t, str(bt.tile), play.player, str(play.on), slot, play.end)]

    def withdraw(self, bt: BoardTile, obs: Observation, message: str,
                 window: Sequence[Observation]) -> list[TrackEvent]:
        """Judge a flagged tile again where it lies; if the engine now accepts it, withdraw the
        flag and enter it as played at its own frame (no events if not)."""
        assert self.book.current is not None
        book = self.book.current
        tile = bt.tile
        cands = self.judge.candidates(bt.pose)
        if not cands:
            return []
        now, pose, verdict, parent, touching, _ = self.judge.ruling(tile, bt.pose, cands)
        if not verdict.legal or now != tile or parent is None:
            return []
        flag = self.standing(tile)
        if flag is None:
            return []
        flag["withdrawn"] = True
        self.table.drop_flag_view(tile)
        first = next((o for o in window if o.frame == bt.frame), obs)
        book.referee.accept(tile, verdict, bt.frame, first.t, pose.pips[touching] if touching is not None else None)
        self.table.note_legal_play(tile)
        self.table.lay(BoardTile(tile, pose, TileStatus.LEGAL, verdict.player, parent.tile, touching, bt.frame))
        return [FlagWithdrawn(obs.frame, obs.t, str(tile), str(tile), message),
                TilePlayed(bt.frame, first.t, str(tile), verdict.player, str(parent.tile), verdict.slot, verdict.end)]

    def rejudge_built_on(self, tile: Tile, obs: Observation, window: Sequence[Observation]) -> list[TrackEvent]:
        """Tiles flagged for lying against `tile` while it was flagged ("not part of the
        layout") are judged again now that its flag is withdrawn, in the order they were laid,
        and so on down each line built on them: one tile the reader missed must not leave a
        whole arm flagged."""
        events: list[TrackEvent] = []
        todo = [tile]
        while todo:
            parent = todo.pop(0)
            built = sorted((b for b in self.table.tiles.values() if b.status == TileStatus.ILLEGAL and b.on == parent),
                           key=lambda b: b.frame)
            for bt in built:
                msg = (f"{bt.tile} was legal after all: it lies against {parent}, whose flag was "
                       f"withdrawn, so the flag on it is withdrawn too")
                withdrawn = self.withdraw(bt, obs, msg, window)
                if withdrawn:
                    events.extend(withdrawn)
                    todo.append(bt.tile)
        return events

    @staticmethod
    def _lay_there_at(bt: BoardTile, then: np.ndarray, to_then: np.ndarray, now: np.ndarray,
                      config: PictureConfig) -> bool:
        """Whether `bt`'s place looked in the picture `then` as it looks `now` (`to_then` maps
        today's coordinates to that picture's)."""
        return place_looks_alike(then, now, bt.pose, bt.pose.transformed(to_then), config)

    def raise_flag(self, tile: Tile, pose: TilePose, player: int | None, parent: BoardTile | None, on: Tile | None,
                   rule: str | None, message: str, laid: Observation, frame: int | None = None,
                   taken_back: int | None = None) -> TilePlayed:
        """An illegal play of `tile` on `on`, laid at `frame` (by default `laid`'s, the picture its
        sinks are told it was seen in): its event, handed to the tracker's sinks (`evidence.emit`) and
        naming the record they kept, and entered in the round's record (taken back at frame
        `taken_back`, where it was)."""
        assert self.book.current is not None
        frame = laid.frame if frame is None else frame
        event = TilePlayed(frame, laid.t, str(tile), player, None if on is None else str(on), None, None,
                           legal=False, rule=rule, message=message)
        evidence = event.evidence = emit(self.sinks, [event], FlagScene(laid, tile, pose, parent))
        self.book.current.illegal.append({"tile": str(tile), "player": player, "on": None if on is None else str(on),
                                     "rule": rule, "message": message, "frame": frame, "t": round(laid.t, 3),
                                     "evidence": evidence,
                                     **({"taken_back_frame": taken_back} if taken_back is not None else {})})
        return event

    def laid_before_last(self, tile: Tile, pose: TilePose, parent: BoardTile, touching: int | None,
                         obs: Observation) -> TrackEvent | None:
        """A play refused because the double laid last still waits for tiles, when the table shows
        it was laid before that double: its place looks as it did before the hands that laid the
        double came in, and the double's place does not. The reader had missed it for a few still
        frames (a 40-px tile among many), and the next player fed the layout elsewhere, laying the
        double; entered in the order the camera saw them, the earlier play looked like play
        elsewhere while the chickie waited (in a rendered round). It is entered before the
        double, where both plays are legal in that order."""
        assert self.book.current is not None
        referee = self.book.current.referee
        last = referee.plays[-1] if referee.plays else None
        double = self.table.tiles.get(last.tile) if last is not None else None
        ref = self.table.still_before_motion
        if last is None or double is None or not last.tile.is_double or last.stood or ref is None or \
                obs.image is None or obs.motion is not None:
            return None
        if not ref.looks_alike(obs.image, pose, self.tuning.pictures) or \
                ref.looks_alike(obs.image, double.pose, self.tuning.pictures):
            return None
        play = referee.play_before_last(tile, parent.tile, pose.pips[touching] if touching is not None else None,
                                        obs.frame, obs.t)
        if play is None:
            return None
        self.table.note_legal_play(tile)
        self.table.lay(BoardTile(tile, pose, TileStatus.LEGAL, play.player, parent.tile, touching, obs.frame))
        double.player = referee.plays[-1].player
        slot = play.end % SLOT_STRIDE if play.on.is_double else None
        return TilePlayed(obs.frame, obs.t, str(tile), play.player, str(parent.tile), slot, play.end)

    def would_flag(self, obs: Observation) -> bool:
        """Whether `obs` shows a new tile against the layout whose play, as read, the engine
        refuses. Its flag will wait for `TrackerConfig.flag_runs` runs of the recognizer that agree, so the
        frames until then are read afresh rather than reused from the first reading: a planted
        tile lies still for a few frames only before the hand that laid it takes it back, and
        waiting for the decision window before asking for fresh readings saw it go unflagged."""
        if self.book.current is None:
            return False
        for pose in obs.new:
            tile = identity(pose, self.config.set_max)
            if tile is None or tile in self.table.tiles:
                continue
            candidates = self.judge.candidates(pose)
            if candidates and not self.judge.ruling(tile, pose, candidates)[2].legal:
                return True
        return False

    def unsure(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]],
               window: Sequence[Observation]) -> bool:
        """Whether the play would be flagged on the word of a single run of the recognizer.

        Still frames are read once and the reading reused while the picture does not change, so
        a tile can be "seen" in every frame of the window on one reading; a dot misread there
        (a 4 read as a 2 while a shadow passes) would flag a legal play. A flag costs a player
        an accusation, so it waits for a second reading of a fresh frame, up to
        `TrackerConfig.flag_max_reads` readings of the board since it last moved."""
        runs = self.table.support_of(tile)
        if runs is None or len(runs) >= self.tuning.flag_runs or \
                readings(window) >= self.tuning.flag_max_reads:
            return False
        return not self.judge.ruling(tile, pose, candidates)[2].legal

    def standing(self, tile: Tile) -> dict[str, Any] | None:
        """The flag raised on `tile`'s play, while neither taken back nor withdrawn."""
        assert self.book.current is not None
        return next((f for f in reversed(self.book.current.illegal) if f["tile"] == str(tile)
                     and f.get("taken_back_frame") is None and not f.get("withdrawn")), None)

    def let_stand(self, parent: BoardTile | None, obs: Observation) -> bool:
        """Flagged plays the table kept, entered into the round as they lie now that the next
        play is being made with them still there: the tile it is laid against (`parent`, and any
        flagged tile that one lies against in turn), and every play flagged for being made while
        a double waited, whose double then no longer holds play up.

        Why: the rules let a play be taken back only before the next play; a table that plays on
        has accepted the board as it is. The flag stands, but judging every later tile against a
        board without it flagged one broken rule (or one misread) over and over: each tile laid
        beyond it as "laid against a tile that is not part of the layout" (in a rendered round,
        one misread, six flags), and, while a spinner arm the reader never saw left the spinner
        waiting, every play of the next 40 frames (in another, nine flags, none taken back). Players
        who play on past a waiting double are far likelier to have fed it where the camera did not
        see than to break the same rule in turn. Returns whether anything was entered."""
        if self.book.current is None:
            return False
        waiting = sorted((b for b in self.table.tiles.values() if b.status == TileStatus.ILLEGAL
                          and (f := self.standing(b.tile)) is not None and f["rule"] in WAITING_DOUBLE_RULES),
                         key=lambda b: b.frame)
        entered = False
        for bt in waiting:
            entered = self._let_one_stand(bt, obs) or entered
        if parent is not None:
            entered = self._let_one_stand(parent, obs, built_on=True) or entered
        return entered

    def _let_one_stand(self, top: BoardTile, obs: Observation, built_on: bool = False) -> bool:
        """`top`'s flagged play (and those of the flagged tiles it lies against in turn, first)
        entered as kept (`let_stand`). A tile first seen with the one `built_on` it (a
        stretch of plays read at once, after a hand hid them) was kept too: the other was laid
        against it."""
        assert self.book.current is not None
        chain: list[BoardTile] = []
        bt: BoardTile | None = top
        while bt is not None and bt.status == TileStatus.ILLEGAL and bt not in chain:
            chain.append(bt)
            bt = self.table.tiles.get(bt.on) if bt.on is not None else None
        if not chain or bt is None or bt.status not in (TileStatus.SPINNER, TileStatus.LEGAL, TileStatus.JOINED):
            return False
        referee = self.book.current.referee
        entered = False
        for bt in reversed(chain):
            flag = self.standing(bt.tile)
            if bt.missing or bt.frame > obs.frame or (bt.frame == obs.frame and not built_on) or \
                    flag is None or bt.on is None:
                break
            touching = bt.pose.pips[bt.touching] if bt.touching is not None else None
            play = referee.let_stand(bt.tile, bt.on, touching, bt.frame, flag["t"],
                                     waive=flag["rule"] in WAITING_DOUBLE_RULES)
            if play is None:
                break
            bt.status, bt.stood, bt.player = TileStatus.LEGAL, True, play.player
            flag["stood_frame"] = obs.frame
            entered = True
        return entered

    def reread_flagged_parent(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]],
                              obs: Observation, window: Sequence[Observation]) -> list[TrackEvent]:
        """A tile laid against one flagged "ends do not match" says how that one was misread.

        Players take an illegal play back; they do not build on it. So when the next tile is
        laid against a tile flagged for a touching end that did not match, whose outer end
        matches the new tile, and whose touching end read within two dots of what it needed,
        the touching end was misread: the tile is the one with the needed value there. It is
        taken as played (at the frame it was laid), the flag is withdrawn, and play goes on
        from it rather than every later tile on that arm being flagged as laid off the layout.
        A tile laid the wrong way round is never re-read this way (its outer end is the value
        the parent needed, so the re-reading would be a double)."""
        if self.book.current is None or not candidates:
            return []
        _, bt, contact = candidates[0]
        if bt.status != TileStatus.ILLEGAL or bt.on is None or bt.touching is None:
            return []
        book = self.book.current
        flag = self.standing(bt.tile)
        if flag is None or flag["rule"] != "ends_do_not_match":
            return []
        referee = book.referee
        parent = self.table.tiles.get(bt.on)
        slots = referee.open_slots(bt.on)
        if parent is None or not slots:
            return []
        need = referee.board.open_ends[slots[0]].value
        read_touching, outer = bt.pose.pips[bt.touching], bt.pose.pips[1 - bt.touching]
        got = pose.pips[contact.touching]
        if outer != got or need == got or abs(read_touching - need) > 2:
            return []
        alt = Tile(need, got)
        if alt in self.table.tiles or not alt.in_set(self.config.set_max):
            return []
        verdict = referee.judge(alt, bt.on, need)
        if not verdict.legal:
            return []
        self.table.lift(bt.tile)
        flag["withdrawn"] = True
        self.table.supersede(alt, bt.tile)  # later readings of the old value there are the same misread
        first = next((o for o in window if o.frame == bt.frame), obs)
        new_pose = TilePose(bt.pose.corners, (need, got) if bt.touching == 0 else (got, need))
        referee.accept(alt, verdict, bt.frame, first.t, need)
        self.table.lay(BoardTile(alt, new_pose, TileStatus.LEGAL, verdict.player, bt.on, bt.touching, bt.frame))
        msg = (f"{bt.tile} was {alt} misread: {tile} was laid against its {got} end, so the flag on it "
               f"is withdrawn")
        return [FlagWithdrawn(obs.frame, obs.t, str(alt), str(bt.tile), msg),
                TilePlayed(bt.frame, first.t, str(alt), verdict.player, str(bt.on), verdict.slot, verdict.end)]
