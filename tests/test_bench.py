"""`chickenfoot lab bench`: every figure is a ratio to a reference pass of a fixed, named model."""
from __future__ import annotations

import argparse
import json
from types import SimpleNamespace

import pytest

from lab.bench import BenchConfig, run_bench
from lab.bench_reference import REFERENCE_MODEL, REFERENCE_SHA256, ReferencePass, file_sha256
from lab.bench_tracker import feed_live, percentile, play_latencies
from lab.commands import bench as bench_cmd
from service.cli import UserError
from vision.onnx_yolo import ModelError
from vision.tracking.events import TilePlayed


@pytest.fixture(scope="module")
def report():
    return run_bench(config=BenchConfig(repeat=2, only=("frame_1280x720",), tracker=None))


def test_the_reference_model_is_the_file_its_hash_names():
    assert file_sha256(REFERENCE_MODEL) == REFERENCE_SHA256


def test_another_file_is_refused_as_the_reference(tmp_path):
    other = tmp_path / "other.onnx"
    other.write_bytes(REFERENCE_MODEL.read_bytes()[:-1] + b"\0")
    with pytest.raises(ModelError, match="not the reference"):
        ReferencePass(other)


def test_the_report_gives_each_case_as_a_ratio_to_the_reference(report):
    assert report["reference"]["sha256"] == REFERENCE_SHA256
    assert report["reference"]["model"] == "models/reference/yolo11n_obb.onnx"
    assert report["reference"]["passes"] >= 3  # one before and one after each timed read
    case = report["cases"]["frame_1280x720"]
    assert 0 < case["ratio_min"] <= case["ratio"] <= case["ratio_max"]
    assert case["total_ms_median"] > 0 and case["tiles_found"] > 0
    assert report["tracker"] is None
    named = {(t["case"], t["figure"]) for t in report["targets"]}
    assert ("table_frame_1280x720", "ratio") in named and ("tracker", "processed_fps") in named
    assert all(t["met"] is None for t in report["targets"] if t["value"] is None)
    json.dumps(report)


def test_the_printed_report_names_ratios_and_targets(report, capsys):
    bench_cmd._print(report)
    out = capsys.readouterr().out
    assert "reference pass: models/reference/yolo11n_obb.onnx" in out
    assert "frame_1280x720" in out and "not measured" in out


def test_an_unknown_case_is_a_clear_error():
    p = argparse.ArgumentParser(prog="chickenfoot")
    bench_cmd.register(p.add_subparsers(dest="command"))
    args = p.parse_args(["bench", "--only", "frame_999x1", "--tracker-rounds", "0"])
    with pytest.raises(UserError, match="no case frame_999x1"):
        args.func(args)


def _frame(i, hand=None):
    return SimpleNamespace(index=i, hand=hand)


def test_play_latency_runs_from_the_hand_leaving_to_the_event_on_a_live_clock():
    # tile laid at frame 2, hand gone from frame 4; the tracker announces it on frame 6
    frames = [_frame(0), _frame(1, "hand"), _frame(2, "hand"), _frame(3, "hand"), _frame(4), _frame(5), _frame(6)]
    plan = SimpleNamespace(frames=frames, plays=lambda: [SimpleNamespace(frame=2, tile="6-5")])
    event = TilePlayed(frame=6, t=0.6, tile="6-5", player=0, on=None)
    fast = feed_live(7, 10, lambda i: 0.01)
    assert sorted(fast) == list(range(7))  # a tracker faster than the camera gets every frame
    assert play_latencies(plan, [(6, event)], fast, fps=10) == pytest.approx([0.21])
    # an event for another tile is no announcement of this play
    other = TilePlayed(frame=6, t=0.6, tile="6-4", player=0, on=None)
    assert play_latencies(plan, [(6, other)], fast, fps=10) == []


def test_a_tracker_slower_than_the_camera_gets_the_newest_frame_and_the_wait_shows_in_the_latency():
    pushed = []

    def slow(i):
        pushed.append(i)
        return 0.25

    finish = feed_live(7, 10, slow)
    # frame 0 ends at 0.25 s, when frame 2 is the newest; frame 2 ends at 0.5 s, frame 5 at 0.75 s,
    # and frame 6, the last, at 1.0 s: frames 1, 3 and 4 were never seen
    assert pushed == [0, 2, 5, 6]
    assert finish == pytest.approx({0: 0.25, 2: 0.5, 5: 0.75, 6: 1.0})
    frames = [_frame(0), _frame(1, "hand"), _frame(2, "hand"), _frame(3, "hand"), _frame(4), _frame(5), _frame(6)]
    plan = SimpleNamespace(frames=frames, plays=lambda: [SimpleNamespace(frame=2, tile="6-5")])
    event = TilePlayed(frame=3, t=0.5, tile="6-5", player=0, on=None)  # the tracker's own count of frames
    assert play_latencies(plan, [(5, event)], finish, fps=10) == pytest.approx([0.75 - 0.4])


def test_percentile_is_a_value_that_occurred():
    assert percentile([0.1, 0.2, 0.3, 0.4], 50) == 0.2
    assert percentile(list(range(1, 21)), 95) == 19
    assert percentile([0.5], 95) == 0.5
