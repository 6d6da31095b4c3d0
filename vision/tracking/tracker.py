"""Follow a live round: frames in, events out.

    tracker = Tracker(GameConfig(4, 9, rules))
    for frame, t in source:
        for event in tracker.push(frame, t):
            print(event.describe())
    tracker.state            # the stable board, open ends, whose turn, the score sheet

Per frame the tracker asks its motion gate first. While something moves (a hand, a
knocked camera) it does nothing else: hands hide tiles and blur smears pips. When
the picture is still and differs from the last settled one, it runs the recognizer
and files the result as an `Observation`; once `window` still observations agree on
a change (a tile that was not there, a tile gone, a camera that moved), the change is
made and judged:

* a new tile is matched to the tile it lies against (geometry) and the engine judges
  the play at that moment (`Referee`); an illegal play is flagged with its rule and
  the frame is saved as evidence;
* the last play disappearing is a take-back (the rules allow it before the next
  play); any other tile disappearing is a disturbed board, reported, not played;
* a knocked camera moves every tile together: the board is re-registered.

When every reading agrees with the board, the tracker settles and stops running the
recognizer until the picture changes again (or `recheck_s` passes), which is what
makes it fast enough for a live camera. While it has not settled, a still frame that
the gate finds no different from the last frame read is not read again: the last
reading stands for it (the recognizer would read the same pixels the same way), so a
change costs one reading, not one per frame of the decision window. Taking a tile off
the board (gone, or replaced by another reading) needs two readings, though: when a
reading does not show every board tile, the next still frame is read afresh.

The reader loses and misreads tiles on a crowded table (a double-12 layout's tiles are
~45 px long at 720p); the pixels do not. Each board tile keeps a small straightened
picture of its place from when it was laid: a tile whose place still looks like that has
not left the table, whatever the reader says, and a new tile read as one of those is a
misreading (a set has one of each), taken as the one reading a pip away the rules accept.

Where the rules say a tile must be missing or misread (a play about to be flagged, a tile
touching nothing), the tracker reads that place again on a small crop, which the recognizer
sees at up to twice its size instead of three quarters (`_look_closer`).

`Tracker` is the orchestrator: it takes the frames, holds the window of observations and the
still stretch, and hands the work to collaborators it builds, each an object with its own state
and the dependencies it is given:

* the board model (`table.TableModel`): the board tiles by identity with their `TileStatus`, and
  what is remembered of each (other readings of its place, known misreadings, legal plays of the
  round, flagged plays' views, the pictures kept), changed through its verbs (lay, lift, note a
  reading of a place, supersede a reading, follow a knocked camera, ...);
* the game book (`bookkeeping.GameBook`): the rounds, the score sheet, the hands (`hands`), what
  people tell, the state and the record;
* the judge (`judging.Judge`): where a reading could lie and what the rules say of it, changing
  nothing; the play entry (`judging.PlayEntry`): a play entered as judged, or flagged;
* the flag keeper (`flags.FlagKeeper`): flags raised, let stand, withdrawn and judged again, each
  told to the event sinks (`evidence`: one saves their frames);
* the recognizer's runs (`intake.RecognizerRuns`): read afresh, or let the last reading stand;
* the closer looks' ledger (`closer.LookLedger`), and the seats hands come from (`seats`).

A decision runs the steps of `corrections.STEPS` in their declared order, after change detection
(`changes.detect_changes`, a pure function). The parts that need most of the orchestrator are
mixed in: frame intake (`intake`, which drives a decision per frame) and the reader's corrections,
which call one another and read the window as they go: observations matched to the board and new
tiles voted (`observing`), tiles placed (`placing`), misreadings corrected (`misreads`, `loose`,
`closer`). All of them read one tuning (`tuning.TrackerConfig`).
"""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from engine import GameConfig, HandTally, ScoreSheet, Tile

from .board import BoardTile, Observation
from .bookkeeping import GameBook, RoundBook, TrackerState
from .closer import CloserLooks, LookLedger
from .corrections import decide
from .detector import Detector, RecognizerDetector
from .events import RoundScored, TrackEvent
from .evidence import EventSink, EvidenceFolder
from .flags import FlagKeeper
from .intake import FrameIntake, RecognizerRuns
from .judging import Judge, PlayEntry
from .loose import LooseTiles
from .misreads import Misreads
from .motion import MotionGate
from .observing import Observing
from .placing import Placing
from .seats import Seats
from .table import TableModel
from .tuning import CLOSE_LOOK_PLACES, SECOND_READING_COST, TrackerConfig

__all__ = ["CLOSE_LOOK_PLACES", "RecognizerDetector", "SECOND_READING_COST", "Tracker", "TrackerConfig", "TrackerState"]
"""The tracker, and the names long imported from here."""


class Tracker(FrameIntake, Observing, LooseTiles, Misreads, CloserLooks, Placing):
    """Frames of one table in, `TrackEvent`s out; usable one frame at a time (`push`)."""

    def __init__(self, config: GameConfig, *, detector: Detector | None = None, gate: Any = None,
                 spinner_player: int = 0, round_index: int | None = None, evidence_dir: str | Path | None = None,
                 window: int | None = None, remove_window: int | None = None, recheck_s: float | None = None,
                 player_names: list[str] | None = None, seats: Sequence[float] | None = None,
                 tuning: TrackerConfig | None = None) -> None:
        """`window`, `remove_window` and `recheck_s`, where given, replace those of `tuning`."""
        self.config = config
        self.rules = config.rules
        self.detector = detector
        self.evidence_dir = Path(evidence_dir) if evidence_dir else None
        self.sinks: list[EventSink] = [EvidenceFolder(self.evidence_dir)] if self.evidence_dir else []
        """Told of each flagged play as it is made (`evidence.EventSink`); with `evidence_dir`, the
        folder its frame is saved in."""
        given = {"window": window, "remove_window": remove_window, "recheck_s": recheck_s}
        self.tuning = replace(tuning or TrackerConfig(), **{k: v for k, v in given.items() if v is not None})
        """How the tracker weighs its readings (`TrackerConfig`)."""
        self.gate = gate if gate is not None else MotionGate(self.tuning.motion)
        self.window_size = self.tuning.window
        self.remove_window = max(self.tuning.remove_window, self.tuning.window)
        self.recheck_s = self.tuning.recheck_s
        self.book = GameBook(config, spinner_player=spinner_player, round_index=round_index,
                             player_names=player_names)
        """The rounds, the score sheet and the hands (`GameBook`)."""
        self.table = TableModel()
        """The board tiles with their status and what the tracker remembers about each (`TableModel`)."""
        self.judge = Judge(self.table, self.book, self.tuning)
        """Where a tile read at a place would go and what the rules say of it (`Judge`)."""
        self.flags = FlagKeeper(self.table, self.book, self.judge, self.sinks, config, self.tuning)
        """Flagged plays raised, let stand, withdrawn and judged again (`FlagKeeper`)."""
        self.plays = PlayEntry(self.table, self.book, self.judge, self.flags)
        """Plays entered as the rules judge them (`PlayEntry`)."""
        self.window: list[Observation] = []
        self.settled = False
        self.frames = 0
        self.last_read_t = -math.inf
        self.runs = RecognizerRuns(self.tuning)
        """The recognizer's runs: how many, the last one's tiles, and whether to read afresh next."""
        self._held: tuple[list[Observation], dict[Tile, set[int]]] | None = None
        """The window and support of the still stretch before the current motion, kept until the
        picture after it is known (see `push`)."""
        self.size: tuple[int, int] | None = None
        self._lost = False
        self._advised_px: float | None = None
        """The tiles' length when they were last found too small to read (`_advise_on_size`)."""
        self._explained: tuple[frozenset[Tile], frozenset[tuple[Tile, Tile]]] | None = None
        """The loose tiles and board tiles' other readings `_explain_loose` last tried (it tries
        each set once)."""
        self._pending: list[TrackEvent] = []
        """Corrections made while finding new tiles (`_board_tile_misread`), reported with them."""
        self._reads_since_change = 0
        self._still = self.tuning.still_before_read
        self._size_misses = 0
        self._last_motion = -1
        self.looks = LookLedger(self.tuning)
        """The closer looks of the still stretch: made once each, and a few places per stretch."""
        self.hand_seats = Seats(list(seats) if seats is not None else None)
        """The seats' directions and the hands seen coming in: who laid a play."""
        self._last_still: np.ndarray | None = None

    # what people tell, and what the tracker reports (the game's book keeps it)

    def _now(self) -> tuple[int, float]:
        """The frame and time of the latest frame, for what the table tells between frames."""
        return self.frames, self.last_read_t if math.isfinite(self.last_read_t) else 0.0

    def tell(self, action: str, player: int) -> list[TrackEvent]:
        """What the table tells the tracker that the camera cannot see: "draw" (drew a tile and
        plays on), "pass" (drew if there was a tile to draw, and passed) or "announce" (called the
        last tile). Returns what follows from it (a last tile, a blocked round)."""
        return self.book.tell(action, player, *self._now())

    def note_pass(self, player: int | None = None) -> bool:
        """A player drew and passed (the camera cannot see it): move the turn on."""
        return self.book.note_pass(player)

    def note_draw(self, player: int) -> list[TrackEvent]:
        """A player drew a tile and kept playing (the camera cannot see it): their hand grows."""
        return self.book.note_draw(player, *self._now())

    def announce(self, player: int) -> list[TrackEvent]:
        """A player called their last tile (`GameBook.announce`)."""
        return self.book.announce(player, *self._now())

    def hand_tally(self) -> HandTally | None:
        """Each hand's size in the round in progress (`GameBook.hand_tally`)."""
        return self.book.hand_tally()

    def end_round(self, *, hand_totals: Sequence[int] | None = None,
                  hands: Sequence[Sequence[Tile]] | None = None, t: float | None = None) -> RoundScored:
        """Score the round in progress (`GameBook.end_round`) and clear the board for the next."""
        scored = self.book.end_round(hand_totals=hand_totals, hands=hands, frame=self.frames,
                                     t=self.last_read_t if t is None else t)
        self.table.clear()
        self.window.clear()
        self.settled = False
        self.gate.reset() if hasattr(self.gate, "reset") else None
        return scored

    @staticmethod
    def hand_from_recognition(rec: Any) -> list[Tile]:
        """The tiles of one hand photo (`vision.recognize` result) for `end_round(hands=...)`."""
        return [Tile(*t.pips) for t in rec.tiles if t.pips is not None]

    @property
    def state(self) -> TrackerState:
        """What the tracker believes now: everything a live view needs to draw."""
        return self.book.state(self.board.values(), settled=self.settled, frames=self.frames,
                               frames_read=self.frames_read, frames_reused=self.frames_reused, size=self.size)

    def record(self) -> dict[str, Any]:
        """The game so far in the engine's game-record format (`GameBook.record`)."""
        return self.book.record()

    @property
    def current(self) -> RoundBook | None:
        """The round in progress (`GameBook.current`)."""
        return self.book.current

    @property
    def sheet(self) -> ScoreSheet:
        return self.book.sheet

    @property
    def frames_read(self) -> int:
        """Frames the recognizer ran on (`RecognizerRuns.read`)."""
        return self.runs.read

    @property
    def frames_reused(self) -> int:
        """Still frames that took the last reading again (`RecognizerRuns.reused`)."""
        return self.runs.reused

    @property
    def board(self) -> dict[Tile, BoardTile]:
        """The tiles on the board by value (`TableModel.tiles`): read it; change it through `table`."""
        return self.table.tiles

    def seat_of_hand(self, before: int) -> int | None:
        """The seat the last hand before frame `before` came from, if seats are known."""
        return self.hand_seats.seat_of_hand(before, self._picture_size())

    def _picture_size(self) -> tuple[float, float]:
        """The picture's size (width, height): the frames', or the motion gate's before the first."""
        return self.size if self.size is not None else getattr(self.gate, "picture_size", (1.0, 1.0))

    @property
    def seats(self) -> list[float] | None:
        """Direction in which each player's arm comes into the picture (`Seats.directions`)."""
        return self.hand_seats.directions

    def _decide(self) -> list[TrackEvent]:
        """The steps of `corrections.STEPS`, in their order, over the latest observations."""
        return decide(self)
