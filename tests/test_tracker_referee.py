"""The referee: the engine judging plays the camera saw, without seeing anyone's hand."""
from __future__ import annotations

import pytest

from engine import GameConfig, HouseRules, Tile
from vision.tracking.referee import Referee

T = Tile.parse


def _ref(players=3, arms=4, spinner="9-9", spinner_player=0):
    return Referee(GameConfig(players, 9, HouseRules(spinner_arms=arms)), T(spinner), spinner_player)


def _play(r, tile, on, touching=None):
    v = r.judge(T(tile), T(on), touching)
    assert v.legal, v.error
    r.accept(T(tile), v, 0, 0.0)
    return v


def test_play_elsewhere_while_spinner_arms_are_open_is_refused_by_the_engine():
    r = _ref()
    _play(r, "9-4", "9-9")
    v = r.judge(T("4-2"), T("9-4"), 4)
    assert v.error.code == "spinner_arms_unfinished" and "spinner 9-9" in v.error.message


def test_fifth_arm_on_a_full_four_arm_spinner_has_no_free_end():
    r = _ref()
    for tile in ("9-1", "9-2", "9-3", "9-4"):
        _play(r, tile, "9-9")
    v = r.judge(T("9-5"), T("9-9"), 9)
    assert v.error.code == "no_such_open_end" and "no free end" in v.error.message


def test_play_on_the_wrong_double_while_a_chickie_is_open_is_refused():
    r = _ref()
    for tile in ("9-1", "9-2", "9-3", "9-4"):
        _play(r, tile, "9-9")
    _play(r, "1-1", "9-1")  # a chickie: three toes before play goes elsewhere
    v = r.judge(T("4-0"), T("9-4"), 4)
    assert v.error.code == "chickie_unfinished" and "chickie on 1-1" in v.error.message
    assert r.judge(T("1-0"), T("1-1"), 1).legal


def test_a_tile_that_cannot_match_and_one_laid_the_wrong_way_round_both_break_matching():
    r = _ref()
    assert r.judge(T("5-4"), T("9-9"), 5).error.code == "ends_do_not_match"
    v = r.judge(T("9-5"), T("9-9"), 5)  # has a 9, but its 5 end touches
    assert v.error.code == "ends_do_not_match" and "the 9 end must touch" in v.error.message
    assert r.judge(T("9-5"), T("9-9"), 9).legal


def test_plays_follow_turn_order_and_passes_move_the_turn_on():
    r = _ref(players=3, spinner_player=1)
    assert r.turn == 2 and r.first_player == 2
    assert _play(r, "9-4", "9-9").player == 2
    assert r.note_pass() and r.turn == 1  # player 0 drew and passed
    assert _play(r, "9-3", "9-9").player == 1
    r.note_pass(player=0)  # players 2 and 0 passed
    assert r.turn == 1
    assert r.forget_pass() and r.turn == 0


def test_take_back_returns_the_turn_to_the_player_who_took_it_back():
    r = _ref()
    _play(r, "9-4", "9-9")
    _play(r, "9-3", "9-9")
    assert r.turn == 0
    back = r.take_back()
    assert back.tile == T("9-3") and r.turn == 2 and len(r.plays) == 1


def test_the_round_never_ends_early_for_want_of_a_hand_the_camera_cannot_see():
    # double-6, two players, nearly every tile played: the rebuilt deal must still replay
    r = Referee(GameConfig(2, 6, HouseRules(hand_size=5)), T("6-6"), 0)
    chain = [("6-5", "6-6"), ("6-4", "6-6"), ("6-3", "6-6"), ("6-2", "6-6"), ("5-5", "6-5"), ("5-4", "5-5"),
             ("5-3", "5-5"), ("5-2", "5-5"), ("4-4", "6-4"), ("4-3", "4-4"), ("4-2", "4-4"), ("4-1", "4-4")]
    for tile, on in chain:
        _play(r, tile, on)
    assert not r.state.is_over()
    assert r.judge(T("3-3"), T("6-3"), 3).legal


def test_a_spinner_must_be_a_double():
    with pytest.raises(ValueError):
        Referee(GameConfig(2, 9, HouseRules()), T("9-8"), 0)


def test_a_misread_play_is_replaced_when_the_round_still_replays_with_the_right_tile():
    r = _ref()
    for tile in ("9-1", "9-2", "9-3", "9-4"):
        _play(r, tile, "9-9")
    _play(r, "4-4", "9-4")  # in truth a 4-0: no chickie
    assert r.judge(T("2-5"), T("9-2"), 2).error.code == "chickie_unfinished"
    fixed = r.replace(T("4-4"), T("4-0"), 4)
    assert fixed is not None and fixed.tile == T("4-0") and r.on_board(T("4-0")) and not r.on_board(T("4-4"))
    assert r.judge(T("2-5"), T("9-2"), 2).legal
    assert r.judge(T("0-6"), T("4-0"), 0).legal


def _arm_of_two():
    """A 9-9 spinner with its four arms, and a 1-5 on the 9-1 with a 5-6 on its 5."""
    r = _ref()
    for tile in ("9-1", "9-2", "9-3", "9-4"):
        _play(r, tile, "9-9")
    _play(r, "1-5", "9-1")
    _play(r, "5-6", "1-5")
    return r


def test_a_replacement_that_breaks_a_later_play_changes_nothing():
    r = _arm_of_two()
    assert r.replace(T("1-5"), T("1-7")) is None  # the 5-6 laid on its 5 would no longer match
    assert r.on_board(T("1-5")) and [p.tile for p in r.plays][-2:] == [T("1-5"), T("5-6")]
    assert r.replace(T("9-1"), T("9-2")) is None  # a set holds one 9-2, already played
    assert r.replace(T("9-1"), T("9-10")) is None  # no such tile in a double-9 set


def test_a_misread_tile_and_the_one_read_to_match_it_are_corrected_together():
    r = _arm_of_two()  # its 1-5 in truth a 1-7, and the 5-6 a 7-6 laid on its 7, read 5-6 to match
    assert r.replace(T("1-5"), T("1-7")) is None and r.replace(T("5-6"), T("7-6")) is None  # neither alone
    fixed = r.replace_many({T("1-5"): (T("1-7"), 1), T("5-6"): (T("7-6"), 7)})
    assert fixed is not None and [p.tile for p in fixed] == [T("1-7"), T("7-6")]
    assert fixed[1].on == T("1-7") and not r.on_board(T("1-5")) and not r.on_board(T("5-6"))
    assert r.judge(T("6-8"), T("7-6"), 6).legal


def test_a_joint_correction_that_does_not_replay_changes_nothing():
    r = _arm_of_two()
    assert r.replace_many({T("1-5"): (T("1-7"), 1), T("5-6"): (T("5-8"), 5)}) is None  # the 5-8 has no 7
    assert r.replace_many({T("1-5"): (T("1-7"), 1), T("5-6"): (T("1-7"), 7)}) is None  # one tile twice
    assert [p.tile for p in r.plays][-2:] == [T("1-5"), T("5-6")] and r.judge(T("6-8"), T("5-6"), 6).legal


def _play_at(r, frame, tile, on):
    v = r.judge(T(tile), T(on))
    assert v.legal, v.error
    r.accept(T(tile), v, frame, frame / 10)


def test_a_play_entered_with_the_last_one_from_one_reading_can_be_taken_back_before_it():
    """Two tiles first seen in one reading go in a guessed order; the one taken back may be the
    first. The other stays, credited to the seat whose turn it then was."""
    r = _ref(players=3, spinner_player=0)
    _play_at(r, 10, "9-4", "9-9")  # player 1
    _play_at(r, 20, "9-3", "9-9")  # both seen at frame 20: player 2 ...
    _play_at(r, 20, "9-2", "9-9")  # ... and player 0
    back = r.take_back_entered_with_last(T("9-3"))
    assert back is not None and back.tile == T("9-3")
    assert [(p.tile, p.player) for p in r.plays] == [(T("9-4"), 1), (T("9-2"), 2)]
    assert r.turn == 0


def test_a_play_followed_by_plays_from_later_readings_is_not_taken_back_out_of_turn():
    r = _ref(players=3)
    _play_at(r, 10, "9-4", "9-9")
    _play_at(r, 20, "9-3", "9-9")
    _play_at(r, 30, "9-2", "9-9")
    assert r.take_back_entered_with_last(T("9-3")) is None
    assert [p.tile for p in r.plays] == [T("9-4"), T("9-3"), T("9-2")]


def test_a_play_with_a_tile_entered_on_it_is_not_taken_back_from_under_it():
    r = _ref(players=3)
    for tile in ("9-1", "9-2", "9-3", "9-4"):
        _play_at(r, 10, tile, "9-9")
    _play_at(r, 20, "4-0", "9-4")
    _play_at(r, 20, "0-5", "4-0")
    assert r.take_back_entered_with_last(T("4-0")) is None
    assert [p.tile for p in r.plays][-2:] == [T("4-0"), T("0-5")]


def test_a_flagged_play_the_table_kept_enters_the_round_and_spends_its_turn():
    r = _arm_of_two()
    v = r.judge(T("7-3"), T("5-6"), 7)
    assert v.error.code == "ends_do_not_match"
    turn = r.turn
    play = r.let_stand(T("7-3"), T("5-6"), 7, 10, 1.0)
    assert play is not None and play.stood and play.player == turn
    assert r.open_value(T("7-3")) == 3 and r.turn != turn
    assert r.judge(T("3-0"), T("7-3"), 3).legal
    assert r.round_record(0)["observed"]["plays"][-1]["stood"] is True


def test_a_flagged_play_with_no_free_end_to_lie_on_cannot_stand():
    r = _arm_of_two()
    assert r.let_stand(T("9-5"), T("9-9"), 9, 10, 1.0) is None  # the spinner's four arms are taken
    assert not r.on_board(T("9-5"))


def test_a_play_the_table_kept_is_made_plain_when_a_tile_read_later_lay_before_it():
    r = _ref()
    for tile in ("9-1", "9-2", "9-3"):
        _play(r, tile, "9-9")
    # flagged (the spinner seemed to wait for an arm), kept: the next player builds on it
    assert r.let_stand(T("1-5"), T("9-1"), 1, 10, 1.0, waive=True).waived
    _play(r, "5-6", "1-5")
    _play(r, "9-4", "9-9")  # the fourth arm, read only later, lay there all along
    assert r.stand_corrected(T("1-5"), [T("9-4")]) is not None
    assert [p.tile for p in r.plays][-3:] == [T("9-4"), T("1-5"), T("5-6")]
    assert not any(p.stood or p.waived for p in r.plays) and r.open_value(T("5-6")) == 6
    assert r.stand_corrected(T("1-5"), []) is None  # no longer a stood play


def test_a_play_laid_before_the_last_double_is_entered_before_it_when_both_are_legal_so():
    r = _ref(players=2)
    for tile in ("9-1", "9-2", "9-3", "9-4"):
        _play(r, tile, "9-9")
    _play(r, "1-1", "9-1")  # a chickie: it waits for three toes
    assert r.judge(T("2-5"), T("9-2"), 2).error.code == "chickie_unfinished"
    play = r.play_before_last(T("2-5"), T("9-2"), 2, 40, 4.0)
    assert play is not None and play.tile == T("2-5")
    assert [p.tile for p in r.plays][-2:] == [T("2-5"), T("1-1")]
    assert r.judge(T("3-6"), T("9-3"), 3).error.code == "chickie_unfinished"  # it still waits


def test_a_play_that_is_illegal_before_the_last_double_too_is_not_moved_before_it():
    r = _ref(players=2)
    for tile in ("9-1", "9-2", "9-3", "9-4"):
        _play(r, tile, "9-9")
    _play(r, "1-1", "9-1")
    before = [p.tile for p in r.plays]
    assert r.play_before_last(T("3-5"), T("9-2"), 3, 40, 4.0) is None  # a 3 against the open 2
    assert r.play_before_last(T("1-5"), T("1-1"), 1, 40, 4.0) is None  # on the last play itself
    assert [p.tile for p in r.plays] == before


def _straight_toe_then_a_play_elsewhere():
    """A 9-9 spinner with its arms; a 1-5 taken as laid on the 9-1 (in truth on a 1-1 chickie
    never read), then a 2-6 on the 9-2 (in truth laid once the chickie had its three toes)."""
    r = _ref(players=3)
    for tile in ("9-1", "9-2", "9-3", "9-4"):
        _play(r, tile, "9-9")
    _play(r, "1-5", "9-1", 1)
    _play(r, "2-6", "9-2", 2)
    return r


def test_a_double_never_read_is_slipped_under_its_straight_toe_with_its_fellow_toes():
    r = _straight_toe_then_a_play_elsewhere()
    r.plays[-1].frame = 90
    play = r.slip_double_under(T("1-5"), T("1-1"), [(T("1-7"), 1, 20, 2.0), (T("1-3"), 1, 60, 6.0)])
    assert play is not None and play.tile == T("1-1") and play.on == T("9-1") and play.frame == 0
    assert [(p.tile, p.on) for p in r.plays][-5:] == [(T("1-1"), T("9-1")), (T("1-5"), T("1-1")),
                                                      (T("1-7"), T("1-1")), (T("1-3"), T("1-1")), (T("2-6"), T("9-2"))]
    assert [p.player for p in r.plays][-5:] == [2, 0, 1, 2, 0]  # the 1-5 and 2-6 a turn later than they seemed
    assert r.judge(T("5-8"), T("1-5"), 5).legal and r.judge(T("6-8"), T("2-6"), 6).legal


def test_a_double_slipped_under_a_toe_without_its_fellows_changes_nothing_when_play_went_on_elsewhere():
    r = _straight_toe_then_a_play_elsewhere()
    before = [(p.tile, p.on, p.end) for p in r.plays]
    assert r.slip_double_under(T("1-5"), T("1-1")) is None  # the 2-6 came while the 1-1 waited for toes
    assert r.slip_double_under(T("1-5"), T("9-9"), [(T("1-7"), 1, 20, 2.0), (T("1-3"), 1, 60, 6.0)]) is None
    assert r.slip_double_under(T("9-1"), T("1-1")) is None  # the 9-1 lies on the spinner, not a tile's end
    assert [(p.tile, p.on, p.end) for p in r.plays] == before
    assert r.judge(T("5-8"), T("1-5"), 5).legal
