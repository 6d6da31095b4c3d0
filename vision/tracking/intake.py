"""Frame intake: the motion gate, and whether a still frame is read afresh or the last reading stands.

While something moves nothing is read: hands hide tiles and blur smears pips. A still frame that
the gate finds no different from the last frame read takes that reading again, so a change costs
one reading, not one per frame of the decision window; a reading that leaves a board tile
unexplained earns a fresh one before anything leaves the board on its word.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .board import Observation, TileStatus
from .events import FrameRejected, StreamLost, StreamResumed, TrackEvent
from .geometry import TilePose, pose_from_detection
from .motion import MotionReading
from .tuning import TrackerConfig


class RecognizerRuns:
    """The recognizer's runs on still frames: how many were made and reused, the last one's tiles,
    and whether the next still frame must be read afresh (a doubt, a flag about to be raised)
    rather than take the last reading again. Why an object: the parts that want a fresh reading
    ask for one (`ask_fresh`) instead of setting a flag on the tracker."""

    def __init__(self, tuning: TrackerConfig) -> None:
        self.tuning = tuning
        self.read = 0
        """Frames the recognizer ran on."""
        self.reused = 0
        """Still frames that took the last reading again (no different from the frame read)."""
        self.last_poses: list[TilePose] | None = None
        self.fresh_at = -1
        """Frame index of the last fresh run of the recognizer."""
        self.in_stretch = 0
        """Fresh runs on the picture since it last changed."""
        self.doubt = False
        """The last fresh reading left a board tile unexplained: a second opinion is wanted."""
        self.want_fresh = False
        """A play about to be flagged rests on one run of the recognizer: read the next frame afresh."""

    def ask_fresh(self) -> None:
        """Read the next still frame afresh, whatever the gate says of it."""
        self.want_fresh = True

    def new_stretch(self) -> None:
        """Something moved: the picture after it earns its own fresh readings."""
        self.in_stretch = 0

    def read_or_reuse(self, detector: Any, gate: Any, frame: Any, reading: MotionReading, recheck: bool,
                      index: int) -> tuple[list[TilePose], bool]:
        """The tiles this frame shows, and whether `detector` read them afresh: the last
        reading stands for a frame the gate finds no different from the last frame read, unless
        a re-read, a second opinion or a fresh reading before a flag is wanted."""
        second_opinion = (self.doubt and self.in_stretch < self.tuning.fresh_reads_on_doubt) or self.want_fresh
        if getattr(reading, "same_as_read", False) and not recheck and not second_opinion \
                and self.last_poses is not None:
            # nothing changed since the last frame read: its reading stands for this frame too
            self.reused += 1
            return list(self.last_poses), False
        detections = detector(frame)
        self.read += 1
        if not getattr(reading, "same_as_read", False):
            self.in_stretch = 0  # another picture: a new stretch of readings
        self.in_stretch += 1
        self.want_fresh = False
        poses = [p for p in (pose_from_detection(d) for d in detections if not getattr(d, "face_down", False))
                 if p is not None]
        self.last_poses = poses
        self.fresh_at = index
        if hasattr(gate, "mark_read"):
            gate.mark_read()
        return poses, True


class FrameIntake:
    """The tracker's frame intake: methods of `Tracker` (a mixin: it is the orchestrator's loop,
    driving the gate, the runs, the observations and a decision for every frame)."""

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
            self._motion(reading, index)
            return events
        self._still += 1
        self._last_still = frame if isinstance(frame, np.ndarray) else None
        if self._still < self.tuning.still_before_read:
            return events  # a hand pausing mid-move looks still for one frame: wait for a second
        self._after_motion(reading)
        recheck = self._wants_reading(reading, t)
        if recheck is None or self.detector is None:
            return events
        poses, fresh = self._read_or_reuse(frame, reading, recheck, index)
        self.last_read_t = t
        obs = Observation(index, t, poses, frame if isinstance(frame, np.ndarray) else None, read=self.runs.read)
        self._observe(obs, fresh, recheck)
        events.extend(self._decide())
        events.extend(self.book.watch_hands(index, t))
        return events

    def _motion(self, reading: MotionReading, index: int) -> None:
        """Something moves: the window and the still stretch's looks start afresh once it stops;
        the window is held until the picture after the motion is known (`_after_motion`)."""
        if self._still and self.window:  # (a one-frame pause between two moves reads nothing)
            self._held = (list(self.window), self.table.hold_support())  # (the window is emptied below)
        self._last_motion = index
        self.runs.new_stretch()
        self.window.clear()
        self.table.forget_support()
        self.looks.new_stretch()
        self._reads_since_change = 0  # a new picture earns its own reads before settling
        if self._still:  # a new stretch of motion: hands seen before it are not this one's
            self.hand_seats.new_motion()
            self.table.motion_began(self._last_still)
        self._still = 0
        if reading.entry is not None:
            self.hand_seats.hand_came_in(index, reading.entry, self.tuning.kept_hands)

    def _after_motion(self, reading: MotionReading) -> None:
        """The first still frame read after a motion: the readings before it still hold where the
        motion left the picture as it was last read while a change was still being read."""
        if self._held is None:
            return
        if getattr(reading, "same_as_read", False) and not self.settled:
            # the motion left the picture as it was last read (a hand that came near and
            # went, touching nothing) while a change was still being read: the readings
            # before it still hold. Why: a planted 10-0 was read twice, a hand twitched at
            # the edge, it was read once more and taken back; three readings, never three in
            # one window, so never flagged (in a rendered double-12 round). (A settled
            # board is read afresh after any hand: a pale tile can pass the gate unseen.)
            held_window, held_support = self._held
            self.window[:0] = held_window
            self.table.restore_support(held_support)
        self._held = None

    def _wants_reading(self, reading: MotionReading, t: float) -> bool | None:
        """Whether this still frame is read: None when not (a settled board the gate finds
        unchanged), True for a re-read of a settled board, False for a board not settled."""
        if reading.changed:
            self.settled = False
        elif self.settled:
            # a hand came over the table since the last fresh reading: read once when it has
            # gone, whatever the gate says (a pale tile laid on a pale table changed 2 pixels of
            # the thumbnail, fewer than the gate asks, and the next hand came in before the 3-s
            # re-read: the play was never read)
            if t - self.last_read_t < self.recheck_s and self._last_motion < self.runs.fresh_at:
                return None
            return True  # a fresh reading now and then, whatever the gate says
        return False

    def _read_or_reuse(self, frame: Any, reading: MotionReading, recheck: bool,
                       index: int) -> tuple[list[TilePose], bool]:
        """The tiles this frame shows, and whether the recognizer read them afresh
        (`RecognizerRuns.read_or_reuse`)."""
        return self.runs.read_or_reuse(self.detector, self.gate, frame, reading, recheck, index)

    def _observe(self, obs: Observation, fresh: bool, recheck: bool) -> None:
        """File a reading in the window, matched to the board."""
        self._associate(obs)
        if fresh:
            # a reading that leaves a board tile unexplained earns a second reading before
            # anything leaves the board on its word
            self.runs.doubt = bool(obs.conflicts) or any(
                not bt.missing and bt.status != TileStatus.LOOSE and not self._still_there(bt, obs)
                for bt in self.board.values())
        if recheck and (obs.new or obs.conflicts):
            # the occasional re-read found something the motion gate missed (a tile laid
            # without the picture seeming to change): read on until it is decided
            self.settled = False
        self.window.append(obs)
        del self.window[:-self.tuning.max_window]

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
        if self._size_misses >= self.tuning.adopt_size_after:
            # the source changed resolution for good: carry on at the new size (the board is
            # re-registered from the tiles, as after a knocked camera)
            self.size = (w, h)
            self._size_misses = 0
            self.window.clear()
            self.table.forget_support()
            return frame, None
        return frame, f"frame is {w}x{h} but this stream is {W}x{H}"

    def stream_lost(self, reason: str, t: float | None = None) -> list[TrackEvent]:
        """The source stopped delivering; the game so far stays, tracking resumes on the next frame."""
        self._lost = True
        self.window.clear()
        return [StreamLost(self.frames, self.last_read_t if t is None else t, reason)]
