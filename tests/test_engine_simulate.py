"""Random play for the renderer, the simulate function and the `simulate` command."""
from __future__ import annotations

import argparse
import json
import random

import pytest

from engine import ConfigError, HouseRules, random_round, simulate
from service.cli import UserError
from service.commands import simulate as simulate_command


def run_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="chickenfoot")
    simulate_command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["simulate", *argv])
    return args.func(args)


def test_random_round_plays_to_the_end() -> None:
    state = random_round(9, 4, random.Random(1))
    assert state.is_over()
    assert state.winner is not None or state.stalemate


def test_random_round_can_stop_after_k_plays() -> None:
    state = random_round(12, 5, random.Random(2), HouseRules(spinner_arms=6), max_plays=5)
    plays = [h for h in state.history if h[0] == "play"]
    assert len(plays) == 5 and len(state.board) == 6
    assert len(state.open_ends()) >= 1


def test_random_rounds_are_repeatable_from_a_seed() -> None:
    a = random_round(9, 4, random.Random(42))
    b = random_round(9, 4, random.Random(42))
    assert a.history == b.history


def test_simulate_reports_games_rounds_speed_stalemates_and_invariants() -> None:
    result = simulate(5, players=3, set_max=6, seed=1)
    data = result.to_dict()
    assert {"games", "rounds", "seconds", "games_per_second", "stalemate_fraction", "invariant_violations"} <= set(data)
    assert data["games"] == 5 and data["rounds"] == 35
    assert data["invariant_violations"] == 0
    assert 0.0 <= data["stalemate_fraction"] <= 1.0
    assert data["rules"] == HouseRules().to_dict()


def test_simulate_is_repeatable_from_a_seed() -> None:
    a = simulate(3, 4, 9, seed=7).to_dict()
    b = simulate(3, 4, 9, seed=7).to_dict()
    for key in ("rounds", "stalemate_fraction", "plays", "wins"):
        assert a[key] == b[key]


def test_simulate_refuses_impossible_games() -> None:
    with pytest.raises(ConfigError):
        simulate(1, players=10, set_max=9)


def test_simulate_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(["--games", "4", "--players", "4", "--set", "9", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 4 and data["rounds"] == 40 and data["invariant_violations"] == 0
    assert data["games_per_second"] > 0


def test_simulate_command_prints_a_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(["--games", "2", "--players", "3", "--set", "6", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "games/s" in out and "invariant violations: 0" in out and "rules:" in out


def test_simulate_command_takes_house_rules_and_presets(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(["--games", "1", "--players", "5", "--set", "12", "--rules", "montgomery", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"]["spinner_arms"] == 6
    assert run_command(["--games", "1", "--players", "4", "--rules", '{"chickenlittle": true}',
                        "--hand-size", "table", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"]["chickenlittle"] is True and data["hand_size"] == 11


@pytest.mark.parametrize("argv, words", [
    (["--players", "11", "--set", "9"], "boneyard"),
    (["--players", "1"], "at least 2"),
    (["--set", "7"], "--set must be one of"),
    (["--games", "0"], "at least 1"),
    (["--players", "10", "--set", "9"], "boneyard"),
    (["--rules", '{"spinner_arms": 5}'], "4 or 6"),
    (["--rules", "nonsense"], "unknown preset 'nonsense'"),
    (["--hand-size", "lots"], "--hand-size"),
])
def test_simulate_command_bad_arguments_are_user_errors(argv: list[str], words: str) -> None:
    with pytest.raises(UserError, match=words):
        run_command(argv)


def test_simulate_command_is_registered_with_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from service import cli

    assert cli.main(["simulate", "--games", "1", "--players", "2", "--set", "6", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 1
    assert cli.main(["simulate", "--players", "1"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "chickenfoot simulate: --players must be at least 2, got 1"
