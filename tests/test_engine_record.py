"""Game records: written while playing, replayed through the engine."""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import (
    Deal,
    GameConfig,
    GameState,
    HouseRules,
    RecordError,
    Tile,
    dumps_record,
    load_record,
    random_game,
    save_record,
)
from engine.simulate import play_out

T = Tile.parse


def finished_record(seed: int = 3, rules: HouseRules | None = None, players: int = 3, set_max: int = 6) -> dict:
    game = random_game(GameConfig(players, set_max, rules or HouseRules()), random.Random(seed))
    return json.loads(dumps_record(game.to_record()))


def first_play(record: dict, round_index: int = 0) -> tuple[int, dict]:
    for i, turn in enumerate(record["rounds"][round_index]["turns"]):
        if turn["type"] == "play":
            return i, turn
    raise AssertionError("no play in round")


def test_record_stores_rules_players_deals_and_turns() -> None:
    record = finished_record()
    assert record["format"] == "chickenfoot-game" and record["version"] == 1
    assert record["players"] == 3 and record["set"] == 6
    assert record["rules"] == HouseRules().to_dict()
    assert len(record["rounds"]) == 7
    first = record["rounds"][0]
    assert set(first["deal"]) == {"hands", "boneyard", "first_seat", "start_draw"}
    assert {t["type"] for r in record["rounds"] for t in r["turns"]} <= {"play", "draw", "pass", "announce"}
    _, play = first_play(record)
    assert set(play) >= {"player", "tile", "on", "slot", "end"}


def test_a_whole_game_replays_to_the_same_scores() -> None:
    rules = HouseRules(double_blank_value=50, curved_scoring=True)
    game = random_game(GameConfig(4, 9, rules), random.Random(11))
    replay = load_record(json.loads(json.dumps(game.to_record())))
    assert replay.ok and replay.error is None
    assert replay.scores == game.totals()
    assert [r.scores for r in replay.results] == [r.scores for r in game.results]
    assert replay.game.is_over()
    assert replay.to_dict()["sheet"]["rules"]["double_blank_value"] == 50


@pytest.mark.parametrize("rules", [
    HouseRules(chickenlittle=True, hand_size=3),
    HouseRules(voluntary_draw=True, first_round_draw=True, start_double="highest_available", spinner_arms=6),
])
def test_records_with_every_option_replay(rules: HouseRules) -> None:
    for seed in range(4):
        game = random_game(GameConfig(4, 12, rules), random.Random(seed))
        replay = load_record(game.to_record())
        assert replay.ok, replay.error
        assert replay.scores == game.totals()


def test_chickenlittle_penalties_are_written_for_people_and_redone_on_replay() -> None:
    rules = HouseRules(chickenlittle=True, hand_size=3)
    for seed in range(30):
        game = random_game(GameConfig(3, 9, rules), random.Random(seed))
        record = game.to_record()
        autos = [t for r in record["rounds"] for t in r["turns"] if t.get("auto")]
        if autos:
            assert load_record(record).scores == game.totals()
            return
    pytest.fail("no forgotten last tile in 30 games")


def test_record_reports_the_first_illegal_turn() -> None:
    record = finished_record()
    index, play = first_play(record, 2)
    hand = set(record["rounds"][2]["deal"]["hands"][play["player"]])
    play["tile"] = next(str(t) for t in (Tile(a, b) for a in range(7) for b in range(a + 1)) if str(t) not in hand)
    replay = load_record(record)
    assert not replay.ok
    assert (replay.error.round, replay.error.turn, replay.error.code) == (2, index, "tile_not_in_hand")
    assert "does not hold" in replay.error.message
    assert len(replay.results) == 2  # scores up to the refused turn
    assert replay.scores == [sum(r.scores[p] for r in replay.results) for p in range(3)]


def test_record_turn_by_the_wrong_player_is_refused() -> None:
    record = finished_record()
    index, play = first_play(record, 1)
    play["player"] = (play["player"] + 1) % 3
    replay = load_record(record)
    assert (replay.error.round, replay.error.turn, replay.error.code) == (1, index, "not_your_turn")


def test_record_skipping_a_draw_is_refused() -> None:
    record = finished_record()
    for r, rnd in enumerate(record["rounds"]):
        turns = rnd["turns"]
        for i, turn in enumerate(turns):
            if turn["type"] == "draw" and i + 1 < len(turns) and turns[i + 1]["type"] == "pass":
                del turns[i]
                replay = load_record(record)
                assert (replay.error.round, replay.error.turn) == (r, i)
                assert replay.error.code == "must_draw_first"
                return
    pytest.fail("no draw followed by a pass")


def test_plays_may_name_only_the_tile_they_go_on() -> None:
    record = finished_record()
    for rnd in record["rounds"]:
        for turn in rnd["turns"]:
            turn.pop("end", None)
    assert load_record(record).ok


def test_plays_may_name_only_the_engine_end_id() -> None:
    record = finished_record()
    for rnd in record["rounds"]:
        for turn in rnd["turns"]:
            turn.pop("on", None)
            turn.pop("slot", None)
    assert load_record(record).ok


def _two_player_record(hands: list[list[str]], boneyard: list[str], turns: list[dict]) -> dict[str, Any]:
    """A hand-written double-6 record of one round (as a camera game's record is written)."""
    deal = Deal.arrange(GameConfig(2, 6), hands, boneyard)
    return {"players": 2, "set": 6, "rules": {}, "rounds": [{"deal": deal.to_dict(), "turns": turns}]}


def test_hand_written_record_of_a_camera_game() -> None:
    record = _two_player_record([["6-6", "6-1", "3-2"], ["6-2", "2-2", "5-4"]], ["1-0"], [
        {"type": "play", "player": 1, "tile": "6-2", "on": "6-6"},
        {"type": "play", "player": 0, "tile": "6-1", "on": "6-6"},
        {"type": "play", "player": 1, "tile": "5-4", "on": "6-1"},
    ])
    replay = load_record(record)
    assert replay.error.to_dict() == {
        "round": 0, "turn": 2, "code": "spinner_arms_unfinished",
        "message": "the spinner 6-6 needs two more arms before you can play elsewhere",
    }


def test_unfinished_last_round_is_a_game_in_progress() -> None:
    game = GameState(GameConfig(3, 6))
    rng = random.Random(4)
    play_out(game.start_round(rng), rng)
    game.finish_round()
    play_out(game.start_round(rng), rng, max_plays=3)
    replay = load_record(game.to_record())
    assert replay.ok and not replay.game.is_over()
    assert len(replay.results) == 1
    assert len(replay.game.current.board) == len(game.current.board)


def test_unfinished_round_before_another_is_refused() -> None:
    record = finished_record()
    record["rounds"][0]["turns"] = record["rounds"][0]["turns"][:2]
    replay = load_record(record)
    assert replay.error.code == "round_not_finished" and replay.error.round == 0


def test_turns_after_the_round_ended_are_refused() -> None:
    record = finished_record()
    record["rounds"][0]["turns"].append({"type": "pass", "player": 0})
    assert load_record(record).error.code in ("round_over",)


def test_records_load_from_text_and_files(tmp_path: Path) -> None:
    record = finished_record()
    path = tmp_path / "game.json"
    save_record(record, path)
    assert load_record(path).scores == load_record(dumps_record(record)).scores == load_record(str(path)).scores


@pytest.mark.parametrize("mutate, words", [
    (lambda r: r.pop("players"), "lacks 'players'"),
    (lambda r: r.update(rules={"double_blank_value": 7}), "impossible game"),
    (lambda r: r.update(players=12), "leave a boneyard"),
    (lambda r: r["rounds"][0].pop("deal"), "unreadable deal"),
    (lambda r: r.update(format="chess-pgn"), "not a chickenfoot game record"),
])
def test_malformed_records_raise_record_error(mutate: Any, words: str) -> None:
    record = copy.deepcopy(finished_record())
    mutate(record)
    with pytest.raises(RecordError, match=words):
        load_record(record)


def test_invalid_json_raises_record_error() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record("{not json")


def test_a_play_the_table_kept_replays_as_it_lay() -> None:
    """A watched game's record marks a flagged play the table kept "stood": it replays as laid,
    and the plays built on it replay too."""
    record = _two_player_record([["6-6", "6-1", "6-3", "4-0"], ["6-2", "6-4", "5-4", "1-0"]], ["3-0"], [
        {"type": "play", "player": 1, "tile": "6-2", "on": "6-6"},
        {"type": "play", "player": 0, "tile": "6-1", "on": "6-6"},
        {"type": "play", "player": 1, "tile": "6-4", "on": "6-6"},
        {"type": "play", "player": 0, "tile": "6-3", "on": "6-6"},
        {"type": "play", "player": 1, "tile": "5-4", "on": "6-2", "stood": True, "facing": 5},
        {"type": "play", "player": 0, "tile": "4-0", "on": "5-4"},
    ])
    replay = load_record(record)
    assert replay.ok, replay.error
    del record["rounds"][0]["turns"][4]["stood"]
    assert load_record(record).error.code == "ends_do_not_match"


def test_a_round_with_a_play_the_table_kept_writes_it_as_stood() -> None:
    from engine import RoundState

    config = GameConfig(2, 6)
    state = RoundState(config, 0, Deal.arrange(config, [["6-6", "6-1", "3-2"], ["6-2", "2-2", "5-4"]], ["1-0"]))
    state.play(T("6-2"), state.board.end_at(T("6-6"), 0).id)
    state.play(T("6-1"), state.board.end_at(T("6-6"), 1).id)
    state.force_play(T("5-4"), state.board.end_at(T("6-1")).id, facing=5)
    turn = state.to_record()["turns"][-1]
    assert (turn["tile"], turn["on"], turn["stood"], turn["facing"]) == ("5-4", "6-1", True, 5)
