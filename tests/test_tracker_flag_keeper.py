"""The flag keeper and the play entry on their own: a flag is entered in the round's book and told
to the sinks, and stands until it is taken back or withdrawn; a play is entered, or flagged, as the
rules judge it. Built over a board model, a game book and a judge, with no tracker around them."""
from __future__ import annotations

import numpy as np

from engine import GameConfig, HouseRules, Tile
from vision.tracking.board import BoardTile, Observation, TileStatus
from vision.tracking.bookkeeping import GameBook
from vision.tracking.flags import FlagKeeper
from vision.tracking.geometry import TilePose
from vision.tracking.judging import Judge
from vision.tracking.table import TableModel
from vision.tracking.tuning import TrackerConfig


def _pose(x: float, y: float, pips: tuple[int, int]) -> TilePose:
    return TilePose(np.array([[x, y], [x + 40, y], [x + 40, y + 80], [x, y + 80]], float), pips)


def _keeper(sinks: list) -> FlagKeeper:
    config = GameConfig(2, 6, HouseRules())
    table, book, tuning = TableModel(), GameBook(config), TrackerConfig()
    book.begin_round(Tile(6, 6), 0)
    table.lay(BoardTile(Tile(6, 6), _pose(280, 260, (6, 6)), TileStatus.SPINNER, 0, None, None, 0))
    return FlagKeeper(table, book, Judge(table, book, tuning), sinks, config, tuning)


def test_a_raised_flag_is_entered_in_the_rounds_book_and_told_to_every_sink() -> None:
    told = []
    keeper = _keeper([lambda events, scene: told.append((events, scene.tile)) or "kept.jpg"])
    seen = Observation(5, 0.5, [])
    event = keeper.raise_flag(Tile(3, 2), _pose(100, 100, (3, 2)), 1, None, None, "not_on_layout", "apart", seen)
    assert not event.legal and event.evidence == "kept.jpg" and told == [([event], Tile(3, 2))]
    assert keeper.book.current is not None
    assert [(f["tile"], f["frame"], f["evidence"]) for f in keeper.book.current.illegal] == [("3-2", 5, "kept.jpg")]
    assert keeper.standing(Tile(3, 2)) is keeper.book.current.illegal[0]


def test_a_flag_taken_back_or_withdrawn_no_longer_stands() -> None:
    keeper = _keeper([])
    seen = Observation(5, 0.5, [])
    keeper.raise_flag(Tile(3, 2), _pose(100, 100, (3, 2)), 1, None, None, "not_on_layout", "apart", seen,
                      taken_back=9)
    keeper.raise_flag(Tile(4, 1), _pose(400, 100, (4, 1)), 1, None, None, "not_on_layout", "apart", seen)
    assert keeper.standing(Tile(3, 2)) is None and keeper.standing(Tile(4, 1)) is not None
    flag = keeper.standing(Tile(4, 1))
    assert flag is not None
    flag["withdrawn"] = True
    assert keeper.standing(Tile(4, 1)) is None


def test_a_new_tile_against_the_layout_that_the_rules_refuse_would_be_flagged() -> None:
    keeper = _keeper([])
    spinner = keeper.table.tiles[Tile(6, 6)].pose
    below = _pose(280, 340, (2, 3))  # end to end below the 6-6, its 2 against the spinner
    assert keeper.judge.candidates(below) and keeper.judge.candidates(below)[0][1].pose is spinner
    assert keeper.would_flag(Observation(5, 0.5, [below], new=[below]))
    legal = _pose(280, 340, (6, 3))
    assert not keeper.would_flag(Observation(5, 0.5, [legal], new=[legal]))


def test_a_play_the_rules_accept_is_entered_and_one_they_refuse_is_flagged() -> None:
    from vision.tracking.judging import PlayEntry

    keeper = _keeper([])
    plays = PlayEntry(keeper.table, keeper.book, keeper.judge, keeper)
    legal = _pose(280, 340, (6, 3))
    event = plays.enter(Tile(6, 3), legal, Observation(5, 0.5, [legal]), keeper.judge.candidates(legal))
    assert event.legal and keeper.table.tiles[Tile(6, 3)].status == TileStatus.LEGAL
    assert keeper.table.played_legally_this_round(Tile(6, 3))
    refused = _pose(280, 180, (2, 4))  # above the 6-6, its 2 against the spinner
    event = plays.enter(Tile(2, 4), refused, Observation(6, 0.6, [refused]), keeper.judge.candidates(refused))
    assert not event.legal and keeper.table.tiles[Tile(2, 4)].status == TileStatus.ILLEGAL
    assert keeper.standing(Tile(2, 4)) is not None
