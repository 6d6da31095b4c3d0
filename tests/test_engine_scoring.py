"""Scoring a round and ranking a game."""
from __future__ import annotations

import random

import pytest

from engine import (
    Deal,
    Game,
    GameConfig,
    GameState,
    HouseRules,
    RoundOver,
    RoundState,
    ScoreSheet,
    Tile,
    curved,
    hand_score,
    random_game,
    rank_players,
    round_scores,
    tile_score,
)

T = Tile.parse


def hands(*groups: str) -> list[list[Tile]]:
    return [[T(t) for t in g.split()] for g in groups]


def test_round_score_is_the_pips_left_in_hand() -> None:
    assert hand_score([T("6-5"), T("3-1")], HouseRules()) == 15
    raw, scored = round_scores(hands("", "6-5 3-1", "2-0"), HouseRules())
    assert raw == scored == [0, 15, 2]


def test_double_blank_scores_zero_by_default() -> None:
    assert tile_score(T("0-0"), HouseRules()) == 0


def test_double_blank_scores_twenty_five_when_option_set() -> None:
    assert tile_score(T("0-0"), HouseRules(double_blank_value=25)) == 25


def test_double_blank_scores_fifty_when_option_set() -> None:
    rules = HouseRules(double_blank_value=50)
    assert hand_score([T("5-5"), T("1-0"), T("0-0"), T("3-1")], rules) == 65  # the published example
    assert tile_score(T("1-0"), rules) == 1


def test_curved_scoring_subtracts_the_lowest_hand_when_nobody_went_out() -> None:
    raw, scored = round_scores(hands("6-5", "2-1", "4-4"), HouseRules(curved_scoring=True))
    assert raw == [11, 3, 8]
    assert scored == [8, 0, 5]


def test_curved_scoring_changes_nothing_when_someone_went_out() -> None:
    raw, scored = round_scores(hands("6-5", "", "4-4"), HouseRules(curved_scoring=True))
    assert scored == raw == [11, 0, 8]


def test_curved_scoring_still_applies_when_the_lowest_hand_is_the_double_blank() -> None:
    """A player holding only the 0-0 has 0 points but did not go out: everyone is curved by 0,
    and the hands, not the totals, say nobody went out."""
    rules = HouseRules(curved_scoring=True)
    assert round_scores([[T("0-0")], [T("3-2")]], rules) == ([0, 5], [0, 5])
    rules50 = HouseRules(curved_scoring=True, double_blank_value=50)
    assert round_scores([[T("0-0")], [T("3-2")]], rules50) == ([50, 5], [45, 0])


def test_typed_totals_take_a_zero_as_a_player_who_went_out() -> None:
    rules = HouseRules(curved_scoring=True)
    assert curved([0, 7, 12], rules) == [0, 7, 12]
    assert curved([4, 7, 12], rules) == [0, 3, 8]


def test_without_curved_scoring_a_blocked_round_scores_raw_pips() -> None:
    _, scored = round_scores(hands("6-5", "2-1"), HouseRules())
    assert scored == [11, 3]


def test_game_score_is_cumulative_and_lowest_total_wins() -> None:
    sheet = ScoreSheet(3, HouseRules())
    sheet.add_round(6, [10, 0, 5])
    sheet.add_round(5, [0, 20, 3])
    assert sheet.totals() == [10, 20, 8]
    assert sheet.winners() == [2]
    assert [s.player for s in sheet.standings()] == [2, 0, 1]


def test_tie_broken_by_most_zero_rounds() -> None:
    standings = rank_players([[0, 5], [0, 5], [10, 0]], 2)
    assert standings[0].player == 0 and standings[0].zero_rounds == 2 and standings[0].rank == 1
    assert standings[1].rank == 2


def test_tie_then_broken_by_lowest_nonzero_round() -> None:
    standings = rank_players([[0, 0], [4, 9], [8, 3]], 2)
    assert standings[0].player == 1 and standings[0].lowest_nonzero == 3


def test_players_still_tied_share_a_rank() -> None:
    standings = rank_players([[0, 0], [5, 5]], 2)
    assert [s.rank for s in standings] == [1, 1]


def test_scores_are_shown_with_the_house_rules() -> None:
    rules = HouseRules(double_blank_value=50, curved_scoring=True)
    sheet = ScoreSheet(2, rules)
    sheet.add_round(9, [0, 12])
    data = sheet.to_dict()
    assert data["rules"] == rules.to_dict() and "double-blank 50" in data["rules_summary"]
    assert "rules: " in str(sheet) and "curved scoring" in str(sheet)


def test_round_result_carries_the_rules() -> None:
    config = GameConfig(2, 6, HouseRules(double_blank_value=25))
    state = RoundState(config, 0, Deal.arrange(config, [["6-6", "6-1"], ["6-2", "0-0"]]))
    state.play(T("6-2"), 0)
    state.play(T("6-1"), 1)
    result = state.result()
    assert result.scores == (0, 25)
    assert result.to_dict()["rules"]["double_blank_value"] == 25


def test_result_refused_while_the_round_goes_on() -> None:
    config = GameConfig(2, 6)
    state = RoundState(config, 0, Deal.arrange(config, [["6-6", "6-1"], ["6-2", "0-0"]]))
    with pytest.raises(RoundOver):
        state.result()


# --- whole games ------------------------------------------------------------------------


def test_a_game_has_one_round_per_double_from_highest_to_blank() -> None:
    game = random_game(GameConfig(4, 9), random.Random(5))
    assert game.is_over()
    assert [r.double for r in game.results] == list(range(9, -1, -1))
    assert [r.spinner for r in game.results] == [Tile(v, v) for v in range(9, -1, -1)]


def test_game_totals_are_the_sum_of_the_rounds() -> None:
    game = random_game(GameConfig(3, 6), random.Random(2))
    assert game.totals() == [sum(r.scores[p] for r in game.results) for p in range(3)]
    assert game.sheet.doubles == list(range(6, -1, -1))


def test_game_refuses_a_round_after_the_last_double() -> None:
    game = random_game(GameConfig(2, 6), random.Random(0))
    with pytest.raises(RoundOver):
        game.start_round(random.Random(0))


def test_game_refuses_a_new_round_before_the_current_one_is_scored() -> None:
    game = GameState(GameConfig(2, 6))
    game.start_round(random.Random(0))
    with pytest.raises(RoundOver):
        game.start_round(random.Random(0))


def test_game_state_clones_are_independent() -> None:
    game = Game(players=3, set_max=6).new_initial_state()
    state = game.start_round(random.Random(1))
    copy = game.clone()
    assert copy.current is not state
    if state.legal_plays():
        copy.current.play(copy.current.legal_plays()[0])
        assert len(copy.current.board) == len(state.board) + 1


def test_game_hands_out_rounds_with_the_right_double() -> None:
    game = Game(GameConfig(3, 12))
    assert game.num_rounds == 13
    assert game.new_round(4, random.Random(0)).round_double == 8
