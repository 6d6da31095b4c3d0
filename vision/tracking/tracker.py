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
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from engine import GameConfig, HandTally, IllegalPlay, ScoreSheet, Tile, explain_board, hand_score, round_scores
from engine.board import SLOT_STRIDE
from engine.scoring import curved

from ..capture import small_tiles_warning
from ..halfreader import SMALL_TILE_PX
from ..types import tile_length
from .board import (BoardTile, Observation, angle_gap, associate, at_place_of, identity, mean_pose, register,
                    same_picture, tile_patch)
from .events import (BoardCleared, BoardDisturbed, CameraMoved, ChickenlittlePenalty, FlagWithdrawn, FrameRejected,
                     LastTile, Notice, PlayCorrected, RoundBlocked,
                     RoundScored, RoundStarted, StreamLost, StreamResumed, TileTakenBack, TilePlayed, TrackEvent)
from .geometry import (ATTACH_MAX, TilePose, contact_on_double, contact_on_tile, motion_size, point_quad_distance,
                       pose_from_detection)
from .motion import MotionGate, MotionReading
from .pictures import (Picture, approaches, as_3x3, place_looks_alike, read_at_place, turned_end_for_end,
                       with_first_reading)
from .referee import Referee, Verdict
from .corrections import decide
from .detector import Detector, RecognizerDetector  # noqa: F401  (the tracker's detector, named here too)
from .tuning import (ADVICE_SIZE_CHANGE, ADOPT_SIZE_AFTER, ALTERNATIVE_MARGIN, CLOSE_LOOKS, CLOSE_LOOK_PLACES, CLOSE_LOOK_REACH, DENSE_CONFUSED, DENSE_CONFUSED_SPREAD, EXPLAIN_MARGIN, FLAG_MAX_READS, FLAG_RUNS, FRESH_READS_ON_DOUBT, GUESS_COST, LOOSE_EXPLAINED, MAX_UNSETTLED_READS, MAX_WINDOW, OVERLAP_SAME_TILE, PLACE_READS, RECHECK_S, REMOVE_WINDOW, SECOND_READING_COST, SHORT_BOX, STILL_BEFORE_READ, STRAIGHT_TOE_GAP, SURE_READING_COST, UNSURE_READING_COST, WAITING_DOUBLE_RULES, WINDOW)

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
class _RoundBook:
    """A round in progress or finished, for the game record."""

    referee: Referee
    round_index: int
    record: dict[str, Any] | None = None
    illegal: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _DenseGuess:
    """A play entered as legal on a guessed misread dense end (`Tracker._dense_end_misread`)."""

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


class Tracker:
    """Frames of one table in, `TrackEvent`s out; usable one frame at a time (`push`)."""

    def __init__(self, config: GameConfig, *, detector: Detector | None = None, gate: Any = None,
                 spinner_player: int = 0, round_index: int | None = None, evidence_dir: str | Path | None = None,
                 window: int = WINDOW, remove_window: int = REMOVE_WINDOW, recheck_s: float = RECHECK_S,
                 player_names: list[str] | None = None, seats: Sequence[float] | None = None) -> None:
        self.config = config
        self.rules = config.rules
        self.detector = detector
        self.gate = gate if gate is not None else MotionGate()
        self.next_spinner_player = spinner_player % config.players
        self.next_round_index = round_index
        self.evidence_dir = Path(evidence_dir) if evidence_dir else None
        self.window_size = window
        self.remove_window = max(remove_window, window)
        self.recheck_s = recheck_s
        self.player_names = player_names
        self.sheet = ScoreSheet(config.players, config.rules)
        self.rounds: list[_RoundBook] = []
        self.current: _RoundBook | None = None
        self.board: dict[Tile, BoardTile] = {}
        self.window: list[Observation] = []
        self.settled = False
        self.frames = 0
        self.frames_read = 0
        self.frames_reused = 0
        self.last_read_t = -math.inf
        self._fresh_read_at = -1
        """Frame index of the last fresh run of the recognizer."""
        self._last_poses: list[TilePose] | None = None
        self._fresh_in_stretch = 0
        self._doubt = False
        self._want_fresh = False
        """A play about to be flagged rests on one run of the recognizer: read the next frame afresh."""
        self._flag_views: dict[Tile, tuple[np.ndarray, np.ndarray]] = {}
        """For a play flagged for feeding elsewhere while a double waited: the frame it was
        flagged on, and the map from today's picture coordinates to that frame's (the camera
        may have been knocked since)."""
        self._support: dict[Tile, set[int]] = {}
        """Recognizer runs that read each tile found new (`_new_tiles`) as it is, since the board
        last moved."""
        self._held: tuple[list[Observation], dict[Tile, set[int]]] | None = None
        """The window and support of the still stretch before the current motion, kept until the
        picture after it is known (see `push`)."""
        self.size: tuple[int, int] | None = None
        self._lost = False
        self._advised_px: float | None = None
        """The tiles' length when they were last found too small to read (`_advise_on_size`)."""
        self._misreads: set[tuple[Tile, Tile]] = set()
        """(board tile, reading) pairs: the board tile's place read steadily as the other tile while
        it stayed in its place (kept as it was: the reader was sure of both)."""
        self._place_reads: dict[tuple[Tile, int], dict[Tile, set[int]]] = {}
        """For each board tile (and the frame it was laid at: a tile taken back and laid again, or
        laid in a later round, starts afresh), the other tiles its place was read as since, with
        the recognizer runs that read each."""
        self._explained: tuple[frozenset[Tile], frozenset[tuple[Tile, Tile]]] | None = None
        """The loose tiles and board tiles' other readings `_explain_loose` last tried (it tries
        each set once)."""
        self._pending: list[TrackEvent] = []
        """Corrections made while finding new tiles (`_board_tile_misread`), reported with them."""
        self._superseded: set[tuple[Tile, Tile]] = set()
        """(tile, reading) pairs: a tile flagged illegal on `reading` was read again as `tile` at
        the same place and replaced."""
        self._dense_guesses: dict[Tile, _DenseGuess] = {}
        """Plays taken as legal on a guessed misread dense end (`_dense_end_misread`), by the tile
        entered: undone, and judged as read, if the tile is taken back before the next play."""
        self._reads_since_change = 0
        self._still = STILL_BEFORE_READ
        self._size_misses = 0
        self._last_motion = -1
        self._alternatives: dict[Tile, list[tuple[Tile, TilePose]]] = {}
        self._looks: dict[tuple[int, int, int, tuple[int, ...]], list[list[TilePose]]] = {}
        """Closer looks made (`_closer_looks`), by place, reach and the readings whose pictures they read."""
        self._places_looked_at = 0
        """Places around tiles touching nothing looked at closer since the last motion."""
        self._looked_around: set[Tile] = set()
        """New tiles touching nothing whose surroundings were looked at closer since the last
        motion (`_parent_from_closer_look`): one look per tile per still stretch."""
        self.seats = list(seats) if seats is not None else None
        """Direction (radians, image coordinates, from the middle of the picture) in which each
        player's arm comes into the picture, in seat order."""
        self._entries: list[tuple[int, tuple[float, float]]] = []
        self._settled_image: Picture | None = None
        """The frame the board last settled on with every reading placed."""
        self._played_legally: set[Tile] = set()
        """Tiles accepted as legal plays this round (one taken back in error may come back)."""
        self._before_motion: Picture | None = None
        """`_settled_image` as it was when the last motion began: a tile laid in that motion
        changed the picture at its place since (a tile missed at first and read only later
        still differs from it)."""
        self._notes: list[tuple[int, str, int]] = []
        """What people told of the round in progress that the camera cannot see: (plays before
        it, "draw" or "announce", player)."""
        self._tally_seen: tuple[set[int], int, bool] = (set(), 0, False)
        """Last-tile players, penalties and blocked state already reported (`_watch_hands`)."""
        self._last_still: np.ndarray | None = None
        self._still_before_motion: Picture | None = None
        """The last still frame before the last motion began, whatever the reader made of it: the
        table just before the hands that came in then (see `_laid_before_last`)."""

    # --- input ------------------------------------------------------------------------

    def push(self, frame: Any, t: float | None = None) -> list[TrackEvent]:
        """Take one frame (BGR uint8 image; any other object is handed to the detector and
        gate as is, which is how ground-truth evaluations drive the tracker)."""
        index = self.frames
        self.frames += 1
        if t is None:
            t = index / 30.0
        events: list[TrackEvent] = []
        if self._lost:
            self._lost = False
            events.append(StreamResumed(index, t))
        if isinstance(frame, np.ndarray) or frame is None:
            frame, problem = self._check_frame(frame)
            if problem is not None:
                events.append(FrameRejected(index, t, problem))
                return events
        reading: MotionReading = self.gate.update(frame)
        if reading.moving:
            if self._still and self.window:  # (a one-frame pause between two moves reads nothing)
                self._held = (list(self.window), dict(self._support))  # (both are emptied in place below)
            self._last_motion = index
            self._fresh_in_stretch = 0
            self.window.clear()
            self._support.clear()
            self._looked_around.clear()
            self._places_looked_at = 0
            self._reads_since_change = 0  # a new picture earns its own reads before settling
            if self._still:  # a new stretch of motion: hands seen before it are not this one's
                self._entries.clear()
                self._before_motion = self._settled_image
                self._still_before_motion = Picture(self._last_still) if self._last_still is not None else None
            self._still = 0
            if reading.entry is not None:
                self._entries.append((index, reading.entry))
                del self._entries[:-20]
            return events
        self._still += 1
        self._last_still = frame if isinstance(frame, np.ndarray) else None
        if self._still < STILL_BEFORE_READ:
            return events  # a hand pausing mid-move looks still for one frame: wait for a second
        if self._held is not None:
            if getattr(reading, "same_as_read", False) and not self.settled:
                # the motion left the picture as it was last read (a hand that came near and
                # went, touching nothing) while a change was still being read: the readings
                # before it still hold. Why: a planted 10-0 was read twice, a hand twitched at
                # the edge, it was read once more and taken back; three readings, never three in
                # one window, so never flagged (in a rendered double-12 round). (A settled
                # board is read afresh after any hand: a pale tile can pass the gate unseen.)
                self.window[:0], self._support = self._held
            self._held = None
        recheck = False
        if reading.changed:
            self.settled = False
        elif self.settled:
            # a hand came over the table since the last fresh reading: read once when it has
            # gone, whatever the gate says (a pale tile laid on a pale table changed 2 pixels of
            # the thumbnail, fewer than the gate asks, and the next hand came in before the 3-s
            # re-read: the play was never read)
            if t - self.last_read_t < self.recheck_s and self._last_motion < self._fresh_read_at:
                return events
            recheck = True  # a fresh reading now and then, whatever the gate says
        if self.detector is None:
            return events
        second_opinion = (self._doubt and self._fresh_in_stretch < FRESH_READS_ON_DOUBT) or self._want_fresh
        if getattr(reading, "same_as_read", False) and not recheck and not second_opinion \
                and self._last_poses is not None:
            # nothing changed since the last frame read: its reading stands for this frame too
            poses = list(self._last_poses)
            self.frames_reused += 1
            fresh = False
        else:
            detections = self.detector(frame)
            self.frames_read += 1
            if not getattr(reading, "same_as_read", False):
                self._fresh_in_stretch = 0  # another picture: a new stretch of readings
            self._fresh_in_stretch += 1
            self._want_fresh = False
            poses = [p for p in (pose_from_detection(d) for d in detections if not getattr(d, "face_down", False))
                     if p is not None]
            self._last_poses = poses
            self._fresh_read_at = index
            if hasattr(self.gate, "mark_read"):
                self.gate.mark_read()
            fresh = True
        self.last_read_t = t
        obs = Observation(index, t, poses, frame if isinstance(frame, np.ndarray) else None, read=self.frames_read)
        self._associate(obs)
        if fresh:
            # a reading that leaves a board tile unexplained earns a second reading before
            # anything leaves the board on its word
            self._doubt = bool(obs.conflicts) or any(not bt.missing and bt.status != "loose"
                                                     and not self._still_there(bt, obs) for bt in self.board.values())
        if recheck and (obs.new or obs.conflicts):
            # the occasional re-read found something the motion gate missed (a tile laid
            # without the picture seeming to change): read on until it is decided
            self.settled = False
        self.window.append(obs)
        del self.window[:-MAX_WINDOW]
        events.extend(self._decide())
        events.extend(self._watch_hands(index, t))
        return events

    def _check_frame(self, frame: np.ndarray | None) -> tuple[Any, str | None]:
        """A usable frame, or why not (one line). A frame of another size with the same shape
        of picture is scaled to the first frame's size; any other size is refused."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.size == 0:
            return frame, "empty frame"
        if frame.dtype != np.uint8:
            return frame, f"frame has pixel type {frame.dtype}, expected 8-bit"
        if frame.ndim == 2:
            import cv2

            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        elif frame.ndim != 3 or frame.shape[2] not in (3, 4):
            return frame, f"frame has shape {frame.shape}, expected height x width x 3"
        elif frame.shape[2] == 4:
            frame = np.ascontiguousarray(frame[..., :3])
        h, w = frame.shape[:2]
        if self.size is None:
            if min(h, w) < 64:
                return frame, f"frame is {w}x{h}, too small to read tiles"
            self.size = (w, h)
            return frame, None
        W, H = self.size
        if (w, h) == (W, H):
            self._size_misses = 0
            return frame, None
        if abs(w / h - W / H) < 0.01 * W / H:
            import cv2

            return cv2.resize(frame, (W, H), interpolation=cv2.INTER_AREA if w > W else cv2.INTER_LINEAR), None
        self._size_misses += 1
        if self._size_misses >= ADOPT_SIZE_AFTER:
            # the source changed resolution for good: carry on at the new size (the board is
            # re-registered from the tiles, as after a knocked camera)
            self.size = (w, h)
            self._size_misses = 0
            self.window.clear()
            self._support.clear()
            return frame, None
        return frame, f"frame is {w}x{h} but this stream is {W}x{H}"

    def stream_lost(self, reason: str, t: float | None = None) -> list[TrackEvent]:
        """The source stopped delivering; the game so far stays, tracking resumes on the next frame."""
        self._lost = True
        self.window.clear()
        return [StreamLost(self.frames, self.last_read_t if t is None else t, reason)]

    # --- observing --------------------------------------------------------------------

    def _associate(self, obs: Observation) -> None:
        register(obs, self.board, self.config.set_max)
        associate(obs, self.board, self.config.set_max)
        for old, (other, _) in obs.conflicts.items():
            bt = self.board.get(old)
            if bt is not None and obs.frame >= bt.frame:
                self._place_reads.setdefault((old, bt.frame), {}).setdefault(other, set()).add(obs.read)

    def _reassociate(self) -> None:
        for obs in self.window:
            self._associate(obs)

    # --- deciding ---------------------------------------------------------------------

    def _decide(self) -> list[TrackEvent]:
        """The steps of `corrections.STEPS`, in their order, over the latest observations."""
        return decide(self)

    def _picture_new_tiles(self) -> None:
        """Tiles just placed take their settled picture from the newest still frame of this
        stretch that read a tile at their place. Without it the picture waited for the next
        still frame that read them, and a hand often comes in first: when the next tile laid
        against one made the reader box the two across their seam (a 7-5 and a 7-6, end to end
        with like pips, read as 7-7 between two phantom doubles), the tile had no picture to
        show it still lay there, so it was taken back and the phantom 5-5 played as a chickie."""
        for bt in self.board.values():
            if bt.patch is not None or bt.missing:
                continue
            for o in reversed(self.window):
                if o.image is not None and o.motion is None and o.drift is None and \
                        any(at_place_of(p, bt.pose) for p in o.poses):
                    bt.patch = tile_patch(o.image, bt.pose)
                    break

    def _turned_around(self, recent: list[Observation]) -> list[tuple[BoardTile, TilePose]]:
        """Flagged tiles that every one of `recent` finds in their place turned end for end, each
        with its pose now (taken back and judged again on two runs of the recognizer at least).

        A tile laid the wrong way round is put right by turning it where it lies, often under
        the hand that laid it, so no take-back is seen: the flagged 9-8 stayed on the board, the
        legal play was never seen, and every tile laid beyond it lay "apart" from the layout (a
        planted play among them went unflagged)."""
        out = []
        for bt in self.board.values():
            if bt.status != "illegal" or bt.missing or bt.tile.is_double:
                continue
            poses = [o.seen_poses.get(bt.tile) for o in recent]
            if any(p is None or not turned_end_for_end(bt.pose, p) for p in poses):
                continue
            out.append((bt, mean_pose([p for p in poses if p is not None])))
        return out

    def _refresh_poses(self, observations: list[Observation]) -> None:
        """Where the tiles are now, averaged over the still readings: keeps the board in step
        with a camera that crept, and replaces a first reading that was off."""
        if any(o.motion is not None for o in observations):
            return
        for tile, bt in self.board.items():
            poses = [o.seen_poses[tile] for o in observations if tile in o.seen_poses]
            if len(poses) >= max(2, len(observations) - 1):
                mean = mean_pose(poses)
                if not tile.is_double and turned_end_for_end(bt.pose, mean):
                    continue  # turned end for end: a change to judge (see `_turned_around`), not a drift
                # (how sure the reading that placed it was stays: see `_correct_misread_play`)
                bt.pose = TilePose(mean.corners, bt.pose.pips, bt.pose.second)
        # and how each place looks now, for telling a tile the reader lost from one taken away
        image = observations[-1].image if observations else None
        if image is not None and all(not o.new for o in observations):
            # (a board settled with a reading still unplaced keeps the picture from before it)
            self._settled_image = Picture(image)
        for bt in self.board.values():
            # only where the reader read a tile there: a place read as nothing keeps the picture it had
            # (a play taken back unseen leaves bare table there, which would become the "settled"
            # picture of a tile still counted as lying there, so it would never be seen to go)
            if not bt.missing and any(read_at_place(bt.tile, o) for o in observations):
                bt.patch = tile_patch(image, bt.pose)

    def _unchanged(self, bt: BoardTile, obs: Observation) -> bool:
        """Whether `bt`'s place in `obs` still looks as it did when the board last settled."""
        if bt.patch is None or obs.image is None or obs.motion is not None:
            return False
        known = obs.unchanged.get(bt.tile)
        if known is None:
            cur = tile_patch(obs.image, bt.pose)
            known = obs.unchanged[bt.tile] = cur is not None and same_picture(bt.patch, cur)
        return known

    @staticmethod
    def _clusters(observations: list[Observation]) -> list[list[tuple[int, TilePose]]]:
        """New-tile readings grouped by place: (observation number, pose) lists."""
        clusters: list[list[tuple[int, TilePose]]] = []
        refs: list[tuple[float, float, float]] = []  # each cluster's first centre and reach, as floats
        for k, obs in enumerate(observations):
            for pose in obs.new:
                cx, cy = (float(v) for v in pose.centre)
                for cl, (rx, ry, reach) in zip(clusters, refs):
                    if math.hypot(rx - cx, ry - cy) < reach:
                        cl.append((k, pose))
                        break
                else:
                    clusters.append([(k, pose)])
                    refs.append((cx, cy, 0.4 * pose.length))
        return clusters

    def _unresolved(self, observations: list[Observation]) -> bool:
        """Whether something was read at one place in two or more of these observations without
        being decided (a tile the reader cannot make out yet): not the moment to settle."""
        for cl in self._clusters(observations):
            if len({k for k, _ in cl}) >= 2:
                return True
        counts = Counter(old for o in observations for old in o.conflicts)
        return any(n >= 2 for n in counts.values())

    def _replacements(self, recent: list[Observation]) -> dict[Tile, tuple[Tile, TilePose, Observation]]:
        """Known tiles whose place reads as another tile in every one of the last
        `remove_window` observations (a take-back and a new tile under one hand)."""
        if len(self.window) < self.remove_window:
            return {}
        recent = self.window[-self.remove_window:]
        need = len(recent)
        out: dict[Tile, tuple[Tile, TilePose, Observation]] = {}
        keys = set().union(*(o.conflicts.keys() for o in recent))
        for old in keys:
            # a tile flagged illegal was judged from its readings alone: a clear majority of
            # readings saying otherwise is enough to read it again
            bt = self.board.get(old)
            enough = need - 1 if bt is not None and bt.status == "illegal" else need
            reads = [(o, o.conflicts[old]) for o in recent if old in o.conflicts and old not in o.seen]
            if len(reads) < enough or self._readings([o for o, _ in reads]) < 2:
                continue  # (one reading repeated is one reading: a flip of a placed tile is noise)
            votes = Counter(tile for _, (tile, _) in reads)
            tile, n = votes.most_common(1)[0]
            if n < enough or tile in self.board:
                continue
            first = next(o for o, (t, _) in reads if t == tile)
            pose = next(p for _, (t, p) in reversed(reads) if t == tile)
            out[old] = (tile, pose, first)
        return out

    def _new_tiles(self, recent: list[Observation]) -> list[tuple[Tile, TilePose, Observation]]:
        """Tiles not on the board seen in all but one of the recent observations, at one place.

        Their values are voted over every still reading since the last motion; when the
        readings disagree (a pip misread), the tracker reads more frames rather than decide,
        and if they stay split, the engine's verdict breaks the tie (see `_judge`)."""
        need = max(2, self.window_size - 1)
        window = self.window
        offset = len(window) - len(recent)
        out = []
        taken: set[Tile] = set()
        for cl in self._clusters(window):
            if len({k for k, _ in cl if k >= offset}) < need:
                continue
            # a reading naming a board tile that the same reading also saw in its own place is
            # impossible (a set holds each tile once): one tile boxed twice, the second box
            # taking in a neighbour's end; it must not outvote the tile's true reading
            possible = [(k, p) for k, p in cl
                        if not ((t := identity(p, self.config.set_max)) in self.board and t in window[k].seen)]
            if any(identity(p, self.config.set_max) is not None for _, p in possible):
                cl = possible
            votes = Counter(identity(p, self.config.set_max) for _, p in cl)
            ranked = [(t, n) for t, n in votes.most_common() if t is not None]
            if not ranked:
                continue
            tile, n = ranked[0]
            second = ranked[1][1] if len(ranked) > 1 else 0
            if n < need or tile in taken:
                continue
            if tile not in self._played_legally and self._place_unchanged(cl[-1][1], window[-1]) and \
                    not self._fits_open_end(mean_pose([p for _, p in cl if identity(p, self.config.set_max) == tile])):
                continue  # nothing was laid there: a gap between tiles read as a tile
            if second and n < second + 2 and len(window) < MAX_WINDOW:
                pick = self._legal_of_twin_boxes(cl, tile, ranked[1][0], need)
                if pick is None:
                    self._want_fresh = True  # the readings disagree: read a few more frames afresh first
                    continue
                if pick != tile:
                    ranked = [(pick, second), (tile, n)] + ranked[2:]
                    tile, n = pick, second
            k0 = min(k for k, p in cl if identity(p, self.config.set_max) == tile)
            pose = mean_pose([p for k, p in cl if identity(p, self.config.set_max) == tile])
            # frames read once and reused count once here: a reading the reader made twice of
            # two pictures is worth more than one reading kept over ten still frames
            runs: dict[Tile | None, set[int]] = {}
            for k, p in cl:
                runs.setdefault(identity(p, self.config.set_max), set()).add(window[k].read)
            self._support.setdefault(tile, set()).update(runs[tile])  # (older readings leave the window)
            self._alternatives[tile] = [
                (alt, mean_pose([p for _, p in cl if identity(p, self.config.set_max) == alt]))
                for alt, c in ranked[1:] if alt not in self.board and
                ((c >= 2 and c >= n - 1) or runs[alt])]
            known = self.board.get(tile)
            if known is not None and known.status == "loose" and self._candidates(pose):
                # read apart from the layout before (often a second box on a tile, or a misread)
                # and now where it can be played: the set has one, and this is where play goes on
                del self.board[tile]
                known = None
            if known is not None:
                # a tile already on the board, seen somewhere else: moved, or a misreading
                if known.missing or not any(self._still_there(known, o) for o in recent):
                    known.pose = pose
                    known.missing = False
                    taken.add(tile)
                    # reported below as a move (not a play)
                    out.append((tile, pose, window[k0]))
                    continue
                # still lying in its place: this is another tile, misread (a set has one of each)
                fixed = self._misread_in_place(tile, pose)
                if fixed is not None and fixed[0] not in taken:
                    taken.add(fixed[0])
                    # (a flag on it waits for as many runs as on any tile: see `_flag_unsure`)
                    self._support.setdefault(fixed[0], set()).update(runs[tile])
                    out.append((fixed[0], fixed[1], window[k0]))
                elif fixed is None and self._board_tile_misread(known, tile, pose, recent):
                    taken.add(tile)  # the board tile was the misread one: this is `tile`, new
                    out.append((tile, pose, window[k0]))
                continue
            taken.add(tile)
            out.append((tile, pose, window[k0]))
        return out

    def _explain_loose(self, obs: Observation) -> list[TrackEvent]:
        """Tiles set apart from the layout, explained as plays by reading them, and the board tiles
        they lie near, another way the pictures support: a board tile as the other tile its place
        has been read as (same value against its parent), a tile lying across an end as a double
        of one of its values (no other tile is laid across an end), and an open end with loose
        tiles of its value around it as carrying a double the reader never saw, whose toes they
        are. Each loose tile a combination turns into a legal play counts 1, each guess costs
        `GUESS_COST`; the best combination is
        entered (the corrections, then those plays) when it scores `LOOSE_EXPLAINED` and
        `EXPLAIN_MARGIN` more than any other. Loose tiles that then touch the layout are judged
        as they lie (a planted play among them is flagged).

        Why: on small double-15 tiles the reader can be sure and wrong about a whole stretch. A
        15-5 read 13-5 was played; the 15-15 chickie laid across its 15 end read 15-13 and was
        set apart, and with it every toe and every tile built beyond them: 37 of 101 plays of a rendered
        round missed, though the 15-5's place read 15-5 in half the readings. Each reading
        alone was kept, as it should be; only together do they make a table the rules accept. And
        in another round a 12-12 chickie was never read at all: its four toes lay apart, 17 plays
        in all found 700 frames late."""
        if self.current is None:
            return []
        loose = sorted((b for b in self.board.values() if b.status == "loose" and not b.missing),
                       key=lambda b: b.frame)
        if not loose:
            return []
        options: dict[Tile, list[tuple[Tile, TilePose]]] = {}
        for (old, frame), reads in sorted(self._place_reads.items()):
            bt = self.board.get(old)
            if bt is None or bt.frame != frame or bt.status != "legal" or bt.touching is None or \
                    not any(np.hypot(*(bt.pose.centre - b.pose.centre)) < 2.5 * bt.pose.length for b in loose):
                continue
            value = bt.pose.pips[bt.touching]
            for new, runs in sorted(reads.items()):
                if len(runs) < PLACE_READS or new in self.board or (old, new) in self._superseded or \
                        new.is_double != old.is_double or not new.has(value):
                    continue
                free = new.other(value)
                options.setdefault(old, []).append(
                    (new, TilePose(bt.pose.corners, (value, free) if bt.touching == 0 else (free, value))))
        unseen = self._unseen_doubles(loose)
        tried = (frozenset(b.tile for b in loose),
                 frozenset([(o, n) for o, ns in options.items() for n, _ in ns] + [(d, d) for _, d, _, _ in unseen]))
        if tried == self._explained:
            return []
        self._explained = tried
        combos: list[dict[Tile, tuple[Tile, TilePose]]] = [{}]
        for old, alts in options.items():
            combos = [c | {old: alt} for c in combos for alt in alts] + combos
        with_doubles = [(fixes, [u for k, u in enumerate(unseen) if mask >> k & 1])
                        for fixes in combos[:64] for mask in range(1 << min(len(unseen), 3))]
        results = []
        for fixes, doubles in with_doubles[:128]:
            placed = self._loose_as_plays(loose, fixes, doubles)
            if placed is not None:
                toes = [p for p in placed if p[0] is not None]
                guesses = len(fixes) + len(doubles) + sum(t != lb.tile for lb, t, *_ in toes)
                results.append((len(toes) - GUESS_COST * guesses, fixes, placed, doubles))
        results.sort(key=lambda r: r[0], reverse=True)
        if not results or results[0][0] < LOOSE_EXPLAINED or \
                (len(results) > 1 and results[1][0] > results[0][0] - EXPLAIN_MARGIN):
            return []
        _, fixes, placed, doubles = results[0]
        return self._enter_explained(fixes, placed, obs, {d: toe for _, d, _, toe in doubles if toe is not None})

    def _unseen_doubles(self, loose: list[BoardTile]) -> list[tuple[BoardTile, Tile, TilePose, BoardTile | None]]:
        """Ends of ordinary board tiles with two or more loose tiles of the end's value near them:
        (the tile, the double of that value, where it would lie across the end, and the toe
        already laid on that end, if one was). An end counts while it is open, or while the tile
        laid on it lies a double's width beyond it (`STRAIGHT_TOE_GAP`): a toe laid straight on
        beyond a chickie the reader never saw passes for a play on the end the double covers."""
        assert self.current is not None
        out = []
        for bt in self.board.values():
            if bt.status != "legal" or bt.tile.is_double or bt.free_end is None:
                continue
            v = bt.pose.pips[bt.free_end]
            double = Tile(v, v)
            if double in self.board:
                continue
            toe = None
            if not self.current.referee.open_slots(bt.tile):
                toe = self._straight_toe(bt)
                if toe is None:
                    continue
            out_dir = bt.pose.axis(bt.free_end)
            side = np.array([-out_dir[1], out_dir[0]])
            w, length = bt.pose.width, bt.pose.length
            centre = bt.pose.end_mid(bt.free_end) + out_dir * (w / 2)
            if sum(b.tile.has(v) and np.hypot(*(b.pose.centre - centre)) < 1.5 * length for b in loose) < 2:
                continue
            corners = np.array([centre - side * length / 2 + out_dir * w / 2, centre - side * length / 2 - out_dir * w / 2,
                                centre + side * length / 2 - out_dir * w / 2, centre + side * length / 2 + out_dir * w / 2])
            out.append((bt, double, TilePose(corners, (v, v)), toe))
        return out

    def _straight_toe(self, bt: BoardTile) -> BoardTile | None:
        """The ordinary tile laid on `bt`'s free end, where its touching end lies a double's width
        beyond that end (`STRAIGHT_TOE_GAP`), not against it."""
        assert bt.free_end is not None
        end = bt.pose.end_mid(bt.free_end)
        for c in self.board.values():
            if c.status == "legal" and c.on == bt.tile and not c.tile.is_double and c.touching is not None:
                gap = float(np.hypot(*(c.pose.end_mid(c.touching) - end))) / bt.pose.width
                return c if STRAIGHT_TOE_GAP[0] <= gap <= STRAIGHT_TOE_GAP[1] else None
        return None

    @staticmethod
    def _fellow_toes(double: TilePose, loose: list[BoardTile]) -> list[tuple[BoardTile, int]]:
        """The (at most two) tiles set apart that lie as toes of `double` would, with its value at
        the end against it: (loose tile, its end touching the double), closest first."""
        v = double.pips[0]
        fits = []
        for lb in loose:
            if lb.tile.is_double or not lb.tile.has(v):
                continue
            contact = contact_on_double(lb.pose, double)
            if contact.score <= ATTACH_MAX and lb.pose.pips[contact.touching] == v:
                fits.append((contact.score, lb, contact.touching))
        fits.sort(key=lambda f: f[0])
        return [(lb, k) for _, lb, k in fits[:2]]

    def _loose_hypotheses(self, bt: BoardTile) -> list[tuple[Tile, TilePose]]:
        """What a loose tile may be: as read, or (not read as a double) a double of either value."""
        out = [(bt.tile, bt.pose)]
        if not bt.tile.is_double:
            for v in bt.pose.pips:
                out.append((Tile(v, v), TilePose(bt.pose.corners, (v, v))))
        return out

    def _loose_as_plays(self, loose: list[BoardTile], fixes: dict[Tile, tuple[Tile, TilePose]],
                        doubles: list[tuple[BoardTile, Tile, TilePose, BoardTile | None]] = ()  # type: ignore[assignment]
                        ) -> list[tuple[BoardTile | None, Tile, TilePose, Tile, int | None, int]] | None:
        """The loose tiles that become legal plays, in turn, once `fixes` (board tile -> its other
        reading) are made and the unseen `doubles` played (one with a toe laid before its toe, the
        toe moved onto it): (loose tile, or None for an unseen double; played as, pose, laid on,
        touching end, frame). None when the round does not replay with the fixes, or a double
        cannot be played."""
        assert self.current is not None
        referee = self.current.referee.copy()
        if fixes and referee.replace_many({old: (new, pose.pips[self.board[old].touching])  # type: ignore[index]
                                           for old, (new, pose) in fixes.items()}) is None:
            return None
        taken = {new for new, _ in fixes.values()}
        # the corrected tiles under their new values (the old entries, off the trial's layout,
        # rank behind them)
        extra = {new: BoardTile(new, pose, "legal", None, self.board[old].on, self.board[old].touching,
                                self.board[old].frame) for old, (new, pose) in fixes.items()}
        placed: list[tuple[BoardTile | None, Tile, TilePose, Tile, int | None, int]] = []
        frame = min(b.frame for b in loose)  # an unseen double was laid before its first toe was seen
        waiting = list(loose)
        for parent, double, pose, toe in doubles:
            on = fixes[parent.tile][0] if parent.tile in fixes else parent.tile
            if double in taken:
                return None
            if toe is not None:  # laid before its toe, which moves onto it, and its fellow toes with it
                fellows = self._fellow_toes(pose, [lb for lb in waiting if lb.tile not in taken])
                if toe.tile in fixes or referee.slip_double_under(
                        toe.tile, double, [(lb.tile, lb.pose.pips[k], lb.frame, 0.0) for lb, k in fellows]) is None:
                    return None
                first = min([toe.frame] + [lb.frame for lb, _ in fellows])
                extra[double] = BoardTile(double, pose, "legal", None, on, 0, first)
                placed.append((None, double, pose, on, 0, first))
                taken.add(double)
                for lb, k in fellows:
                    extra[lb.tile] = BoardTile(lb.tile, lb.pose, "legal", None, double, k, lb.frame)
                    placed.append((lb, lb.tile, lb.pose, double, k, lb.frame))
                    taken.add(lb.tile)
                    waiting.remove(lb)
                continue
            verdict = referee.judge(double, on)
            if not verdict.legal:
                return None
            referee.accept(double, verdict, frame, 0.0, pose.pips[0])
            extra[double] = BoardTile(double, pose, "legal", None, on, 0, frame)
            placed.append((None, double, pose, on, 0, frame))
            taken.add(double)
        progress = True
        while progress and waiting:
            progress = False
            for lb in list(waiting):
                for tile, pose in self._loose_hypotheses(lb):
                    if tile in taken or (tile in self.board and tile != lb.tile):
                        continue
                    played = None
                    for _, parent, contact in self._candidates(pose, extra, referee)[:2]:
                        on = fixes[parent.tile][0] if parent.tile in fixes else parent.tile
                        verdict = referee.judge(tile, on, pose.pips[contact.touching])
                        if verdict.legal:
                            referee.accept(tile, verdict, lb.frame, 0.0, pose.pips[contact.touching])
                            played = (on, contact.touching)
                            break
                    if played is None:
                        continue
                    on, touching = played
                    extra[tile] = BoardTile(tile, pose, "legal", None, on, touching, lb.frame)
                    placed.append((lb, tile, pose, on, touching, lb.frame))
                    taken.add(tile)
                    waiting.remove(lb)
                    progress = True
                    break
        return placed

    def _enter_explained(self, fixes: dict[Tile, tuple[Tile, TilePose]],
                         placed: list[tuple[BoardTile | None, Tile, TilePose, Tile, int | None, int]],
                         obs: Observation, toes: dict[Tile, BoardTile] | None = None) -> list[TrackEvent]:
        """Enter what `_explain_loose` chose: the board tiles corrected, unseen doubles (those in
        `toes` laid before the toe already played, which moves onto them) and the loose tiles
        played."""
        assert self.current is not None
        referee = self.current.referee
        events: list[TrackEvent] = []
        names = ", ".join(str(t) if lb is None or t == lb.tile else f"{lb.tile} (read as {t})" for lb, t, *_ in placed)
        if fixes:
            plays = referee.replace_many({old: (new, pose.pips[self.board[old].touching])  # type: ignore[index]
                                          for old, (new, pose) in fixes.items()})
            if plays is None:
                return []
            for (old, (new, pose)), play in zip(list(fixes.items()), plays):
                bt = self.board[old]
                events.extend(self._enter_correction(
                    bt, new, pose, bt.touching, play, obs,
                    f"{old} was {new} misread: its place has read {new} too, and with {new} the tiles "
                    f"set apart beside it ({names}) are plays the rules accept"))
        entered: set[int] = set()
        for n, (lb, tile, pose, on, touching, frame) in enumerate(placed):
            if n in entered:
                continue
            if lb is None and toes and tile in toes:
                fellows = [k for k in range(n + 1, len(placed)) if placed[k][3] == tile and placed[k][0] is not None]
                moved = self._slip_double_under(toes[tile], tile, pose, on, [placed[k] for k in fellows], obs)
                if moved is None:
                    break
                events.extend(moved)
                entered.update(fellows)
                continue
            value = None if touching is None else pose.pips[touching]
            verdict = referee.judge(tile, on, value)
            if not verdict.legal or (lb is not None and self.board.get(lb.tile) is not lb):
                break
            first = next((o for o in self.window if o.frame == frame), obs)
            if lb is None:
                events.append(Notice(obs.frame, obs.t, f"{tile} was never read, but the tiles set apart "
                                                       f"around {on}'s open end are its toes ({names}): played"))
            else:
                del self.board[lb.tile]
                if tile != lb.tile:
                    self._superseded.add((tile, lb.tile))
            referee.accept(tile, verdict, frame, first.t, value)
            self._played_legally.add(tile)
            # (an unseen double's place keeps the picture it shows now: the reader never finds it)
            patch = lb.patch if lb is not None else \
                tile_patch(obs.image, pose) if obs.image is not None and obs.motion is None else None
            self.board[tile] = BoardTile(tile, pose, "legal", verdict.player, on, touching, frame, patch=patch)
            events.append(TilePlayed(frame, first.t, str(tile), verdict.player, str(on), verdict.slot, verdict.end))
        # tiles still set apart that now touch the layout: judged as they lie
        for bt in sorted((b for b in self.board.values() if b.status == "loose"), key=lambda b: b.frame):
            cands = self._candidates(bt.pose)
            if cands:
                del self.board[bt.tile]
                events.append(self._judge(bt.tile, bt.pose, obs, cands, hand=False))
        return events

    def _slip_double_under(self, toe: BoardTile, double: Tile, pose: TilePose, on: Tile,
                           fellows: list[tuple[BoardTile | None, Tile, TilePose, Tile, int | None, int]],
                           obs: Observation) -> list[TrackEvent] | None:
        """Play `double`, never read, on `on` just before `toe`, move `toe` onto it, and play the
        loose `fellows` (entries of `_loose_as_plays`) on it with them (see `_straight_toe`); None
        with nothing changed where the round does not replay so."""
        assert self.current is not None
        referee = self.current.referee
        if self.board.get(toe.tile) is not toe or any(lb is None or self.board.get(lb.tile) is not lb
                                                      for lb, *_ in fellows):
            return None
        seen = {o.frame: o.t for o in self.window}
        entries = [(t, p.pips[k], f, seen.get(f, obs.t)) for _, t, p, _, k, f in fellows]  # type: ignore[index]
        if referee.slip_double_under(toe.tile, double, entries) is None:
            return None
        others = " and ".join(str(t) for _, t, *_ in fellows) or f"tiles with a {double.high}"
        message = (f"{double} was never read, but {toe.tile} lies a double's width beyond {on}'s end, and {others} "
                   f"lie apart around it as its other toes: {double} was played on {on} before {toe.tile}, which "
                   f"lies on it")
        plays = {p.tile: p for p in referee.plays}
        self._played_legally.add(double)
        patch = tile_patch(obs.image, pose) if obs.image is not None and obs.motion is None else None
        self.board[double] = BoardTile(double, pose, "legal", plays[double].player, on, 0, plays[double].frame,
                                       patch=patch)
        toe.on = double
        for lb, tile, tpose, _, k, frame in fellows:
            assert lb is not None
            del self.board[lb.tile]
            if tile != lb.tile:
                self._superseded.add((tile, lb.tile))
            self._played_legally.add(tile)
            self.board[tile] = BoardTile(tile, tpose, "legal", plays[tile].player, double, k, frame, patch=lb.patch)
        for p in referee.plays:  # each play after the double was made a turn later than it seemed
            if p.tile in self.board and self.board[p.tile].status == "legal":
                self.board[p.tile].player = p.player
        shown = [p for p in referee.plays if p.on == double]
        return [Notice(obs.frame, obs.t, message),
                TilePlayed(plays[double].frame, plays[double].t, str(double), plays[double].player, str(on), None,
                           plays[double].end),
                PlayCorrected(obs.frame, obs.t, str(toe.tile), str(toe.tile),
                              f"{toe.tile} lies on {double}, not on {on}: moved")] + \
            [TilePlayed(p.frame, p.t, str(p.tile), p.player, str(double), p.end % SLOT_STRIDE, p.end) for p in shown]

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
        if self.current is None or bt.status != "legal" or tile in self.board or bt.touching is None \
                or (bt.tile, tile) in self._superseded:
            return []
        old = bt.tile
        poses = [o.conflicts[old][1] for o in recent if old in o.conflicts and o.conflicts[old][0] == tile]
        if not poses or any(cost < SURE_READING_COST for p in poses for _, cost in p.second):
            return []
        boxed_short = bt.pose.length < SHORT_BOX * poses[-1].length
        boxed_long = bt.pose.length * SHORT_BOX > poses[-1].length
        if not (boxed_short or boxed_long) and not any(cost < SURE_READING_COST for _, cost in bt.pose.second):
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
        for loose in sorted((b for b in self.board.values() if b.status == "loose"), key=lambda b: b.frame):
            cands = self._candidates(loose.pose)
            if cands:
                del self.board[loose.tile]
                first = next((o for o in self.window if o.frame == loose.frame), obs)
                events.append(self._judge(loose.tile, loose.pose, first, cands, hand=False))
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
        if self.current is None or known.status != "legal" or self._readings(recent) < 2:
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
            queue.extend(b for b in self.board.values() if b.on == bt.tile and b.status == "legal")
        trial = referee.copy()
        if trial.replace_many(fixes) is None:
            return False
        # each corrected tile's far end must be the end left open, as the pictures show it
        if any(trial.open_value(new) != poses[old].pips[1 - ends[old]]
               for old, (new, _) in fixes.items() if not new.is_double):
            return False
        cands = self._candidates(pose)[:2]
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
            if bt.status != "legal" or bt.touching is None or tile in self.board or (bt.tile, tile) in self._superseded:
                continue
            reads = [o.conflicts[bt.tile][1] for o in recent
                     if bt.tile in o.conflicts and o.conflicts[bt.tile][0] == tile]
            if self._read_by_colour(bt, tile, recent):
                by_colour.add(bt.tile)
            elif any(cost < SURE_READING_COST for p in reads for _, cost in p.second):
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
        for bt in sorted((b for b in self.board.values() if (b.status == "illegal" or b.stood) and b.frame >= first),
                         key=lambda b: b.frame):
            if self.board.get(bt.tile) is not bt or not (bt.status == "illegal" or bt.stood):
                continue
            msg = f"{bt.tile} was legal after all: the plays it was judged against were misread, and are corrected"
            withdrawn = self._withdraw_stood_flag(bt, [], obs, msg) if bt.stood else self._withdraw_flag(bt, obs, msg)
            if withdrawn:
                events.extend(withdrawn)
                events.extend(self._rejudge_built_on(bt.tile, obs))
        return events

    def _steady_other_reading(self, bt: BoardTile, recent: list[Observation]) -> tuple[Tile, TilePose] | None:
        """The one other tile `bt`'s place reads as in (all but one of) `recent`, sure every time."""
        reads = [o.conflicts[bt.tile] for o in recent if bt.tile in o.conflicts and bt.tile not in o.seen]
        if len(reads) < max(2, len(recent) - 1) or len({t for t, _ in reads}) != 1:
            return None
        if any(cost < SURE_READING_COST for _, p in reads for _, cost in p.second):
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
            cands = self._candidates(pose)
            if any(self.current.referee.judge(t, bt.tile, pose.pips[c.touching]).legal
                   for score, bt, c in cands if score <= cands[0][0] + ALTERNATIVE_MARGIN):
                legal.append(t)
        return legal[0] if len(legal) == 1 else None

    def _place_unchanged(self, pose: TilePose, obs: Observation) -> bool:
        """Whether `pose`'s place looks in `obs` as it did on the board settled before the last
        motion: a tile laid changes the picture where it lies, so a "tile" at an unchanged place
        is something the reader made of what was already on the table (the strip of table
        between two tiles side by side, framed by their edges, reads as a tile, again and again)."""
        ref = self._before_motion
        if ref is None or obs.motion is not None:
            return False
        return ref.looks_alike(obs.image, pose)

    def _fits_open_end(self, pose: TilePose) -> bool:
        """Whether `pose` lies against an open end of the layout with that end's value: then a
        reading at a place that looks as it did before the last motion is taken for a tile the
        reader missed in the frames after it was laid, so that the board settled with it in the
        picture (in a rendered round, a 6-11 laid on the 11 of an 11-8 just before the camera was
        nudged went unread for the rest of the round, and two tiles played on it with it), not
        for the table read as a tile: that reading would have to give the end's very value."""
        if self.current is None:
            return False
        for _, bt, contact in self._candidates(pose)[:2]:
            if bt.status not in ("spinner", "legal", "joined") or not self.current.referee.open_slots(bt.tile):
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
                   for _, bt, contact in self._candidates(alt_pose)[:2]):
                legal[alt] = alt_pose
            elif self._fits_open_end(alt_pose):
                fitting[alt] = alt_pose
        fits = legal or fitting
        if len(fits) != 1:
            return None
        alt, alt_pose = next(iter(fits.items()))
        self._superseded.add((alt, tile))  # its place read as `tile` again is the same misreading
        return alt, alt_pose

    # --- changes ----------------------------------------------------------------------

    def _advise_on_size(self, obs: Observation) -> list[TrackEvent]:
        """Advice where the tiles on the table are too small for their values to be read
        reliably (`vision.capture`): a person can move the camera, and the plays and flags that
        follow are otherwise misreadings reported without a word. Given once, and again only
        where the camera's view has changed the tiles' size by a quarter (a nudged camera
        changes it by a few per cent and need not repeat it)."""
        lengths = [tile_length(bt.pose.corners) for bt in self.board.values() if not bt.missing]
        advice = small_tiles_warning(lengths, self.config.set_max, "in the camera's view")
        if advice is None:
            return []
        px = float(np.median(lengths))
        if self._advised_px is not None and abs(px - self._advised_px) < ADVICE_SIZE_CHANGE * self._advised_px:
            return []
        self._advised_px = px
        return [Notice(obs.frame, obs.t, advice)]

    def _camera_moved(self, recent: list[Observation]) -> list[TrackEvent]:
        m = recent[-1].motion
        assert m is not None
        centre = np.mean([bt.pose.centre for bt in self.board.values()], axis=0)
        shift, turn = motion_size(m, centre)
        self._follow_camera(m)
        last = recent[-1]
        return [CameraMoved(recent[0].frame, recent[0].t, round(shift, 1), round(turn, 2), last.matched)]

    @staticmethod
    def _fresh_observations(observations: list[Observation]) -> list[Observation]:
        """One observation per run of the recognizer: a reused reading shows nothing its first
        showing did not."""
        return list({o.read: o for o in observations}.values())

    @staticmethod
    def _readings(observations: list[Observation]) -> int:
        """How many runs of the recognizer these observations rest on."""
        return len({o.read for o in observations})

    def _still_there(self, bt: BoardTile, obs: Observation) -> bool:
        """Whether `obs` shows something at `bt`'s place: the tile itself, another reading of it,
        for a tile that cannot be taken back (a spinner, an older play) any reading lying on
        it, or the very picture the place showed when the board last settled; the recognizer
        can make one tile into another, or miss it, and a layout tile read as something else
        or not at all has not left the table."""
        if bt.tile in obs.seen or bt.tile in obs.conflicts:
            return True
        if bt.tile in obs.covered and bt.status in ("spinner", "legal", "joined") and not self._is_last_play(bt):
            return True
        # read as nothing at all, but its place looks as it did: the reader lost it, the
        # tile did not leave (on 45-px tiles a double-12 layout loses a few in every reading)
        return self._unchanged(bt, obs)

    def _lost_in_place(self, bt: BoardTile, recent: list[Observation]) -> bool:
        """Whether a play the reader no longer reads still lies in its place as the tile it was
        taken for: the place looks as it did, and a closer look (where the detector can look)
        reads that tile there. Only the reader lost it (beside the tile laid against it: taken
        back and then found again on a closer look, a 14-9 had been played twice); a closer look
        reading another tile there means the play was that tile misread (a 9-1 taken for 9-9),
        and it is taken back for the tile there to be played. A closer look that reads no tile
        at its place says nothing against a place that looks unchanged: the next tile laid end
        to end with like pips can make even the closer look box the pair across their seam.
        That does not hold for a double, which may be such a box itself."""
        if not any(self._unchanged(bt, o) for o in recent):
            return False
        looks = self._closer_looks(bt.pose)
        if not looks:
            return True
        top = self.config.set_max
        if bt.tile.is_double:
            # a double is often a box across the seam of two like ends (a 9-1 laid on a 9-4 read
            # 9-9): one the reader lost is kept only where a closer look reads it there again
            return bool(self._found_in_every_look(
                looks, lambda p: identity(p, top) == bt.tile and at_place_of(p, bt.pose)))
        return not self._found_in_every_look(
            looks, lambda p: identity(p, top) != bt.tile and at_place_of(p, bt.pose))

    def _moved_since(self, frame: int) -> bool:
        """Whether anything moved after `frame`: a tile is never taken away without a hand,
        so one that merely stops being read is the reader's failure, not a change."""
        return self._last_motion > frame

    def _is_last_play(self, bt: BoardTile) -> bool:
        if self.current is None:
            return False
        last = self.current.referee.last_play()
        return last is not None and last.tile == bt.tile and bt.status == "legal"

    def _take_back(self, bt: BoardTile, obs: Observation) -> list[TrackEvent]:
        del self.board[bt.tile]
        self._flag_views.pop(bt.tile, None)
        if bt.status == "illegal":
            if self.current is not None:
                for item in self.current.illegal:
                    if item["tile"] == str(bt.tile) and item.get("taken_back_frame") is None:
                        item["taken_back_frame"] = obs.frame
            return [TileTakenBack(obs.frame, obs.t, str(bt.tile), bt.player, False)]
        assert self.current is not None
        guess = self._dense_guesses.pop(bt.tile, None)
        if guess is not None and len(self.current.referee.plays) == guess.plays:
            return self._undo_dense_guess(bt, guess, obs)
        play = self.current.referee.take_back()
        return [TileTakenBack(obs.frame, obs.t, str(bt.tile), play.player, True)]

    def _undo_dense_guess(self, bt: BoardTile, guess: _DenseGuess, obs: Observation) -> list[TrackEvent]:
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
        self._superseded.discard((bt.tile, guess.read))
        on = play.on
        parent = self.board.get(guess.corrected) if guess.corrected is not None else None
        if parent is not None and guess.was_pose is not None:
            was = Tile(*guess.was_pose.pips)
            inner = guess.was_pose.pips[parent.touching or 0]  # (never None: see `_dense_end_misread`)
            undone = referee.replace(parent.tile, was, inner)
            if undone is not None:
                self._superseded.discard((parent.tile, was))
                events += self._enter_correction(
                    parent, was, TilePose(parent.pose.corners, guess.was_pose.pips), parent.touching, undone,
                    obs, f"{parent.tile} was {was} after all: {guess.read}, laid against it, was taken back at once")
                on = was
        err = referee.judge(guess.read, on, guess.touching).error
        rule, message = (err.code, err.message) if err is not None else (None, f"{guess.read} was taken back at once")
        laid = next((o for o in self.window if o.frame == bt.frame), obs)
        flag = self._flag(guess.read, guess.pose, play.player, self.board.get(on) if on else None, on, rule, message,
                          laid, frame=bt.frame, taken_back=obs.frame)
        return [*events,
                PlayCorrected(obs.frame, obs.t, str(guess.read), str(bt.tile),
                              f"{bt.tile} was taken back at once: it was laid as read, {guess.read}, and is flagged"),
                flag,
                TileTakenBack(obs.frame, obs.t, str(guess.read), play.player, False)]

    def _tiles_gone(self, gone: list[BoardTile], obs: Observation) -> list[TrackEvent]:
        events: list[TrackEvent] = []
        in_round = [bt for bt in self.board.values() if bt.status not in ("loose",)]
        if len(in_round) >= 2 and all(bt in gone for bt in in_round):
            return self._board_cleared(obs)
        missing = []
        # the newest first, so a take-back of the last play is seen before older tiles
        for bt in sorted(gone, key=lambda b: -b.frame):
            if bt.status == "loose":
                del self.board[bt.tile]
            elif bt.status == "illegal" or self._is_last_play(bt):
                events.extend(self._take_back(bt, obs))
            elif bt.status == "legal" and self.current is not None and \
                    (play := self.current.referee.take_back_entered_with_last(bt.tile)) is not None:
                # two tiles first seen in one reading were entered in a guessed order, and the
                # one taken back was entered first (a 14-4 taken back after an 11-3
                # seen with it was "missing", and the 11-4 laid on its later place was flagged)
                del self.board[bt.tile]
                self._flag_views.pop(bt.tile, None)
                events.append(TileTakenBack(obs.frame, obs.t, str(bt.tile), play.player, True))
            elif not bt.missing:
                bt.missing = True
                missing.append(str(bt.tile))
        if missing:
            events.append(BoardDisturbed(obs.frame, obs.t, missing=missing))
        return events

    def _board_cleared(self, obs: Observation) -> list[TrackEvent]:
        """Every tile gone at once: the round's tiles were swept up."""
        n = sum(1 for bt in self.board.values() if bt.status != "loose")
        self.board.clear()
        return [BoardCleared(obs.frame, obs.t, n, self.current is None)]

    def _place(self, found: list[tuple[Tile, TilePose, Observation]]) -> list[TrackEvent]:
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
        if self.current is None or not any(bt.status != "loose" for bt in self.board.values()):
            events.extend(self._start_round(fresh))
            fresh = [(t, p, o) for t, p, o in fresh if t not in self.board]
        # the tile seen first goes first, unless another order is one the rules accept better
        # (a toe read late, after the tile played beyond the finished chickie: toe first)
        pending = sorted(fresh, key=lambda item: item[2].frame)
        loose: list[str] = []
        if len(pending) > 1 and self.current is not None:
            pending = self._play_order(pending)
        window_clusters = self._clusters(self.window)  # the window does not change while placing
        while pending:
            # in that order, the first that lies against the board now
            options = [(k, self._candidates(item[1])) for k, item in enumerate(pending)]
            placeable = [(k, c) for k, c in options if c]
            k, cands = placeable[0] if placeable else options[0]
            item = pending.pop(k)
            tile, pose, obs = item
            if tile in self.board:
                continue  # played a moment ago, found on a closer look while judging another tile
            if not cands:
                between = self._parent_from_closer_look(tile, pose, obs)
                if between:
                    events.extend(between)
                    cands = self._candidates(pose)
            if not cands:
                # nothing close enough: a legal place a little further off is still a play
                # (the camera's corners are never exact); anything else is judged as it lies
                wide = self._candidates(pose, reach=2.0)
                legal = [c for c in wide
                         if self.current is not None
                         and self.current.referee.judge(tile, c[1].tile, pose.pips[c[2].touching]).legal]
                if legal:
                    cands = legal[:1]
                elif self._undecided_near(pose, window_clusters):
                    continue  # the tile it lies against may still be being read: wait for it
                elif (hole := self._hole_before(tile, pose)) is not None:
                    events.extend(self._fill_hole(*hole, tile, obs))
                    cands = self._candidates(pose)
                elif self._lies_on_board_tile(pose):
                    continue  # a second box on a tile already placed: tiles lying flat do not overlap
                elif (reread := self._reread_from_closer_look(tile, pose, [], obs)) is not None:
                    # read closer, it is another tile, and one the rules accept where it lies (a
                    # 0-0 laid across an arm's end, read 2-0, touched nothing a 2-0 could go on)
                    note, tile, pose, cands = reread
                    events.append(note)
                else:
                    # touching nothing a tile could be laid against: set down beside the layout
                    # (or a reading of something that is not a tile), not a play to judge
                    self.board[tile] = BoardTile(tile, pose, "loose", None, None, None, obs.frame)
                    loose.append(str(tile))
                    continue
            fixed = self._reread_flagged_parent(tile, pose, cands, obs)
            if fixed:
                events.extend(fixed)
                cands = self._candidates(pose) or cands
            if self._let_flags_stand(cands[0][1] if cands else None, obs):
                cands = self._candidates(pose) or cands  # before the checks that precede a flag
            if not self._ruling(tile, pose, cands)[2].legal and \
                    (hole := self._hole_before(tile, pose)) is not None:
                # it touches a tile it cannot go on, but lies a tile's length beyond an open end
                # the one tile between would make it legal: that tile was missed, not the rules
                events.extend(self._fill_hole(*hole, tile, obs))
                cands = self._candidates(pose) or cands
            if self._flag_unsure(tile, pose, cands):
                self._want_fresh = True  # read the next frame afresh before flagging anyone
                continue
            reread = self._reread_from_closer_look(tile, pose, cands, obs)
            if reread is not None:
                note, tile, pose, cands = reread
                events.append(note)
            closer = self._look_closer(tile, pose, cands, obs)
            if closer:
                events.extend(closer)
                cands = self._candidates(pose) or cands
            misread = self._dense_end_misread(tile, pose, cands, obs)
            if misread is not None:
                events.extend(misread[0])
                tile, pose = misread[1], misread[2]
                cands = self._candidates(pose) or cands
            events.append(self._judge(tile, pose, obs, cands, hand=len(fresh) == 1))
        # a tile set down apart earlier may now touch a tile laid since (a chickie read after
        # its toe): it was a play all along
        o = found[0][2]
        for bt in [b for b in self.board.values() if b.status == "loose" and str(b.tile) not in loose]:
            cands = self._candidates(bt.pose)
            if cands:
                del self.board[bt.tile]
                events.append(self._judge(bt.tile, bt.pose, o, cands, hand=False))
        if loose:
            events.append(BoardDisturbed(o.frame, o.t, loose=loose))
        if self._flag_views:
            events.extend(self._rejudge_waiting_flags(o))
        return events

    def _follow_camera(self, m: np.ndarray) -> None:
        """The camera moved by `m` (old picture -> new): the board's tiles, each flag's view and
        the pictures kept for comparison move with it. Why the pictures: dropped on every move,
        they left a reading at a place nothing was laid nothing to be compared with; in a rendered
        double-15 round a box across two tiles of the layout, read 6-2 only from the
        camera's new position, was taken for a play the moment the camera had moved, and flagged."""
        for bt in self.board.values():
            bt.pose = bt.pose.transformed(m)
        inv = np.linalg.inv(as_3x3(m))
        for tile, (image, to_then) in list(self._flag_views.items()):
            self._flag_views[tile] = (image, to_then @ inv)
        self._settled_image, self._before_motion, self._still_before_motion = (
            p.moved(m) if p is not None else None
            for p in (self._settled_image, self._before_motion, self._still_before_motion))
        self._reassociate()

    def _rejudge_waiting_flags(self, obs: Observation) -> list[TrackEvent]:
        """A play flagged because a double still waited for tiles is judged again when a tile
        the reader found only later turns out to have lain there already when the flag was
        raised (its place looked then as it looks now): the double was fed in time, the reader
        had missed its tile (a hand's shadow, a 40-px tile lost among sixty), and the play was
        legal. It is taken as played at its own frame and the flag is withdrawn."""
        if self.current is None or obs.image is None:
            return []
        events: list[TrackEvent] = []
        for tile, (image, to_then) in list(self._flag_views.items()):
            bt = self.board.get(tile)
            if bt is None or not (bt.status == "illegal" or bt.stood):
                self._flag_views.pop(tile, None)
                continue
            # (a tile first seen with the flagged one may have been laid before it in the same
            # stretch of hands: the order the rules accept is the likelier one, as in `_play_order`)
            earlier = [b for b in self.board.values() if b.status == "legal" and not b.stood and b.frame >= bt.frame
                       and b.tile not in self._flag_views and self._lay_there_at(b, image, to_then, obs.image)]
            if not earlier:
                continue
            seen = ", ".join(str(b.tile) for b in earlier)
            msg = (f"{tile} was legal after all: {seen}, read only later, already lay on the table when it "
                   f"was played, so the flag on it is withdrawn")
            withdrawn = self._withdraw_stood_flag(bt, earlier, obs, msg) if bt.stood else \
                self._withdraw_flag(bt, obs, msg)
            if withdrawn:
                events.extend(withdrawn)
                events.extend(self._rejudge_built_on(tile, obs))
        return events

    def _withdraw_stood_flag(self, bt: BoardTile, earlier: list[BoardTile], obs: Observation,
                             message: str) -> list[TrackEvent]:
        """`_withdraw_flag` for a flagged play the table kept (`_let_flags_stand`): the tiles
        read only later go before it in the round, and it becomes a plain play, where the round
        replays so (no events if not)."""
        assert self.current is not None
        flag = self._standing_flag(bt.tile)
        play = self.current.referee.stand_corrected(bt.tile, [b.tile for b in earlier])
        if flag is None or play is None:
            return []
        flag["withdrawn"] = True
        self._flag_views.pop(bt.tile, None)
        bt.stood = False
        bt.player = play.player
        slot = play.end % SLOT_STRIDE if play.on.is_double else None
        return [FlagWithdrawn(obs.frame, obs.t, str(bt.tile), str(bt.tile), message),
                TilePlayed(play.frame, play.t, str(bt.tile), play.player, str(play.on), slot, play.end)]

    def _withdraw_flag(self, bt: BoardTile, obs: Observation, message: str) -> list[TrackEvent]:
        """Judge a flagged tile again where it lies; if the engine now accepts it, withdraw the
        flag and enter it as played at its own frame (no events if not)."""
        assert self.current is not None
        book = self.current
        tile = bt.tile
        cands = self._candidates(bt.pose)
        if not cands:
            return []
        now, pose, verdict, parent, touching, _ = self._ruling(tile, bt.pose, cands)
        if not verdict.legal or now != tile or parent is None:
            return []
        flag = self._standing_flag(tile)
        if flag is None:
            return []
        flag["withdrawn"] = True
        self._flag_views.pop(tile, None)
        first = next((o for o in self.window if o.frame == bt.frame), obs)
        book.referee.accept(tile, verdict, bt.frame, first.t, pose.pips[touching] if touching is not None else None)
        self._played_legally.add(tile)
        self.board[tile] = BoardTile(tile, pose, "legal", verdict.player, parent.tile, touching, bt.frame)
        return [FlagWithdrawn(obs.frame, obs.t, str(tile), str(tile), message),
                TilePlayed(bt.frame, first.t, str(tile), verdict.player, str(parent.tile), verdict.slot, verdict.end)]

    def _rejudge_built_on(self, tile: Tile, obs: Observation) -> list[TrackEvent]:
        """Tiles flagged for lying against `tile` while it was flagged ("not part of the
        layout") are judged again now that its flag is withdrawn, in the order they were laid,
        and so on down each line built on them: one tile the reader missed must not leave a
        whole arm flagged."""
        events: list[TrackEvent] = []
        todo = [tile]
        while todo:
            parent = todo.pop(0)
            built = sorted((b for b in self.board.values() if b.status == "illegal" and b.on == parent),
                           key=lambda b: b.frame)
            for bt in built:
                msg = (f"{bt.tile} was legal after all: it lies against {parent}, whose flag was "
                       f"withdrawn, so the flag on it is withdrawn too")
                withdrawn = self._withdraw_flag(bt, obs, msg)
                if withdrawn:
                    events.extend(withdrawn)
                    todo.append(bt.tile)
        return events

    @staticmethod
    def _lay_there_at(bt: BoardTile, then: np.ndarray, to_then: np.ndarray, now: np.ndarray) -> bool:
        """Whether `bt`'s place looked in the picture `then` as it looks `now` (`to_then` maps
        today's coordinates to that picture's)."""
        return place_looks_alike(then, now, bt.pose, bt.pose.transformed(to_then))

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
        verdict = self._ruling(tile, pose, candidates)[2]
        if verdict.legal or verdict.error is None:
            return []
        referee = self.current.referee
        waiting_rule = verdict.error.code in WAITING_DOUBLE_RULES
        if waiting_rule:
            waiting = referee.board.pending_placement()
            focus = self.board.get(waiting.tile) if waiting is not None else None
        else:
            focus = candidates[0][1] if candidates and candidates[0][1].status == "legal" else None
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

        A legal play read with a second reading about as likely (`UNSURE_READING_COST`) is read
        closer too: on a double-15 table a 13-9 read 13-12 (14-12 as likely) was played on
        13-11, the 9-0 laid on it read 12-0 the same way, and the real 12-0, laid later, could
        not be played; the closer look read 13-9 and 9-0 at 0.92. There the closer reading must
        itself be sure, as the whole frame's was not."""
        if self.current is None or not hasattr(self.detector, "look_closer"):
            return None
        legal = self._ruling(tile, pose, candidates)[2].legal
        if legal and not any(cost < UNSURE_READING_COST for _, cost in pose.second):
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
        if legal and any(cost < SURE_READING_COST for _, cost in found.second):
            return None
        cands = self._candidates(found)
        if not cands or not self._ruling(new, found, cands)[2].legal:
            return None
        note = Notice(obs.frame, obs.t, f"{tile} was {new} misread: a closer look reads {new} there")
        return note, new, found, cands

    def _closer_looks(self, around: TilePose, counted: bool = False) -> list[list[TilePose]]:
        """What the detector's closer look reads around `around` on up to `CLOSE_LOOKS` still
        pictures of the window (each a different reading's picture); [] when it cannot look, or
        when a `counted` look would go past `CLOSE_LOOK_PLACES` in this still stretch."""
        look = getattr(self.detector, "look_closer", None)
        if look is None:
            return []
        pictures, reads = [], []
        for o in reversed(self.window):
            if o.image is not None and o.motion is None and o.read not in reads and len(pictures) < CLOSE_LOOKS:
                pictures.append(o.image)
                reads.append(o.read)
        reach = CLOSE_LOOK_REACH * around.length
        # still frames reuse one reading, and a tile left undecided comes back at every frame:
        # the same crop of the same pictures reads the same, so it is read once
        key = (int(round(around.centre[0])), int(round(around.centre[1])), int(round(reach)), tuple(reads))
        if key not in self._looks:
            if counted:
                if self._places_looked_at >= CLOSE_LOOK_PLACES:
                    return []
                self._places_looked_at += 1
            if len(self._looks) >= 64:
                self._looks.clear()
            self._looks[key] = [[p for p in (pose_from_detection(d) for d in look(img, around.centre, reach)
                                             if not getattr(d, "face_down", False)) if p is not None]
                                for img in pictures]
        return self._looks[key]

    def _parent_from_closer_look(self, tile: Tile, pose: TilePose, obs: Observation) -> list[TrackEvent]:
        """A tile that touches nothing on the board may lie against a tile the reader missed in
        every frame (a double across an arm, read at 0.5 confidence one frame in three): before
        it is set down apart, or joined to a tile further off, a closer look around it may find
        that tile. One every closer look found, that the engine accepts where it lies, and
        against which `tile` is then legal, is played first (see `_look_closer`)."""
        if self.current is None or not hasattr(self.detector, "look_closer") or tile in self._looked_around:
            return []
        # (a tile left undecided comes back at every frame, and frames read afresh while the
        # board is unsettled: without this, two crops would be read for it at every frame)
        self._looked_around.add(tile)
        looks = self._closer_looks(pose, counted=True)
        if not looks:
            return []
        referee = self.current.referee
        for found in self._found_in_every_look(looks, lambda p: self._unplayed_reading(p, tile)):
            new = identity(found, self.config.set_max)
            assert new is not None
            for score, bt, contact in self._candidates(found)[:2]:
                verdict = referee.judge(new, bt.tile, found.pips[contact.touching])
                if not verdict.legal:
                    continue
                placed = {new: BoardTile(new, found, "legal", verdict.player, bt.tile, contact.touching, obs.frame)}
                trial = referee.copy()
                trial.accept(new, verdict, obs.frame, obs.t, found.pips[contact.touching])
                on_it = [c for c in self._candidates(pose, extra=placed, referee=trial) if c[1].tile == new]
                if not on_it or not trial.judge(tile, new, pose.pips[on_it[0][2].touching]).legal:
                    continue
                note = Notice(obs.frame, obs.t, f"{new} was found on a closer look: {tile} lies against it")
                return [note, self._judge(new, found, obs, [(score, bt, contact)], hand=False)]
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
        if focus.status != "legal":
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
        where both are dense values the half reader confuses on small tiles (`DENSE_CONFUSED`):
        one of the two ends was misread, and is mended where that explanation holds:

        * first the open end, the outer end of the tile laid before: that play is corrected, when
          the round replays with it and this play is then legal (events, and the tile and pose
          as they were);
        * else the new tile's touching end: it is the tile with the open end's value there, when
          that is a tile not played and no double (a notice, and that tile and pose).

        None where neither holds: the play is judged as read.

        Why: on small double-15 tiles the half reader reads runs of one value as its neighbour,
        sure of each (held out: 12-15 read right 0.88-0.89 of the time, 0-8 0.96-0.99), so the
        close second readings `_ruling` tries are not there. A rendered round read 15-x tiles
        laid outward as 14-x; the 15-14 laid on the 15 of a "14-6" was flagged as laid the wrong
        way round, and such flags derailed the arm. Why the open end first: nothing checked it
        when its tile was played (any value may lie outward), while the new tile's touching end
        reached this point only if no close second reading of it fitted (`_ruling`). Weighing
        the reader's own odds of both ends instead chose worse (in a rendered double-15
        round, 7 false flags against 3): it is sure of its misreadings. Only small
        tiles (`SMALL_TILE_PX`), whose ends the half reader reads by their pattern: a large
        tile's dots are counted one by one. A tile truly laid with such a neighbouring value
        against such an end is taken for a legal play: that cheat goes unflagged."""
        if self.current is None or not candidates:
            return None
        referee = self.current.referee
        _, focus, contact = candidates[0]
        if focus.status != "legal" or focus.tile.is_double or focus.touching is None or focus.missing or \
                max(focus.pose.length, pose.length) >= SMALL_TILE_PX:
            return None
        inner, had = focus.pose.pips[focus.touching], focus.pose.pips[1 - focus.touching]
        near = contact.touching
        got = pose.pips[near]
        if min(had, got) < DENSE_CONFUSED or abs(had - got) > DENSE_CONFUSED_SPREAD:
            return None
        # (checked last: the engine's ruling costs more than the checks above, and most plays are legal)
        verdict = self._ruling(tile, pose, candidates)[2]
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
            self._dense_guesses[tile] = _DenseGuess(tile, pose, got, len(referee.plays) + 1, focus.pose, new)
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
            self._superseded.add((alt, tile))  # its place read as `tile` again is the same misreading
            self._dense_guesses[alt] = _DenseGuess(tile, pose, got, len(referee.plays) + 1)
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
        del self.board[old]
        self.board[new] = BoardTile(new, pose, "legal", play.player, bt.on, touching, bt.frame, patch=bt.patch)
        for other in self.board.values():
            if other.on == old:
                other.on = new
        self._played_legally.discard(old)
        self._played_legally.add(new)
        self._superseded.add((new, old))
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
            on_double = [c for c in self._candidates(found) if c[1].tile == double.tile]
            if new is None or new in self.board or not on_double or \
                    not referee.judge(new, double.tile, found.pips[on_double[0][2].touching]).legal:
                continue
            events.append(Notice(obs.frame, obs.t, f"{new} was found on a closer look at {double.tile}, "
                                                   f"before {tile} was judged"))
            events.append(self._judge(new, found, obs, on_double[:1], hand=False))
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
            if bt.status not in ("spinner", "legal") or bt.missing:
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
        self._played_legally.add(hole)
        self.board[hole] = BoardTile(hole, pose, "legal", verdict.player, parent.tile, 0, obs.frame)
        note = (f"{hole} was never read, but {tile} lies a tile beyond the open {pose.pips[0]} on "
                f"{parent.tile} with nothing seen between: {hole} is the only tile that fits there")
        return [Notice(obs.frame, obs.t, note),
                TilePlayed(obs.frame, obs.t, str(hole), verdict.player, str(parent.tile), verdict.slot, verdict.end)]

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
                cands = self._candidates(pose, extra=placed, referee=referee)
                verdict = None
                for score, bt, contact in cands:
                    if score > cands[0][0] + ALTERNATIVE_MARGIN:
                        break
                    v = referee.judge(tile, bt.tile, pose.pips[contact.touching])
                    if v.legal:
                        verdict = v
                        referee.accept(tile, v, obs.frame, obs.t)
                        placed[tile] = BoardTile(tile, pose, "legal", v.player, bt.tile, contact.touching, obs.frame)
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
            if bt.status == "loose" or bt.missing:
                continue
            other = bt.pose.corners.astype(np.float32)
            small = min(area, abs(cv2.contourArea(other)))
            if small > 0 and cv2.intersectConvexConvex(quad, other)[0] > OVERLAP_SAME_TILE * small:
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

    def _near_layout(self, pose: TilePose) -> bool:
        for bt in self.board.values():
            if bt.status == "loose":
                continue
            if np.hypot(*(bt.pose.centre - pose.centre)) < 1.6 * bt.pose.length:
                return True
        return False

    def _candidates(self, pose: TilePose, extra: dict[Tile, BoardTile] | None = None,
                    referee: Referee | None = None, reach: float = 1.0) -> list[tuple[float, BoardTile, Any]]:
        """Board tiles `pose` may lie against, best first: (mismatch, tile, contact); `reach`
        widens the tolerance."""
        if referee is None:
            referee = self.current.referee if self.current is not None else None
        out = []
        tiles = list(self.board.values()) + (list(extra.values()) if extra else [])
        for bt in tiles:
            if bt.status == "loose" or bt.missing:
                continue
            if np.hypot(*(bt.pose.centre - pose.centre)) > 2.5 * bt.pose.length:
                continue
            if bt.tile.is_double and bt.status in ("spinner", "legal", "joined"):
                contact = contact_on_double(pose, bt.pose)
            elif bt.free_end is not None:
                contact = contact_on_tile(pose, bt.pose, bt.free_end)
            else:
                continue
            score = contact.score
            if referee is not None and bt.status in ("spinner", "legal") and not referee.open_slots(bt.tile):
                score += 0.15  # prefer a place where a tile may go, when two are equally close
            if score <= ATTACH_MAX * reach:
                out.append((score, bt, contact))
        out.sort(key=lambda c: c[0])
        return out

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
        round_index = self._round_index_for(tile)
        round_double = self.config.set_max - round_index
        if self._told_round_double(tile) is not None and tile != Tile(round_double, round_double):
            # told which round this is, and the rules say it starts with that double: a spinner
            # read as another double (a 11-11 read as 9-9 on a crowded table), or laid alone and
            # read as a tile with one of its values, is misread, and following the misreading
            # would make every play on it look illegal
            want = Tile(round_double, round_double)
            events.append(Notice(obs.frame, obs.t, f"the spinner was read as {tile}; this round starts with {want}, "
                                                   f"so it is taken as {want}"))
            self._superseded.add((want, tile))
            tile, pose = want, TilePose(pose.corners, (round_double, round_double))
        referee = Referee(self.config, tile, self.next_spinner_player)
        self._played_legally = set()
        self._dense_guesses = {}  # (a guess of the round before is no guess about this one's plays)
        self.current = _RoundBook(referee, round_index)
        self.rounds.append(self.current)
        self._notes = []
        self._tally_seen = (set(), 0, False)
        self.board = {t: bt for t, bt in self.board.items() if bt.status == "loose"}
        self.board[tile] = BoardTile(tile, pose, "spinner", referee.spinner_player, None, None, obs.frame)
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
        return self._told_round_double(tile) in (tile.high, tile.low)

    def _told_round_double(self, spinner: Tile) -> int | None:
        """The double this round must start with, where the tracker was told the round and the
        rules require it; None where a misread spinner cannot be told from another double."""
        if self.next_round_index is None or self.rules.start_double != "required":
            return None
        return self.config.set_max - self._round_index_for(spinner)

    def _round_index_for(self, spinner: Tile) -> int:
        if self.next_round_index is not None:
            idx = self.next_round_index
        elif self.rules.start_double == "required":
            idx = self.config.set_max - spinner.high
        else:
            idx = len(self.sheet.rounds)
        return max(0, min(self.config.set_max, idx))

    def seat_of_hand(self, before: int) -> int | None:
        """The seat the last hand before frame `before` came from, if seats are known."""
        if not self.seats:
            return None
        entry = next((e for f, e in reversed(self._entries) if f < before), None)
        if entry is None:
            return None
        size = np.array(self.size if self.size is not None else self._picture_size(), float)
        point = np.array(entry) * size
        centre = size / 2
        angle = math.atan2(point[1] - centre[1], point[0] - centre[0])
        gaps = [abs((angle - s + math.pi) % (2 * math.pi) - math.pi) for s in self.seats]
        best = int(np.argmin(gaps))
        spacing = 2 * math.pi / len(self.seats)
        return best if gaps[best] < 0.6 * spacing else None

    def _picture_size(self) -> tuple[float, float]:
        return getattr(self.gate, "picture_size", (1.0, 1.0))

    def _follow_hand(self, obs: Observation) -> None:
        """If the hand that laid this tile came from another seat than the engine expects, the
        players in between drew and passed (which a camera does not see)."""
        if self.current is None or not self.seats:
            return
        seat = self.seat_of_hand(obs.frame)
        referee = self.current.referee
        n = self.config.players
        if seat is None or seat == referee.turn:
            return
        if n >= 3 and (seat - referee.turn) % n == n - 1:
            # everyone else passing is rarer than an earlier hand misjudged: take back the
            # latest pass inferred from a hand instead (or keep the turn order if none)
            referee.forget_pass()
            return
        referee.note_pass((seat - 1) % n)

    def _judge(self, tile: Tile, pose: TilePose, obs: Observation,
               candidates: list[tuple[float, BoardTile, Any]], hand: bool = True) -> TrackEvent:
        """Ask the engine about the play and enter its verdict (see `_ruling`)."""
        assert self.current is not None
        if hand:
            self._follow_hand(obs)
        # (also for tiles set apart before and judged again now, which skip `_place`'s checks)
        if self._let_flags_stand(candidates[0][1] if candidates else None, obs):
            candidates = self._candidates(pose) or candidates
        referee = self.current.referee
        read_as = tile
        tile, pose, verdict, parent, touching, misread = self._ruling(tile, pose, candidates)
        self._alternatives.pop(read_as, None)
        if misread:
            self._superseded.add((tile, read_as))
        on = parent.tile if parent is not None else None
        # a tile set apart earlier at this very place was this tile, misread (tiles do not overlap)
        for bt in [b for b in self.board.values() if b.status == "loose" and at_place_of(b.pose, pose)]:
            del self.board[bt.tile]
        if verdict.legal:
            referee.accept(tile, verdict, obs.frame, obs.t, pose.pips[touching] if touching is not None else None)
            self._played_legally.add(tile)
            self.board[tile] = BoardTile(tile, pose, "legal", verdict.player, on, touching, obs.frame)
            return TilePlayed(obs.frame, obs.t, str(tile), verdict.player, str(on), verdict.slot, verdict.end)
        err = verdict.error
        assert err is not None
        if err.code in WAITING_DOUBLE_RULES and parent is not None:
            earlier = self._laid_before_last(tile, pose, parent, touching, obs)
            if earlier is not None:
                return earlier
        self.board[tile] = BoardTile(tile, pose, "illegal", verdict.player, on, touching, obs.frame)
        if err.code in WAITING_DOUBLE_RULES and obs.image is not None:
            self._flag_views[tile] = (obs.image, np.eye(3))
        return self._flag(tile, pose, verdict.player, parent, on, err.code, err.message, obs)

    def _flag(self, tile: Tile, pose: TilePose, player: int | None, parent: BoardTile | None, on: Tile | None,
              rule: str | None, message: str, laid: Observation, frame: int | None = None,
              taken_back: int | None = None) -> TilePlayed:
        """An illegal play of `tile` on `on`, laid at `frame` (by default `laid`'s, the picture its
        evidence is saved from): entered in the round's record (taken back at frame `taken_back`,
        where it was), and its event."""
        assert self.current is not None
        frame = laid.frame if frame is None else frame
        evidence = self._save_evidence(laid, tile, pose, parent, message)
        self.current.illegal.append({"tile": str(tile), "player": player, "on": None if on is None else str(on),
                                     "rule": rule, "message": message, "frame": frame, "t": round(laid.t, 3),
                                     "evidence": evidence,
                                     **({"taken_back_frame": taken_back} if taken_back is not None else {})})
        return TilePlayed(frame, laid.t, str(tile), player, None if on is None else str(on), None, None,
                          legal=False, rule=rule, message=message, evidence=evidence)

    def _laid_before_last(self, tile: Tile, pose: TilePose, parent: BoardTile, touching: int | None,
                          obs: Observation) -> TrackEvent | None:
        """A play refused because the double laid last still waits for tiles, when the table shows
        it was laid before that double: its place looks as it did before the hands that laid the
        double came in, and the double's place does not. The reader had missed it for a few still
        frames (a 40-px tile among many), and the next player fed the layout elsewhere, laying the
        double; entered in the order the camera saw them, the earlier play looked like play
        elsewhere while the chickie waited (in a rendered round). It is entered before the
        double, where both plays are legal in that order."""
        assert self.current is not None
        referee = self.current.referee
        last = referee.plays[-1] if referee.plays else None
        double = self.board.get(last.tile) if last is not None else None
        ref = self._still_before_motion
        if last is None or double is None or not last.tile.is_double or last.stood or ref is None or \
                obs.image is None or obs.motion is not None:
            return None
        if not ref.looks_alike(obs.image, pose) or ref.looks_alike(obs.image, double.pose):
            return None
        play = referee.play_before_last(tile, parent.tile, pose.pips[touching] if touching is not None else None,
                                        obs.frame, obs.t)
        if play is None:
            return None
        self._played_legally.add(tile)
        self.board[tile] = BoardTile(tile, pose, "legal", play.player, parent.tile, touching, obs.frame)
        double.player = referee.plays[-1].player
        slot = play.end % SLOT_STRIDE if play.on.is_double else None
        return TilePlayed(obs.frame, obs.t, str(tile), play.player, str(parent.tile), slot, play.end)

    def _ruling(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]]
                ) -> tuple[Tile, TilePose, Verdict, BoardTile | None, int | None, bool]:
        """The engine's verdict on the play, changing nothing: (tile, pose, verdict, the tile it
        goes on, its touching end, whether the reading taken is the reader's second). Where the
        geometry allows two places nearly equally well, a legal one is preferred; where no place
        is legal, another reading the rules accept there is: first one the readings stayed split
        with (the legal reading wins the tie), then the reader's own close second (a misread dot
        is likelier than an illegal play)."""
        assert self.current is not None
        referee = self.current.referee
        verdicts = []
        for score, bt, contact in candidates:
            if verdicts and score > candidates[0][0] + ALTERNATIVE_MARGIN:
                break
            verdict = referee.judge(tile, bt.tile, pose.pips[contact.touching])
            verdicts.append((verdict, bt, contact.touching))
            if verdict.legal:
                return tile, pose, verdict, bt, contact.touching, False
        if not verdicts:
            verdicts.append((referee.judge(tile, None), None, None))
        others = [(alt, alt_pose, False) for alt, alt_pose in self._alternatives.get(tile, [])]
        others += [(Tile(*pips), TilePose(pose.corners, pips), True) for pips, cost in pose.second
                   if cost <= SECOND_READING_COST]
        for alt, alt_pose, misread in others:
            if alt in self.board or alt == tile:
                continue
            for score, bt, contact in self._candidates(alt_pose)[:2]:
                v = referee.judge(alt, bt.tile, alt_pose.pips[contact.touching])
                if v.legal:
                    # the reading taken is not the reader's first: the play keeps the first as a
                    # close second, so sure later readings of its place may correct it
                    return alt, with_first_reading(alt_pose, pose), v, bt, contact.touching, misread
        verdict, parent, touching = verdicts[0]
        return tile, pose, verdict, parent, touching, False

    def _would_flag(self, obs: Observation) -> bool:
        """Whether `obs` shows a new tile against the layout whose play, as read, the engine
        refuses. Its flag will wait for `FLAG_RUNS` runs of the recognizer that agree, so the
        frames until then are read afresh rather than reused from the first reading: a planted
        tile lies still for a few frames only before the hand that laid it takes it back, and
        waiting for the decision window before asking for fresh readings saw it go unflagged."""
        if self.current is None:
            return False
        for pose in obs.new:
            tile = identity(pose, self.config.set_max)
            if tile is None or tile in self.board:
                continue
            candidates = self._candidates(pose)
            if candidates and not self._ruling(tile, pose, candidates)[2].legal:
                return True
        return False

    def _flag_unsure(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]]) -> bool:
        """Whether the play would be flagged on the word of a single run of the recognizer.

        Still frames are read once and the reading reused while the picture does not change, so
        a tile can be "seen" in every frame of the window on one reading; a dot misread there
        (a 4 read as a 2 while a shadow passes) would flag a legal play. A flag costs a player
        an accusation, so it waits for a second reading of a fresh frame, up to
        `FLAG_MAX_READS` readings of the board since it last moved."""
        runs = self._support.get(tile)
        if runs is None or len(runs) >= FLAG_RUNS or self._readings(self.window) >= FLAG_MAX_READS:
            return False
        return not self._ruling(tile, pose, candidates)[2].legal

    def _standing_flag(self, tile: Tile) -> dict[str, Any] | None:
        """The flag raised on `tile`'s play, while neither taken back nor withdrawn."""
        assert self.current is not None
        return next((f for f in reversed(self.current.illegal) if f["tile"] == str(tile)
                     and f.get("taken_back_frame") is None and not f.get("withdrawn")), None)

    def _let_flags_stand(self, parent: BoardTile | None, obs: Observation) -> bool:
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
        if self.current is None:
            return False
        waiting = sorted((b for b in self.board.values() if b.status == "illegal"
                          and (f := self._standing_flag(b.tile)) is not None and f["rule"] in WAITING_DOUBLE_RULES),
                         key=lambda b: b.frame)
        entered = False
        for bt in waiting:
            entered = self._let_stand(bt, obs) or entered
        if parent is not None:
            entered = self._let_stand(parent, obs, built_on=True) or entered
        return entered

    def _let_stand(self, top: BoardTile, obs: Observation, built_on: bool = False) -> bool:
        """`top`'s flagged play (and those of the flagged tiles it lies against in turn, first)
        entered as kept (`_let_flags_stand`). A tile first seen with the one `built_on` it (a
        stretch of plays read at once, after a hand hid them) was kept too: the other was laid
        against it."""
        assert self.current is not None
        chain: list[BoardTile] = []
        bt: BoardTile | None = top
        while bt is not None and bt.status == "illegal" and bt not in chain:
            chain.append(bt)
            bt = self.board.get(bt.on) if bt.on is not None else None
        if not chain or bt is None or bt.status not in ("spinner", "legal", "joined"):
            return False
        referee = self.current.referee
        entered = False
        for bt in reversed(chain):
            flag = self._standing_flag(bt.tile)
            if bt.missing or bt.frame > obs.frame or (bt.frame == obs.frame and not built_on) or \
                    flag is None or bt.on is None:
                break
            touching = bt.pose.pips[bt.touching] if bt.touching is not None else None
            play = referee.let_stand(bt.tile, bt.on, touching, bt.frame, flag["t"],
                                     waive=flag["rule"] in WAITING_DOUBLE_RULES)
            if play is None:
                break
            bt.status, bt.stood, bt.player = "legal", True, play.player
            flag["stood_frame"] = obs.frame
            entered = True
        return entered

    def _reread_flagged_parent(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]],
                               obs: Observation) -> list[TrackEvent]:
        """A tile laid against one flagged "ends do not match" says how that one was misread.

        Players take an illegal play back; they do not build on it. So when the next tile is
        laid against a tile flagged for a touching end that did not match, whose outer end
        matches the new tile, and whose touching end read within two dots of what it needed,
        the touching end was misread: the tile is the one with the needed value there. It is
        taken as played (at the frame it was laid), the flag is withdrawn, and play goes on
        from it rather than every later tile on that arm being flagged as laid off the layout.
        A tile laid the wrong way round is never re-read this way (its outer end is the value
        the parent needed, so the re-reading would be a double)."""
        if self.current is None or not candidates:
            return []
        _, bt, contact = candidates[0]
        if bt.status != "illegal" or bt.on is None or bt.touching is None:
            return []
        book = self.current
        flag = self._standing_flag(bt.tile)
        if flag is None or flag["rule"] != "ends_do_not_match":
            return []
        referee = book.referee
        parent = self.board.get(bt.on)
        slots = referee.open_slots(bt.on)
        if parent is None or not slots:
            return []
        need = referee.board.open_ends[slots[0]].value
        read_touching, outer = bt.pose.pips[bt.touching], bt.pose.pips[1 - bt.touching]
        got = pose.pips[contact.touching]
        if outer != got or need == got or abs(read_touching - need) > 2:
            return []
        alt = Tile(need, got)
        if alt in self.board or not alt.in_set(self.config.set_max):
            return []
        verdict = referee.judge(alt, bt.on, need)
        if not verdict.legal:
            return []
        del self.board[bt.tile]
        flag["withdrawn"] = True
        self._superseded.add((alt, bt.tile))  # later readings of the old value there are the same misread
        first = next((o for o in self.window if o.frame == bt.frame), obs)
        new_pose = TilePose(bt.pose.corners, (need, got) if bt.touching == 0 else (got, need))
        referee.accept(alt, verdict, bt.frame, first.t, need)
        self.board[alt] = BoardTile(alt, new_pose, "legal", verdict.player, bt.on, bt.touching, bt.frame)
        msg = (f"{bt.tile} was {alt} misread: {tile} was laid against its {got} end, so the flag on it "
               f"is withdrawn")
        return [FlagWithdrawn(obs.frame, obs.t, str(alt), str(bt.tile), msg),
                TilePlayed(bt.frame, first.t, str(alt), verdict.player, str(bt.on), verdict.slot, verdict.end)]

    def _save_evidence(self, obs: Observation, tile: Tile, pose: TilePose, parent: BoardTile | None,
                       message: str) -> str | None:
        if self.evidence_dir is None or obs.image is None:
            return None
        import cv2

        img = obs.image.copy()
        if parent is not None:
            cv2.polylines(img, [parent.pose.corners.astype(np.int32)], True, (60, 200, 60), 2, cv2.LINE_AA)
        cv2.polylines(img, [pose.corners.astype(np.int32)], True, (0, 0, 255), 3, cv2.LINE_AA)
        scale = max(0.5, img.shape[1] / 1600)
        text = f"frame {obs.frame}: {message}"
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.rectangle(img, (5, 5), (15 + tw, 15 + th + 5), (0, 0, 0), -1)
        cv2.putText(img, text, (10, 10 + th), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 255), 2, cv2.LINE_AA)
        self.evidence_dir.mkdir(parents=True, exist_ok=True)
        path = self.evidence_dir / f"illegal_{obs.frame:06d}_{tile.high}-{tile.low}.jpg"
        try:
            cv2.imwrite(str(path), img)
        except cv2.error:
            return None
        return str(path)

    # --- people's input ---------------------------------------------------------------

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
        if not 0 <= player < self.config.players:
            raise ValueError(f"there is no player {player} at this table")
        self._notes.append((len(self.current.referee.plays), kind, player))
        return self._watch_hands(self.frames, self.last_read_t if math.isfinite(self.last_read_t) else 0.0)

    def hand_tally(self) -> HandTally | None:
        """Each hand's size in the round in progress, counted from the deal, the plays seen, the
        passes and draws noted and the Chickenlittle penalties (`engine.HandTally`)."""
        book = self.current
        if book is None:
            return None
        referee = book.referee
        tally = HandTally.for_round(self.config, referee.spinner_player)
        notes = sorted(self._notes, key=lambda n: n[0])
        k = 0

        def upto(i: int) -> None:
            nonlocal k
            for _ in range(referee.passes.get(i, 0)):
                if tally.over:
                    return
                who = tally.turn
                if tally.boneyard > 0:
                    tally.draw(who)
                tally.pass_turn(who)
            while k < len(notes) and notes[k][0] <= i:
                _, kind, who = notes[k]
                k += 1
                try:
                    if kind == "draw":
                        tally.draw(who)
                    else:
                        tally.announce(who)
                except IllegalPlay:
                    pass  # (a call no longer owed after a correction to the plays)

        for i, play in enumerate(referee.plays):
            upto(i)
            if tally.over:
                break
            tally.play(play.player)
        upto(len(referee.plays))
        return tally

    def _watch_hands(self, frame: int, t: float) -> list[TrackEvent]:
        """Report a player newly down to one tile, a forgotten call's penalty, and a round every
        seat passed in with nothing to draw (with the proof of why)."""
        tally = self.hand_tally()
        if tally is None:
            return []
        out: list[TrackEvent] = []
        seen_last, seen_penalties, seen_blocked = self._tally_seen
        last = set(tally.last_tile)
        for p in sorted(last - seen_last):
            out.append(LastTile(frame, t, p, p in tally.unannounced))
        for pen in tally.penalties[seen_penalties:]:
            out.append(ChickenlittlePenalty(frame, t, pen.player, pen.form, pen.by, pen.sentence()))
        stalled = self._stalled(tally)
        if stalled and not seen_blocked:
            proof = explain_board(self.current.referee.board, self.config.set_max, boneyard=tally.boneyard)
            out.append(RoundBlocked(frame, t, proof.blocked, proof.reason, proof.to_dict()))
        self._tally_seen = (last, len(tally.penalties), stalled)
        return out

    def _stalled(self, tally: HandTally) -> bool:
        """Every seat has passed since the last play, and nothing is left to draw."""
        if tally.boneyard > 0 or tally.over:
            return False
        passes = 0
        for entry in reversed(tally.history):
            if entry[0] == "play":
                break
            passes += entry[0] == "pass"
        return passes >= tally.players

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
        self.board.clear()
        self.window.clear()
        self.settled = False
        self.gate.reset() if hasattr(self.gate, "reset") else None
        return RoundScored(self.frames, self.last_read_t if t is None else t, round_index, double, list(raw),
                           list(scores), self.sheet.totals(), source, self.rules.describe())

    @staticmethod
    def hand_from_recognition(rec: Any) -> list[Tile]:
        """The tiles of one hand photo (`vision.recognize` result) for `end_round(hands=...)`."""
        return [Tile(*t.pips) for t in rec.tiles if t.pips is not None]

    # --- output -----------------------------------------------------------------------

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
            illegal_on_table=[str(bt.tile) for bt in self.board.values() if bt.status == "illegal" or bt.stood],
            plays=0 if referee is None else len(referee.plays),
            scores=self.sheet.to_dict(),
            settled=self.settled,
            frames=self.frames,
            frames_read=self.frames_read,
            frames_reused=self.frames_reused,
            size=self.size,
            hands=None if tally is None else tally.to_dict(),
            blocked=None if tally is None or not self._stalled(tally) else
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
