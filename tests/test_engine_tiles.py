import copy
import pickle

import pytest

from engine import SUPPORTED_SETS, Tile, doubles, full_set, set_pip_total, tile_count


@pytest.mark.parametrize("set_max, count", [(6, 28), (9, 55), (12, 91), (15, 136), (18, 190)])
def test_sets_double_6_to_18_hold_every_pair_once(set_max: int, count: int) -> None:
    tiles = full_set(set_max)
    assert len(tiles) == count == tile_count(set_max)
    assert len(set(tiles)) == count
    assert all(t.high <= set_max for t in tiles)


@pytest.mark.parametrize("set_max, total", [(6, 168), (9, 495), (12, 1092), (15, 2040), (18, 3420)])
def test_full_set_pip_totals(set_max: int, total: int) -> None:
    assert sum(t.pips for t in full_set(set_max)) == total == set_pip_total(set_max)


def test_supported_sets_are_the_common_ones() -> None:
    assert SUPPORTED_SETS == (6, 9, 12, 15, 18)


def test_unsupported_set_refused() -> None:
    with pytest.raises(ValueError, match="double-7"):
        full_set(7)


def test_tiles_are_unordered_pairs() -> None:
    assert Tile(6, 4) == Tile(4, 6)
    assert Tile(6, 4) is Tile(4, 6)
    assert hash(Tile(6, 4)) == hash(Tile(4, 6))
    assert (Tile(6, 4).high, Tile(6, 4).low) == (6, 4)
    assert str(Tile(4, 6)) == "6-4"
    assert len({Tile(1, 2), Tile(2, 1)}) == 1


def test_tile_values_and_doubles() -> None:
    t = Tile(5, 2)
    assert t.pips == 7 and not t.is_double
    assert t.other(5) == 2 and t.other(2) == 5
    assert t.has(5) and not t.has(3)
    assert Tile(3, 3).is_double
    with pytest.raises(ValueError):
        t.other(4)


def test_tiles_stay_interned_through_copy_and_pickle() -> None:
    t = Tile(9, 3)
    assert copy.copy(t) is t
    assert copy.deepcopy(t) is t
    assert pickle.loads(pickle.dumps(t)) is t


def test_tiles_are_immutable() -> None:
    with pytest.raises(AttributeError):
        Tile(1, 0).high = 5  # type: ignore[misc]


@pytest.mark.parametrize("text", ["6-4", "4-6", "6|4", "6:4", " 6-4 ", [6, 4], (4, 6)])
def test_tile_parse_accepts_common_spellings(text: object) -> None:
    assert Tile.parse(text) is Tile(6, 4)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["64", "a-b", "", [1, 2, 3]])
def test_tile_parse_refuses_garbage(text: object) -> None:
    with pytest.raises(ValueError):
        Tile.parse(text)  # type: ignore[arg-type]


def test_tile_values_out_of_range_refused() -> None:
    with pytest.raises(ValueError):
        Tile(19, 0)
    with pytest.raises(ValueError):
        Tile(-1, 0)


def test_doubles_run_from_highest_to_double_blank() -> None:
    assert doubles(6) == [Tile(v, v) for v in (6, 5, 4, 3, 2, 1, 0)]


def test_tiles_sort_by_high_then_low() -> None:
    assert sorted([Tile(2, 1), Tile(3, 0), Tile(2, 2)]) == [Tile(2, 1), Tile(2, 2), Tile(3, 0)]
