"""Game book-keeping: the rounds, the score sheet, the hands, what people tell, and the report.

The camera sees the table, not the hands: draws and last-tile calls are told and counted by a
`HandWatch`, and a round is scored by the engine's rules. None of this needs the pictures, so it
is an object of its own (`GameBook`) that the tracker holds and hands the frame and time of the
moment it is told something; the tracker's board is handed in where the report needs it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from engine import GameConfig, HandTally, ScoreSheet, Tile, explain_board, round_scores, seen_config
from engine.scoring import curved

from .board import BoardTile, TileStatus
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


class GameBook:
    """The game so far: the round in progress (`current`), the rounds before it, the score sheet
    and the hands; told by the table what the camera cannot see."""

    def __init__(self, config: GameConfig, *, spinner_player: int = 0, round_index: int | None = None,
                 player_names: list[str] | None = None) -> None:
        self.config = config
        self.rules = config.rules
        self.next_spinner_player = spinner_player % config.players
        self.next_round_index = round_index
        """The round the next spinner starts, where the tracker was told (None: from the spinner)."""
        self.player_names = player_names
        self.sheet = ScoreSheet(config.players, config.rules)
        self.rounds: list[RoundBook] = []
        self.current: RoundBook | None = None
        self.hand_watch = HandWatch(config)
        """The hands of the round in progress, counted from the plays and what people tell."""

    def round_index_for(self, spinner: Tile) -> int:
        """Which round a spinner of `spinner` starts: the one told, the one its double says where
        the rules require it, or the next on the score sheet."""
        if self.next_round_index is not None:
            idx = self.next_round_index
        elif self.rules.start_double == "required":
            idx = self.config.set_max - spinner.high
        else:
            idx = len(self.sheet.rounds)
        return max(0, min(self.config.set_max, idx))

    def told_round_double(self, spinner: Tile) -> int | None:
        """The double this round must start with, where the tracker was told the round and the
        rules require it; None where a misread spinner cannot be told from another double."""
        if self.next_round_index is None or self.rules.start_double != "required":
            return None
        return self.config.set_max - self.round_index_for(spinner)

    def begin_round(self, spinner: Tile, round_index: int) -> RoundBook:
        """A round started with `spinner` down: its referee, and fresh hands."""
        referee = Referee(self.config, spinner, self.next_spinner_player)
        self.current = RoundBook(referee, round_index)
        self.rounds.append(self.current)
        self.hand_watch.new_round()
        return self.current

    def last_played(self) -> Tile | None:
        """The tile of the round's last play (None before one)."""
        if self.current is None:
            return None
        last = self.current.referee.last_play()
        return last.tile if last is not None else None

    def note_pass(self, player: int | None = None) -> bool:
        """A player drew and passed (the camera cannot see it): move the turn on."""
        if self.current is None:
            return False
        return self.current.referee.note_pass(player)

    def tell(self, action: str, player: int, frame: int, t: float) -> list[TrackEvent]:
        """What the table tells that the camera cannot see (`Tracker.tell`), at `frame` and `t`."""
        if action == "draw":
            return self.note_draw(player, frame, t)
        if action == "announce":
            return self.announce(player, frame, t)
        if action == "pass":
            self.note_pass(player)
            return self.watch_hands(frame, t)
        raise ValueError(f"unknown action {action!r}; expected draw, pass or announce")

    def note_draw(self, player: int, frame: int, t: float) -> list[TrackEvent]:
        """A player drew a tile and kept playing (the camera cannot see it): their hand grows."""
        return self._note("draw", player, frame, t)

    def announce(self, player: int, frame: int, t: float) -> list[TrackEvent]:
        """A player called their last tile (Chickenlittle); refused (`NothingToAnnounce`, an
        `IllegalPlay`) when they owe no call."""
        tally = self.hand_tally()
        if tally is None:
            return []
        tally.announce(player)  # raises when there is nothing to call
        return self._note("announce", player, frame, t)

    def _note(self, kind: str, player: int, frame: int, t: float) -> list[TrackEvent]:
        if self.current is None:
            return []
        self.hand_watch.note(len(self.current.referee.plays), kind, player)
        return self.watch_hands(frame, t)

    def hand_tally(self) -> HandTally | None:
        """Each hand's size in the round in progress, counted from the deal, the plays seen, the
        passes and draws noted and the Chickenlittle penalties (`engine.HandTally`)."""
        return None if self.current is None else self.hand_watch.tally(self.current.referee)

    def watch_hands(self, frame: int, t: float) -> list[TrackEvent]:
        """What follows from the hands' count that was not reported yet (`HandWatch.watch`)."""
        return [] if self.current is None else self.hand_watch.watch(self.current.referee, frame, t)

    def end_round(self, *, hand_totals: Sequence[int] | None, hands: Sequence[Sequence[Tile]] | None,
                  frame: int, t: float) -> RoundScored:
        """Score the round in progress from what each player still holds: tiles read from
        hand photos (`hands`) or hand totals typed in; adds a row to the score sheet. The round
        is over: no round is in progress until the next spinner."""
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
        return RoundScored(frame, t, round_index, double, list(raw), list(scores), self.sheet.totals(), source,
                           self.rules.describe())

    def state(self, tiles: Iterable[BoardTile], *, settled: bool, frames: int, frames_read: int,
              frames_reused: int, size: tuple[int, int] | None) -> TrackerState:
        """What the tracker believes now: the round as the book has it, the board's `tiles`, and
        the tracker's reading figures."""
        tiles = list(tiles)
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
            tiles=[bt.to_dict() for bt in tiles],
            open_ends=open_ends,
            must_feed=must_feed,
            illegal_on_table=[str(bt.tile) for bt in tiles if bt.status == TileStatus.ILLEGAL or bt.stood],
            plays=0 if referee is None else len(referee.plays),
            scores=self.sheet.to_dict(),
            settled=settled,
            frames=frames,
            frames_read=frames_read,
            frames_reused=frames_reused,
            size=size,
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
        replay_rules = seen_config(self.config).rules
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
