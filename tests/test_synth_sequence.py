"""Rendered game sequences: ground truth that matches the pixels and the rules engine."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from engine import GameConfig, IllegalPlay, RoundState, Tile
from lab.synth.sequence import (ILLEGAL_KINDS, SequencePlan, SequenceRenderer, generate_sequences, load_sequence,
                                   plan_sequence, sequence_rng)


@pytest.fixture(scope="module")
def plans():
    return [plan_sequence(sequence_rng(3, i), (640, 360), (6, 9, 12)[i % 3]) for i in range(9)]


def test_the_same_seed_gives_the_same_round_and_film():
    a = plan_sequence(sequence_rng(1, 2), (640, 360), 9)
    b = plan_sequence(sequence_rng(1, 2), (640, 360), 9)
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())


def test_a_round_filmed_at_30_fps_is_the_same_round_three_times_as_finely():
    slow = plan_sequence(sequence_rng(1, 2), (640, 360), 9)
    fast = plan_sequence(sequence_rng(1, 2), (640, 360), 9, fps=30)
    assert fast.fps == 30 and len(fast.frames) == 3 * len(slow.frames)
    assert [(e.kind, e.tile) for e in fast.events] == [(e.kind, e.tile) for e in slow.events]
    # each event happens at the same moment, give or take one planned step
    for a, b in zip(slow.events, fast.events):
        assert abs(fast.frames[b.frame].t - slow.frames[a.frame].t) <= 0.1 + 1e-9
    # a hand moves through the frames between two planned positions instead of jumping
    steps = [f.hand.progress for f in fast.frames if f.hand is not None][:6]
    assert len(set(steps)) == 6
    assert SequencePlan.from_dict(json.loads(json.dumps(fast.to_dict()))).fps == 30


def test_a_rate_that_is_not_a_whole_multiple_of_the_planning_rate_is_refused():
    with pytest.raises(ValueError, match="whole multiple"):
        plan_sequence(sequence_rng(1, 2), (640, 360), 9, fps=25)


def test_truth_survives_a_round_trip_through_json(plans, tmp_path):
    plan = plans[0]
    back = SequencePlan.from_dict(json.loads(json.dumps(plan.to_dict())))
    assert back.to_dict() == json.loads(json.dumps(plan.to_dict()))
    assert np.allclose(back.image_corners(0, 0), plan.image_corners(0, 0), atol=1e-3)


def test_frames_show_exactly_the_tiles_the_events_put_on_the_table(plans):
    for plan in plans:
        on: list[int] = []
        by_frame: dict[int, list] = {}
        for e in plan.events:
            by_frame.setdefault(e.frame, []).append(e)
        for f in plan.frames:
            for e in by_frame.get(f.index, []):
                if e.kind in ("spinner", "play"):
                    on.append(e.tile_id)
                elif e.kind == "take_back":
                    on.remove(e.tile_id)
            assert f.tiles == on, (plan.meta, f.index)
            assert f.moving == (f.hand is not None or f.blur > 0)


def test_every_planted_play_breaks_the_rule_its_truth_names_and_legal_plays_replay(plans):
    planted = 0
    kinds = set()
    for plan in plans:
        config = GameConfig(plan.players, plan.set_max, plan.rules)
        # the true round replays through the engine from its record
        from engine import Deal

        rnd = plan.record
        state = RoundState(config, plan.round_index, Deal.from_dict(rnd["deal"]))
        for turn in rnd["turns"]:
            if turn.get("auto"):
                continue
            if turn["type"] == "play":
                state.play(Tile.parse(turn["tile"]), turn["end"], player=turn["player"])
            elif turn["type"] == "draw":
                state.draw(player=turn["player"], tile=Tile.parse(turn["tile"]))
            elif turn["type"] == "pass":
                state.pass_turn(player=turn["player"])
            else:
                state.announce(turn["player"])
        for e in plan.events:
            if e.planted:
                planted += 1
                kinds.add(e.planted)
                assert e.rule and not e.legal and e.planted in ILLEGAL_KINDS
                assert e.rule in {c.code for c in IllegalPlay.__subclasses__()}
    assert planted >= 5 and len(kinds) >= 3


def test_a_played_tile_appears_in_the_pixels_exactly_where_its_truth_says(plans):
    plan = plans[1]
    renderer = SequenceRenderer(plan)
    checked = 0
    for e in [e for e in plan.events if e.kind == "play"][:4]:
        before = e.frame - 1
        while plan.frames[before].hand is not None:
            before -= 1
        after = e.frame
        while plan.frames[after].hand is not None:
            after += 1
        fb, fa = plan.frames[before], plan.frames[after]
        if fb.camera != fa.camera or fa.tiles != fb.tiles + [e.tile_id]:
            continue
        a, b = (cv2.GaussianBlur(renderer.frame(k), (0, 0), 2) for k in (before, after))  # noise out
        diff = cv2.absdiff(a, b).max(2) > 10
        quad = plan.image_corners(e.tile_id, fa.camera)
        inside = np.zeros(diff.shape, np.uint8)
        cv2.fillConvexPoly(inside, (quad.mean(0) + (quad - quad.mean(0)) * 0.8).astype(np.int32), 1)
        assert diff[inside > 0].mean() > 0.5  # the tile's face is where the truth puts it
        grown = np.zeros(diff.shape, np.uint8)
        cv2.fillConvexPoly(grown, (quad.mean(0) + (quad - quad.mean(0)) * 1.6).astype(np.int32), 1)
        assert diff[grown == 0].mean() < 0.002  # and nothing changed elsewhere
        checked += 1
    assert checked >= 2


def test_generate_sequences_writes_frames_and_truth(tmp_path):
    stats = generate_sequences(tmp_path, 1, seed=4, size=(320, 240), set_max=6)
    assert set(stats) >= {"images", "seconds", "images_per_second"}
    folder = tmp_path / "seq_0000"
    plan = load_sequence(folder)
    assert stats["images"] == len(plan.frames) == len(list((folder / "frames").glob("*.jpg")))
    img = cv2.imread(str(folder / "frames" / "000000.jpg"))
    assert img.shape == (240, 320, 3)
    summary = json.loads((tmp_path / "sequences.json").read_text())
    assert summary["sequences"][0]["plays"] == len(plan.plays())
