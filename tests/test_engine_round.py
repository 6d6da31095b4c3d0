"""The rules of play, one test per rule, on small hand-built double-6 positions."""
from __future__ import annotations

from typing import Any

import pytest

from engine import (
    AlreadyDrew,
    BoneyardEmpty,
    ChickieUnfinished,
    Deal,
    EndsDoNotMatch,
    GameConfig,
    HouseRules,
    IllegalPlay,
    MustDrawFirst,
    MustPlay,
    NoSuchOpenEnd,
    NothingToAnnounce,
    NotYourTurn,
    OnlyDrawnTile,
    Play,
    RoundOver,
    RoundState,
    SpinnerArmsUnfinished,
    Tile,
    TileNotInBoneyard,
    TileNotInHand,
    TileNotInSet,
)
from engine.errors import ILLEGAL_PLAY_TYPES

T = Tile.parse
SIXES = ["6-5", "6-4", "6-3", "6-2", "6-1", "6-0"]


def start(hands: list[list[str]], top: list[str] = (), *, set_max: int = 6, round_index: int = 0,  # type: ignore[assignment]
          first_seat: int = 0, start_draw: list[str] | None = None, **rules: Any) -> RoundState:
    config = GameConfig(len(hands), set_max, HouseRules(**rules))
    deal = Deal.arrange(config, hands, list(top), first_seat=first_seat, start_draw=start_draw)
    return RoundState(config, round_index, deal)


def end(state: RoundState, tile: str, slot: int | None = None) -> int:
    found = state.board.end_at(T(tile), slot)
    assert found is not None, f"no open end on {tile}"
    return found.id


def play(state: RoundState, tile: str, on: str, slot: int | None = None) -> None:
    state.play(T(tile), end(state, on, slot))


def snapshot(state: RoundState) -> tuple:
    return (state.hands, len(state.board), tuple(state.board.open_ends), state.turn, len(state.history),
            state.boneyard, state.drawn_tile, state.is_over())


def spinner_position(**rules: Any) -> RoundState:
    return start([["6-6", "6-1", "3-2"], ["6-2", "2-2", "5-4"]], **rules)


def chickie_position() -> RoundState:
    """Spinner 6-6 with four arms, then player 1 lays the double 2-2 on the 6-2 arm."""
    s = start(
        [["6-6", "6-1", "6-3", "1-1", "0-0", "5-5"], ["6-2", "6-4", "2-2", "2-0", "4-0", "4-4"]],
        ["2-1", "5-2", "3-0"],
    )
    play(s, "6-2", "6-6", 0)
    play(s, "6-1", "6-6", 1)
    play(s, "6-4", "6-6", 2)
    play(s, "6-3", "6-6", 3)
    play(s, "2-2", "6-2")
    return s


# --- opening a round ------------------------------------------------------------------


def test_round_starts_with_its_double_placed_by_its_holder_and_the_next_player_leads() -> None:
    s = start([["1-0", "2-0"], ["6-6", "5-0"], ["3-0", "4-0"]])
    assert s.spinner is T("6-6")
    assert s.spinner_player == 1
    assert s.turn == 2
    assert T("6-6") not in s.hand(1)
    assert s.board.spinner.kind == "spinner"


def test_each_round_starts_with_the_next_lower_double() -> None:
    s = start([["4-4", "1-0"], ["6-6", "5-5"]], round_index=2)
    assert s.round_double == 4 and s.spinner is T("4-4") and s.spinner_player == 0


def test_players_draw_in_turn_until_the_required_double_appears() -> None:
    s = start([["1-0"], ["2-0"]], ["3-0", "4-0", "6-6", "5-0"], first_seat=0)
    assert s.opening_draws == [(0, T("3-0")), (1, T("4-0")), (0, T("6-6"))]
    assert s.spinner_player == 0 and s.turn == 1
    assert set(s.hand(0)) == {T("1-0"), T("3-0")}
    assert set(s.hand(1)) == {T("2-0"), T("4-0")}
    assert s.boneyard[0] is T("5-0")


def test_highest_available_double_starts_when_the_required_one_is_not_held() -> None:
    s = start([["3-3", "1-0"], ["5-5", "2-0"]], start_double="highest_available")
    assert s.spinner is T("5-5") and s.spinner_player == 1 and s.turn == 0
    assert s.round_double == 6  # the score sheet row stays the double-6 round
    assert {e.value for e in s.open_ends()} == {5}


def test_highest_available_double_never_goes_above_the_rounds_double() -> None:
    s = start([["5-5", "1-0"], ["2-2", "3-0"]], round_index=2, start_double="highest_available")
    assert s.spinner is T("2-2")


def test_required_double_wins_over_higher_doubles_with_highest_available() -> None:
    s = start([["6-6", "1-0"], ["4-4", "3-0"]], round_index=2, start_double="highest_available")
    assert s.spinner is T("4-4")


def test_highest_available_draws_until_any_lower_double_appears() -> None:
    s = start([["1-0"], ["2-0"]], ["3-0", "4-4", "6-6"], start_double="highest_available")
    assert s.spinner is T("4-4") and s.spinner_player == 1


def test_first_round_draw_highest_tile_plays_first() -> None:
    s = start([["6-6", "1-0"], ["2-0", "3-0"], ["4-0", "5-0"]], first_round_draw=True,
              start_draw=["1-1", "5-4", "3-2"])
    assert s.spinner_player == 0
    assert s.turn == 1 and s.first_player == 1
    assert s.start_draw == (T("1-1"), T("5-4"), T("3-2"))
    assert len(s.boneyard) == 28 - 6  # the drawn tiles went back


def test_first_round_draw_ties_go_to_the_higher_end() -> None:
    s = start([["6-6", "1-0"], ["2-0", "3-0"]], first_round_draw=True, start_draw=["5-4", "6-3"])
    assert s.turn == 1


def test_first_round_draw_applies_to_the_first_round_only() -> None:
    s = start([["5-5", "1-0"], ["2-0", "3-0"], ["4-0", "5-0"]], round_index=1, first_round_draw=True,
              start_draw=["1-1", "6-4", "3-2"])
    assert s.start_draw is None and s.turn == 1


def test_first_round_draw_defaults_to_the_top_of_the_boneyard() -> None:
    s = start([["6-6", "1-0"], ["2-0", "3-0"]], ["1-1", "6-5"], first_round_draw=True)
    assert s.start_draw == (T("1-1"), T("6-5")) and s.turn == 1


# --- the spinner and chickies -------------------------------------------------------


def test_spinner_takes_four_arms_before_any_other_play() -> None:
    s = spinner_position()
    assert len(s.board.forced_ends()) == 4
    assert {p.end for p in s.legal_plays()} == {0, 1, 2, 3}
    play(s, "6-2", "6-6", 0)
    with pytest.raises(SpinnerArmsUnfinished) as info:
        play(s, "3-2", "6-2")
    assert info.value.code == "spinner_arms_unfinished"
    assert info.value.message == "the spinner 6-6 needs three more arms before you can play elsewhere"
    assert s.legal_plays() == [Play(T("6-1"), e) for e in (1, 2, 3)]


def test_spinner_takes_six_arms_with_double_chickenfoot_option() -> None:
    s = start([["6-6", "6-5", "6-4", "6-3", "1-0"], ["6-2", "6-1", "6-0", "2-0"]], spinner_arms=6)
    assert len(s.open_ends()) == 6
    for tile in ["6-2", "6-5", "6-1", "6-4"]:
        play(s, tile, "6-6")
    with pytest.raises(SpinnerArmsUnfinished, match="two more arms"):
        play(s, "2-0", "6-2")
    play(s, "6-0", "6-6")
    play(s, "6-3", "6-6")
    assert s.board.pending is None
    play(s, "2-0", "6-2")


def test_spinner_is_complete_after_its_arms_and_every_arm_end_opens() -> None:
    s = chickie_position()
    values = sorted(e.value for e in s.open_ends() if e.tile is not T("2-2"))
    assert values == [1, 3, 4]


def test_chickie_takes_three_toes_before_play_continues_elsewhere() -> None:
    s = chickie_position()
    assert s.turn == 0
    assert s.board.pending_placement().tile is T("2-2")
    with pytest.raises(ChickieUnfinished) as info:
        play(s, "1-1", "6-1")
    assert info.value.message == "the chickie on 2-2 needs three more toes before you can play elsewhere"
    assert s.legal_plays() == []
    assert s.draw() is T("2-1")
    play(s, "2-1", "2-2", 0)
    with pytest.raises(ChickieUnfinished, match="the chickie on 2-2 needs two more toes before you can play elsewhere"):
        play(s, "4-0", "6-4")
    play(s, "2-0", "2-2", 1)
    assert s.draw() is T("5-2")
    play(s, "5-2", "2-2", 2)
    assert s.board.pending is None
    play(s, "4-0", "6-4")  # anywhere again, toes included


def test_chickie_toes_become_open_ends() -> None:
    s = chickie_position()
    s.draw()
    play(s, "2-1", "2-2")
    play(s, "2-0", "2-2")
    s.draw()
    play(s, "5-2", "2-2")
    toes = {e.value for e in s.open_ends() if e.tile in (T("2-1"), T("2-0"), T("5-2"))}
    assert toes == {1, 0, 5}


def test_playing_a_double_ends_the_turn() -> None:
    s = chickie_position()
    assert s.history[-1][:3] == ("play", 1, T("2-2"))
    assert s.turn == 0  # player 1 laid the double; player 0 must now feed it


def test_tiles_go_on_matching_ends_only() -> None:
    s = spinner_position()
    with pytest.raises(EndsDoNotMatch) as info:
        s.play(T("5-4"), 0)
    assert info.value.code == "ends_do_not_match"
    assert "5-4 has no 6" in info.value.message


def test_a_double_goes_crosswise_on_a_matching_end_and_becomes_a_chickie() -> None:
    s = chickie_position()
    chickie = s.board.placement_of(T("2-2"))
    assert chickie.kind == "chickie" and chickie.facing == 2 and chickie.parent == 1
    assert [e.slot for e in s.board.forced_ends()] == [0, 1, 2]


# --- turns, drawing and passing -----------------------------------------------------


def test_only_the_player_whose_turn_it_is_may_play() -> None:
    s = spinner_position()
    with pytest.raises(NotYourTurn, match="player 1's turn, not player 0's"):
        s.play(T("6-1"), 0, player=0)


def test_a_tile_must_be_in_the_players_hand() -> None:
    s = spinner_position()
    with pytest.raises(TileNotInHand, match="player 1 does not hold 6-1"):
        s.play(T("6-1"), 0)


def test_a_tile_must_exist_in_the_set() -> None:
    s = spinner_position()
    with pytest.raises(TileNotInSet):
        s.play(T("9-6"), 0)


def test_a_play_must_name_an_open_end() -> None:
    s = spinner_position()
    with pytest.raises(NoSuchOpenEnd):
        s.play(T("6-2"), 99)


def test_player_who_cannot_play_must_draw_before_passing() -> None:
    s = start([["6-6", "1-0"], ["5-4", "3-3"]], ["6-5", "2-1"])
    with pytest.raises(MustDrawFirst):
        s.pass_turn()
    assert s.can_draw() and not s.can_pass()


def test_drawn_tile_may_be_played_if_it_fits() -> None:
    s = start([["6-6", "1-0"], ["5-4", "3-3"]], ["6-5", "2-1"])
    assert s.draw() is T("6-5")
    with pytest.raises(OnlyDrawnTile):
        s.play(T("3-3"), 0)
    with pytest.raises(AlreadyDrew):
        s.draw()
    assert s.legal_plays() == [Play(T("6-5"), e) for e in range(4)]
    s.play(T("6-5"), 0)
    assert s.turn == 0


def test_drawn_tile_may_be_kept_and_the_turn_passed() -> None:
    s = start([["6-6", "1-0"], ["5-4", "3-3"]], ["6-5", "2-1"])
    s.draw()
    s.pass_turn()
    assert s.turn == 0 and T("6-5") in s.hand(1)


def test_drawn_tile_that_does_not_fit_means_a_pass() -> None:
    s = start([["6-6", "1-0"], ["5-4", "3-3"]], ["2-1", "6-5"])
    assert s.draw() is T("2-1")
    assert s.legal_plays() == [] and s.can_pass()
    s.pass_turn()
    assert s.turn == 0


def test_draw_refused_when_holding_a_tile_that_fits() -> None:
    s = spinner_position()
    with pytest.raises(MustPlay) as info:
        s.draw()
    assert info.value.code == "must_play"
    with pytest.raises(MustDrawFirst):
        s.pass_turn()


def test_voluntary_draw_and_pass_with_a_legal_play_when_option_set() -> None:
    s = spinner_position(voluntary_draw=True)
    assert s.can_draw()
    drawn = s.draw()
    assert drawn in s.hand(1)
    with pytest.raises(OnlyDrawnTile):
        s.play(T("6-2"), 0)  # after drawing, only the drawn tile may still be laid
    s.pass_turn()
    assert s.turn == 0


def test_voluntary_draw_still_needs_a_draw_before_passing() -> None:
    s = spinner_position(voluntary_draw=True)
    with pytest.raises(MustDrawFirst):
        s.pass_turn()


def empty_boneyard_position() -> RoundState:
    non_sixes = [str(t) for t in Deal.arrange(GameConfig(2, 6), [["6-6"], SIXES], []).boneyard]
    non_sixes.remove("0-0")
    return start([["6-6", "6-5", "6-4", *non_sixes[:6]], non_sixes[6:14], ["6-3", "6-2", "6-1", "6-0", *non_sixes[14:]]],
                 ["0-0"])


def test_with_an_empty_boneyard_a_player_who_cannot_play_passes() -> None:
    s = empty_boneyard_position()
    assert s.boneyard_count == 1 and s.turn == 1
    s.draw()
    s.pass_turn()
    assert s.boneyard_count == 0 and not s.is_over()
    with pytest.raises(MustPlay):
        s.pass_turn()  # player 2 holds sixes
    with pytest.raises(BoneyardEmpty):
        s.draw()
    play(s, "6-3", "6-6")
    play(s, "6-5", "6-6")
    assert s.turn == 1 and s.can_pass() and not s.can_draw()
    s.pass_turn()
    assert s.turn == 2


def test_draw_of_a_named_tile_takes_it_from_anywhere_in_the_boneyard() -> None:
    s = start([["6-6", "1-0"], ["5-4", "3-3"]], ["2-1", "6-5"])
    assert s.draw(tile=T("6-5")) is T("6-5")
    assert s.boneyard[0] is T("2-1")
    fresh = start([["6-6", "1-0"], ["5-4", "3-3"]], ["2-1", "6-5"])
    with pytest.raises(TileNotInBoneyard):
        fresh.draw(tile=T("1-0"))


# --- ending a round -------------------------------------------------------------------


def test_round_ends_when_a_player_goes_out() -> None:
    s = start([["6-6", "6-1"], ["6-2", "5-4", "3-3"]])
    play(s, "6-2", "6-6")
    play(s, "6-1", "6-6")
    assert s.is_over() and s.winner == 0 and not s.stalemate
    result = s.result()
    assert result.scores == (0, 9 + 6)
    with pytest.raises(RoundOver):
        s.draw()
    assert s.legal_plays() == []


def stalemate_position(boneyard: list[str]) -> RoundState:
    s = start(
        [
            ["6-6", "6-2", "6-4", "3-1", "1-1", "5-1", "6-5", "5-4", "5-3", "5-2", "5-0", "4-4", "4-3", "4-2"],
            ["6-1", "6-3", "2-1", "4-1", "1-0", "6-0", "4-0", "3-3", "3-2", "3-0", "2-2", "2-0"],
        ],
        boneyard,
    )
    for tile, on in [("6-1", "6-6"), ("6-2", "6-6"), ("6-3", "6-6"), ("6-4", "6-6"), ("2-1", "6-2"),
                     ("3-1", "6-3"), ("4-1", "6-4"), ("1-1", "6-1"), ("1-0", "1-1"), ("5-1", "1-1")]:
        play(s, tile, on)
    return s


def test_round_ends_in_stalemate_when_nobody_can_play_or_draw() -> None:
    s = stalemate_position(["5-5", "0-0"])
    assert not s.is_over() and s.turn == 1
    s.draw()
    s.pass_turn()
    assert not s.is_over()
    s.draw()  # the last tile; nobody holds a 1 for the chickie
    assert s.is_over() and s.stalemate and s.winner is None
    assert all(not s.can_play(p) for p in range(2))


def test_stalemate_when_a_chickie_can_no_longer_be_completed() -> None:
    s = stalemate_position(["5-5", "0-0"])
    chickie = s.board.pending_placement()
    assert chickie.tile is T("1-1") and s.board.pending_missing == 1
    assert not any(t.has(1) for t in s.boneyard) and not any(t.has(1) for h in s.hands for t in h)
    while not s.is_over():
        s.draw() if s.can_draw() else s.pass_turn()
    assert s.stalemate and s.board.pending_missing == 1


def test_stalemate_is_not_declared_while_the_boneyard_has_tiles() -> None:
    s = stalemate_position(["5-5", "0-0"])
    assert s.boneyard_count == 2 and not s.is_over()


# --- chickenlittle ----------------------------------------------------------------------


def little_position(**rules: Any) -> RoundState:
    s = start([["6-6", "6-1", "6-2"], ["6-3", "6-4", "5-5", "5-4"]], ["2-0", "3-0"], chickenlittle=True, **rules)
    play(s, "6-3", "6-6")
    play(s, "6-1", "6-6")
    return s


def test_chickenlittle_player_down_to_one_tile_must_announce() -> None:
    s = little_position()
    assert s.unannounced == (0,)
    s.announce(0)
    assert s.unannounced == ()
    play(s, "6-4", "6-6")
    assert len(s.hand(0)) == 1  # no penalty
    play(s, "6-2", "6-6")
    assert s.winner == 0
    assert ("announce", 0) in s.history


def test_chickenlittle_forgetting_costs_a_draw() -> None:
    s = little_position()
    play(s, "6-4", "6-6")  # the next player plays before player 0 announced
    assert s.hand(0) == (T("6-2"), T("2-0"))
    assert ("penalty", 0, T("2-0")) in s.history
    assert s.turn == 0 and s.unannounced == ()


def test_chickenlittle_forgetting_with_empty_boneyard_skips_a_turn() -> None:
    mine = ["6-6", "6-1", "6-2"]
    theirs = [str(t) for t in Deal.arrange(GameConfig(2, 6), [mine, ["2-0"]]).boneyard]
    s = start([mine, theirs], ["2-0"], chickenlittle=True, voluntary_draw=True)
    assert s.boneyard_count == 1
    # Empty the boneyard first: player 1 draws its only tile although it could play.
    s.draw()
    s.pass_turn()
    play(s, "6-1", "6-6")
    assert s.unannounced == (0,)
    play(s, "6-3", "6-6")
    assert ("penalty", 0, None) in s.history and ("skip", 0) in s.history
    assert s.turn == 1  # player 0's turn was skipped
    assert s.unannounced == (0,)  # and the last tile must still be called
    s.announce(0)
    play(s, "6-4", "6-6")
    play(s, "6-2", "6-6")
    assert s.winner == 0


def test_announce_refused_when_there_is_nothing_to_announce() -> None:
    s = little_position()
    with pytest.raises(NothingToAnnounce):
        s.announce(1)
    plain = spinner_position()
    with pytest.raises(NothingToAnnounce, match="not in play"):
        plain.announce(0)


# --- the API around it ----------------------------------------------------------------


def test_every_illegal_play_has_a_code_and_a_sentence() -> None:
    for code, cls in ILLEGAL_PLAY_TYPES.items():
        assert issubclass(cls, IllegalPlay) and cls.code == code
        err = cls("a sentence")
        assert err.to_dict() == {"code": code, "message": "a sentence"}


def test_illegal_actions_leave_the_state_untouched() -> None:
    s = chickie_position()
    before = snapshot(s)
    for attempt in (
        lambda: play(s, "1-1", "6-1"),
        lambda: s.play(T("6-2"), 0),
        lambda: s.play(T("0-0"), 999),
        lambda: s.pass_turn(),
        lambda: s.play(T("1-1"), end(s, "2-2"), player=1),
        lambda: s.announce(0),
    ):
        with pytest.raises(IllegalPlay):
            attempt()
        assert snapshot(s) == before


def test_legal_plays_name_the_tile_and_the_open_end() -> None:
    s = spinner_position()
    plays = s.legal_plays()
    assert all(isinstance(p, Play) and p.tile is T("6-2") for p in plays)
    assert [s.board.open_ends[p.end].value for p in plays] == [6, 6, 6, 6]
    s.play(plays[2])
    assert s.board.placements[1].slot == 2


def test_clones_are_independent() -> None:
    s = chickie_position()
    c = s.clone()
    c.draw()
    play(c, "2-1", "2-2")
    assert len(c.board) == len(s.board) + 1
    assert T("2-1") in s.boneyard and T("2-1") not in c.boneyard
    assert s.turn == 0 and c.turn == 1
    assert s.board.pending_missing == 3 and c.board.pending_missing == 2


def test_open_end_ids_are_stable_and_recorded_on_placements() -> None:
    s = chickie_position()
    ids = {e.id: (e.tile, e.slot) for e in s.open_ends()}
    s.draw()
    play(s, "2-1", "2-2", 1)
    after = {e.id: (e.tile, e.slot) for e in s.open_ends()}
    for key, value in after.items():
        if key in ids:
            assert ids[key] == value
    placed = s.board.placement_of(T("2-1"))
    assert placed.end_id not in after and placed.end_id in ids and placed.slot == 1


def test_board_tree_walks_from_the_spinner_with_slots_and_facing_values() -> None:
    s = chickie_position()
    root = s.board.tree()
    assert root.kind == "spinner" and root.tile is T("6-6") and root.capacity == 4
    assert [c.slot for c in root.children] == [0, 1, 2, 3]
    assert [str(c.tile) for c in root.children] == ["6-2", "6-1", "6-4", "6-3"]
    arm = root.children[0]
    assert arm.facing == 6 and arm.outer == 2 and arm.open_slots == []
    chickie = arm.children[0]
    assert chickie.is_chickie and chickie.facing == 2 and chickie.capacity == 3
    assert chickie.open_slots == [0, 1, 2]
    assert [n.tile for n in root.walk()][:3] == [T("6-6"), T("6-2"), T("2-2")]
    assert len(list(root.walk())) == len(s.board)


def test_hands_boneyard_and_board_always_hold_the_whole_set() -> None:
    s = chickie_position()
    where = s.tile_locations()
    assert len(where) == 28
    assert where[T("2-2")] == "board" and where[T("2-1")] == "boneyard" and where[T("1-1")] == "hand:0"


# --- a play the table kept ---------------------------------------------------------------


def test_a_play_the_table_kept_is_laid_as_it_lies_with_its_far_end_open() -> None:
    """5-4 laid with its 5 against the open 1 broke a rule; nobody took it back, so the round
    goes on from it: its 4 is the open end, and its turn is spent."""
    s = start([["6-6", "6-1", "3-2"], ["6-2", "2-2", "5-4"]])
    play(s, "6-2", "6-6", 0)
    play(s, "6-1", "6-6", 1)
    s.force_play(T("5-4"), end(s, "6-1"), facing=5)
    placed = s.board.placements[-1]
    assert (placed.tile, placed.facing, placed.outer) == (T("5-4"), 5, 4)
    assert s.board.end_at(T("5-4")).value == 4
    assert s.turn == 0
    assert s.history[-1][0] == "stood"


def test_a_play_the_table_kept_still_needs_the_tile_and_a_free_end() -> None:
    s = start([["6-6", "6-1", "3-2"], ["6-2", "2-2", "5-4"]])
    play(s, "6-2", "6-6", 0)
    with pytest.raises(TileNotInHand):
        s.force_play(T("5-4"), end(s, "6-6"))
    with pytest.raises(NoSuchOpenEnd):
        s.force_play(T("3-2"), 999)
    with pytest.raises(EndsDoNotMatch):
        s.force_play(T("3-2"), end(s, "6-2"), facing=4)


def test_a_play_elsewhere_the_table_kept_leaves_the_spinner_waiting() -> None:
    s = start([["6-6", "6-1", "3-2"], ["6-2", "4-2", "5-4"]])
    play(s, "6-2", "6-6", 0)
    play(s, "6-1", "6-6", 1)
    s.force_play(T("4-2"), end(s, "6-2"))
    assert s.board.pending_placement().tile == T("6-6") and s.board.pending_missing == 2
    assert s.board.end_at(T("4-2")).value == 4
    with pytest.raises(SpinnerArmsUnfinished):
        s.check_play(T("3-2"), end(s, "6-1"))


def test_a_play_elsewhere_the_table_kept_past_a_waiting_spinner_may_waive_it() -> None:
    s = start([["6-6", "6-1", "3-2"], ["6-2", "4-2", "5-4"]])
    play(s, "6-2", "6-6", 0)
    play(s, "6-1", "6-6", 1)
    s.force_play(T("4-2"), end(s, "6-2"), waive=True)
    assert s.board.pending_placement() is None
    assert s.board.end_at(T("6-6")) is not None  # its free arms stay open
    assert s.to_record()["turns"][-1]["waived"] is True
