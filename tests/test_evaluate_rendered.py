"""How `chickenfoot lab eval --rendered` scores one scene: the rules of its count."""
from __future__ import annotations

import numpy as np

from lab.evaluate import score_rendered


def _tile(x: float, pips: tuple[int, int], visible: float = 1.0, face_down: bool = False) -> dict:
    corners = [[x, 0.0], [x + 20.0, 0.0], [x + 20.0, 40.0], [x, 40.0]]
    return {"corners": corners, "pips": list(pips), "visible": visible, "face_down": face_down}


def _box(tile: dict) -> np.ndarray:
    return np.array(tile["corners"], np.float32)


def test_a_tile_read_right_is_matched_exact_and_its_total_right():
    a, b = _tile(0, (3, 5)), _tile(50, (6, 6))
    s = score_rendered([a, b], [(_box(a), (5, 3)), (_box(b), (6, 6))])
    assert (s.true_tiles, s.matched, s.extra, s.exact, s.ends_right, s.total_right) == (2, 2, 0, 2, 4, True)


def test_a_misread_end_is_matched_but_not_exact_and_spoils_the_total():
    a = _tile(0, (3, 5))
    s = score_rendered([a], [(_box(a), (3, 6))])
    assert (s.matched, s.exact, s.ends_right, s.total_right) == (1, 0, 1, False)


def test_a_box_over_nothing_is_an_extra_tile_and_spoils_the_total():
    a = _tile(0, (3, 5))
    s = score_rendered([a], [(_box(a), (3, 5)), (_box(_tile(100, (0, 0))), (1, 0))])
    assert (s.matched, s.extra, s.total_right) == (1, 1, False)


def test_a_box_over_a_partly_hidden_tile_counts_neither_as_extra_nor_in_the_found_total():
    shown, hidden = _tile(0, (3, 5)), _tile(50, (6, 4), visible=0.5)
    s = score_rendered([shown, hidden], [(_box(shown), (3, 5)), (_box(hidden), (6, 4))])
    assert (s.true_tiles, s.matched, s.extra, s.total_right) == (1, 1, 0, True)


def test_a_face_down_tile_is_not_asked_for():
    back = _tile(0, (2, 2), face_down=True)
    s = score_rendered([back], [])
    assert (s.true_tiles, s.total_right) == (0, True)


def test_a_missed_tile_lowers_recall_and_spoils_the_total():
    a, b = _tile(0, (3, 5)), _tile(50, (1, 1))
    s = score_rendered([a, b], [(_box(a), (3, 5))])
    assert (s.true_tiles, s.matched, s.total_right) == (2, 1, False)
