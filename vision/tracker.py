"""Follow a live Chicken Foot round from camera frames (see `vision.tracking`).

    from vision.tracker import Tracker
    tracker = Tracker(GameConfig(4, 9, rules), detector=RecognizerDetector(get_recognizer(), 9))
    events = tracker.push(frame_bgr, t)     # list[TrackEvent], each with to_dict()
    tracker.state                           # stable board, open ends, turn, score sheet
"""
from vision.tracking import *  # noqa: F401,F403
from vision.tracking import __all__  # noqa: F401
