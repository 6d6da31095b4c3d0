"""Following a live game from a camera: frames -> stable board states -> plays judged
by the rules engine -> events, the score sheet and the game record.

`Tracker` is the entry point (see `vision.tracking.tracker`); `vision.tracker`
re-exports it for callers that want one import.
"""
from .events import (EVENT_KINDS, BoardCleared, BoardDisturbed, CameraMoved, FlagWithdrawn, FrameRejected, Notice,
                     PlayCorrected, RoundScored, RoundStarted, StreamLost, StreamResumed, TileTakenBack, TilePlayed,
                     TrackEvent)
from .motion import MotionGate, MotionReading
from .referee import Referee, Verdict
from .tracker import RecognizerDetector, Tracker, TrackerState
from .tuning import TrackerConfig, TrackerConfigError

__all__ = [
    "EVENT_KINDS", "BoardCleared", "BoardDisturbed", "CameraMoved", "FlagWithdrawn", "FrameRejected", "MotionGate", "MotionReading", "Notice",
    "PlayCorrected", "RecognizerDetector", "Referee", "RoundScored", "RoundStarted", "StreamLost", "StreamResumed", "TileTakenBack",
    "TilePlayed", "TrackEvent", "Tracker", "TrackerConfig", "TrackerConfigError", "TrackerState", "Verdict",
]
