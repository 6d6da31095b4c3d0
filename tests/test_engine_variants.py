"""Variants the published texts describe, one test per rule, each quoting its sentence."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine import (
    PRESETS,
    CannotUndo,
    ConfigError,
    Deal,
    DealError,
    GameConfig,
    HouseRules,
    MustPlay,
    RoundState,
    Tile,
    make_deal,
    max_players,
    random_game,
    random_round,
)
from engine.errors import ILLEGAL_PLAY_TYPES

T = Tile.parse


def start(hands: list[list[str]], top: list[str] = (), *, rules: HouseRules | None = None,  # type: ignore[assignment]
          set_max: int = 6, round_index: int = 0, used: frozenset[int] = frozenset(), **options: Any) -> RoundState:
    rules = rules or HouseRules(**options)
    config = GameConfig(len(hands), set_max, rules)
    deal = Deal.arrange(config, hands, list(top))
    if used:
        return RoundState(config, round_index, deal, used_doubles=used)
    return RoundState(config, round_index, deal)


def play(state: RoundState, tile: str, on: str) -> None:
    found = state.board.end_at(T(on))
    assert found is not None
    state.play(T(tile), found.id)


# 1 ---------------------------------------------------------------------------------------


def test_highest_unused_double_starts_the_next_round() -> None:
    """Encyclopedia: "the highest double drawn that has not yet been used to start a round
    starts the next round"; French: the scorer crosses out "le double qui a démarré la manche"."""
    s = start([["6-6", "5-5", "1-0"], ["3-3", "2-0"]], used=frozenset({6}), start_double="highest_unused")
    assert s.spinner is T("5-5") and s.spinner_player == 0
    assert s.round_double == 5 and s.opening_draws == []
    # Over a whole game every double starts exactly one round, and the sheet rows say which.
    game = random_game(GameConfig(3, 6, HouseRules(start_double="highest_unused")), random.Random(5))
    spinners = [r.spinner.high for r in game.results]
    assert sorted(spinners) == list(range(7))
    assert game.sheet.doubles == spinners


# 2 ---------------------------------------------------------------------------------------


def test_chickenlittle_penalty_fires_when_the_next_player_plays() -> None:
    """Montgomery: "if the next player manages to play a domino before 'Chickenlittle' is
    called ... he/she must draw a domino"."""
    hands = [["6-6", "6-1", "6-2"], ["6-3", "5-5", "5-4", "4-4"]]
    s = start(hands, ["2-0", "6-0", "3-0"], chickenlittle=True)
    play(s, "6-3", "6-6")
    play(s, "6-1", "6-6")  # player 0 is down to one tile and says nothing
    s.draw()  # player 1 holds no 6: draws 2-0, which does not fit either
    s.pass_turn()
    assert s.unannounced == (0,) and len(s.hand(0)) == 1  # drawing and passing cost nothing
    s.announce(0)  # still in time: the next player has not played
    assert ("announce", 0) in s.history
    # Forgetting again: the penalty falls when the next player lays a tile (here the one it drew).
    s = start(hands, ["6-0", "2-0", "3-0"], chickenlittle=True)
    play(s, "6-3", "6-6")
    play(s, "6-1", "6-6")
    s.draw()
    assert s.unannounced == (0,)
    play(s, "6-0", "6-6")
    assert ("penalty", 0, T("2-0")) in s.history and s.hand(0) == (T("6-2"), T("2-0"))


# 3 ---------------------------------------------------------------------------------------


def test_must_play_drawn_tile_that_fits() -> None:
    """French: "il doit tirer un domino de la pile et jouer si possible ou faire Passe"."""
    assert PRESETS["escale"].must_play_drawn
    s = start([["6-6", "1-0"], ["2-0", "3-0"]], ["6-4"], must_play_drawn=True)
    assert s.draw() is T("6-4")
    assert not s.can_pass()
    with pytest.raises(MustPlay, match="6-4"):
        s.pass_turn()
    play(s, "6-4", "6-6")
    # A drawn tile that does not fit is still passed on.
    s = start([["6-6", "1-0"], ["2-0", "3-0"]], ["5-4"], must_play_drawn=True)
    s.draw()
    assert s.can_pass()
    s.pass_turn()


# 4 ---------------------------------------------------------------------------------------


def test_everyone_draws_for_the_double_and_the_highest_drawn_starts() -> None:
    """Montgomery: "Every player must draw one domino. This process repeats until someone draws
    the double", and "if multiple players draw doubles at the same time, the highest double is played"."""
    assert PRESETS["montgomery"].double_draw == "everyone"
    s = start([["1-0"], ["2-0"], ["3-0"]], ["3-3", "5-5", "4-1"],
              start_double="highest_available", double_draw="everyone")
    assert s.spinner is T("5-5") and s.spinner_player == 1
    assert s.opening_draws == [(0, T("3-3")), (1, T("5-5")), (2, T("4-1"))]
    assert T("3-3") in s.hand(0) and T("4-1") in s.hand(2)  # everyone keeps what they drew
    assert s.turn == 2
    # With the required double, the whole pass is drawn even after it shows up.
    s = start([["1-0"], ["2-0"], ["3-0"]], ["5-4", "6-6", "4-1"], double_draw="everyone")
    assert s.spinner is T("6-6") and s.spinner_player == 1 and T("4-1") in s.hand(2)


# 5 ---------------------------------------------------------------------------------------


def test_escale_first_round_highest_double_when_nobody_holds_double_six() -> None:
    """French: "Si aucun joueur n'a de double-6, alors le joueur avec le plus grand double joue"."""
    escale = PRESETS["escale"]
    s = start([["4-4", "1-0", "2-1", "3-1", "4-1"], ["2-2", "3-0", "4-0", "5-0", "5-1"]], ["6-6"], rules=escale)
    assert s.spinner is T("4-4") and s.spinner_player == 0
    assert s.opening_draws == [] and s.boneyard[0] is T("6-6")


# 6 ---------------------------------------------------------------------------------------


def test_first_round_draw_tiles_go_back_among_the_others() -> None:
    """Encyclopedia: "everyone returns their drawn domino to the boneyard"."""
    config = GameConfig(3, 6, HouseRules(first_round_draw=True))
    on_top = 0
    for seed in range(20):
        deal = make_deal(config, random.Random(seed), 0)
        assert deal.start_draw is not None and len(set(deal.start_draw)) == 3
        assert set(deal.start_draw) <= set(deal.boneyard)
        on_top += deal.boneyard[:3] == deal.start_draw
        assert make_deal(config, random.Random(seed), 1).start_draw is None  # first round only
    assert on_top < 20
    # An arranged deal that does not say what was drawn: the top tiles, mixed back in.
    deal = Deal.arrange(config, [["6-6"], ["1-0"], ["2-0"]], ["5-4", "3-3", "2-1"])
    s = RoundState(config, 0, deal, rng=random.Random(3))
    assert s.start_draw == (T("5-4"), T("3-3"), T("2-1"))
    assert sorted(s.boneyard) == sorted(deal.boneyard)
    assert s.deal.start_draw == s.start_draw and s.deal.boneyard == s.boneyard  # replays exactly
    # Impossible draws are refused.
    with pytest.raises(DealError, match="5-4 twice"):
        Deal.arrange(config, [["6-6"], ["1-0"], ["2-0"]], start_draw=["5-4", "5-4", "3-3"])
    with pytest.raises(DealError, match="first-round draw needs one tile for each of 3 players"):
        GameConfig(3, 6, HouseRules(hand_size=9, first_round_draw=True))


# 7 ---------------------------------------------------------------------------------------


def test_undo_takes_back_the_last_action_until_the_next_player_acts() -> None:
    """Montgomery: "The domino just played may be picked up and replaced with another only if
    the next person has not laid down a domino"."""
    s = start([["6-6", "6-1", "6-2"], ["6-3", "6-4", "5-5"]], ["2-0"])
    before = (s.hands, len(s.board), s.turn, s.history, s.boneyard)
    play(s, "6-3", "6-6")
    assert s.undo()[0] == "play"
    assert (s.hands, len(s.board), s.turn, s.history, s.boneyard) == before
    play(s, "6-4", "6-6")  # replaced with another
    play(s, "6-1", "6-6")  # the next player acts
    s.undo()  # player 0 takes its own play back
    assert s.turn == 0 and T("6-1") in s.hand(0)
    with pytest.raises(CannotUndo) as info:
        s.undo()  # player 1's play: player 0 has acted since
    assert info.value.code == "cannot_undo" and ILLEGAL_PLAY_TYPES["cannot_undo"] is CannotUndo
    assert len(s.board) == 2
    with pytest.raises(CannotUndo, match="nothing"):
        start([["6-6", "6-1"], ["6-3", "6-4"]]).undo()


# 8 ---------------------------------------------------------------------------------------


def test_more_than_ten_players_on_a_double_twelve_set() -> None:
    """French: "Un ensemble double-douze est excellent pour plus de 10 joueurs, chacun ayant 7 dominos"."""
    assert GameConfig(11, 12).hand_size == 7
    assert max_players(12) == 12  # 12 * 7 = 84 of 91 tiles, a boneyard left
    state = random_round(12, 12, random.Random(2))
    assert state.is_over()
    with pytest.raises(ConfigError, match="boneyard"):
        GameConfig(13, 12)
