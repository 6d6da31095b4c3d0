"""`chickenfoot watch` end to end on a folder of rendered frames (the recognizer replaced by
ground truth, so this tests the command, not the model)."""
from __future__ import annotations

import argparse
import hashlib
import json

import cv2
import pytest

from engine import load_record
from lab.oracle import Noise, OracleDetector
from lab.synth.sequence import SequenceRenderer, plan_sequence, sequence_rng
from service.cli import UserError
from service.commands import watch
from vision.types import Recognition


def _parser():
    p = argparse.ArgumentParser(prog="chickenfoot")
    sub = p.add_subparsers(dest="command")
    watch.register(sub)
    return p


@pytest.fixture(scope="module")
def filmed(tmp_path_factory):
    plan = plan_sequence(sequence_rng(8, 1), (480, 272), 6, max_plays=4, round_index=0, illegal_chance=0.0)
    folder = tmp_path_factory.mktemp("frames")
    renderer = SequenceRenderer(plan)
    index = {}
    for f in plan.frames:
        img = renderer.frame(f.index)
        cv2.imwrite(str(folder / f"{f.index:05d}.png"), img)
        index[hashlib.sha1(img.tobytes()).hexdigest()] = f.index
    return plan, folder, index


@pytest.fixture
def fake_recognizer(monkeypatch, filmed):
    plan, _, index = filmed
    oracle = OracleDetector(plan, 0, Noise.none())

    class Fake:
        def __init__(self, model=None):
            pass

        def recognize_loaded(self, img, set_max=None, tile_px=None, level=False):
            i = index[hashlib.sha1(img.bgr.tobytes()).hexdigest()]
            tiles = oracle(plan.frames[i])
            return Recognition("frame", img.width, img.height, tiles, [], plan.set_max)

    import vision.recognize

    monkeypatch.setattr(vision.recognize, "Recognizer", Fake)


def test_watch_prints_plays_keeps_the_record_and_prints_the_score_sheet(filmed, fake_recognizer, tmp_path, capsys):
    plan, folder, _ = filmed
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps([{"totals": [0] + [5] * (plan.players - 1)}]))
    record = tmp_path / "game.json"
    events = tmp_path / "events.jsonl"
    annotated = tmp_path / "annotated"
    args = _parser().parse_args([
        "watch", str(folder), "--players", str(plan.players), "--set", "6", "--record", str(record),
        "--events-jsonl", str(events), "--annotate", str(annotated), "--scores", str(scores),
        "--spinner-player", str(plan.spinner_player), "--rules", "plain",
    ])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert out.count(" played ") == len(plan.plays()) == 4
    assert "rules: hand" in out and "total" in out
    data = json.loads(record.read_text())
    assert load_record(data).error is None
    assert data["scores"]["totals"] == [0] + [5] * (plan.players - 1)
    lines = [json.loads(x) for x in events.read_text().splitlines()]
    assert [x["kind"] for x in lines].count("tile_played") == 4 and lines[-1]["kind"] == "round_scored"
    assert len(list(annotated.glob("*.jpg"))) >= 4


def test_watch_refuses_a_missing_source_and_bad_options_in_one_line(tmp_path):
    p = _parser()
    for argv, words in [
        (["watch", str(tmp_path / "nope")], "no such file or folder"),
        (["watch", str(tmp_path), "--players", "9", "--set", "6"], "cannot deal"),
        (["watch", str(tmp_path), "--rules", "nonsense"], "unknown preset"),
        (["watch", str(tmp_path), "--players", "2", "--seats", "bottom"], "names 1 seats for 2 players"),
    ]:
        args = p.parse_args(argv)
        with pytest.raises(UserError) as err:
            args.func(args)
        assert words in str(err.value) and "\n" not in str(err.value)
