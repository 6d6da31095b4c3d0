"""`chickenfoot eval-tracking`: rounds tracked side by side give the figures one process gives."""
from __future__ import annotations

import argparse
import json

import pytest

from service.cli import UserError
from service.commands import eval_tracking


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
