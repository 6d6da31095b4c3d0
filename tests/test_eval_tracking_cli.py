"""`chickenfoot lab eval-tracking`: rounds tracked side by side give the figures one process gives,
and `--events` keeps every round's event stream."""
from __future__ import annotations

import argparse
import json

import pytest

from lab.commands import eval_tracking
from lab.synth.sequence import round_name
from service.cli import UserError


def _run(capsys, *argv: str) -> dict:
    p = argparse.ArgumentParser(prog="chickenfoot")
    eval_tracking.register(p.add_subparsers(dest="command"))
    args = p.parse_args(["eval-tracking", *argv])
    assert args.func(args) == 0
    return json.loads(capsys.readouterr().out)


def test_rounds_tracked_in_worker_processes_give_the_same_figures(capsys):
    one = _run(capsys, "--rounds", "3", "--seed", "4", "--json")
    two = _run(capsys, "--rounds", "3", "--seed", "4", "--json", "--workers", "2")
    keep = ("true_plays", "tracker_plays", "play_precision", "play_recall", "attachment_correct",
            "planted_flagged", "false_flags", "false_flags_withdrawn_later", "by_set")
    assert one["true_plays"] > 20
    assert {k: one[k] for k in keep} == {k: two[k] for k in keep}


def test_a_silly_worker_count_is_a_clear_error():
    p = argparse.ArgumentParser(prog="chickenfoot")
    eval_tracking.register(p.add_subparsers(dest="command"))
    args = p.parse_args(["eval-tracking", "--rounds", "1", "--workers", "0"])
    with pytest.raises(UserError, match="workers"):
        args.func(args)


def test_only_tracks_the_named_rounds_of_the_seed(capsys):
    both = _run(capsys, "--rounds", "3", "--seed", "4", "--json")
    first, last = (_run(capsys, "--rounds", "3", "--seed", "4", "--json", "--only", k) for k in ("0", "2"))
    two = _run(capsys, "--rounds", "3", "--seed", "4", "--json", "--only", "0,2")
    assert 0 < first["true_plays"] < both["true_plays"]
    assert two["true_plays"] == first["true_plays"] + last["true_plays"] < both["true_plays"]


def test_a_round_list_that_is_not_numbers_is_a_clear_error(capsys):
    p = argparse.ArgumentParser(prog="chickenfoot")
    eval_tracking.register(p.add_subparsers(dest="command"))
    with pytest.raises(SystemExit):
        p.parse_args(["eval-tracking", "--only", "ten"])
    assert "round numbers" in capsys.readouterr().err


def test_events_file_holds_every_round_s_events_named_by_round(capsys, tmp_path):
    events = tmp_path / "events.jsonl"
    summary = _run(capsys, "--rounds", "2", "--seed", "4", "--json", "--events", str(events))
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    assert {e["round"] for e in lines} == {round_name(4, 0), round_name(4, 1)}
    assert all(e["kind"] and "frame" in e for e in lines)
    plays = [e for e in lines if e["kind"] == "tile_played"]
    assert len(plays) >= summary["tracker_plays"]  # withdrawn and corrected plays are events too
    assert sum(1 for e in lines if e["kind"] == "camera_moved") == summary["camera_moved_events"]


def test_events_go_with_tracked_rounds_not_the_speed_run(tmp_path):
    p = argparse.ArgumentParser(prog="chickenfoot")
    eval_tracking.register(p.add_subparsers(dest="command"))
    args = p.parse_args(["eval-tracking", "--speed", "--events", str(tmp_path / "e.jsonl")])
    with pytest.raises(UserError, match="--events"):
        args.func(args)
