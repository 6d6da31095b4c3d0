"""Replaying a game play by play, and players' figures across games."""
from __future__ import annotations

import math
import random

from engine import Deal, GameConfig, HouseRules, RoundState, Tile, random_game
from engine.replay import board_diagram, replay_game, study_games

T = Tile.parse


def test_every_round_of_a_recorded_game_replays_play_by_play() -> None:
    config = GameConfig(3, 6, HouseRules(hand_size=5, chickenlittle=True))
    game = random_game(config, random.Random(4))
    record = game.to_record(["Ann", "Bob", "Cy"])
    replay = replay_game(record)
    assert replay.error is None and len(replay.rounds) == config.rounds == len(game.rounds)
    stalled = 0
    for rr, state in zip(replay.rounds, game.rounds):
        made = [t for t in record["rounds"][rr.index]["turns"] if not t.get("auto")]
        assert len(rr.steps) == 1 + len(made)
        assert rr.steps[0].kind == "deal" and rr.steps[0].board[0].tile == state.spinner
        last = rr.steps[-1]
        assert [d.tile for d in last.board] == state.board.tiles()
        assert last.hand_sizes == [len(h) for h in state.hands] and last.boneyard == state.boneyard_count
        assert rr.result is not None and rr.result["scores"] == list(state.result().scores)
        plays = [s for s in rr.steps if s.kind == "play"]
        assert [len(s.board) for s in plays] == list(range(2, 2 + len(plays)))  # one more tile each play
        if state.stalemate:
            stalled += 1
            assert rr.blocked is not None and rr.blocked["blocked"] and rr.blocked["basis"] == "exact"
        else:
            assert rr.blocked is None
    assert replay.sheet["totals"] == game.totals()
    assert stalled  # (this game has a blocked round to explain)


def start(hands: list[list[str]], top: list[str] = (), **rules) -> RoundState:
    config = GameConfig(len(hands), 6, HouseRules(**rules))
    return RoundState(config, 0, Deal.arrange(config, hands, list(top)))


def record_of(state: RoundState) -> dict:
    return {"format": "chickenfoot-game", "version": 1, "players": state.players, "set": state.set_max,
            "rules": state.rules.to_dict(), "rounds": [state.to_record()]}


def test_the_diagram_puts_the_arms_round_the_spinner_and_lines_straight_on() -> None:
    s = start([["6-6", "6-1", "6-2", "1-0"], ["6-3", "6-4", "5-5", "3-2"]], hand_size=4)
    for tile in ("6-3", "6-1", "6-4", "6-2"):
        s.play(T(tile), s.board.end_at(T("6-6")).id)
    s.play(T("3-2"), s.board.end_at(T("6-3")).id)
    tiles = {str(d.tile): d for d in board_diagram(s.board)}
    assert (tiles["6-6"].x, tiles["6-6"].y) == (0.0, 0.0)
    assert sorted(d.angle for d in tiles.values() if d.parent == 0) == [0.0, 90.0, 180.0, 270.0]
    arm, line = tiles["6-3"], tiles["3-2"]
    assert line.angle == arm.angle and line.facing == 3 and line.outer == 2
    assert math.hypot(line.x, line.y) > math.hypot(arm.x, arm.y)


def test_a_play_the_table_kept_is_flagged_with_the_rule_it_broke() -> None:
    s = start([["6-6", "6-1", "1-0"], ["6-3", "5-4", "3-2"]], hand_size=3)
    s.play(T("6-3"), s.board.end_at(T("6-6")).id)
    s.force_play(T("6-1"), s.board.end_at(T("6-3")).id, facing=1)  # a 1 laid against the open 3
    rr = replay_game(record_of(s)).rounds[0]
    assert [(f.step, f.rule) for f in rr.flags] == [(2, "ends_do_not_match")]
    assert rr.steps[2].flags[0].message == "6-1 was laid with its 1 against the open 3 on 6-3"


def test_a_forgotten_last_tile_call_is_flagged() -> None:
    config = GameConfig(2, 6, HouseRules(hand_size=3, chickenlittle=True))
    s = RoundState(config, 0, Deal.arrange(config, [["6-6", "6-1", "6-2"], ["6-3", "6-4", "5-4"]], ["2-0"]))
    s.play(T("6-3"), s.board.end_at(T("6-6")).id)
    s.play(T("6-1"), s.board.end_at(T("6-6")).id)  # player 0: one tile left, not called
    s.play(T("6-4"), s.board.end_at(T("6-6")).id)  # player 1 plays first: player 0 draws
    rr = replay_game(record_of(s)).rounds[0]
    assert [(f.step, f.rule, f.player) for f in rr.flags] == [(3, "chickenlittle", 0)]
    assert rr.steps[3].hand_sizes == [2, 1]


def test_illegal_plays_a_camera_saw_are_flagged_where_they_happened() -> None:
    s = start([["6-6", "6-1", "1-0"], ["6-3", "5-4", "3-2"]], hand_size=3)
    s.play(T("6-3"), s.board.end_at(T("6-6")).id)
    record = record_of(s)
    record["rounds"][0]["observed"] = {
        "plays": [{"player": 1, "tile": "6-3", "on": "6-6", "frame": 10}],
        "illegal": [{"rule": "ends_do_not_match", "message": "5-4 has no 3", "tile": "5-4", "player": 0,
                     "frame": 20}],
    }
    rr = replay_game(record).rounds[0]
    assert [(f.step, f.rule, f.tile) for f in rr.flags] == [(1, "ends_do_not_match", "5-4")]


def sheet_record(names: list[str], rounds: list[list[int]]) -> dict:
    return {"format": "chickenfoot-game", "version": 1, "players": len(names), "set": 6, "rules": {},
            "player_names": names, "rounds": [],
            "scores": {"rounds": [{"double": 6 - i, "scores": r} for i, r in enumerate(rounds)]}}


def test_player_figures_add_up_across_games_and_rank_by_the_tie_breaks() -> None:
    games = [sheet_record(["Ann", "Bob"], [[0, 12], [5, 0]]),
             sheet_record(["Bob", "Cy"], [[0, 7], [3, 0], [0, 9]])]
    stats = {s.name: s for s in study_games(games)}
    bob = stats["Bob"]
    assert (bob.games, bob.rounds, bob.points, bob.zero_rounds, bob.rounds_won) == (2, 5, 15, 3, 3)
    assert bob.points_per_round == 3.0 and bob.lowest_nonzero == 3 and bob.games_won == 1
    ann = stats["Ann"]
    assert (ann.points_per_round, ann.zero_rounds, ann.games_won) == (2.5, 1, 1)
    # Ann has fewer points per round than Bob; Cy has the most
    assert [s.name for s in study_games(games)] == ["Ann", "Bob", "Cy"]
    assert [s.standing for s in study_games(games)] == [1, 2, 3]


def test_a_player_with_no_round_played_stands_after_those_who_have_played() -> None:
    games = [sheet_record(["Ann", "Bob"], [[4, 12]]), sheet_record(["Ann", "Dee"], [])]
    stats = study_games(games)
    assert [s.name for s in stats] == ["Ann", "Bob", "Dee"]
    assert stats[-1].standing == 3
