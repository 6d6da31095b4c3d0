"""The tracker's board model: tiles by identity, with the memories that must change together."""
from __future__ import annotations

import numpy as np

from engine import Tile
from vision.tracking.board import BoardTile, TileStatus
from vision.tracking.closer import DenseGuess
from vision.tracking.geometry import TilePose
from vision.tracking.table import TableModel


def _pose(x: float, y: float, pips: tuple[int, int]) -> TilePose:
    corners = np.array([[x, y], [x + 20, y], [x + 20, y + 40], [x, y + 40]], dtype=float)
    return TilePose(corners, pips)


def _tile(a: int, b: int, status: TileStatus = TileStatus.LEGAL, x: float = 0.0) -> BoardTile:
    return BoardTile(Tile(a, b), _pose(x, 0.0, (a, b)), status, 0, None, None, 0)


def test_laying_a_tile_again_keeps_its_place_in_the_order_laid() -> None:
    table = TableModel()
    for bt in (_tile(6, 6, TileStatus.SPINNER), _tile(6, 2), _tile(2, 1)):
        table.lay(bt)
    table.lay(_tile(6, 2, TileStatus.ILLEGAL))
    assert list(table) == [Tile(6, 6), Tile(6, 2), Tile(2, 1)]
    assert table.tiles[Tile(6, 2)].status == TileStatus.ILLEGAL
    table.lift(Tile(6, 2))
    assert Tile(6, 2) not in table and table.get(Tile(6, 2)) is None and len(table) == 2


def test_a_new_round_keeps_only_loose_tiles_and_forgets_the_last_rounds_plays_and_guesses() -> None:
    table = TableModel()
    table.lay(_tile(6, 6, TileStatus.SPINNER))
    table.lay(_tile(5, 3, TileStatus.LOOSE))
    table.note_legal_play(Tile(6, 2))
    table.note_dense_guess(Tile(6, 2), DenseGuess(Tile(6, 2), _pose(0, 0, (6, 2)), 2, 2))
    table.start_round()
    assert list(table) == [Tile(5, 3)]
    assert not table.played_legally_this_round(Tile(6, 2))
    assert table.take_dense_guess(Tile(6, 2)) is None


def test_a_knocked_camera_moves_tiles_flag_views_and_kept_pictures_together() -> None:
    table = TableModel()
    table.lay(_tile(6, 6, TileStatus.SPINNER))
    image = np.zeros((100, 100, 3), np.uint8)
    table.keep_flag_view(Tile(6, 6), image, np.eye(3))
    table.settle_picture(image)
    table.motion_began(image)
    shift = np.array([[1.0, 0.0, 10.0], [0.0, 1.0, 0.0]])
    table.follow_camera(shift)
    assert np.allclose(table.tiles[Tile(6, 6)].pose.corners[0], [10.0, 0.0])
    (_, (_, to_then)), = table.flag_view_items()
    assert np.allclose(to_then[0, 2], -10.0)  # today's coordinates back to the flagged frame's
    for kept in (table.settled_image, table.before_motion, table.still_before_motion):
        assert kept is not None and np.allclose(kept.to_now[0, 2], 10.0)


def test_support_held_over_a_motion_comes_back_as_it_was() -> None:
    table = TableModel()
    table.note_support(Tile(6, 2), {1, 2})
    held = table.hold_support()
    assert table.support_of(Tile(6, 2)) is None
    table.note_support(Tile(5, 5), {3})
    table.restore_support(held)
    assert table.support_of(Tile(6, 2)) == {1, 2} and table.support_of(Tile(5, 5)) is None


def test_a_corrected_reading_is_remembered_until_the_correction_is_undone() -> None:
    table = TableModel()
    table.supersede(Tile(6, 4), Tile(6, 2))
    assert table.is_superseded(Tile(6, 4), Tile(6, 2)) and not table.is_superseded(Tile(6, 2), Tile(6, 4))
    table.unsupersede(Tile(6, 4), Tile(6, 2))
    assert not table.is_superseded(Tile(6, 4), Tile(6, 2))


def test_readings_of_a_place_are_kept_per_laying_of_the_tile() -> None:
    table = TableModel()
    first = _tile(6, 2)
    table.note_place_read(first, Tile(6, 3), 1)
    table.note_place_read(first, Tile(6, 3), 2)
    again = BoardTile(Tile(6, 2), first.pose, TileStatus.LEGAL, 0, None, None, 9)
    table.note_place_read(again, Tile(6, 3), 3)
    assert table.place_readings() == [((Tile(6, 2), 0), {Tile(6, 3): {1, 2}}), ((Tile(6, 2), 9), {Tile(6, 3): {3}})]
