"""The deal advisor and the fast round player it runs on."""
from __future__ import annotations

import json
import random

import pytest

from engine import Deal, GameConfig, HouseRules, RoundState, Tile
from engine.advise import AdviceTuning, HandSizeStats, advise, hand_sizes, recommend
from engine.deal import make_deal
from engine.fastplay import deal_and_play_fast, deal_from_order, play_out_fast, replay_log
from service.cli import main

T = Tile.parse


def test_the_fast_deal_is_the_engines_deal_from_the_same_random_source() -> None:
    config = GameConfig(4, 9, HouseRules(hand_size=9))
    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        order = list(range(config.tile_count))
        rnd = ours.random
        order.sort(key=lambda _i: rnd())
        assert deal_from_order(config, seed % 10, order) == make_deal(config, theirs, seed % 10)


RULE_SETS = [
    HouseRules(hand_size=7),
    HouseRules(hand_size=11, spinner_arms=6, must_play_drawn=True),
    HouseRules(hand_size=3, start_double="highest_available", chickenlittle=True),
    HouseRules(hand_size=5, start_double="highest_unused", voluntary_draw=True),
    HouseRules(hand_size=9, first_round_draw=True, double_draw="everyone", double_blank_value=50),
    HouseRules(hand_size=1),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.describe())
def test_every_fast_round_replays_through_the_engine_to_the_same_end(rules: HouseRules) -> None:
    rng = random.Random(3)
    for k in range(60):
        players = 2 + k % 3
        config = GameConfig(players, 9, rules)
        styles = [rng.choice(["random", "greedy", "double_first"]) for _ in range(players)]
        seed = rng.random()
        log: list = []
        fast = deal_and_play_fast(config, k % 10, styles, random.Random(seed), log)
        state = replay_log(RoundState.random(config, k % 10, random.Random(seed)), log)  # same deal
        assert state.is_over()
        assert (state.stalemate, state.winner) == (fast.stalemate, fast.winner)
        assert [sorted(h) for h in state.hands] == [sorted(h) for h in fast.hands]
        assert list(fast.raw) == list(state.result().raw)
        assert fast.plays == sum(1 for e in state.history if e[0] == "play")


def arms_down(hands: list[list[str]]) -> RoundState:
    """Double-6, two players: the spinner 6-6 and its four arms laid, player 1 to play."""
    config = GameConfig(2, 6, HouseRules(hand_size=len(hands[0])))
    state = RoundState(config, 0, Deal.arrange(config, hands))
    for tile in ("6-5", "6-4", "6-3", "6-2"):
        state.play(T(tile), state.board.end_at(T("6-6")).id)
    assert state.turn == 1
    return state


def first_play(state: RoundState, style: str) -> Tile:
    log: list = []
    play_out_fast(state, [style, style], random.Random(0), log)
    return next(e[2] for e in log if e[0] == "play")


HANDS = [["6-6", "6-4", "6-2", "0-0", "1-0", "5-5"], ["6-5", "6-3", "2-2", "5-4", "4-3", "3-1"]]


def test_the_greedy_player_lays_its_heaviest_tile_that_fits() -> None:
    assert first_play(arms_down(HANDS), "greedy") == T("5-4")


def test_the_doubles_first_player_lays_a_double_when_one_fits() -> None:
    assert first_play(arms_down(HANDS), "double_first") == T("2-2")


def test_the_advisor_measures_each_hand_size_around_the_table() -> None:
    tuning = AdviceTuning(rounds=300, workers=1)
    advice = advise(4, 9, HouseRules(), tuning, seed=5)
    assert [r.hand_size for r in advice.rows] == [9, 10, 11, 12, 13] and advice.table_size == 11
    assert advice.recommended in (9, 10, 11, 12, 13)
    for r in advice.rows:
        assert r.rounds == 300 and 0 <= r.stalled <= 300
        assert r.boneyard == 55 - 4 * r.hand_size
        assert r.plays_mean > 0 and r.turns_mean >= r.plays_mean * 0.5
        assert set(r.style_points) == {"random", "greedy", "double_first"}
    # fewer tiles left to draw: more rounds stall
    assert advice.row(13).stall_share > advice.row(9).stall_share
    again = advise(4, 9, HouseRules(), AdviceTuning(rounds=300, workers=2), seed=5)
    assert [r.to_dict() for r in again.rows] == [r.to_dict() for r in advice.rows]  # repeatable, in any number of processes


def test_hand_sizes_stop_where_the_set_leaves_no_boneyard() -> None:
    assert hand_sizes(8, 9, HouseRules(), AdviceTuning()) == [3, 4, 5, 6]  # 8 x 7 = 56: more than the set


def stats(size: int, stalled: int) -> HandSizeStats:
    return HandSizeStats(size, 100, stalled, 10, 30.0, 40.0, 15.0, 20.0)


def test_the_recommendation_is_the_largest_hand_within_the_stall_limit() -> None:
    size, why = recommend([stats(8, 20), stats(9, 30), stats(10, 40)], 0.35)
    assert size == 9 and "largest hand" in why


def test_with_every_hand_over_the_limit_the_one_that_stalls_least_is_recommended() -> None:
    size, why = recommend([stats(8, 45), stats(9, 50)], 0.35)
    assert size == 8 and "stalls least" in why


def test_advise_command_prints_the_table_and_its_runtime_as_json(capsys) -> None:
    assert main(["advise", "--players", "4", "--set", "9", "--rounds", "200", "--workers", "1", "--json",
                 "--seed", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["table_hand_size"] == 11 and len(data["sizes"]) == 5
    assert data["rounds_per_size"] == 200 and data["seconds"] > 0
    assert data["recommended"] in [row["hand_size"] for row in data["sizes"]]


def test_advise_command_refuses_a_table_the_set_cannot_deal(capsys) -> None:
    assert main(["advise", "--players", "9", "--set", "6", "--rounds", "10"]) == 2
    assert "cannot deal" in capsys.readouterr().err
