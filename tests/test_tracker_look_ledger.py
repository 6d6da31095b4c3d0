"""Closer looks are costly: the ledger of a still stretch reads each crop of the same pictures
once, looks at a few places around tiles touching nothing, and around each tile once."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine import Tile
from vision.tracking.board import Observation
from vision.tracking.closer import LookLedger
from vision.tracking.geometry import TilePose
from vision.tracking.tuning import TrackerConfig


class _Looker:
    def __init__(self) -> None:
        self.looks = 0

    def look_closer(self, image, centre, reach):
        self.looks += 1
        return []


def _pose(x: float) -> TilePose:
    return TilePose(np.array([[x, 100], [x + 40, 100], [x + 40, 180], [x, 180]], float), (6, 2))


def _window(read: int) -> list[Observation]:
    return [Observation(k, k / 10, [], np.zeros((8, 8, 3), np.uint8), read=read) for k in range(3)]


def test_the_same_crop_of_the_same_reading_is_looked_at_once() -> None:
    ledger, looker = LookLedger(TrackerConfig()), _Looker()
    assert ledger.looks(looker, _window(1), _pose(100)) == [[]]
    ledger.looks(looker, _window(1), _pose(100))
    assert looker.looks == 1
    ledger.looks(looker, _window(2), _pose(100))
    assert looker.looks == 2


def test_counted_looks_stop_at_the_places_allowed_until_something_moves() -> None:
    ledger, looker = LookLedger(replace(TrackerConfig(), close_look_places=2)), _Looker()
    for x in (100, 200):
        assert ledger.looks(looker, _window(1), _pose(x), counted=True) == [[]]
    assert ledger.looks(looker, _window(1), _pose(300), counted=True) == []
    ledger.new_stretch()
    assert ledger.looks(looker, _window(1), _pose(300), counted=True) == [[]]


def test_a_tiles_surroundings_are_looked_at_once_per_still_stretch() -> None:
    ledger = LookLedger(TrackerConfig())
    assert ledger.first_look_around(Tile(6, 2)) and not ledger.first_look_around(Tile(6, 2))
    ledger.new_stretch()
    assert ledger.first_look_around(Tile(6, 2))


def test_a_detector_without_a_closer_look_reads_nothing() -> None:
    assert LookLedger(TrackerConfig()).looks(object(), _window(1), _pose(100)) == []
