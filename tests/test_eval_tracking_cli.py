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
