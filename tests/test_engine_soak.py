"""Random-play soak: thousands of rounds over every set size and house-rule option.

At every step: each tile exists exactly once (hands + board + boneyard); every
offered play is accepted when played on a clone; plays that are not offered are
refused without touching the state; draw and pass are allowed exactly when the
state says so. Every round ends within a bound and its scores add up.

CHICKENFOOT_SOAK_ROUNDS sets how many rounds to play (default keeps this to a
few seconds); e.g. CHICKENFOOT_SOAK_ROUNDS=100000 for a long soak.
"""
from __future__ import annotations

import os
import random

import pytest

from engine import (
    Deal,
    GameConfig,
    HouseRules,
    IllegalPlay,
    RoundState,
    Tile,
    full_set,
    make_deal,
    simulate,
)
from engine.simulate import action_limit, round_invariant_problems

DEFAULT_SOAK_ROUNDS = 2000
SOAK_ROUNDS = int(os.environ.get("CHICKENFOOT_SOAK_ROUNDS", str(DEFAULT_SOAK_ROUNDS)))
SOAK_GAMES = int(os.environ.get("CHICKENFOOT_SOAK_GAMES", "12"))

OPTIONS: list[HouseRules] = [
    HouseRules(),
    HouseRules(spinner_arms=6),
    HouseRules(start_double="highest_available"),
    HouseRules(first_round_draw=True),
    HouseRules(voluntary_draw=True),
    HouseRules(double_blank_value=25),
    HouseRules(double_blank_value=50, curved_scoring=True),
    HouseRules(chickenlittle=True),
    HouseRules(hand_size="table"),
    HouseRules(hand_size="table", table_half_up=False),
    HouseRules(hand_size=3, chickenlittle=True, voluntary_draw=True),
    HouseRules(start_double="highest_unused"),
    HouseRules(double_draw="everyone"),
    HouseRules(start_double="highest_available", double_draw="everyone"),
    HouseRules(must_play_drawn=True, voluntary_draw=True),
    HouseRules(start_double="highest_unused", double_draw="everyone", first_round_draw=True, must_play_drawn=True,
               chickenlittle=True),
    HouseRules(hand_size="table", spinner_arms=6, start_double="highest_available", first_round_draw=True,
               voluntary_draw=True, double_blank_value=50, curved_scoring=True, chickenlittle=True),
]


def configs() -> list[GameConfig]:
    found = []
    for rules in OPTIONS:
        for set_max in (6, 9, 12, 15, 18):
            for players in range(2, 14):
                try:
                    found.append(GameConfig(players, set_max, rules))
                except ValueError:
                    continue  # no boneyard would be left
    return found


ALL_CONFIGS = configs()
# After one round of every configuration, the default run spends its rounds on the
# quick double-6 and double-9 games; a longer soak (env var) draws from everything.
SMALL_CONFIGS = [c for c in ALL_CONFIGS if c.set_max <= 9]


def check_step(state: RoundState, rng: random.Random, full: set[Tile], every_tile: list[Tile]) -> None:
    where = state.tile_locations()
    counted = sum(len(h) for h in state.hands) + len(state.board) + state.boneyard_count
    assert counted == len(full) and set(where) == full, "a tile was lost or duplicated"

    offered = state.legal_plays()
    offered_keys = {(p.tile, p.end) for p in offered}
    assert len(offered_keys) == len(offered)
    for play in offered:
        state.check_play(play)  # the very checks play() runs; raises if an illegal play was offered
    if offered:
        state.clone().play(rng.choice(offered))  # and really playing one on a clone goes through

    # Plays that are not offered must be refused, and refused cleanly; so must a draw
    # or a pass the state does not allow.
    before = (state.hands, len(state.board), dict(state.board.open_ends), state.turn, state.drawn_tile,
              state.boneyard_count)
    hand = state.hand(state.turn)
    ends = list(state.board.open_ends)
    if hand and ends:
        for _ in range(3):
            tile = rng.choice(hand) if rng.random() < 0.8 else rng.choice(every_tile)
            end = rng.choice(ends)
            if (tile, end) not in offered_keys:
                with pytest.raises(IllegalPlay):
                    state.play(tile, end)
    if state.can_draw():
        state.clone().draw()
    else:
        with pytest.raises(IllegalPlay):
            state.draw()
    if state.can_pass():
        state.clone().pass_turn()
    else:
        with pytest.raises(IllegalPlay):
            state.pass_turn()
    assert before == (state.hands, len(state.board), dict(state.board.open_ends), state.turn, state.drawn_tile,
                      state.boneyard_count)
    assert offered or state.can_draw() or state.can_pass(), "a player has nothing legal to do"


def random_action(state: RoundState, rng: random.Random) -> None:
    plays = state.legal_plays()
    if plays and not (state.can_draw() and rng.random() < 0.1) and not (state.can_pass() and rng.random() < 0.1):
        state.play(rng.choice(plays))
    elif state.can_draw():
        state.draw()
    elif state.can_pass():
        state.pass_turn()
    else:
        state.play(rng.choice(plays))
    for player in state.unannounced:
        if rng.random() < 0.7:
            state.announce(player)


def test_random_play_soak_over_every_set_and_option() -> None:
    rng = random.Random(20240611)
    sets_seen: set[int] = set()
    options_seen: set[HouseRules] = set()
    outcomes = {"out": 0, "stalemate": 0}
    for n in range(SOAK_ROUNDS):
        if n < len(ALL_CONFIGS):
            config = ALL_CONFIGS[n]
        else:
            config = rng.choice(SMALL_CONFIGS if SOAK_ROUNDS <= DEFAULT_SOAK_ROUNDS else ALL_CONFIGS)
        round_index = rng.randrange(config.rounds)
        state = RoundState(config, round_index, make_deal(config, rng, round_index))
        every_tile = full_set(config.set_max)
        full = set(every_tile)
        # Full per-step checks on every fourth small round and every tenth large one keep this fast.
        deep = n % 4 == 0 if config.set_max <= 9 else n % 10 == 0
        limit = action_limit(state)
        steps = 0
        while not state.is_over():
            if deep:
                check_step(state, rng, full, every_tile)
            random_action(state, rng)
            steps += 1
            assert steps <= limit, f"round did not end: {config} round {round_index}"
        assert round_invariant_problems(state) == []
        result = state.result()
        assert sum(result.raw) == sum(
            (t.pips or config.rules.double_blank_value) for h in result.hands for t in h
        )
        if result.winner is not None:
            assert result.scores[result.winner] == 0
            outcomes["out"] += 1
        else:
            assert state.boneyard_count == 0
            assert not any(state.can_play(p) for p in range(config.players))
            outcomes["stalemate"] += 1
        sets_seen.add(config.set_max)
        options_seen.add(config.rules)
    if SOAK_ROUNDS >= len(ALL_CONFIGS):
        assert sets_seen == {6, 9, 12, 15, 18}
        assert options_seen == set(OPTIONS)
        assert outcomes["out"] and outcomes["stalemate"]


@pytest.mark.parametrize("rules", OPTIONS, ids=lambda r: r.describe()[:60])
def test_whole_random_games_keep_their_invariants(rules: HouseRules) -> None:
    for set_max, players in ((6, 3), (9, 4), (12, 6), (15, 2)):
        try:
            GameConfig(players, set_max, rules)
        except ValueError:
            continue
        result = simulate(max(1, SOAK_GAMES // 12), players, set_max, seed=set_max * 10 + players, rules=rules)
        assert result.invariant_violations == 0, result.problems
        assert result.rounds == result.games * (set_max + 1)


def test_soak_covers_every_player_count() -> None:
    assert {c.players for c in ALL_CONFIGS} == set(range(2, 14))  # 13 players: double-15 and up


def test_arranged_and_dealt_rounds_agree_on_the_set() -> None:
    config = GameConfig(4, 9)
    deal = make_deal(config, random.Random(0))
    assert Deal.arrange(config, [list(h) for h in deal.hands], list(deal.boneyard)) == deal
