"""Why a round is blocked: the proof from open ends and the tiles of each value."""
from __future__ import annotations

import random

from engine import Board, GameConfig, HouseRules, RoundState, Tile
from engine import full_set
from engine.blocked import EndFact, explain_audit, explain_block, explain_board, explain_round
from engine.simulate import play_out, random_step

T = Tile.parse


def lay(board: Board, tile: str, on: str, slot: int | None = None) -> None:
    end = board.end_at(T(on), slot)
    assert end is not None, f"no open end on {on}"
    board.place(T(tile), end)


def chickie_board(with_five_one: bool = True) -> Board:
    """Double-6: the spinner's four arms, then lines that use up the 5s, and a chickie on 5-5
    with one toe."""
    b = Board(6)
    b.place_spinner(T("6-6"))
    for arm in ("6-5", "6-4", "6-3", "6-2"):
        lay(b, arm, "6-6")
    lay(b, "5-2", "6-2")   # open 5
    lay(b, "5-0", "5-2")   # open 0
    if with_five_one:
        lay(b, "5-1", "6-5")  # open 1
    lay(b, "5-3", "6-3")   # open 5
    lay(b, "5-5", "5-3")   # the chickie
    lay(b, "5-4", "5-5")   # its first toe
    return b


def test_a_chickie_with_every_tile_of_its_value_on_the_table_blocks_the_round() -> None:
    proof = explain_board(chickie_board(), set_max=6)
    assert proof.blocked and proof.cause == "dead_chickie"
    assert proof.waiting_on == T("5-5")
    dead = proof.dead[0]
    assert (dead.tile, dead.kind, dead.missing, dead.possible) == (T("5-5"), "chickie", 2, 0)
    fives = next(v for v in proof.values if v.value == 5)
    assert (fives.in_set, fives.on_table, fives.in_hands) == (7, 7, 0)
    assert "every 5 is accounted for" in proof.reason
    # the other ends could take tiles, but must wait for the chickie
    assert any(not e.playable_now and e.value == 4 for e in proof.ends)
    assert next(v for v in proof.values if v.value == 4).in_hands > 0


def test_a_chickie_that_cannot_be_finished_does_not_block_while_a_tile_of_its_value_is_left() -> None:
    proof = explain_board(chickie_board(with_five_one=False), set_max=6)
    assert not proof.blocked and proof.cause is None
    assert proof.playable == [T("5-1")]
    assert "5-1" in proof.reason
    assert [(d.tile, d.missing, d.possible) for d in proof.dead] == [(T("5-5"), 2, 1)]


def test_the_round_is_blocked_when_every_value_the_open_ends_take_is_used_up() -> None:
    # a table (as a picture may show it) whose two open ends take a 2 and a 4, with every 2 and 4
    # already down; 0s are still out, but no end takes one
    twos_and_fours = [t for t in full_set(6) if t.has(2) or t.has(4)]
    ends = [EndFact(T("6-2"), 2, 1, "tile", True), EndFact(T("0-4"), 4, 1, "tile", True)]
    proof = explain_block(6, [T("6-6"), *twos_and_fours], ends, basis="photo")
    assert proof.blocked and proof.cause == "values_exhausted" and proof.dead == []
    assert [(v.value, v.in_set, v.on_table, v.in_hands) for v in proof.values] == [(2, 7, 7, 0), (4, 7, 7, 0)]
    assert proof.reason == "every value the open ends take is used up: 2s (7 of 7 on the table), 4s (7 of 7 on the table)"


def test_one_tile_of_an_open_value_left_out_means_not_blocked() -> None:
    table = [t for t in full_set(6) if (t.has(2) or t.has(4)) and t != T("4-1")]
    ends = [EndFact(T("6-2"), 2, 1, "tile", True), EndFact(T("0-4"), 4, 1, "tile", True)]
    proof = explain_block(6, table, ends, basis="tracked")
    assert not proof.blocked and proof.playable == [T("4-1")]


def test_the_proof_agrees_with_the_engine_on_every_round_and_every_turn() -> None:
    rng = random.Random(7)
    stalled = 0
    for k in range(60):
        config = GameConfig(4, 6, HouseRules(hand_size=6))
        state = RoundState.random(config, k % 7, rng)
        while not state.is_over():
            proof = explain_round(state)
            if proof.blocked:  # no hand holds a tile that fits, now or after drawing
                assert not any(state.can_play(p) for p in range(state.players)), proof.reason
            elif state.boneyard_count == 0:
                # nothing left to draw: a tile that fits is in some hand
                assert set(proof.playable) <= {t for h in state.hands for t in h}
            random_step(state, rng.random)
        if state.stalemate:
            stalled += 1
            proof = explain_round(state)
            assert proof.blocked, proof.reason
            assert proof.boneyard == 0 and proof.playable == []
            for v in proof.values:
                if any(e.value == v.value and e.playable_now for e in proof.ends):
                    assert v.on_table == v.in_set
    assert stalled > 5  # the sample holds blocked rounds to check


def test_a_round_that_must_block_is_proved_blocked_before_the_boneyard_runs_out() -> None:
    b = chickie_board()
    proof = explain_board(b, set_max=6, boneyard=3)
    assert proof.blocked and "cannot change that" in proof.reason


def test_a_photo_proof_holds_as_far_as_the_picture_shows() -> None:
    audit = {
        "tiles": [{"id": 0, "pips": [6, 6]}, {"id": 1, "pips": [6, 5]}, {"id": 2, "pips": None},
                  {"id": 3, "pips": [5, 0]}],
        "layout": {"spinner": 0, "edges": [{"from": 1, "from_pips": 6, "to": 0, "to_pips": 6},
                                           {"from": 2, "from_pips": 6, "to": 0, "to_pips": 6}],
                   "chickies": [], "arms": [1, 2]},
        "open_ends": [{"tile": 0, "value": 6, "free": 2, "playable_now": True},
                      {"tile": 1, "value": 5, "free": 1, "playable_now": False}],
        "loose_tiles": [3],
    }
    proof = explain_audit(audit, set_max=6)
    d = proof.to_dict()
    assert d["basis"] == "photo" and d["basis_words"] == "as far as the picture shows"
    assert proof.unread == 1 and not proof.blocked
    assert proof.waiting_on == T("6-6")
    sixes = next(v for v in proof.values if v.value == 6)
    assert (sixes.in_set, sixes.on_table) == (7, 2)
    # a loose tile might be anyone's: it is not counted as out of play
    fives = next(v for v in proof.values if v.value == 5)
    assert T("5-0") in fives.possible


def test_the_proof_reads_as_lines_for_the_terminal() -> None:
    text = "\n".join(explain_board(chickie_board(), set_max=6).lines())
    assert text.startswith("BLOCKED: the chickie on 5-5 needs two more toes")
    assert "value  in set  on table  could be in hands" in text
    assert "used up" in text and "dead chickie" in text
