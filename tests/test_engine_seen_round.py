"""A round seen from outside the table: the log of plays and passes, its edits and its replay."""
from __future__ import annotations

import random

import pytest

from engine import (
    ChickieUnfinished,
    EndsDoNotMatch,
    GameConfig,
    HouseRules,
    IllegalPlay,
    LoggedPlay,
    NoSuchOpenEnd,
    SeenRound,
    Tile,
    random_round,
    seen_config,
)
from engine.board import SLOT_STRIDE

T = Tile.parse
CONFIG = GameConfig(3, 9, HouseRules())


def _log(*plays: tuple[str, str, int], spinner: str = "9-9", spinner_player: int = 0) -> SeenRound:
    """A log of (tile, on, slot) plays, each seen at a frame of its own."""
    log = SeenRound(T(spinner), spinner_player)
    for i, (tile, on, slot) in enumerate(plays):
        log = log.append(LoggedPlay(T(tile), T(on), slot, frame=i, t=i / 10))
    return log


def _arms() -> SeenRound:
    """A 9-9 spinner with its four arms."""
    return _log(("9-1", "9-9", 0), ("9-2", "9-9", 1), ("9-3", "9-9", 2), ("9-4", "9-9", 3))


def _board(state) -> list[tuple]:
    return [(p.index, p.tile, p.parent, p.slot, p.outer, p.player) for p in state.board.placements]


@pytest.mark.parametrize("seed", range(8))
def test_replaying_a_log_gives_the_board_and_seats_of_the_same_plays_made_live(seed):
    live = random_round(9, 4, random.Random(seed), max_plays=14)
    log = SeenRound(live.spinner, live.spinner_player)
    for entry in live.history:
        if entry[0] == "play":
            placement = live.board.placements[entry[3] // SLOT_STRIDE]
            log = log.append(LoggedPlay(entry[2], placement.tile, entry[3] % SLOT_STRIDE))
        elif entry[0] == "pass":
            log = log.add_pass()
    seen = log.replay(live.config)
    assert _board(seen) == _board(live)
    assert seen.turn == live.turn
    assert list(log.seats(live.config)) == [e[1] for e in live.history if e[0] == "play"]


def test_a_play_laid_against_a_tile_not_in_the_layout_is_refused():
    with pytest.raises(NoSuchOpenEnd):
        _log(("9-4", "9-9", 0), ("5-6", "5-5", 0)).replay(CONFIG)  # the 5-5 was never laid
    with pytest.raises(NoSuchOpenEnd):
        _log(("4-5", "9-4", 0), ("9-4", "9-9", 0)).replay(CONFIG)  # the 9-4 was laid only after it


def test_the_rules_refuse_a_replayed_play_as_they_would_live():
    log = _arms().append(LoggedPlay(T("1-1"), T("9-1"))).append(LoggedPlay(T("4-0"), T("9-4")))
    with pytest.raises(ChickieUnfinished):  # the chickie on 1-1 waits for its toes
        log.replay(CONFIG)


def test_a_stood_play_is_kept_where_a_plain_one_is_refused():
    plain = _arms().append(LoggedPlay(T("3-7"), T("9-1"), touching=3))
    with pytest.raises(EndsDoNotMatch):
        plain.replay(CONFIG)
    stood = _arms().append(LoggedPlay(T("3-7"), T("9-1"), touching=3, stood=True))
    assert stood.replay(CONFIG).board.placement_of(T("3-7")).outer == 7


def test_an_edit_that_makes_a_later_play_illegal_is_refused_and_leaves_the_log_as_it_was():
    log = _arms().append(LoggedPlay(T("1-5"), T("9-1"))).append(LoggedPlay(T("5-6"), T("1-5")))
    edited = log.retiled({T("1-5"): (T("1-7"), 1)})  # the 5-6 laid on its 5 no longer matches
    with pytest.raises(EndsDoNotMatch):
        edited.replay(CONFIG)
    assert [p.tile for p in log.plays][-2:] == [T("1-5"), T("5-6")]
    assert log.replay(CONFIG).board.placement_of(T("5-6")) is not None


def test_a_retiled_play_carries_the_plays_laid_on_it_to_the_new_tile():
    log = _arms().append(LoggedPlay(T("1-5"), T("9-1"), touching=1)).append(LoggedPlay(T("5-6"), T("1-5")))
    fixed = log.retiled({T("1-5"): (T("1-7"), None), T("5-6"): (T("7-6"), 7)})
    assert [(p.tile, p.on, p.touching) for p in fixed.plays][-2:] == [(T("1-7"), T("9-1"), 1), (T("7-6"), T("1-7"), 7)]
    assert fixed.replay(CONFIG).board.placement_of(T("7-6")).outer == 6


def test_an_end_id_follows_the_order_the_tiles_were_laid_in():
    log = _arms().append(LoggedPlay(T("2-5"), T("9-2")))
    assert log.ends() == (0, 1, 2, 3, 2 * SLOT_STRIDE)
    swapped = log.splice(0, 2, [log.plays[1], log.plays[0]])  # the 9-2 laid first
    assert swapped.ends() == (1, 0, 2, 3, SLOT_STRIDE)
    assert swapped.replay(CONFIG).board.placement_of(T("2-5")).parent == 1


def test_passes_before_a_play_stay_before_it_when_plays_are_inserted_earlier():
    log = _log(("9-1", "9-9", 0)).add_pass().append(LoggedPlay(T("9-2"), T("9-9"), 1))
    assert log.passes == ((1, 1),)
    inserted = log.splice(0, 0, [LoggedPlay(T("9-3"), T("9-9"), 2)])
    assert [p.tile for p in inserted.plays] == [T("9-3"), T("9-1"), T("9-2")]
    assert inserted.passes == ((2, 1),)  # still between the 9-1 and the 9-2


def test_passes_noted_up_to_a_replaced_play_stay_before_the_plays_put_in_its_place():
    log = _log(("9-1", "9-9", 0)).add_pass(2).append(LoggedPlay(T("1-5"), T("9-1"))).add_pass()
    assert log.passes == ((1, 2), (2, 1))
    slipped = log.splice(1, 1, [LoggedPlay(T("1-1"), T("9-1")), LoggedPlay(T("1-5"), T("1-1"))])
    assert slipped.passes == ((1, 2), (3, 1))


def test_passes_noted_among_reordered_plays_keep_their_count():
    log = _log(("9-1", "9-9", 0), ("9-2", "9-9", 1)).add_pass().append(LoggedPlay(T("9-3"), T("9-9"), 2))
    reordered = log.splice(1, 2, [log.plays[2], log.plays[1]])
    assert reordered.passes == log.passes == ((2, 1),)


def test_passes_noted_among_plays_taken_out_go_after_the_fewer_plays_put_back():
    log = _log(("9-1", "9-9", 0)).add_pass().append(LoggedPlay(T("9-2"), T("9-9"), 1))
    merged = log.splice(0, 2, [LoggedPlay(T("9-3"), T("9-9"), 0)])
    assert merged.passes == ((1, 1),)


def test_a_pass_is_made_only_while_the_boneyard_holds_a_tile_to_draw_for_it():
    cfg = GameConfig(3, 6, HouseRules(hand_size=5))
    log = SeenRound(T("6-6"), 0).add_pass(23).append(LoggedPlay(T("6-5"), T("6-6"), 0))
    assert log.seats(cfg) == (2,)  # 22 of the 23 passes: the deal leaves one tile in the boneyard
    assert log.replay(cfg).boneyard_count == 1
    assert log.seats(cfg, pending=T("6-4")) == (1, 2)  # a tile dealt for judging leaves one pass fewer


def test_a_play_appended_comes_after_the_passes_noted_since_the_last_play():
    log = _log(("9-1", "9-9", 0)).add_pass(2).append(LoggedPlay(T("9-2"), T("9-9"), 1))
    assert log.passes == ((1, 2),)
    assert log.seats(CONFIG) == (1, 1)  # seats 2 and 0 drew and passed between the plays


def test_a_take_back_drops_the_passes_noted_after_the_last_play_and_keeps_those_before():
    log = _log(("9-1", "9-9", 0)).add_pass().append(LoggedPlay(T("9-2"), T("9-9"), 1)).add_pass()
    back = log.upto(1)
    assert [p.tile for p in back.plays] == [T("9-1")] and back.passes == ((1, 1),)


def test_dropping_a_pass_takes_back_the_latest_one_noted():
    log = _log(("9-1", "9-9", 0)).add_pass().append(LoggedPlay(T("9-2"), T("9-9"), 1)).add_pass(2)
    assert log.drop_pass().passes == ((1, 1), (2, 1))
    assert log.drop_pass().drop_pass().drop_pass().passes == ()
    assert SeenRound(T("9-9"), 0).drop_pass() == SeenRound(T("9-9"), 0)


def test_who_made_each_play_follows_the_turn_order_and_the_passes():
    log = _log(("9-1", "9-9", 0), spinner_player=1).add_pass().append(LoggedPlay(T("9-2"), T("9-9"), 1))
    assert log.seats(CONFIG) == (2, 1)  # seat 0 drew and passed
    assert log.replay(CONFIG).turn == 2


def test_a_tile_being_judged_is_dealt_to_the_seat_whose_turn_it_would_be():
    log = _log(("9-1", "9-9", 0)).add_pass()
    state = log.replay(CONFIG, pending=T("9-5"))
    assert log.seats(CONFIG, pending=T("9-5")) == (1, 0) and state.turn == 0
    assert T("9-5") in state.hand(0)
    state.check_play(T("9-5"), 1, player=0)


def test_the_replay_lets_a_player_draw_at_will_and_leaves_out_what_nobody_sees():
    rules = seen_config(GameConfig(4, 9, HouseRules(chickenlittle=True, first_round_draw=True,
                                                    start_double="highest_unused"))).rules
    assert rules.voluntary_draw and not rules.chickenlittle and not rules.first_round_draw
    assert rules.start_double == "required"


def test_the_round_starts_with_the_double_that_was_seen_whatever_its_number():
    state = _log(("6-2", "6-6", 0), spinner="6-6").replay(CONFIG)
    assert state.board.placements[0].tile == T("6-6") and state.round_index == 3


def test_an_edit_out_of_the_log_is_refused():
    with pytest.raises(ValueError):
        _arms().splice(3, 2, [])


def test_a_spinner_must_be_a_double():
    with pytest.raises(ValueError):
        SeenRound(T("9-8"), 0)


def test_a_refused_replay_is_an_illegal_play():
    with pytest.raises(IllegalPlay):
        _log(("5-4", "9-9", 0)).replay(CONFIG)
