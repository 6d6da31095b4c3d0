"""The tracker's tuning: one `TrackerConfig` the tracker reads, written and read back as JSON,
refusing names and values it does not know."""
from __future__ import annotations

import json

import pytest

from engine import GameConfig, HouseRules
from vision.tracking import Tracker
from vision.tracking.motion import MotionReading
from vision.tracking.tuning import TrackerConfig, TrackerConfigError


class _HandThenStill:
    """A hand over the table in the first frame, then every frame still and changed."""

    def __init__(self) -> None:
        self.frames = 0

    def update(self, frame):
        self.frames += 1
        moving = self.frames == 1
        return MotionReading(moving, True, float(moving), 1.0)

    def set_reference(self):
        pass


def _reads(tracker: Tracker, frames: int) -> int:
    calls = []
    tracker.detector = lambda frame: calls.append(frame) or []
    for k in range(frames):
        tracker.push(object(), k / 30)
    return len(calls)


def test_a_tuning_written_as_json_reads_back_the_same():
    tuning = TrackerConfig(flag_runs=4, straight_toe_gap=(0.5, 1.5))
    again = TrackerConfig.from_dict(json.loads(json.dumps(tuning.to_dict())))
    assert again == tuning and again.straight_toe_gap == (0.5, 1.5)


def test_an_unknown_name_is_refused_with_the_names_known():
    with pytest.raises(TrackerConfigError, match=r"unknown tracker tuning flag_run;.*flag_runs"):
        TrackerConfig.from_dict({"flag_run": 4})


@pytest.mark.parametrize("name, value", [("flag_runs", 2.5), ("window", True), ("recheck_s", "3"),
                                         ("straight_toe_gap", [0.6])])
def test_a_value_of_the_wrong_kind_is_refused(name, value):
    with pytest.raises(TrackerConfigError, match=name):
        TrackerConfig.from_dict({name: value})


def test_the_tracker_waits_the_still_frames_its_tuning_asks_before_reading():
    rules = GameConfig(2, 6, HouseRules())
    assert _reads(Tracker(rules, gate=_HandThenStill()), 4) == 2
    assert _reads(Tracker(rules, gate=_HandThenStill(), tuning=TrackerConfig(still_before_read=3)), 4) == 1


def test_window_arguments_given_to_the_tracker_replace_its_tuning_s():
    tracker = Tracker(GameConfig(2, 6, HouseRules()), window=5, tuning=TrackerConfig(window=4, recheck_s=1.0))
    assert (tracker.window_size, tracker.remove_window, tracker.recheck_s) == (5, 5, 1.0)
    assert tracker.tuning.window == 5
