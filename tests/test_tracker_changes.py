"""What changed between the board and the latest observations, found from plain inputs alone."""
from __future__ import annotations

import numpy as np

from engine import Tile
from vision.tracking.board import BoardTile, Observation, TileStatus
from vision.tracking.changes import NO_CHANGES, detect_changes, still_there
from vision.tracking.geometry import TilePose
from vision.tracking.tuning import PictureConfig


def _pose(tile: Tile, x: float = 0.0) -> TilePose:
    return TilePose(np.array([[x, 0], [x + 60, 0], [x + 60, 30], [x, 30]], float), (tile.high, tile.low))


def _tile(tile: Tile, status: TileStatus = TileStatus.LEGAL, frame: int = 1, x: float = 0.0,
          missing: bool = False) -> BoardTile:
    return BoardTile(tile, _pose(tile, x), status, 0, None, None, frame, missing=missing)


def _board(*tiles: BoardTile) -> dict[Tile, BoardTile]:
    return {bt.tile: bt for bt in tiles}


def _obs(frame: int, read: int | None = None, seen=(), conflicts=None, covered=()) -> Observation:
    return Observation(frame, frame / 10, [], read=frame if read is None else read, seen=set(seen),
                       conflicts=dict(conflicts or {}), covered=set(covered))


SPINNER, PLAY, OTHER = Tile(6, 6), Tile(6, 3), Tile(5, 2)


def _detect(board, window, last_play=None, last_motion=5):
    return detect_changes(board, window, window_size=3, remove_window=4, last_play=last_play,
                          last_motion=last_motion)


def test_a_tile_laid_before_the_last_motion_and_read_nowhere_since_is_gone():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    window = [_obs(f, seen={SPINNER}) for f in range(10, 14)]
    changes = _detect(board, window)
    assert [bt.tile for bt in changes.gone] == [PLAY]
    assert changes.gone_at is window[0]


def test_a_tile_no_hand_came_near_since_it_was_laid_is_not_gone():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=8))
    window = [_obs(f, seen={SPINNER}) for f in range(10, 14)]
    assert _detect(board, window, last_motion=5).gone == ()


def test_one_reading_repeated_over_the_window_takes_no_tile_away():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    window = [_obs(f, read=1, seen={SPINNER}) for f in range(10, 14)]
    assert _detect(board, window).gone == ()


def test_nothing_is_gone_before_the_window_holds_a_removal_s_worth():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    window = [_obs(f, seen={SPINNER}) for f in range(10, 13)]
    changes = _detect(board, window)
    assert changes.gone == () and changes.gone_at is None and changes.replaced == ()


def test_a_place_read_as_another_tile_keeps_its_tile_on_the_board():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    window = [_obs(f, seen={SPINNER}, conflicts={PLAY: (OTHER, _pose(OTHER))}) for f in range(10, 14)]
    assert _detect(board, window).gone == ()


def test_a_reading_over_an_older_play_keeps_it_but_not_over_the_last_play():
    older = _tile(PLAY, frame=2)
    obs = _obs(10, covered={PLAY})
    assert still_there(older, obs, last_play=SPINNER, pictures=PictureConfig())
    assert not still_there(older, obs, last_play=PLAY, pictures=PictureConfig())
    flagged = _tile(PLAY, TileStatus.ILLEGAL, frame=2)
    assert not still_there(flagged, obs, last_play=SPINNER, pictures=PictureConfig())


def test_a_missing_tile_shown_by_all_but_one_recent_observation_is_back():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2, missing=True), _tile(OTHER, frame=3, missing=True, x=90))
    window = [_obs(10, seen={SPINNER, PLAY, OTHER}), _obs(11, seen={SPINNER}),
              _obs(12, seen={SPINNER, PLAY}), _obs(13, seen={SPINNER, PLAY, OTHER})]
    changes = _detect(board, window)
    assert changes.shown_again == (PLAY,)


def test_a_tile_on_the_board_shown_again_is_not_back():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    window = [_obs(f, seen={SPINNER, PLAY}) for f in range(10, 14)]
    assert _detect(board, window).shown_again == ()


def test_a_place_read_as_one_other_tile_in_every_observation_of_the_removal_window_is_replaced():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    poses = [_pose(OTHER, x=k) for k in range(4)]
    window = [_obs(10 + k, seen={SPINNER}, conflicts={PLAY: (OTHER, poses[k])}) for k in range(4)]
    replaced = dict(_detect(board, window).replaced)
    tile, pose, first = replaced[PLAY]
    assert tile == OTHER and pose is poses[-1] and first is window[0]


def test_a_place_read_otherwise_in_all_but_one_observation_is_replaced_only_for_a_flagged_tile():
    window = [_obs(10, seen={SPINNER, PLAY})] + \
             [_obs(f, seen={SPINNER}, conflicts={PLAY: (OTHER, _pose(OTHER))}) for f in range(11, 14)]
    legal = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    flagged = _board(_tile(SPINNER), _tile(PLAY, TileStatus.ILLEGAL, frame=2))
    assert _detect(legal, window).replaced == ()
    assert [old for old, _ in _detect(flagged, window).replaced] == [PLAY]


def test_a_place_read_otherwise_on_one_reading_repeated_is_not_replaced():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    window = [_obs(f, read=1, seen={SPINNER}, conflicts={PLAY: (OTHER, _pose(OTHER))}) for f in range(10, 14)]
    assert _detect(board, window).replaced == ()


def test_a_place_read_as_two_tiles_by_turns_is_not_replaced():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2))
    other = Tile(4, 1)
    window = [_obs(10 + k, seen={SPINNER}, conflicts={PLAY: ((OTHER if k % 2 else other), _pose(OTHER))})
              for k in range(4)]
    assert _detect(board, window).replaced == ()


def test_finding_changes_alters_neither_the_board_nor_the_observations():
    board = _board(_tile(SPINNER), _tile(PLAY, frame=2), _tile(OTHER, frame=3, missing=True, x=90))
    window = [_obs(10 + k, seen={SPINNER, OTHER}) for k in range(4)]
    before_board = [(t, bt.status, bt.missing, bt.frame) for t, bt in board.items()]
    before_obs = [(o.seen.copy(), dict(o.conflicts), o.covered.copy(), dict(o.unchanged)) for o in window]
    changes = _detect(board, window)
    assert changes != NO_CHANGES
    assert [(t, bt.status, bt.missing, bt.frame) for t, bt in board.items()] == before_board
    assert [(o.seen, o.conflicts, o.covered, o.unchanged) for o in window] == before_obs
