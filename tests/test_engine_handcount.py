"""The last-tile watch: hand sizes from dealt, plays and draws, and the Chickenlittle penalty."""
from __future__ import annotations

import random

import pytest

from engine import GameConfig, HouseRules, NothingToAnnounce, RoundState
from engine.handcount import HandTally
from engine.simulate import random_step


def tally(players: int = 3, hand: int = 3, set_max: int = 6, spinner_player: int = 0, **rules) -> HandTally:
    config = GameConfig(players, set_max, HouseRules(hand_size=hand, **rules))
    return HandTally.for_round(config, spinner_player)


def test_hand_sizes_start_from_the_deal_less_the_spinner() -> None:
    t = tally(players=3, hand=7, spinner_player=1)
    assert t.sizes == [7, 6, 7]
    assert t.boneyard == 28 - 21 and t.turn == 2


def test_draws_looking_for_the_double_are_counted() -> None:
    config = GameConfig(2, 6, HouseRules(hand_size=5))
    t = HandTally.for_round(config, spinner_player=1, opening_draws=[0, 1])
    assert t.sizes == [6, 5] and t.boneyard == 28 - 10 - 2


def test_hand_size_is_dealt_minus_plays_plus_draws() -> None:
    t = tally(players=2, hand=4)
    t.play(1)
    t.draw(0)
    t.pass_turn(0)
    t.play(1)
    t.play(0)
    assert t.sizes == [3 - 0 + 1 - 1, 4 - 2] and t.boneyard == 28 - 8 - 1


def test_a_player_down_to_one_tile_is_seen_on_the_last_tile() -> None:
    t = tally(players=2, hand=3)  # player 0 laid the spinner: two tiles left
    t.play(1)
    t.play(0)
    assert t.last_tile == [0]
    assert t.unannounced == []  # without the rule nobody has to call it


def test_with_chickenlittle_a_player_on_one_tile_must_call_it() -> None:
    t = tally(players=2, hand=3, chickenlittle=True)
    t.play(1)
    t.play(0)
    assert t.unannounced == [0]
    t.announce(0)
    assert t.unannounced == [] and t.announced == [0]
    t.play(1)
    assert t.penalties == [] and t.sizes[0] == 1


def test_forgetting_the_call_costs_a_draw_when_the_boneyard_has_tiles() -> None:
    t = tally(players=2, hand=3, chickenlittle=True)
    t.play(1)
    t.play(0)
    before = t.boneyard
    t.play(1)  # the next player lays a tile before player 0 called it
    assert [(p.player, p.form, p.by) for p in t.penalties] == [(0, "draw", 1)]
    assert t.sizes[0] == 2 and t.boneyard == before - 1
    assert t.unannounced == [1]  # player 1 is now on one tile: their own call is owed
    assert "player 0 draws a tile" in t.penalties[0].sentence()


def test_forgetting_the_call_costs_a_turn_when_the_boneyard_is_empty() -> None:
    t = tally(players=3, hand=4, chickenlittle=True)
    t.boneyard = 0
    for player in (1, 2, 0, 1, 2, 0):
        t.play(player)
    assert t.sizes == [1, 2, 2] and t.unannounced == [0]
    t.play(1)  # closes the call: no tile to draw, so player 0 misses the next turn
    assert [(p.player, p.form) for p in t.penalties] == [(0, "skip")]
    t.announce(1)
    t.pass_turn(2)
    assert t.turn == 1 and ("skip", 0) in t.history
    assert t.unannounced == [0]  # still on one tile: the call is still owed


def test_drawing_or_passing_does_not_close_the_call_but_drawing_back_to_two_ends_it() -> None:
    t = tally(players=2, hand=3, chickenlittle=True)
    t.play(1)
    t.play(0)
    t.draw(1)
    t.pass_turn(1)
    assert t.unannounced == [0] and t.penalties == []
    t.draw(0)
    assert t.unannounced == []
    with pytest.raises(NothingToAnnounce):
        t.announce(0)


def test_the_call_is_refused_where_the_rule_is_not_played() -> None:
    t = tally(players=2, hand=3)
    t.play(1)
    t.play(0)
    with pytest.raises(NothingToAnnounce):
        t.announce(0)


def test_the_tally_keeps_the_same_count_as_the_engine_through_random_rounds() -> None:
    rng = random.Random(11)
    forms: set[str] = set()
    for k in range(150):
        rules = HouseRules(hand_size=rng.choice([3, 4, 5]), chickenlittle=True, voluntary_draw=k % 2 == 0)
        config = GameConfig(rng.choice([2, 3, 4]), 6, rules)
        state = RoundState.random(config, k % 7, rng)
        t = HandTally.for_round(config, state.spinner_player, first_player=state.first_player,
                                opening_draws=[p for p, _ in state.opening_draws])
        seen = 0
        while True:
            assert t.sizes == [len(h) for h in state.hands]
            assert t.boneyard == state.boneyard_count and t.skips == list(state.skips)
            if state.is_over():
                break  # (a blocked round ends with calls owed: the engine drops them, the count has no say)
            assert t.unannounced == list(state.unannounced)
            assert t.turn == state.turn
            random_step(state, rng.random)
            for entry in state.history[seen:]:
                kind = entry[0]
                if kind == "play":
                    t.play(entry[1])
                elif kind == "draw":
                    t.draw(entry[1])
                elif kind == "pass":
                    t.pass_turn(entry[1])
                elif kind == "announce":
                    t.announce(entry[1])
            seen = len(state.history)
        assert t.winner == state.winner
        engine_penalties = [(e[1], "skip" if e[2] is None else "draw") for e in state.history if e[0] == "penalty"]
        assert [(p.player, p.form) for p in t.penalties] == engine_penalties
        forms.update(form for _, form in engine_penalties)
    assert forms == {"draw", "skip"}  # both forms of the penalty were met
