"""The game's book on its own: rounds begun and scored, the round a spinner starts, the record,
with no pictures and no tracker around it."""
from __future__ import annotations

import pytest

from engine import GameConfig, HouseRules, Tile
from vision.tracking.bookkeeping import GameBook


def test_a_told_round_sets_the_spinner_the_round_must_start_with_and_counts_on() -> None:
    book = GameBook(GameConfig(2, 6, HouseRules(start_double="required")), round_index=1)
    assert book.round_index_for(Tile(4, 4)) == 1 and book.told_round_double(Tile(4, 4)) == 5
    book.begin_round(Tile(5, 5), 1)
    scored = book.end_round(hand_totals=[0, 12], hands=None, frame=7, t=3.5)
    assert (scored.frame, scored.t, scored.round_index, scored.round_double) == (7, 3.5, 1, 5)
    assert book.current is None and book.next_round_index == 2


def test_an_untold_round_is_the_next_on_the_score_sheet() -> None:
    book = GameBook(GameConfig(2, 6, HouseRules(start_double="highest_available")))
    assert book.told_round_double(Tile(6, 6)) is None and book.round_index_for(Tile(3, 3)) == 0
    book.begin_round(Tile(3, 3), 0)
    book.end_round(hand_totals=[5, 0], hands=None, frame=0, t=0.0)
    assert book.round_index_for(Tile(2, 2)) == 1


def test_a_round_is_scored_from_hand_totals_or_hands_never_both() -> None:
    book = GameBook(GameConfig(2, 6, HouseRules()))
    with pytest.raises(ValueError):
        book.end_round(hand_totals=[1, 2], hands=[["6-6"], []], frame=0, t=0.0)
    with pytest.raises(ValueError):
        book.end_round(hand_totals=None, hands=None, frame=0, t=0.0)


def test_the_state_reports_the_round_in_progress_and_the_tiles_handed_in() -> None:
    book = GameBook(GameConfig(3, 9, HouseRules()), spinner_player=1)
    book.begin_round(Tile(9, 9), 0)
    state = book.state([], settled=True, frames=4, frames_read=2, frames_reused=1, size=(640, 480))
    assert state.spinner == "9-9" and state.round_double == 9 and state.plays == 0 and state.tiles == []
    assert state.hands is not None and (state.frames, state.frames_read, state.size) == (4, 2, (640, 480))
    assert len(book.record()["rounds"]) == 1 and book.record()["players"] == 3
