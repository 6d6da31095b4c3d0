"""The recognizer's runs on still frames: a frame no different from the last one read takes its
reading again, unless a fresh reading was asked for or a doubt wants a second opinion."""
from __future__ import annotations

import numpy as np

from vision.tracking.intake import RecognizerRuns
from vision.tracking.motion import MotionReading
from vision.tracking.tuning import TrackerConfig
from vision.types import TileDetection


def _detector():
    calls = []

    def detect(frame):
        calls.append(frame)
        d = TileDetection(0, np.array([[0, 0], [40, 0], [40, 80], [0, 80]], np.float32), 0.9)
        d.pips = (6, 2)
        return [d]

    return detect, calls


def _still(same: bool) -> MotionReading:
    return MotionReading(False, not same, 0.0, 1.0, same_as_read=same)


def test_a_frame_no_different_from_the_last_read_takes_its_reading_again() -> None:
    runs, (detect, calls) = RecognizerRuns(TrackerConfig()), _detector()
    poses, fresh = runs.read_or_reuse(detect, object(), "a", _still(False), False, 0)
    assert fresh and len(poses) == 1 and runs.fresh_at == 0
    again, fresh = runs.read_or_reuse(detect, object(), "a", _still(True), False, 1)
    assert not fresh and again == poses and (runs.read, runs.reused, len(calls)) == (1, 1, 1)


def test_a_fresh_reading_asked_for_is_made_once() -> None:
    runs, (detect, calls) = RecognizerRuns(TrackerConfig()), _detector()
    runs.read_or_reuse(detect, object(), "a", _still(False), False, 0)
    runs.ask_fresh()
    assert runs.read_or_reuse(detect, object(), "a", _still(True), False, 1)[1]
    assert not runs.read_or_reuse(detect, object(), "a", _still(True), False, 2)[1]
    assert len(calls) == 2


def test_a_doubt_earns_a_few_second_opinions_on_one_picture() -> None:
    runs, (detect, calls) = RecognizerRuns(TrackerConfig(fresh_reads_on_doubt=2)), _detector()
    runs.read_or_reuse(detect, object(), "a", _still(False), False, 0)
    runs.doubt = True
    fresh = [runs.read_or_reuse(detect, object(), "a", _still(True), False, k)[1] for k in range(1, 4)]
    assert fresh == [True, False, False] and len(calls) == 2
