"""The seat a hand came from, and the turns a hand from further round says were passed."""
from __future__ import annotations

import math

from vision.tracking.seats import Seats
from vision.tracking.tuning import TrackerConfig

SIZE = (640, 480)
BOTTOM, LEFT, TOP, RIGHT = (0.5, 1.0), (0.0, 0.5), (0.5, 0.0), (1.0, 0.5)

KEPT = TrackerConfig().kept_hands


def _seats() -> Seats:
    return Seats([math.pi / 2, math.pi, -math.pi / 2, 0.0])  # bottom, left, top, right


class _Referee:
    def __init__(self, turn: int) -> None:
        self.turn = turn
        self.passes: list[int] = []
        self.forgotten = 0

    def note_pass(self, seat: int) -> None:
        self.passes.append(seat)

    def forget_pass(self) -> None:
        self.forgotten += 1


def test_the_last_hand_before_the_frame_names_the_seat_it_came_from():
    seats = _seats()
    seats.hand_came_in(3, LEFT, KEPT)
    seats.hand_came_in(7, TOP, KEPT)
    assert seats.seat_of_hand(8, SIZE) == 2
    assert seats.seat_of_hand(5, SIZE) == 1
    assert seats.seat_of_hand(3, SIZE) is None


def test_no_seat_without_directions_or_from_between_two_seats():
    unknown = Seats()
    unknown.hand_came_in(1, TOP, KEPT)
    assert unknown.seat_of_hand(2, SIZE) is None
    two = Seats([math.pi / 2, math.pi])  # bottom and left
    two.hand_came_in(1, (1.0, 0.0), KEPT)  # the top right corner: far from both
    assert two.seat_of_hand(2, SIZE) is None
    two.hand_came_in(3, (0.1, 0.6), KEPT)
    assert two.seat_of_hand(4, SIZE) == 1


def test_a_new_motion_forgets_the_hands_before_it_and_only_the_latest_are_kept():
    seats = _seats()
    seats.hand_came_in(1, TOP, KEPT)
    seats.new_motion()
    assert seats.seat_of_hand(2, SIZE) is None
    for f in range(KEPT + 5):
        seats.hand_came_in(f, RIGHT, KEPT)
    assert len(seats.entries) == KEPT and seats.entries[0][0] == 5


def test_a_hand_from_further_round_notes_the_seats_between_as_passed():
    seats = _seats()
    seats.hand_came_in(1, TOP, KEPT)
    referee = _Referee(turn=0)
    seats.follow_hand(referee, 4, 2, SIZE)
    assert referee.passes == [1] and referee.forgotten == 0


def test_a_hand_from_the_seat_before_takes_back_an_inferred_pass_instead():
    seats = _seats()
    seats.hand_came_in(1, RIGHT, KEPT)
    referee = _Referee(turn=0)
    seats.follow_hand(referee, 4, 2, SIZE)
    assert referee.passes == [] and referee.forgotten == 1


def test_a_hand_from_the_expected_seat_changes_nothing():
    seats = _seats()
    seats.hand_came_in(1, BOTTOM, KEPT)
    referee = _Referee(turn=0)
    seats.follow_hand(referee, 4, 2, SIZE)
    assert referee.passes == [] and referee.forgotten == 0
