"""Game book-keeping: what people tell the tracker, rounds scored, and what it reports.

The camera sees the table, not the hands: draws and last-tile calls are told and counted by the
tracker's `HandWatch`, and a round is scored by the engine's rules.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from engine import HandTally, Tile, explain_board, round_scores
from engine.scoring import curved

from .board import TileStatus
from .events import RoundScored, TrackEvent
from .hands import HandWatch
from .referee import Referee


@dataclass
class TrackerState:
    """What the tracker believes now: everything a live view needs to draw."""

    round_index: int | None
    round_double: int | None
    spinner: str | None
    turn: int | None
    tiles: list[dict[str, Any]]
    open_ends: list[dict[str, Any]]
    must_feed: str | None
    """The spinner or chickie that must get its tiles before play goes elsewhere."""
    illegal_on_table: list[str]
    plays: int
    scores: dict[str, Any]
    settled: bool
    frames: int
    frames_read: int
    """Frames the recognizer ran on (the rest were decided by the motion gate)."""
    frames_reused: int
    """Still frames that took the last reading again (no different from the frame read)."""
    size: tuple[int, int] | None
    hands: dict[str, Any] | None = None
    """Each hand's size, the boneyard and the last-tile calls owed (`engine.HandTally.to_dict`)."""
    blocked: dict[str, Any] | None = None
    """Why the round is blocked, once every seat passed with nothing to draw (`engine.blocked`)."""

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass
class RoundBook:
    """A round in progress or finished, for the game record."""

    referee: Referee
    round_index: int
    record: dict[str, Any] | None = None
    illegal: list[dict[str, Any]] = field(default_factory=list)


class Bookkeeping:
    """The tracker's book-keeping: methods of `Tracker`, over the state it sets up in `Tracker.__init__`."""

    def note_pass(self, player: int | None = None) -> bool:
        """A player drew and passed (the camera cannot see it): move the turn on."""
        if self.current is None:
            return False
        return self.current.referee.note_pass(player)

    def tell(self, action: str, player: int) -> list[TrackEvent]:
        """What the table tells the tracker that the camera cannot see: "draw" (drew a tile and
        plays on), "pass" (drew if there was a tile to draw, and passed) or "announce" (called the
        last tile). Returns what follows from it (a last tile, a blocked round)."""
        if action == "draw":
            return self.note_draw(player)
        if action == "announce":
            return self.announce(player)
        if action == "pass":
            self.note_pass(player)
            return self._watch_hands(self.frames, self.last_read_t if math.isfinite(self.last_read_t) else 0.0)
        raise ValueError(f"unknown action {action!r}; expected draw, pass or announce")

    def note_draw(self, player: int) -> list[TrackEvent]:
        """A player drew a tile and kept playing (the camera cannot see it): their hand grows."""
        return self._note("draw", player)

    def announce(self, player: int) -> list[TrackEvent]:
        """A player called their last tile (Chickenlittle); refused (`NothingToAnnounce`, an
        `IllegalPlay`) when they owe no call."""
        tally = self.hand_tally()
        if tally is None:
            return []
        tally.announce(player)  # raises when there is nothing to call
        return self._note("announce", player)

    def _note(self, kind: str, player: int) -> list[TrackEvent]:
        if self.current is None:
            return []
        self.hand_watch.note(len(self.current.referee.plays), kind, player)
        return self._watch_hands(self.frames, self.last_read_t if math.isfinite(self.last_read_t) else 0.0)

    def hand_tally(self) -> HandTally | None:
        """Each hand's size in the round in progress, counted from the deal, the plays seen, the
        passes and draws noted and the Chickenlittle penalties (`engine.HandTally`)."""
        return None if self.current is None else self.hand_watch.tally(self.current.referee)

    def _watch_hands(self, frame: int, t: float) -> list[TrackEvent]:
        """What follows from the hands' count that was not reported yet (`HandWatch.watch`)."""
        return [] if self.current is None else self.hand_watch.watch(self.current.referee, frame, t)

    def end_round(self, *, hand_totals: Sequence[int] | None = None,
                  hands: Sequence[Sequence[Tile]] | None = None, t: float | None = None) -> RoundScored:
        """Score the round in progress from what each player still holds: tiles read from
        hand photos (`hands`) or hand totals typed in; adds a row to the score sheet."""
        n = self.config.players
        if (hand_totals is None) == (hands is None):
            raise ValueError("give either hand_totals or hands")
        if hands is not None:
            if len(hands) != n:
                raise ValueError(f"expected {n} hands, got {len(hands)}")
            tiles = [[Tile.parse(x) for x in h] for h in hands]
            raw, scores = round_scores(tiles, self.rules)
            source = "hand_photos"
        else:
            assert hand_totals is not None
            if len(hand_totals) != n:
                raise ValueError(f"expected {n} hand totals, got {len(hand_totals)}")
            if any((not isinstance(x, int)) or x < 0 for x in hand_totals):
                raise ValueError("hand totals are whole numbers of points, 0 or more")
            raw = list(hand_totals)
            scores = curved(raw, self.rules)  # typed totals: a 0 is a player who went out
            tiles = None
            source = "typed"
        book = self.current
        if book is None:
            round_index = self.next_round_index if self.next_round_index is not None else len(self.sheet.rounds)
        else:
            round_index = book.round_index
        double = self.config.set_max - round_index
        self.sheet.add_round(double, scores)
        if book is not None:
            book.record = book.referee.round_record(round_index, tiles)
            book.record["result"] = {"raw": list(raw), "scores": list(scores), "source": source,
                                     "rules": self.rules.to_dict()}
            book.record["observed"]["illegal"] = book.illegal
        if self.next_round_index is not None:
            self.next_round_index = round_index + 1
        self.current = None
        self.table.clear()
        self.window.clear()
        self.settled = False
        self.gate.reset() if hasattr(self.gate, "reset") else None
        return RoundScored(self.frames, self.last_read_t if t is None else t, round_index, double, list(raw),
                           list(scores), self.sheet.totals(), source, self.rules.describe())

    @staticmethod
    def hand_from_recognition(rec: Any) -> list[Tile]:
        """The tiles of one hand photo (`vision.recognize` result) for `end_round(hands=...)`."""
        return [Tile(*t.pips) for t in rec.tiles if t.pips is not None]

    @property
    def state(self) -> TrackerState:
        book = self.current
        referee = book.referee if book is not None else None
        tally = self.hand_tally()
        open_ends: list[dict[str, Any]] = []
        must_feed = None
        turn = None
        if referee is not None:
            board = referee.board
            for e in board.open_ends.values():
                open_ends.append({"id": e.id, "value": e.value, "on": str(e.tile), "slot": e.slot})
            pend = board.pending_placement()
            must_feed = None if pend is None else str(pend.tile)
            turn = referee.turn
        return TrackerState(
            round_index=None if book is None else book.round_index,
            round_double=None if book is None else self.config.set_max - book.round_index,
            spinner=None if referee is None else str(referee.spinner),
            turn=turn,
            tiles=[bt.to_dict() for bt in self.board.values()],
            open_ends=open_ends,
            must_feed=must_feed,
            illegal_on_table=[str(bt.tile) for bt in self.board.values()
                              if bt.status == TileStatus.ILLEGAL or bt.stood],
            plays=0 if referee is None else len(referee.plays),
            scores=self.sheet.to_dict(),
            settled=self.settled,
            frames=self.frames,
            frames_read=self.frames_read,
            frames_reused=self.frames_reused,
            size=self.size,
            hands=None if tally is None else tally.to_dict(),
            blocked=None if tally is None or not HandWatch.stalled(tally) else
            explain_board(referee.board, self.config.set_max, boneyard=tally.boneyard).to_dict(),
        )

    def record(self) -> dict[str, Any]:
        """The game so far in the engine's game-record format (rounds as seen, scores)."""
        rounds = []
        for book in self.rounds:
            if book.record is not None:
                rounds.append(book.record)
            else:
                rec = book.referee.round_record(book.round_index)
                rec["observed"]["illegal"] = book.illegal
                rounds.append(rec)
        # The camera does not see draws, so passes are recorded as a draw and a pass; the rules
        # the record replays under let a player draw at will (see `Referee`), which changes
        # nothing about where tiles may go. The house rules the game is played and scored
        # by are kept beside them, and in the score sheet.
        replay_rules = self.rules.replace(voluntary_draw=True, first_round_draw=False, chickenlittle=False,
                                          start_double="required")
        out: dict[str, Any] = {
            "format": "chickenfoot-game",
            "version": 1,
            "players": self.config.players,
            "set": self.config.set_max,
            "rules": replay_rules.to_dict(),
            "house_rules": self.rules.to_dict(),
            "rounds": rounds,
            "scores": self.sheet.to_dict(),
            "source": "camera",
        }
        if self.player_names:
            out["player_names"] = list(self.player_names)
        return out
