"""`chickenfoot lab bench`: every figure is a ratio to a reference pass of a fixed, named model."""
from __future__ import annotations

import argparse
import json
from types import SimpleNamespace

import pytest

from lab.bench import BenchConfig, run_bench
from lab.bench_reference import REFERENCE_MODEL, REFERENCE_SHA256, ReferencePass, file_sha256
from lab.bench_tracker import live_finish_times, percentile, play_latencies
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
    fast = [0.01] * 7
    assert play_latencies(plan, [(6, event)], fast, fps=10) == pytest.approx([0.21])
    # a tracker slower than the camera: frames queue, and the wait shows in the latency
    slow = [0.25] * 7
    assert live_finish_times(slow, 10)[-1] == pytest.approx(1.75)
    assert play_latencies(plan, [(6, event)], slow, fps=10) == pytest.approx([1.75 - 0.4])
    # an event for another tile is no announcement of this play
    other = TilePlayed(frame=6, t=0.6, tile="6-4", player=0, on=None)
    assert play_latencies(plan, [(6, other)], fast, fps=10) == []


def test_percentile_is_a_value_that_occurred():
    assert percentile([0.1, 0.2, 0.3, 0.4], 50) == 0.2
    assert percentile(list(range(1, 21)), 95) == 19
    assert percentile([0.5], 95) == 0.5
