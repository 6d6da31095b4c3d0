"""Flagged plays reach the tracker's event sinks; the evidence folder is one of them."""
from __future__ import annotations

import numpy as np

from engine import GameConfig, HouseRules, Tile
from vision.tracking import TilePlayed, Tracker
from vision.tracking.board import Observation
from vision.tracking.evidence import EvidenceFolder, FlagScene, emit
from vision.tracking.geometry import TilePose


def _scene(image=None) -> FlagScene:
    pose = TilePose(np.array([[100, 100], [160, 100], [160, 130], [100, 130]], float), (6, 4))
    return FlagScene(Observation(12, 0.4, [pose], image=image), Tile(6, 4), pose, None)


def _flag() -> TilePlayed:
    return TilePlayed(12, 0.4, "6-4", 1, "5-5", legal=False, rule="ends_do_not_match", message="6-4 on 5-5")


def test_every_sink_is_told_and_the_first_record_kept_is_the_evidence():
    told = []

    def quiet(events, context):
        told.append(("quiet", events, context.tile))
        return None

    def keeper(events, context):
        told.append(("keeper", events, context.tile))
        return "kept.jpg"

    def late(events, context):
        told.append(("late", events, context.tile))
        return "late.jpg"

    event = _flag()
    assert emit([quiet, keeper, late], [event], _scene()) == "kept.jpg"
    assert [name for name, _, _ in told] == ["quiet", "keeper", "late"]
    assert all(events == [event] and tile == Tile(6, 4) for _, events, tile in told)


def test_no_sinks_keep_no_evidence():
    assert emit([], [_flag()], _scene()) is None


def test_the_evidence_folder_saves_a_flagged_frame_named_by_frame_and_tile(tmp_path):
    import cv2

    sink = EvidenceFolder(tmp_path / "ev")
    path = sink([_flag()], _scene(np.zeros((240, 320, 3), np.uint8)))
    assert path == str(tmp_path / "ev" / "illegal_000012_6-4.jpg")
    assert cv2.imread(path).shape == (240, 320, 3)


def test_the_evidence_folder_saves_nothing_without_a_picture_or_a_flag(tmp_path):
    sink = EvidenceFolder(tmp_path / "ev")
    assert sink([_flag()], _scene()) is None
    legal = TilePlayed(12, 0.4, "6-4", 1, "6-6")
    assert sink([legal], _scene(np.zeros((240, 320, 3), np.uint8))) is None
    assert not (tmp_path / "ev").exists()


def test_the_tracker_registers_the_evidence_folder_only_when_given_one(tmp_path):
    config = GameConfig(4, 9, HouseRules())
    assert Tracker(config).sinks == []
    sinks = Tracker(config, evidence_dir=tmp_path / "ev").sinks
    assert len(sinks) == 1 and isinstance(sinks[0], EvidenceFolder) and sinks[0].folder == tmp_path / "ev"
