"""The live-game tracker: plays found and judged by the engine, take-backs, a knocked camera,
bad frames, dropped streams, scores and the game record.

Most tests drive the tracker with detections derived from a rendered sequence's ground
truth (`lab.oracle`), so they test the tracker's logic, not the recognizer.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from engine import GameConfig, HouseRules, Tile, full_set, load_record
from lab.oracle import Noise, OracleDetector, TruthGate
from lab.synth.sequence import SeqFrame, plan_sequence, sequence_rng
from lab.tracking_eval import Tally, make_tracker, run_oracle
from vision.tracking import FrameRejected, StreamLost, StreamResumed, TilePlayed, TileTakenBack, Tracker
from vision.types import TileDetection


def _plan(index: int, set_max: int = 6, **kw):
    return plan_sequence(sequence_rng(11, index), (1280, 720), set_max, **kw)


@pytest.fixture(scope="module")
def noisy_runs():
    """Six rounds (double-6 and double-9) tracked through simulated recognizer noise."""
    runs = []
    for i in range(6):
        plan = _plan(i, (6, 9)[i % 2])
        plan.meta["name"] = f"t{i}"
        runs.append(run_oracle(plan, seed=i))
    return runs


def test_every_play_is_found_and_attached_to_the_right_tile_through_noise_and_hands(noisy_runs):
    tally = Tally()
    for run in noisy_runs:
        tally.add(run)
    s = tally.summary()
    assert s["true_plays"] > 100
    assert s["play_precision"] >= 0.99 and s["play_recall"] >= 0.99, tally.examples()
    assert s["attachment_correct"] >= 0.99, tally.examples()["wrong_attachment"]


def test_planted_illegal_plays_are_flagged_with_the_engines_rule_and_legal_ones_are_not(noisy_runs):
    tally = Tally()
    for run in noisy_runs:
        tally.add(run)
    s = tally.summary()
    assert s["planted_illegal"] >= 5
    assert s["planted_flagged"] == 1.0, tally.examples()["planted_not_flagged"]
    assert s["planted_rule_named_right"] == 1.0
    assert s["false_flags"] == 0, tally.examples()["false_flags"]


def test_take_backs_are_reported_as_take_backs(noisy_runs):
    tally = Tally()
    for run in noisy_runs:
        tally.add(run)
    s = tally.summary()
    assert tally.true_take_backs > 0
    assert s["take_back_recall"] == 1.0 and s["take_back_precision"] == 1.0
    assert s["board_disturbed_events"] == 0


def test_the_motion_gate_keeps_the_recognizer_off_most_frames(noisy_runs):
    frames = sum(r.frames for r in noisy_runs)
    reads = sum(r.frames_read for r in noisy_runs)
    assert reads < 0.45 * frames


def test_plays_are_credited_to_the_seat_the_hand_came_from_even_after_unseen_passes(noisy_runs):
    tally = Tally()
    for run in noisy_runs:
        tally.add(run)
    assert tally.summary()["player_credited_right"] >= 0.95


def test_illegal_play_event_carries_rule_message_and_evidence_frame(tmp_path):
    plan = next(p for p in (_plan(i) for i in range(40)) if any(e.planted for e in p.events))
    ev_truth = next(e for e in plan.events if e.planted)
    tracker = make_tracker(plan, OracleDetector(plan, 0, Noise.none()), TruthGate(plan, 0, Noise.none()))
    events = [e for f in plan.frames for e in tracker.push(f, f.t)]
    flagged = [e for e in events if isinstance(e, TilePlayed) and not e.legal]
    assert flagged and flagged[0].tile == ev_truth.tile and flagged[0].rule == ev_truth.rule
    assert flagged[0].message and ev_truth.frame <= flagged[0].frame < ev_truth.frame + 40
    taken = [e for e in events if isinstance(e, TileTakenBack) and e.tile == ev_truth.tile]
    assert taken and taken[0].was_legal is False


def _det(corners, pips) -> TileDetection:
    d = TileDetection(0, np.asarray(corners, np.float32), 0.9)
    d.pips = pips
    return d


def _tile_at(cx, cy, pips, vertical=True, w=40.0):
    L = 2 * w
    if vertical:
        c = [[cx - w / 2, cy - L / 2], [cx + w / 2, cy - L / 2], [cx + w / 2, cy + L / 2], [cx - w / 2, cy + L / 2]]
    else:
        c = [[cx - L / 2, cy + w / 2], [cx - L / 2, cy - w / 2], [cx + L / 2, cy - w / 2], [cx + L / 2, cy + w / 2]]
    return _det(c, pips)


def _three():
    """A spinner 6-6 standing upright, a 6-2 above it (its 6 end down against the spinner)
    and a 6-1 lying to its right (6 end against the spinner's long side)."""
    spinner = _tile_at(300, 300, (6, 6))
    arm = _det(np.roll(_tile_at(300, 220, (6, 2)).corners, 2, axis=0), (6, 2))
    second = _det([[320, 280], [320, 320], [400, 320], [400, 280]], (6, 1))
    return spinner, arm, second


class _Still:
    """A gate for hand-made detection sequences: still, except for one moving frame (a hand)
    at the start of each scene `_feed` is given."""

    moving = False

    def update(self, frame):
        from vision.tracking.motion import MotionReading

        return MotionReading(self.moving, True, float(self.moving), 1.0)

    def set_reference(self):
        pass


class _CloserReader:
    """A reader that misses some tiles in the whole frame but finds `closer` ones on a closer
    look (the real recognizer on a small crop), within the reach it is asked about."""

    def __init__(self, dets, closer) -> None:
        self.dets, self.closer, self.looks = list(dets), list(closer), []

    def __call__(self, _frame):
        return list(self.dets)

    def look_closer(self, _frame, centre, reach):
        self.looks.append((tuple(centre), reach))
        return [d for d in self.closer if np.hypot(*(np.mean(d.corners, 0) - centre)) < reach]


def _feed(tracker, scenes, repeat=5, pictures=False, texture=False, closer=None):
    """Each scene's detections for `repeat` still frames after a moving one; with `pictures`,
    a scene is (detections the reader gives, tiles drawn in the frame, or the frame itself) and
    real frames go in;
    with `closer`, the reader finds those tiles too when it looks closer (`_CloserReader`)."""
    out = []
    t = 0.0
    for scene in scenes:
        if not pictures:
            dets, frame = scene, object()
        else:
            dets, frame = scene[0], scene[1] if isinstance(scene[1], np.ndarray) else _picture(scene[1], texture=texture)
        reader = _CloserReader(dets, closer) if closer is not None else (lambda _f, d=dets: list(d))
        for k in range(repeat + 1):
            tracker.gate.moving = k == 0 and isinstance(tracker.gate, _Still)
            tracker.detector = reader
            out.extend(tracker.push(frame, t))
            t += 0.1
    return out


def test_a_knocked_camera_re_registers_the_board_instead_of_seeing_new_tiles():
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second = _three()
    scenes = [[spinner], [spinner, arm], [spinner, arm, second]]
    events = _feed(tracker, scenes)
    plays = [e for e in events if isinstance(e, TilePlayed)]
    assert [(p.tile, p.on, p.legal) for p in plays] == [("6-2", "6-6", True), ("6-1", "6-6", True)]
    shift = np.array([37.0, -22.0])
    moved = [[_det(d.corners + shift, d.pips) for d in scenes[-1]]]
    events = _feed(tracker, moved, repeat=6)
    kinds = [e.kind for e in events]
    assert "camera_moved" in kinds and "tile_played" not in kinds and "board_disturbed" not in kinds


def test_a_tile_missing_from_the_middle_of_the_layout_is_a_disturbed_board_not_a_take_back():
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second = _three()
    _feed(tracker, [[spinner], [spinner, arm], [spinner, arm, second]])
    events = _feed(tracker, [[spinner, second]], repeat=6)
    assert [e.kind for e in events] == ["board_disturbed"]
    assert events[0].missing == ["6-2"]
    events = _feed(tracker, [[spinner, arm, second]], repeat=4)
    assert [e.kind for e in events] == ["board_disturbed"] and events[0].returned == ["6-2"]
    events = _feed(tracker, [[spinner, arm]], repeat=6)
    assert [e.kind for e in events] == ["tile_taken_back"] and events[0].tile == "6-1"
    assert tracker.state.plays == 1


def test_a_frame_of_the_wrong_size_is_refused_with_one_line_and_tracking_goes_on():
    cfg = GameConfig(2, 6, HouseRules())
    reads = []
    tracker = Tracker(cfg, detector=lambda f: reads.append(f.shape) or [])
    ok = np.zeros((360, 640, 3), np.uint8)
    assert tracker.push(ok, 0.0) == []
    bad = tracker.push(np.zeros((480, 480, 3), np.uint8), 0.1)
    assert len(bad) == 1 and isinstance(bad[0], FrameRejected)
    assert "480x480" in bad[0].reason and "640x360" in bad[0].reason and "\n" not in bad[0].reason
    for junk in (None, np.zeros((0, 0, 3), np.uint8), np.zeros((360, 640, 3), np.float32)):
        assert isinstance(tracker.push(junk, 0.2)[0], FrameRejected)
    # the same picture at twice the size is scaled down, and a grey frame is accepted
    assert tracker.push(np.zeros((720, 1280, 3), np.uint8), 0.3) == []
    assert tracker.push(np.zeros((360, 640), np.uint8), 0.4) == []
    assert all(s == (360, 640, 3) for s in reads)


def test_a_dropped_stream_is_reported_and_tracking_resumes_with_the_game_kept():
    plan = _plan(3, max_plays=6)
    tracker = make_tracker(plan, OracleDetector(plan, 1, Noise.none()), TruthGate(plan, 1, Noise.none()))
    half = len(plan.frames) // 2
    events = [e for f in plan.frames[:half] for e in tracker.push(f, f.t)]
    plays_before = tracker.state.plays
    lost = tracker.stream_lost("camera unplugged")
    assert isinstance(lost[0], StreamLost) and "camera unplugged" in lost[0].describe()
    rest = [e for f in plan.frames[half:] for e in tracker.push(f, f.t)]
    assert isinstance(rest[0], StreamResumed)
    assert tracker.state.plays >= plays_before
    assert sum(isinstance(e, TilePlayed) for e in events + rest) == len(plan.plays())


def test_round_scores_from_typed_totals_go_on_the_sheet_with_the_house_rules():
    cfg = GameConfig(3, 9, HouseRules(curved_scoring=True, double_blank_value=50))
    tracker = Tracker(cfg, round_index=0)
    ev = tracker.end_round(hand_totals=[12, 30, 7])
    assert ev.scores == [5, 23, 0] and ev.raw == [12, 30, 7]  # nobody out: curved
    assert "curved scoring" in ev.rules and "double-blank 50" in ev.rules
    ev = tracker.end_round(hands=[[], ["0-0"], ["6-5", "1-0"]])
    assert ev.round_double == 8 and ev.scores == [0, 50, 12]
    assert tracker.sheet.totals() == [5, 73, 12]
    with pytest.raises(ValueError):
        tracker.end_round(hand_totals=[1, 2])
    with pytest.raises(ValueError):
        tracker.end_round(hand_totals=[1, -2, 3])


def _final_plays(plan) -> list[str]:
    """The legal plays left standing at the end (take-backs undone), in order."""
    out: list[str] = []
    for e in plan.events:
        if e.kind == "play" and e.legal:
            out.append(e.tile)
        elif e.kind == "take_back" and out and out[-1] == e.tile:
            out.pop()
    return out


def test_the_game_record_replays_through_the_engine_with_plays_and_scores():
    plan = _plan(5, max_plays=12, round_index=0)
    tracker = make_tracker(plan, OracleDetector(plan, 2), TruthGate(plan, 2))
    for f in plan.frames:
        tracker.push(f, f.t)
    record = json.loads(json.dumps(tracker.record()))
    assert record["format"] == "chickenfoot-game" and record["house_rules"] == plan.rules.to_dict()
    replay = load_record(record)
    assert replay.error is None, replay.error
    turns = [t["tile"] for t in record["rounds"][0]["turns"] if t["type"] == "play"]
    assert turns == _final_plays(plan)
    tracker.end_round(hand_totals=[3] * plan.players)
    assert tracker.record()["scores"]["totals"] == [3] * plan.players


def test_events_are_plain_json_and_the_state_names_the_open_ends():
    plan = _plan(6, max_plays=8)
    tracker = make_tracker(plan, OracleDetector(plan, 3), TruthGate(plan, 3))
    events = [e for f in plan.frames for e in tracker.push(f, f.t)]
    for e in events:
        d = json.loads(json.dumps(e.to_dict()))
        assert d["kind"] == e.kind and isinstance(d["frame"], int) and e.describe()
    state = json.loads(json.dumps(tracker.state.to_dict()))
    assert state["spinner"] and state["turn"] is not None and state["open_ends"]
    assert {t["tile"] for t in state["tiles"]} >= {e.tile for e in plan.plays()[-1:]}


def test_seat_directions_turn_a_hand_from_a_later_seat_into_passes():
    cfg = GameConfig(4, 6, HouseRules(hand_size=5))
    seats = [math.pi / 2, math.pi, -math.pi / 2, 0.0]  # bottom, left, top, right
    gate_readings = []

    class Gate(_Still):
        def update(self, frame):
            from vision.tracking.motion import MotionReading

            return gate_readings.pop(0) if gate_readings else MotionReading(False, True, 0.0, 1.0)

    tracker = Tracker(cfg, gate=Gate(), spinner_player=3, seats=seats)  # player 0 plays first
    spinner, arm, _ = _three()
    _feed(tracker, [[spinner]])
    from vision.tracking.motion import MotionReading

    # a hand comes in from the top of the picture (seat 2): seats 0 and 1 drew and passed
    gate_readings.extend([MotionReading(True, True, 0.1, 0.1, (0.5, 0.0))] * 3)
    tracker.size = (640, 480)
    events = _feed(tracker, [[spinner, arm]], repeat=8)
    play = next(e for e in events if isinstance(e, TilePlayed))
    assert play.player == 2 and play.legal
    assert tracker.state.turn == 3


def test_tiles_and_board_use_engine_tiles():
    assert Tile(6, 2) == Tile.parse("2-6")


def test_an_illegal_play_seen_in_real_frames_is_saved_as_evidence(tmp_path):
    from lab.synth.sequence import SequenceRenderer

    plan = next(p for p in (_plan(20 + i, max_plays=3, illegal_chance=1.0) for i in range(10))
                if any(e.planted for e in p.events))
    renderer = SequenceRenderer(plan)
    detector = OracleDetector(plan, 0, Noise.none())
    tracker = make_tracker(plan, lambda img: detector(plan.frames[tracker.frames - 1]), None, str(tmp_path / "ev"))
    events = [e for f in plan.frames for e in tracker.push(renderer.frame(f.index), f.t)]
    flagged = [e for e in events if isinstance(e, TilePlayed) and not e.legal]
    assert flagged and flagged[0].evidence
    import cv2

    img = cv2.imread(flagged[0].evidence)
    assert img is not None and img.shape == (720, 1280, 3)


def test_the_live_service_adapter_answers_each_frame_with_an_overlay_then_events():
    from types import SimpleNamespace

    from lab.synth.sequence import SequenceRenderer
    from vision.imageio import LoadedImage
    from vision.tracking.live import LiveTracker
    from vision.types import Recognition

    plan = _plan(30, max_plays=2)
    renderer = SequenceRenderer(plan)
    oracle = OracleDetector(plan, 0, Noise.none())
    current = {}

    class Rec:
        def recognize_loaded(self, img, set_max=None, tile_px=None, level=False):
            return Recognition("f", img.width, img.height, oracle(plan.frames[current["i"]]), [], plan.set_max)

    live = LiveTracker(SimpleNamespace(set_max=plan.set_max, rules=plan.rules, players=plan.players,
                                       model_dir=None, round_double=plan.set_max - plan.round_index,
                                       spinner_player=plan.spinner_player), recognizer=Rec())
    kinds = []
    for f in plan.frames:
        current["i"] = f.index
        img = renderer.frame(f.index)
        out = live.feed(LoadedImage(img, 1.0, img.shape[1], img.shape[0], "cam"))
        assert out[0]["type"] == "overlay" and out[0]["width"] == 1280
        json.dumps(out)
        kinds += [m["event"] for m in out[1:]]
    live.close()
    # an illegal play goes out as a `violation` event (the protocol's name for it)
    assert kinds.count("tile_played") + kinds.count("violation") == len(plan.plays()) and "round_started" in kinds
    assert kinds[0] == "tracking_started"


def test_a_stream_that_changes_resolution_for_good_is_followed_at_the_new_size():
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, detector=lambda f: [])
    tracker.push(np.zeros((360, 640, 3), np.uint8), 0.0)
    square = np.zeros((480, 480, 3), np.uint8)
    rejected = [tracker.push(square, 0.1 * i) for i in range(40)]
    assert isinstance(rejected[0][0], FrameRejected)
    assert rejected[-1] == [] and tracker.state.size == (480, 480)


class _Counting:
    """A detector that counts its runs (the recognizer's cost)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.runs = 0

    def __call__(self, frame):
        self.runs += 1
        return self.inner(frame)


def test_still_frames_no_different_from_the_last_one_read_reuse_its_reading():
    """On rendered frames with the real motion gate, a still picture is read once, not on
    every frame of the decision window, and the plays come out the same."""
    from lab.synth.sequence import SequenceRenderer

    plan = _plan(24, max_plays=4)
    renderer = SequenceRenderer(plan)
    oracle = OracleDetector(plan, 0, Noise.none())
    detector = _Counting(lambda img: oracle(plan.frames[tracker.frames - 1]))
    tracker = make_tracker(plan, detector, None)
    events = [e for f in plan.frames for e in tracker.push(renderer.frame(f.index), f.t)]
    plays = [e for e in events if isinstance(e, TilePlayed)]
    assert [p.tile for p in plays] == [e.tile for e in plan.plays()]
    state = tracker.state
    assert detector.runs == state.frames_read and state.frames_reused > state.frames_read
    assert state.frames_read < 3 * (len(plan.plays()) + 4)


class _SameAsRead(_Still):
    """A still gate that finds every still frame after a reading no different from the frame
    read (until something moves)."""

    read_since_motion = False

    def update(self, frame):
        from vision.tracking.motion import MotionReading

        if self.moving:
            self.read_since_motion = False
        return MotionReading(self.moving, True, float(self.moving), 1.0, None, self.read_since_motion)

    def mark_read(self):
        self.read_since_motion = True


def test_one_reading_repeated_does_not_take_a_tile_off_the_board():
    """A reading that misses the last play is not repeated into a take-back: the tracker reads
    the next frame afresh, and that reading, which shows the tile, stands."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_SameAsRead())
    spinner, arm, second = _three()
    _feed(tracker, [[spinner], [spinner, arm]])
    reads = iter([[spinner]])  # the first reading after the hand leaves misses the 6-2
    tracker.gate.moving = True
    tracker.detector = lambda _f: list(next(reads, [spinner, arm]))
    events = tracker.push(object(), 10.0)
    tracker.gate.moving = False
    read, reused = tracker.frames_read, tracker.frames_reused
    for k in range(8):
        events += tracker.push(object(), 10.1 + k / 10)
    assert not [e for e in events if e.kind in ("tile_taken_back", "board_disturbed")]
    # frame 1 waits (a hand may be pausing), 2 is read, 3 is read afresh, 4-8 reuse it
    assert (tracker.frames_read - read, tracker.frames_reused - reused) == (2, 5)
    assert tracker.state.plays == 1


def _board_and_a_tile_to_flag():
    """A tracker that has seen the 6-6 spinner and a 6-2 on it, and a 5-3 to lay against the
    spinner's side: no 6 to lay on it."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_SameAsRead())
    spinner, arm, _ = _three()
    _feed(tracker, [[spinner], [spinner, arm]])
    return tracker, spinner, arm, _det([[320, 280], [320, 320], [400, 320], [400, 280]], (5, 3))


def test_an_illegal_play_lying_still_for_a_few_frames_only_is_read_afresh_and_flagged():
    """A flag waits for three runs of the recognizer that agree; a still picture's reading is
    otherwise reused, so the frames after the first reading of a tile the rules refuse are read
    afresh: a planted tile is taken back a moment after it is laid (a 5-1 on a full chickie lay
    still for four readable frames in a rendered double-12 round and went unflagged)."""
    tracker, spinner, arm, wrong = _board_and_a_tile_to_flag()
    read = tracker.frames_read
    events = _feed(tracker, [[spinner, arm, wrong]], repeat=4)
    assert tracker.frames_read - read == 3  # every still frame read after the first
    events += _feed(tracker, [[spinner, arm]], repeat=6)  # the hand takes it back
    assert [(e.tile, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)] == \
        [("5-3", False, "ends_do_not_match")]
    assert [(e.tile, e.was_legal) for e in events if isinstance(e, TileTakenBack)] == [("5-3", False)]


def test_a_layout_tile_read_as_another_tile_lying_another_way_has_not_left_the_table():
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second = _three()
    _feed(tracker, [[spinner], [spinner, arm], [spinner, arm, second]])
    # the spinner's place now reads as a 5-3 lying crosswise (a misread), in every reading
    c = spinner.corners.mean(0)
    crosswise = _tile_at(c[0], c[1], (5, 3), vertical=False)
    events = _feed(tracker, [[crosswise, arm, second]], repeat=6)
    assert not [e for e in events if e.kind in ("board_disturbed", "tile_played", "tile_taken_back")]
    assert not tracker.board[Tile(6, 6)].missing


class _Settling(_Still):
    """A still gate like the real one: a still frame differs from the reference only until the
    tracker settles (and sets it), so a settled board is not read again until something moves."""

    changed = True

    def update(self, frame):
        from vision.tracking.motion import MotionReading

        if self.moving:
            self.changed = True
        return MotionReading(self.moving, self.changed, float(self.moving), float(self.changed))

    def set_reference(self):
        self.changed = False


def test_a_tile_laid_after_a_long_undecided_stretch_still_gets_its_readings():
    """The reads a still board may take before the tracker settles undecided count from the last
    motion: an older tile misread in every reading kept the board undecided for a while, and the
    next tile laid, split between two readings at first, was settled away unread (a planted
    illegal 4-3 went unseen that way in a rendered double-12 round)."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Settling())
    spinner, arm, second = _three()
    _feed(tracker, [[spinner], [spinner, arm], [spinner, arm, second]])
    misread_arm = _det(arm.corners, (6, 3))  # the 6-2 read as 6-3 in place, every time from now on
    _feed(tracker, [[spinner, misread_arm, second]], repeat=14)
    assert tracker.settled  # settled undecided, on the limit of reads
    left = [[280, 320], [280, 280], [200, 280], [200, 320]]  # a 6-4 against the spinner's left side
    reads = iter([(6, 4), (6, 5), (6, 4), (6, 5)])
    tracker.gate.moving = True
    tracker.push(object(), 20.0)
    tracker.gate.moving = False
    tracker.detector = lambda _f: [spinner, misread_arm, second, _det(left, next(reads, (6, 4)))]
    events = [e for k in range(8) for e in tracker.push(object(), 20.1 + k / 10)]
    assert [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-4", "6-6", True)]


def test_a_place_read_back_as_the_misreading_it_was_corrected_from_is_not_flagged_twice():
    """A 6-2 first read as a 5-2 is flagged, then read right and replaced; when the reader flips
    back to 5-2 at the same place, that is the same misreading, not a take-back and a new play."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, _ = _three()
    misread = _det(arm.corners, (5, 2))
    events = _feed(tracker, [[spinner], [spinner, misread]])
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("5-2", False)]
    events = _feed(tracker, [[spinner, arm]], repeat=6)
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-2", True)]
    events = _feed(tracker, [[spinner, misread]], repeat=8)
    assert not [e for e in events if e.kind in ("tile_played", "tile_taken_back")]
    assert tracker.state.plays == 1


def test_a_tile_found_twice_in_one_decision_is_played_once():
    """A replacement and a new-tile reading can name the same tile in one decision; placing it
    compared two poses' arrays and crashed the tracker (seen on a double-12 round)."""
    from vision.tracking.geometry import pose_from_detection

    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, _ = _three()
    _feed(tracker, [[spinner]])
    obs = tracker.window[-1]
    pose = pose_from_detection(arm)
    events = tracker._place([(Tile(6, 2), pose, obs), (Tile(6, 2), pose_from_detection(arm), obs)])
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-2", True)]


def test_a_tile_laid_on_a_flagged_tile_s_outer_end_withdraws_a_flag_that_was_a_misreading():
    """6-2 on the spinner read as 4-2 is flagged (no 6 against the open 6); when the next tile is
    laid against its 2, the 4 was a misread 6: the flag is withdrawn and play goes on from 6-2,
    instead of every later tile on that arm being flagged as laid off the layout."""
    from vision.tracking import FlagWithdrawn

    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, _ = _three()
    misread = _det(arm.corners, (4, 2))
    events = _feed(tracker, [[spinner], [spinner, misread]])
    assert [(e.tile, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)] == [
        ("4-2", False, "ends_do_not_match")]
    nxt = _tile_at(300, 140, (1, 2))  # its 2 end down against the arm's 2
    events = _feed(tracker, [[spinner, misread, nxt]])
    withdrawn = [e for e in events if isinstance(e, FlagWithdrawn)]
    assert [(e.tile, e.read_as) for e in withdrawn] == [("6-2", "4-2")]
    plays = [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)]
    assert plays[0] == ("6-2", "6-6", True)
    assert plays[1][:2] == ("2-1", "6-2")  # judged against 6-2 now (the spinner still needs arms)
    assert tracker.board[Tile(6, 2)].status == "legal"


def test_a_tile_laid_on_a_flagged_tile_that_did_not_match_by_far_keeps_the_flag():
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, _ = _three()
    wrong = _det(arm.corners, (1, 2))  # a 1 against the open 6: not a miscount
    _feed(tracker, [[spinner], [spinner, wrong]])
    events = _feed(tracker, [[spinner, wrong, _tile_at(300, 140, (3, 2))]])
    assert not [e for e in events if e.kind == "flag_withdrawn"]


def _picture(dets, size=(480, 640), texture=False) -> np.ndarray:
    """A dark table (with `texture`, a grainy one) with each detection's tile drawn on it:
    light face, dark dots."""
    import cv2

    img = np.full((*size, 3), (40, 70, 45), np.uint8)
    if texture:
        grain = np.random.default_rng(7).integers(0, 60, size, dtype=np.uint8)
        img = cv2.add(img, cv2.merge([grain, grain, grain]))
    for d in dets:
        c = d.corners.astype(np.float32)
        cv2.fillConvexPoly(img, c.astype(np.int32), (225, 230, 235))
        for half, n in enumerate(d.pips):
            a, b = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2  # the two end midpoints
            for k in range(n):
                t = 0.12 + 0.3 * ((k % 3) / 2) if half == 0 else 0.58 + 0.3 * ((k % 3) / 2)
                side = (c[1] - c[0]) * (0.25 if k // 3 == 0 else -0.25)
                p = a + (b - a) * t + side * (0 if n == 1 else 1)
                cv2.circle(img, (int(p[0]), int(p[1])), 3, (20, 20, 20), -1)
    return img


def _three_filmed():
    """A tracker that watched `_three`'s tiles laid one by one in drawn pictures (so it knows how
    each place looks): the tracker, the three tiles and the list of all three."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second = _three()
    everything = [spinner, arm, second]
    _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm]), (everything, everything)],
          pictures=True)
    return tracker, spinner, arm, second, everything


def test_a_tile_the_reader_loses_while_its_place_looks_the_same_has_not_left_the_table():
    tracker, spinner, arm, second, everything = _three_filmed()
    assert tracker.state.plays == 2
    # after a hand went by, the reader no longer finds the 6-2, but it lies there as before
    events = _feed(tracker, [([spinner, second], everything)], repeat=8, pictures=True)
    assert not [e for e in events if e.kind in ("board_disturbed", "tile_taken_back")]
    assert not tracker.board[Tile(6, 2)].missing
    # and when it really is gone, its place shows bare table: that is reported
    events = _feed(tracker, [([spinner, second], [spinner, second])], repeat=8, pictures=True)
    assert [e.kind for e in events] == ["board_disturbed"] and events[0].missing == ["6-2"]


def test_the_last_play_the_reader_loses_as_the_next_tile_is_laid_against_it_is_not_taken_back():
    """The reader lost the last play in every reading since the next tile was laid (on a crowded
    layout a box can merge with its new neighbour's), but its place looks as it did: it was not
    taken back. (A take-back, then the same tile found again on a closer look beside the new
    one and played again, had counted a play twice in a fresh rendered double-15 round.)"""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second = _three()
    _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm])], pictures=True)
    events = _feed(tracker, [([spinner, second], [spinner, arm, second])], pictures=True)
    assert not [e for e in events if e.kind == "tile_taken_back"]
    assert [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-1", "6-6", True)]
    assert Tile(6, 2) in tracker.board and tracker.state.plays == 2


def test_the_last_play_lost_by_the_reader_and_read_as_another_tile_on_a_closer_look_is_taken_back():
    """The last play, read 6-4 where a 6-2 lies, is lost by the reader as the next tile comes; its
    place looks as it did, but a closer look reads 6-2 there: the 6-4 was a misreading and is taken
    back (a 9-1 read 9-9 had left a chickie waiting for toes that flagged eleven plays)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second = _three()
    misread = _det(arm.corners, (6, 4))
    _feed(tracker, [([spinner], [spinner]), ([spinner, misread], [spinner, arm])], pictures=True, closer=[])
    assert Tile(6, 4) in tracker.board
    events = _feed(tracker, [([spinner, second], [spinner, arm, second])], pictures=True,
                   closer=[spinner, arm, second])
    assert ("tile_taken_back", "6-4") in [(e.kind, e.tile) for e in events]
    assert Tile(6, 4) not in tracker.board


def test_the_last_play_lost_by_the_reader_and_read_as_itself_on_a_closer_look_stays():
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second = _three()
    _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm])], pictures=True, closer=[])
    events = _feed(tracker, [([spinner, second], [spinner, arm, second])], pictures=True,
                   closer=[spinner, arm, second])
    assert not [e for e in events if e.kind == "tile_taken_back"]
    assert Tile(6, 2) in tracker.board and tracker.state.plays == 2


def test_a_tile_flagged_the_wrong_way_round_then_turned_where_it_lies_is_taken_back_and_played():
    """A player puts a wrong-way play right by turning the tile where it lies, often under the
    hand that laid it, so no take-back is seen in between (in a fresh rendered double-9 round the
    flagged 9-8 stayed, and the tiles laid beyond it lay "apart", a planted play among them)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, _ = _three()
    wrong = _tile_at(300, 220, (6, 2))  # the 6-2 with its 2 end down against the spinner
    first = _feed(tracker, [([spinner], [spinner]), ([spinner, wrong], [spinner, wrong])], pictures=True)
    assert [(e.tile, e.legal, e.rule) for e in first if isinstance(e, TilePlayed)] == [
        ("6-2", False, "ends_do_not_match")]
    events = _feed(tracker, [([spinner, arm], [spinner, arm])], pictures=True)
    assert [(e.kind, e.tile) for e in events] == [("tile_taken_back", "6-2"), ("tile_played", "6-2")]
    assert events[1].legal and events[1].on == "6-6"
    assert tracker.board[Tile(6, 2)].status == "legal"


def test_a_flagged_tile_read_the_same_way_round_again_stays_flagged():
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, _, _ = _three()
    wrong = _tile_at(300, 220, (6, 2))
    _feed(tracker, [([spinner], [spinner]), ([spinner, wrong], [spinner, wrong])], pictures=True)
    events = _feed(tracker, [([spinner, wrong], [spinner, wrong])], pictures=True)
    assert not events and tracker.board[Tile(6, 2)].status == "illegal"


def test_a_tile_taken_back_after_another_first_seen_with_it_is_a_take_back_not_a_disturbed_board():
    """The 6-2 and 6-1 are first seen in one reading (a still moment missed between them) and
    entered in a guessed order, 6-2 then 6-1. The 6-2 is then taken away: a take-back, with the
    6-1 left as the round's play (in a fresh rendered round, a 14-4 taken back so was "missing",
    seen later at its new place as "moved", and the 11-4 laid on it there was flagged)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second = _three()
    first = _feed(tracker, [([spinner], [spinner]), ([spinner, arm, second], [spinner, arm, second])],
                  pictures=True)
    assert [e.tile for e in first if isinstance(e, TilePlayed)] == ["6-2", "6-1"]
    events = _feed(tracker, [([spinner, second], [spinner, second])], repeat=8, pictures=True)
    assert [(e.kind, getattr(e, "tile", None)) for e in events] == [("tile_taken_back", "6-2")] and events[0].was_legal
    assert [p.tile for p in tracker.current.referee.plays] == [Tile(6, 1)]
    assert Tile(6, 2) not in tracker.board


def _arm_played_on_the_last_still_frame():
    """A tracker that played the `_three` arm on the last still frame before the next hand, the
    board left unsettled by a gap read as a tile (drawn on grainy table, so places have pictures)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second = _three()
    gap = _tile_at(540, 100, (3, 3), vertical=False)  # bare table read as a tile
    _feed(tracker, [([spinner], [spinner])], pictures=True, texture=True)
    events = _feed(tracker, [([spinner, arm, gap], [spinner, arm])], repeat=4, pictures=True, texture=True)
    assert [e.kind for e in events] == ["tile_played"] and not tracker.settled
    return tracker, spinner, arm, second


def test_a_tile_played_on_the_last_still_frame_before_the_next_hand_keeps_the_picture_it_was_read_in():
    """A play's picture comes from the still frames it was read in. Waiting for the next still
    frame that read it left none when the next tile laid end to end made the reader box the
    pair across their seam (in a fresh rendered double-15 round): the play was taken back unseen, a
    phantom 5-5 played as a chickie, and 16 plays after it were flagged."""
    tracker, spinner, arm, second = _arm_played_on_the_last_still_frame()
    assert tracker.board[Tile(6, 2)].patch is not None
    # the reader loses the 6-2 as the 6-1 comes; its place looks as it did: still there
    events = _feed(tracker, [([spinner, second], [spinner, arm, second])], pictures=True, texture=True)
    assert [(e.kind, e.tile) for e in events if e.kind in ("tile_taken_back", "tile_played")] == [
        ("tile_played", "6-1")]
    assert Tile(6, 2) in tracker.board


def test_the_last_play_lost_by_the_reader_and_read_as_no_tile_on_a_closer_look_stays():
    """A closer look that finds no tile at the place of a play whose place looks unchanged says
    nothing against it (beside a tile laid end to end with like pips, even the closer look boxed
    the two across their seam)."""
    tracker, spinner, arm, second = _arm_played_on_the_last_still_frame()
    events = _feed(tracker, [([spinner, second], [spinner, arm, second])], pictures=True, texture=True,
                   closer=[spinner, second])
    assert tracker.detector.looks  # it did look
    assert not [e for e in events if e.kind == "tile_taken_back"]
    assert Tile(6, 2) in tracker.board and tracker.state.plays == 2


def test_a_lost_last_play_that_is_a_double_goes_unless_a_closer_look_reads_it_again():
    """A double is often a box across the seam of two like ends (a 9-1 laid on a 9-4 read 9-9,
    which then waited for toes and flagged eleven plays in a rendered round): a closer
    look that finds no tile at its place does not keep it, as it keeps a lost non-double."""
    tracker, _ = _double_across_the_arm_read_as((2, 2))
    assert tracker.board[Tile(2, 2)].status == "legal"
    spinner, arm, second, left, below, _ = _cross_of_arms()
    arms = [spinner, arm, second, left, below]
    double = _tile_at(300, 160, (2, 2), vertical=False)
    toe = _tile_at(300, 100, (3, 2))
    events = _feed(tracker, [(arms + [toe], arms + [double, toe])], pictures=True, closer=arms + [toe])
    assert ("tile_taken_back", "2-2") in [(e.kind, getattr(e, "tile", None)) for e in events]


def _arm_read_unsure(read, closer_reads, closer_second=()):
    """The `_three` arm (a 6-2) read as `read` with 6-2 as likely, and read closer as
    `closer_reads`: the tracker and the play events."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, _ = _three()
    seen = _arm_read_as(read, [((6, 2), 0.0)] if read != (6, 2) else [((6, 3), 0.0)])
    closer = _arm_read_as(closer_reads, closer_second)
    events = _feed(tracker, [([spinner], [spinner]), ([spinner, seen], [spinner, arm])], pictures=True,
                   closer=[spinner, closer])
    return tracker, [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)], events


def test_a_legal_play_read_as_a_coin_toss_is_the_tile_a_closer_look_reads_sure_at_its_place():
    """A 13-9 on a double-15 table read 13-12 (14-12 as likely) was played on 13-11 as read; the
    9-0 laid on it read 12-0 the same way, and the real 12-0 could not be played later. A closer
    look read 13-9 at 0.92: a reading the reader could not choose is read closer first."""
    tracker, played, events = _arm_read_unsure((6, 3), (6, 2))
    assert played == [("6-2", True)]
    assert [e.message for e in events if e.kind == "notice"] == ["6-3 was 6-2 misread: a closer look reads 6-2 there"]


def test_a_legal_play_read_as_a_coin_toss_stays_as_read_when_the_closer_look_is_unsure_too():
    tracker, played, _ = _arm_read_unsure((6, 3), (6, 2), closer_second=[((6, 3), 0.1)])
    assert played == [("6-3", True)]


def test_a_legal_play_read_sure_is_not_read_closer():
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, _ = _three()
    seen = _arm_read_as((6, 3), [((6, 2), 0.2)])
    events = _feed(tracker, [([spinner], [spinner]), ([spinner, seen], [spinner, arm])], pictures=True,
                   closer=[spinner, arm])
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-3", True)]
    assert not tracker.detector.looks


def test_a_place_the_reader_reads_as_nothing_keeps_its_picture_when_the_board_settles():
    """When the board settles, each place's picture is renewed only where the reader saw its tile.
    A play taken back unseen left bare table at its place; renewed from that, the place "still
    looked as it did" and the tile was counted as lying there ever after (in a fresh rendered round, a
    take-back missed, the next tile there taken for a misreading)."""
    from vision.tracking.board import Observation, tile_patch
    from vision.tracking.tuning import PictureConfig

    tracker, spinner, arm, second, everything = _three_filmed()
    kept = tracker.board[Tile(6, 2)].patch.copy()
    bare = _picture([spinner, second])  # the 6-2 taken away
    seen = {Tile(6, 6), Tile(6, 1)}
    still = [Observation(100 + k, 10.0 + k, [], image=bare, read=50 + k, seen=seen) for k in range(3)]
    tracker._refresh_poses(still)
    assert np.array_equal(tracker.board[Tile(6, 2)].patch, kept)
    spinner_now = tracker.board[Tile(6, 6)]
    assert np.array_equal(spinner_now.patch, tile_patch(bare, spinner_now.pose, PictureConfig()))  # the seen ones renewed


def test_the_last_play_read_as_another_tile_while_its_place_looks_the_same_is_not_taken_back():
    """Faint pips (lilac on white, on a far double-15 chickie) read one way and later another: the
    last play's place reading as another tile is a take-back and a new tile only when the picture
    there changed; a take-back taken on the reading alone flagged the plays after it."""
    tracker, spinner, arm, second, everything = _three_filmed()
    misread = _det(second.corners, (6, 4))  # the 6-1 lying there, read as 6-4
    events = _feed(tracker, [([spinner, arm, misread], everything)], repeat=8, pictures=True)
    assert not [e for e in events if e.kind in ("tile_taken_back", "tile_played")]
    assert Tile(6, 1) in tracker.board
    # when the 6-1 is taken back and a 6-4 laid in its place, the picture there changes
    swapped = [spinner, arm, misread]
    events = _feed(tracker, [(swapped, swapped)], repeat=8, pictures=True)
    assert [(e.kind, e.tile) for e in events if e.kind in ("tile_taken_back", "tile_played")] == [
        ("tile_taken_back", "6-1"), ("tile_played", "6-4")]


def test_a_new_tile_read_as_a_tile_still_in_its_place_is_the_one_reading_a_pip_away_the_rules_accept():
    """A 6-3 laid left of the spinner read as 6-2, which lies above the spinner: of the readings
    one pip away, 5-2 does not match, 6-1 is on the table and 7-2 is no double-6 tile, so 6-3."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second = _three()
    _feed(tracker, [[spinner], [spinner, arm], [spinner, arm, second]])
    left = _det(np.roll(_tile_at(240, 300, (6, 2), vertical=False).corners, 2, axis=0), (6, 2))
    events = _feed(tracker, [[spinner, arm, second, left]], repeat=6)
    plays = [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)]
    assert plays == [("6-3", "6-6", True)]
    assert not [e for e in events if e.kind == "board_disturbed"]
    assert tracker.board[Tile(6, 2)].pose.centre[1] < 260  # the 6-2 did not move


@pytest.mark.parametrize("misread_last", [False, True])
def test_a_tile_read_again_where_it_lies_is_corrected_when_the_tile_it_was_taken_for_is_laid(misread_last):
    """A 6-4 above the spinner read 6-2, sure, until the camera saw it better; the readings
    disagreeing, the tracker waits. When the real 6-2 is laid beside the spinner, the set having
    one 6-2 says which reading was wrong: the play above is corrected to 6-4 and the 6-2 played
    (before, the new 6-2 was dropped as a misreading of the one on the board, and a chickie it
    fed stayed open in the engine's eyes, so every later play elsewhere was flagged)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second = _three()  # the arm above reads 6-2
    below = _tile_at(300, 380, (6, 3))
    if misread_last:  # the misread play is the last one: corrected, not taken back
        _feed(tracker, [[spinner], [spinner, second], [spinner, second, below], [spinner, arm, second, below]])
    else:
        _feed(tracker, [[spinner], [spinner, arm], [spinner, arm, second], [spinner, arm, second, below]])
    seen_better = _det(arm.corners, (6, 4))
    if not misread_last:  # (a last play read otherwise, with no picture to compare, is a take-back)
        events = _feed(tracker, [[spinner, seen_better, second, below]] * 2)
        assert not [e for e in events if e.kind in ("tile_played", "play_corrected", "tile_taken_back")]
    left = _det(np.roll(_tile_at(240, 300, (6, 2), vertical=False).corners, 2, axis=0), (6, 2))
    events = _feed(tracker, [[spinner, seen_better, second, below, left]], repeat=6)
    kinds = [(e.kind, e.tile) for e in events if e.kind in ("tile_played", "play_corrected", "tile_taken_back")]
    assert kinds == [("play_corrected", "6-4"), ("tile_played", "6-4"), ("tile_played", "6-2")], kinds
    assert all(e.legal for e in events if isinstance(e, TilePlayed))
    assert tracker.board[Tile(6, 4)].pose.centre[1] < 260 and tracker.board[Tile(6, 2)].pose.centre[0] < 280
    order = ["6-1", "6-3", "6-4", "6-2"] if misread_last else ["6-4", "6-1", "6-3", "6-2"]
    assert [str(p.tile) for p in tracker.current.referee.plays] == order


def _played_above_spinner(read, second, cost):
    """The plays seen when a tile is laid above a 6-6 spinner, its first end down against it,
    and read as `read` with `second` a second reading costing `cost`."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, _, _ = _three()
    laid = _det(np.roll(_tile_at(300, 220, read).corners, 2, axis=0), read)
    laid.second_readings = [(second, cost)]
    events = _feed(tracker, [[spinner], [spinner, laid]])
    return [e for e in events if isinstance(e, TilePlayed)]


def test_a_play_read_illegally_is_taken_as_the_readers_close_second_reading_the_rules_accept():
    # a 6-2 read as 5-2, with 6-2 a close second
    plays = _played_above_spinner((5, 2), (6, 2), 0.1)
    assert [(p.tile, p.on, p.legal) for p in plays] == [("6-2", "6-6", True)]


def test_a_confident_illegal_reading_is_flagged_even_when_a_far_second_reading_would_be_legal():
    plays = _played_above_spinner((5, 2), (6, 2), 0.6)
    assert [(p.tile, p.legal, p.rule) for p in plays] == [("5-2", False, "ends_do_not_match")]


def test_a_second_reading_one_clean_dot_away_is_not_taken_to_make_a_play_legal():
    """A dot scoring 0.72 against the 0.5 threshold is a dot: a planted 5-2 laid with its 5 against
    the spinner's 6, read 5-2 with 6-2 as a second reading costing 0.22, is flagged (in two
    rendered rounds, planted 6-5 and 9-7 went unflagged as 5-5 and 9-6)."""
    plays = _played_above_spinner((5, 2), (6, 2), 0.22)
    assert [(p.tile, p.legal, p.rule) for p in plays] == [("5-2", False, "ends_do_not_match")]


def test_a_spinner_misread_as_another_double_is_taken_as_the_round_double_the_tracker_was_told():
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still(), round_index=0)  # round one of a double-6 game: 6-6 leads
    spinner, arm, _ = _three()
    misread = _det(spinner.corners, (5, 5))
    events = _feed(tracker, [[misread], [misread, arm]])
    started = [e for e in events if e.kind == "round_started"]
    assert started and started[0].spinner == "6-6"
    assert any(e.kind == "notice" and "read as 5-5" in e.describe() for e in events)
    plays = [e for e in events if isinstance(e, TilePlayed)]
    assert [(p.tile, p.on, p.legal) for p in plays] == [("6-2", "6-6", True)]


def _first_tile_alone_read_as(pips, round_index):
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still(), round_index=round_index)
    spinner, arm, _ = _three()
    misread = _det(spinner.corners, pips)
    return _feed(tracker, [[misread], [misread, arm]])


def test_the_first_tile_alone_on_the_table_read_as_a_non_double_with_the_round_doubles_value_is_that_double():
    events = _first_tile_alone_read_as((6, 5), round_index=0)  # round one of a double-6 game: 6-6 leads
    started = [e for e in events if e.kind == "round_started"]
    assert started and started[0].spinner == "6-6"
    assert any(e.kind == "notice" and "read as 6-5" in e.describe() for e in events)
    plays = [e for e in events if isinstance(e, TilePlayed)]
    assert [(p.tile, p.on, p.legal) for p in plays] == [("6-2", "6-6", True)]


def test_a_first_tile_without_the_round_doubles_value_or_a_round_not_told_starts_nothing():
    assert not [e for e in _first_tile_alone_read_as((5, 4), round_index=0) if e.kind == "round_started"]
    assert not [e for e in _first_tile_alone_read_as((6, 5), round_index=None) if e.kind == "round_started"]


def test_tracker_figures_are_also_given_for_each_set_size(noisy_runs):
    tally = Tally()
    for run in noisy_runs:
        tally.add(run)
    s = tally.summary()
    assert set(s["by_set"]) == {"double-6", "double-9"}
    assert sum(t["true_plays"] for t in s["by_set"].values()) == s["true_plays"]
    assert sum(t["rounds"] for t in s["by_set"].values()) == s["rounds"] == 6


def test_a_tile_read_where_the_picture_has_not_changed_since_the_board_settled_is_not_played():
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second = _three()
    _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm])], pictures=True, texture=True)
    assert tracker.state.plays == 1
    # the reader makes a 5-1 of the table beside the spinner, but nothing was laid there (a
    # reading with the spinner's 6 against it might be a tile missed when it was laid: see
    # test_a_tile_the_reader_missed_until_the_board_settled_with_it_is_played_when_read_at_an_open_end)
    phantom = _det(second.corners, (5, 1))
    events = _feed(tracker, [([spinner, arm, phantom], [spinner, arm])], repeat=8, pictures=True, texture=True)
    assert not [e for e in events if isinstance(e, TilePlayed)]
    # once a tile is laid there, the picture changes and it is a play
    events = _feed(tracker, [([spinner, arm, second], [spinner, arm, second])], repeat=8, pictures=True,
                   texture=True)
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-1", True)]


def test_a_tile_read_where_nothing_was_laid_is_not_played_after_the_camera_was_knocked():
    """The picture the board settled on follows the camera: in a rendered double-15 round
    a box across two layout tiles, read 6-2 only from the camera's new position, was taken for a
    play (and flagged) the moment the camera had moved, when that picture was dropped."""
    import cv2

    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second = _three()
    shift = np.array([23.0, -17.0], np.float32)

    def knocked(dets, drawn):  # the table, grain and all, as the knocked camera sees it
        m = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
        picture = cv2.warpAffine(_picture(drawn, texture=True), m, (640, 480), borderMode=cv2.BORDER_REFLECT)
        return [_det(d.corners + shift, d.pips) for d in dets], picture

    _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm])], pictures=True, texture=True)
    assert tracker.state.plays == 1
    # from where the camera now stands, the reader makes a 5-1 of the table beside the spinner
    dets, picture = knocked([spinner, arm, _det(second.corners, (5, 1))], [spinner, arm])
    events = _feed(tracker, [(dets, picture)], repeat=8, pictures=True)
    assert "camera_moved" in [e.kind for e in events]
    assert not [e for e in events if isinstance(e, TilePlayed)]
    # laid there, it is a play
    dets, picture = knocked([spinner, arm, second], [spinner, arm, second])
    events = _feed(tracker, [(dets, picture)], repeat=8, pictures=True)
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-1", True)]


def _four_arms():
    """A 6-6 spinner with all four arms: 6-2 above, 6-1 right, 6-3 left, 6-4 below."""
    spinner, up, right = _three()
    left = _det([[280, 320], [280, 280], [200, 280], [200, 320]], (6, 3))
    down = _det(_tile_at(300, 380, (6, 4)).corners, (6, 4))
    return [spinner, up, right, left, down]


def test_a_tile_never_read_between_the_layout_and_the_next_tile_is_inferred_from_the_ends_it_joins():
    """The reader never finds the 2-5 laid on the 6-2 arm's open 2; then a 5-3 is laid a tile's
    length beyond it, its 5 pointing at the 2. Only 2-5 fits between: it is played (with a
    notice that it was inferred) and the 5-3 goes on it, not "apart" from the layout."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    arms = _four_arms()
    _feed(tracker, [arms[:k] for k in range(1, 6)])
    assert tracker.state.plays == 4
    beyond = _det(np.roll(_tile_at(300, 60, (5, 3)).corners, 2, axis=0), (5, 3))
    events = _feed(tracker, [arms + [beyond]], repeat=6)
    plays = [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)]
    assert plays == [("5-2", "6-2", True), ("5-3", "5-2", True)]
    assert any(e.kind == "notice" and "never read" in e.message for e in events)
    assert not [e for e in events if e.kind == "board_disturbed"]


def test_a_tile_never_read_before_a_double_laid_across_its_end_is_inferred_from_the_ends_it_joins():
    """As above, but what is laid beyond the unread 2-5 is the double 5-5, crosswise, its long side
    against the 5: a double touches its parent with a long side, not an end."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    arms = _four_arms()
    _feed(tracker, [arms[:k] for k in range(1, 6)])
    beyond = _tile_at(300, 80, (5, 5), vertical=False)
    events = _feed(tracker, [arms + [beyond]], repeat=6)
    plays = [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)]
    assert plays == [("5-2", "6-2", True), ("5-5", "5-2", True)]
    assert any(e.kind == "notice" and "never read" in e.message for e in events)


def test_a_tile_lying_apart_with_no_single_tile_to_fill_the_gap_stays_apart():
    """The same 5-3 lying two tiles' lengths beyond the arm: no one tile fills that gap, so
    nothing is inferred and the 5-3 is a tile set down apart."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    arms = _four_arms()
    _feed(tracker, [arms[:k] for k in range(1, 6)])
    far = _det(np.roll(_tile_at(300, -20, (5, 3)).corners, 2, axis=0), (5, 3))
    events = _feed(tracker, [arms + [far]], repeat=6)
    assert not [e for e in events if isinstance(e, TilePlayed)]
    assert tracker.board[Tile(5, 3)].status == "loose"


def _chickie_on_a_misread_arm():
    """Four arms round a 6-6 spinner, the one above really a 6-5 but read 6-2 (sure), its place
    read 6-5 in two later stretches; then a 5-5 laid across its outer end, read 5-2 (no tile but a
    double lies across an end), and two toes laid on it, 5-1 and 5-3."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    arms = _four_arms()
    _feed(tracker, [arms[:k] for k in range(1, 6)])
    seen_better = [arms[0], _det(arms[1].corners, (6, 5))] + arms[2:]
    _feed(tracker, [seen_better, arms, seen_better, arms])
    double = _tile_at(300, 160, (5, 2), vertical=False)
    toes = [_det(np.roll(_tile_at(x, 100, (5, v)).corners, 2, axis=0), (5, v)) for x, v in ((280, 1), (320, 3))]
    return tracker, arms + [double], toes


def test_tiles_set_apart_are_played_when_one_reading_of_them_and_the_tile_they_lie_on_fits_them_all():
    """With both toes laid, one reading explains everything: the arm is the 6-5 its place was
    also read as, the tile across its end the 5-5, and both toes go on that chickie. The arm's
    play is corrected and the three are played, none flagged."""
    tracker, table, toes = _chickie_on_a_misread_arm()
    _feed(tracker, [table, table + toes[:1]])
    events = _feed(tracker, [table + toes], repeat=6)
    kinds = [(e.kind, e.tile) + ((e.on, e.legal) if isinstance(e, TilePlayed) else ()) for e in events
             if e.kind in ("tile_played", "play_corrected")]
    assert kinds == [("play_corrected", "6-5"), ("tile_played", "6-5", "6-6", True),
                     ("tile_played", "5-5", "6-5", True), ("tile_played", "5-1", "5-5", True),
                     ("tile_played", "5-3", "5-5", True)], kinds
    assert Tile(6, 2) not in tracker.board and Tile(5, 2) not in tracker.board
    assert not tracker.current.illegal


def test_tiles_set_apart_stay_apart_while_two_readings_explain_them_alike():
    """With the double and one toe only, the double read 5-2 is a 2-2 by the arm as read, or a
    5-5 by the toe and the arm's other reading: neither explains clearly more, so nothing is
    played yet (a guess here is a coin toss)."""
    tracker, table, toes = _chickie_on_a_misread_arm()
    events = _feed(tracker, [table, table + toes[:1]])
    assert not [e for e in events if e.kind in ("tile_played", "play_corrected")]
    assert tracker.board[Tile(5, 2)].status == "loose" and tracker.board[Tile(5, 1)].status == "loose"
    assert tracker.board[Tile(6, 2)].status == "legal"


def _toes_of_an_unseen_double(toes: int):
    """Four arms round a 6-6 spinner; a 2-2 laid across the 6-2 arm's open 2 that the reader
    never finds, and `toes` of its toes (2-1, then 3-2) laid on it, read right."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    arms = _four_arms()
    _feed(tracker, [arms[:k] for k in range(1, 6)])
    laid = [_det(np.roll(_tile_at(x, 100, (2, v)).corners, 2, axis=0), (2, v)) for x, v in ((280, 1), (320, 3))]
    events = _feed(tracker, [arms + laid[:k] for k in range(1, toes + 1)], repeat=6)
    return tracker, events


def test_two_tiles_set_apart_around_an_open_end_are_the_toes_of_a_double_the_reader_never_saw():
    """Two tiles with a 2 lie apart where the toes of a 2-2 across the arm's open 2 would lie:
    the 2-2 is played (with a notice that it was never read), then both toes on it."""
    tracker, events = _toes_of_an_unseen_double(2)
    plays = [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)]
    assert plays == [("2-2", "6-2", True), ("2-1", "2-2", True), ("3-2", "2-2", True)], plays
    assert any(e.kind == "notice" and "never read" in e.message for e in events)
    assert not tracker.current.illegal


def test_one_tile_set_apart_near_an_open_end_does_not_make_an_unseen_double():
    """One such tile alone could be anything set down there: it stays apart, and no double is
    played."""
    tracker, events = _toes_of_an_unseen_double(1)
    assert not [e for e in events if isinstance(e, TilePlayed)]
    assert tracker.board[Tile(2, 1)].status == "loose" and Tile(2, 2) not in tracker.board


def _toe_at(touch, direction, pips, w=40.0):
    """A tile whose end 0 touches `touch` and runs along `direction` (a unit vector)."""
    u = np.asarray(direction, float) / np.hypot(*direction)
    n = np.array([-u[1], u[0]])
    near, far = np.asarray(touch, float), np.asarray(touch, float) + 2 * w * u
    return _det([near - n * w / 2, near + n * w / 2, far + n * w / 2, far - n * w / 2], pips)


def _chickie_never_read_with_its_straight_toe_first(side_toes: int):
    """Four arms round a 6-6 spinner; a 2-2 laid across the 6-2 arm's open 2 (its top at y 144)
    that the reader never finds; its toe 2-5 laid straight on above it, a double's width beyond
    the arm; then `side_toes` of the other toes (2-1 up-left, 2-3 up-right), read right."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    arms = _four_arms()
    _feed(tracker, [arms[:k] for k in range(1, 6)])
    straight = _toe_at((300, 144), (0, -1), (2, 5))
    sides = [_toe_at((262, 140), (-1, -1), (2, 1)), _toe_at((338, 140), (1, -1), (2, 3))]
    events = _feed(tracker, [arms + [straight] + sides[:k] for k in range(0, side_toes + 1)], repeat=6)
    return tracker, events


def test_a_toe_laid_a_doubles_width_beyond_an_end_is_moved_onto_the_double_its_fellow_toes_reveal():
    """The straight toe alone passes for a play on the 6-2's 2 (it is a legal play there). When
    both other toes lie apart around it, the 2-2 the reader never saw explains all three: it is
    played on the 6-2 before the 2-5, the 2-5 is moved onto it (a correction), and the other two
    toes go on it too; nothing is flagged."""
    tracker, events = _chickie_never_read_with_its_straight_toe_first(2)
    plays = [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)]
    assert plays[0] == ("5-2", "6-2", True), plays
    assert plays[1:] == [("2-2", "6-2", True), ("5-2", "2-2", True), ("2-1", "2-2", True), ("3-2", "2-2", True)], plays
    assert [(e.tile, e.read_as) for e in events if e.kind == "play_corrected"] == [("5-2", "5-2")]
    assert any(e.kind == "notice" and "2-2 was never read" in e.message and "2-1" in e.message and "3-2" in e.message
               for e in events)
    assert tracker.board[Tile(2, 5)].on == Tile(2, 2) and tracker.board[Tile(2, 2)].on == Tile(6, 2)
    assert [p.tile for p in tracker.current.referee.plays][-4:] == [Tile(2, 2), Tile(2, 5), Tile(2, 1), Tile(2, 3)]
    assert not tracker.current.illegal


def test_a_toe_laid_a_doubles_width_beyond_an_end_stays_where_it_is_with_one_fellow_toe_apart():
    """With one other toe apart only, the unseen double is not guessed: the 2-5 stays on the 6-2."""
    tracker, events = _chickie_never_read_with_its_straight_toe_first(1)
    assert Tile(2, 2) not in tracker.board and tracker.board[Tile(2, 5)].on == Tile(6, 2)
    assert tracker.board[Tile(2, 1)].status == "loose"


def test_a_tile_laid_against_an_end_is_no_toe_of_an_unseen_double():
    """A tile touching the 6-2's end is a plain play there, whatever lies apart around it: two
    tiles with a 2 set apart near it do not make a double under it."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    arms = _four_arms()
    _feed(tracker, [arms[:k] for k in range(1, 6)])
    on_end = _toe_at((300, 180), (0, -1), (2, 5))
    apart = [_toe_at((262, 180), (-1, -1), (2, 1)), _toe_at((338, 180), (1, -1), (2, 3))]
    _feed(tracker, [arms + [on_end] + apart[:k] for k in range(0, 3)], repeat=6)
    assert Tile(2, 2) not in tracker.board and tracker.board[Tile(2, 5)].on == Tile(6, 2)


def _after_a_hand(tracker, readings, frames=8):
    """A hand lays a tile and leaves; the recognizer's runs on the still frames after it give
    `readings` in turn (the last one from then on)."""
    reads = iter(readings)
    last = [readings[-1]]
    tracker.gate.moving = True

    def detector(_frame):
        last[0] = next(reads, last[0])
        return list(last[0])

    tracker.detector = detector
    events = tracker.push(object(), 10.0)
    tracker.gate.moving = False
    for k in range(frames):
        events += tracker.push(object(), 10.1 + k / 10)
    return events


def test_a_play_is_not_flagged_on_one_misreading_that_the_next_fresh_frame_contradicts():
    """The still frames after a hand are read once and the reading reused; a 6-2 misread as 4-2
    in that one reading was flagged "no 6 against the open 6". A flag now waits for fresh
    readings that agree, and the next one shows the 6-2: a legal play, no flag."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_SameAsRead())
    spinner, arm, _ = _three()
    _feed(tracker, [[spinner]])
    misread = _det(arm.corners, (4, 2))
    events = _after_a_hand(tracker, [[spinner, misread], [spinner, arm]])
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-2", True)]


def test_a_play_every_fresh_reading_agrees_is_illegal_is_flagged_within_a_few_frames():
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_SameAsRead())
    spinner, arm, _ = _three()
    _feed(tracker, [[spinner]])
    wrong = _det(arm.corners, (4, 2))
    read = tracker.frames_read
    events = _after_a_hand(tracker, [[spinner, wrong]], frames=6)
    flagged = [e for e in events if isinstance(e, TilePlayed)]
    assert [(e.tile, e.legal, e.rule) for e in flagged] == [("4-2", False, "ends_do_not_match")]
    assert tracker.frames_read - read >= 3  # three fresh readings agreed before anyone was accused


def test_a_play_to_flag_seen_once_and_missed_once_is_read_afresh_until_decided():
    """A planted tile read in the first reading after the hand and missed in the second: that
    second reading was reused for every frame after it, so the tile was seen once in three and
    never flagged (a 2-0 laid on ~30-px double-15 tiles in a rendered round). An earlier reading
    that showed a play to flag now earns fresh readings in its place."""
    tracker, spinner, arm, wrong = _board_and_a_tile_to_flag()
    read = tracker.frames_read
    events = _after_a_hand(tracker, [[spinner, arm, wrong], [spinner, arm], [spinner, arm, wrong]], frames=8)
    assert [(e.tile, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)] == \
        [("5-3", False, "ends_do_not_match")]
    assert tracker.frames_read - read <= 5  # the fresh readings stop once the play is decided


def test_a_tile_seen_in_one_reading_only_is_not_played_for_all_the_fresh_looks():
    """The fresh readings an unsure sighting earns are few: a tile the reader saw once, in a
    picture that then reads without it every time, is no play."""
    tracker, spinner, arm, wrong = _board_and_a_tile_to_flag()
    read = tracker.frames_read
    events = _after_a_hand(tracker, [[spinner, arm, wrong], [spinner, arm]], frames=12)
    assert not [e for e in events if isinstance(e, TilePlayed)]
    assert tracker.frames_read - read <= 5


class _Blind(_SameAsRead):
    """A still gate that never sees a change (a tile laid on a white cloth, say)."""

    def update(self, frame):
        from vision.tracking.motion import MotionReading

        if self.moving:
            return MotionReading(True, True, 1.0, 1.0)
        return MotionReading(False, False, 0.0, 0.0, None, True)


def _settled_on_spinner_before_a_blind_gate(cfg):
    """A tracker settled on the 6-6 spinner whose gate then sees nothing change, and whose reader
    finds the 6-2 arm beside it from now on."""
    tracker = Tracker(cfg, gate=_SameAsRead(), recheck_s=3.0)
    spinner, arm, _ = _three()
    _feed(tracker, [[spinner]])
    assert tracker.settled
    tracker.gate = _Blind()
    tracker.detector = lambda _f: [spinner, arm]
    return tracker


def test_a_tile_the_periodic_re_read_finds_is_followed_up_until_it_is_played():
    """The re-read every few seconds is there for changes the motion gate misses; when it finds
    a new tile, the tracker reads on until that tile is decided, rather than go back to
    sleep for another few seconds with one sighting (which never makes a play)."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = _settled_on_spinner_before_a_blind_gate(cfg)
    tracker.gate.moving = True  # the hand that lays the 6-2
    events = tracker.push(object(), 20.0)
    tracker.gate.moving = False
    for k in range(40):  # four seconds of still frames at 10 a second
        events += tracker.push(object(), 20.1 + k / 10)
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-2", True)]


def test_a_tile_the_motion_gate_cannot_see_is_read_once_the_hand_that_laid_it_has_gone():
    """A pale tile on a pale table changed 2 pixels of the gate's thumbnail, fewer than it asks,
    and the next player's hand came in before the periodic re-read: the play was never read
    (in a rendered double-15 round). After any hand, the still board is read once."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = _settled_on_spinner_before_a_blind_gate(cfg)
    t = tracker.last_read_t + 0.5  # well inside the re-read's 3 seconds
    tracker.gate.moving = True  # the hand that lays the 6-2
    events = tracker.push(object(), t)
    tracker.gate.moving = False
    for k in range(10):  # one second of still frames before the next hand
        events += tracker.push(object(), t + 0.1 * (k + 1))
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-2", True)]


class _ToldGate(_Still):
    """A gate told, frame by frame, whether something moves and whether the still picture is
    the one last read (`same`)."""

    same = False

    def update(self, frame):
        from vision.tracking.motion import MotionReading

        return MotionReading(self.moving, True, float(self.moving), 1.0, None, self.same and not self.moving)


@pytest.mark.parametrize("picture_after", ["as_read", "changed"])
def test_readings_before_a_hand_that_touched_nothing_still_count_towards_a_flag(picture_after):
    """A 3-4 laid on the 6-2's 2 is read twice; a hand twitches at the edge of the picture and
    leaves it as it was read (two moves, a frame's pause between them); one more reading, and
    the 3-4 is taken back. Three readings that
    agree flag a play, and the two before the twitch still count (a planted 10-0 went unflagged
    so in a rendered double-12 round). Where the picture after the hand is not the one
    read, the readings before it do not count: the hand may have changed the tile."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, *_ = _cross_of_arms()
    stray = _det([[320, 180], [280, 180], [280, 100], [320, 100]], (3, 4))
    _feed(tracker, [[spinner], [spinner, arm]])
    tracker.gate = gate = _ToldGate()
    tracker.detector = lambda _f: [spinner, arm, stray]
    events, t = [], 10.0
    # (the hand's twitch is two moves with a one-frame pause between them)
    for moving, same in [(True, False), (False, False), (False, False), (False, False),
                         (True, False), (False, False), (True, False), (False, False),
                         (False, picture_after == "as_read")]:
        gate.moving, gate.same, t = moving, same, t + 0.1
        events += tracker.push(object(), t)
    tracker.detector = lambda _f: [spinner, arm]  # the hand takes it back
    for moving in [True] + [False] * 6:
        gate.moving, gate.same, t = moving, False, t + 0.1
        events += tracker.push(object(), t)
    flagged = [e.tile for e in events if isinstance(e, TilePlayed) and not e.legal]
    assert flagged == (["4-3"] if picture_after == "as_read" else [])


def _cross_of_arms():
    """The spinner 6-6 (from `_three`) with arms 6-2 (above), 6-1 (right), 6-3 (left) and 6-4
    (below), and a 2-5 laid on the 6-2's free 2."""
    spinner, arm, second = _three()
    left = _det([[280, 320], [280, 280], [200, 280], [200, 320]], (6, 3))
    below = _det([[280, 340], [320, 340], [320, 420], [280, 420]], (6, 4))
    beyond = _det([[320, 180], [280, 180], [280, 100], [320, 100]], (2, 5))
    return spinner, arm, second, left, below, beyond


def _flag_while_an_arm_is_unread(below_laid_before: bool, closer=None):
    """Arms laid one by one; the 6-4 lies on the table (when `below_laid_before`) but the
    reader misses it; then the 2-5 is laid and flagged (the spinner seems to need an arm).
    `closer`: what the reader finds when it looks closer (by default it cannot)."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second, left, below, beyond = _cross_of_arms()
    seen = [spinner, arm, second, left]
    drawn = seen + ([below] if below_laid_before else [])
    events = _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm]),
                             ([spinner, arm, second], [spinner, arm, second]), (seen, seen),
                             (seen + [beyond], drawn + [beyond])], pictures=True,
                   closer=None if closer is None else closer(seen, below, beyond))
    return tracker, events, below


def test_an_arm_the_whole_frame_missed_is_found_on_a_closer_look_before_a_play_is_flagged():
    tracker, events, _ = _flag_while_an_arm_is_unread(True, closer=lambda seen, below, beyond: seen + [below])
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)][-2:] == [("6-4", True), ("5-2", True)]
    assert any("closer look" in e.message for e in events if e.kind == "notice")
    assert not tracker.current.illegal
    # (after a look at the flagged tile's own place, which reads it alike) a look around the spinner
    assert any(centre == pytest.approx((300, 300)) and reach == pytest.approx(160)
               for centre, reach in tracker.detector.looks)


def test_a_tile_found_on_a_closer_look_while_another_is_judged_is_not_played_twice():
    """A 3-4 laid against the 6-2's 2 (illegal whichever way) and the missing arm 6-4 are read
    in the same frames, the 3-4 first; the closer look before the 3-4's flag finds the 6-4 and
    plays it. The 6-4 of the whole frame's readings must not then be judged again (in a fresh
    rendered double-15 round, a 9-7 found so was judged a second time, flagged "player 3 does
    not hold 9-7", and its legal place on the board lost)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second, left, below, _ = _cross_of_arms()
    seen = [spinner, arm, second, left]
    stray = _det([[320, 180], [280, 180], [280, 100], [320, 100]], (3, 4))
    events = _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm]),
                             ([spinner, arm, second], [spinner, arm, second]), (seen, seen),
                             (seen + [stray, below], seen + [stray, below])], pictures=True,
                   closer=seen + [stray, below])
    plays = [(e.tile, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)][3:]
    assert plays == [("6-4", True, None), ("4-3", False, "ends_do_not_match")]
    assert tracker.board[Tile(6, 4)].status == "legal"


def _play_elsewhere_while_a_misread_double_waits(closer_reads_it_as):
    """All four arms down, the 2-5 laid on the 6-2's 2 read 2-2 in every frame (a chickie now
    waiting for toes), then a 1-3 laid on the 6-1's 1; a closer look reads the "2-2" as
    `closer_reads_it_as`. The play events after the arms."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second, left, below, beyond = _cross_of_arms()
    arms = [spinner, arm, second, left, below]
    as_double = _det(beyond.corners, (2, 2))
    elsewhere = _det([[400, 280], [400, 320], [480, 320], [480, 280]], (1, 3))
    closer = arms + [_det(beyond.corners, closer_reads_it_as), elsewhere]
    events = _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm]),
                             ([spinner, arm, second], [spinner, arm, second]),
                             (arms[:4], arms[:4]), (arms, arms),
                             (arms + [as_double], arms + [beyond]),
                             (arms + [as_double, elsewhere], arms + [beyond, elsewhere])],
                   pictures=True, closer=closer)
    return tracker, [e for e in events if e.kind in ("tile_played", "play_corrected")][4:]


def test_a_double_waiting_for_toes_that_a_closer_look_reads_as_another_tile_is_corrected_before_a_play_elsewhere_is_flagged():
    """A 5-4 laid on a 4-3 read 4-4 in every frame made a chickie; the next play elsewhere was
    flagged for leaving it without toes (in a fresh rendered double-15 round). Before that flag, a
    closer look at the double reads 5-4: the play is corrected and the play elsewhere is legal."""
    tracker, events = _play_elsewhere_while_a_misread_double_waits((2, 5))
    assert [(e.kind, e.tile, getattr(e, "legal", None)) for e in events] == [
        ("tile_played", "2-2", True), ("play_corrected", "5-2", None), ("tile_played", "5-2", True),
        ("tile_played", "3-1", True)]
    assert not tracker.current.illegal


def test_a_double_waiting_for_toes_that_a_closer_look_reads_alike_keeps_the_flag():
    tracker, events = _play_elsewhere_while_a_misread_double_waits((2, 2))
    assert [(e.tile, e.legal, e.rule) for e in events] == [
        ("2-2", True, None), ("3-1", False, "chickie_unfinished")]


@pytest.mark.parametrize("gate", [_Still, _SameAsRead])
def test_a_refused_play_read_as_a_tile_lying_elsewhere_is_flagged_as_the_tile_that_fits_its_end(gate):
    """With two spinner arms down, a 2-5 laid on the 6-2's free 2 (the spinner still needs
    arms) is read 2-6 in every reading: that is the 6-2 arm, lying in its own place. One pip
    away, only 2-5 is off the board and fits the open 2; the engine refuses it for the moment's
    rule alone, and it is flagged as a 2-5. With only readings the engine accepts considered, the
    play goes unflagged (a planted 14-7 read 15-7 in a rendered round did). The same
    with a gate that reuses a still frame's reading: the flag still waits for its runs."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=gate())
    spinner, arm, second, _, _, beyond = _cross_of_arms()
    misread = _det(beyond.corners, (2, 6))
    events = _feed(tracker, [[spinner], [spinner, arm], [spinner, arm, second],
                             [spinner, arm, second, misread]], repeat=6)
    plays = [(e.tile, e.on, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)]
    assert plays[2:] == [("5-2", "6-2", False, "spinner_arms_unfinished")]


def _double_across_the_arm_read_as(pips, closer=None, then=None):
    """All four arms down, then a 2-2 laid across the 6-2's free 2 end, read `pips`; `closer`:
    what a closer look reads there (by default the reader cannot look); `then`: what the whole
    frame reads there in a later still stretch. The tracker and the events after the arms."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second, left, below, _ = _cross_of_arms()
    arms = [spinner, arm, second, left, below]
    double = _tile_at(300, 160, (2, 2), vertical=False)
    read = _det(double.corners, pips)
    scenes = [([spinner], [spinner]), ([spinner, arm], [spinner, arm]),
              ([spinner, arm, second], [spinner, arm, second]), (arms[:4], arms[:4]), (arms, arms),
              (arms + [read], arms + [double])]
    if then is not None:
        scenes.append((arms + [_det(double.corners, then)], arms + [double]))
    events = _feed(tracker, scenes, pictures=True, closer=None if closer is None else arms + [closer])
    return tracker, [e for e in events if e.kind in ("tile_played", "notice", "board_disturbed")][4:]


def test_a_tile_that_touches_nothing_as_read_is_the_tile_a_closer_look_reads_there_where_the_rules_accept_it():
    """A 0-0 laid across a 5-0's free end read 2-0: a 2-0 lying across the end touches nothing it
    could go on, so it was set apart; the closer look read 0-0 at 0.96, and the real 2-0, laid on
    the 0-0 later, could not be played (in a fresh rendered double-6 round: recall 0.52, 7 false flags)."""
    tracker, events = _double_across_the_arm_read_as((2, 5), closer=_tile_at(300, 160, (2, 2), vertical=False))
    assert [(e.kind, getattr(e, "tile", None)) for e in events] == [("notice", None), ("tile_played", "2-2")]
    assert events[0].message == "5-2 was 2-2 misread: a closer look reads 2-2 there"
    assert events[1].legal and events[1].on == "6-2" and Tile(5, 2) not in tracker.board


def test_a_tile_that_touches_nothing_and_reads_alike_closer_is_set_apart():
    tracker, events = _double_across_the_arm_read_as((2, 5), closer=_det(_tile_at(300, 160, (2, 2), vertical=False).corners, (2, 5)))
    assert [(e.kind, getattr(e, "loose", None)) for e in events] == [("board_disturbed", ["5-2"])]
    assert tracker.board[Tile(5, 2)].status == "loose"


def test_a_tile_set_apart_is_forgotten_when_a_tile_is_played_in_its_very_place():
    """Tiles do not overlap: a tile set apart where a tile is later played was that tile misread."""
    tracker, events = _double_across_the_arm_read_as((2, 5), then=(2, 2))
    assert [(e.kind, getattr(e, "tile", None)) for e in events] == [("board_disturbed", None), ("tile_played", "2-2")]
    assert Tile(5, 2) not in tracker.board and tracker.board[Tile(2, 2)].status == "legal"


def test_a_tile_set_apart_is_forgotten_when_a_closer_look_plays_a_tile_in_its_very_place():
    """The 2-2 across the 6-2's end, read 5-2, was set apart (the reader could not look closer
    then); a 3-2 laid on the double touches nothing on the layout, and the closer look around it
    finds the 2-2 and plays it: the 5-2 set apart at that very place was the 2-2 misread, and a set
    holds one 2-2, so it goes."""
    tracker, _ = _double_across_the_arm_read_as((2, 5))
    assert tracker.board[Tile(5, 2)].status == "loose"
    spinner, arm, second, left, below, _ = _cross_of_arms()
    arms = [spinner, arm, second, left, below]
    double = _tile_at(300, 160, (2, 2), vertical=False)
    toe = _tile_at(300, 100, (3, 2))  # its 2 end against the double's long side
    events = _feed(tracker, [(arms + [_det(double.corners, (2, 5)), toe], arms + [double, toe])], pictures=True,
                   closer=arms + [double, toe])
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("2-2", True), ("3-2", True)]
    assert Tile(5, 2) not in tracker.board


def test_a_closer_look_that_finds_no_missing_arm_leaves_the_flag():
    tracker, events, _ = _flag_while_an_arm_is_unread(False, closer=lambda seen, below, beyond: seen + [beyond])
    assert tracker.detector.looks
    assert [(e.tile, e.rule) for e in events if isinstance(e, TilePlayed) and not e.legal] == [
        ("5-2", "spinner_arms_unfinished")]


def test_a_tile_found_on_a_closer_look_that_cannot_go_on_the_waiting_double_is_not_played():
    # the closer look reads the missing arm as a 3-4, which has no 6 for the spinner
    def misread(seen, below, beyond):
        return seen + [_det(below.corners, (3, 4))]

    tracker, events, _ = _flag_while_an_arm_is_unread(True, closer=misread)
    assert Tile(3, 4) not in tracker.board
    assert [(e.tile, e.rule) for e in events if isinstance(e, TilePlayed) and not e.legal] == [
        ("5-2", "spinner_arms_unfinished")]


def test_a_flag_for_an_unfinished_spinner_is_withdrawn_when_the_missing_arm_lay_there_already():
    from vision.tracking import FlagWithdrawn
    from vision.tracking.geometry import pose_from_detection

    tracker, events, below = _flag_while_an_arm_is_unread(below_laid_before=True)
    assert [(e.tile, e.rule) for e in events if isinstance(e, TilePlayed) and not e.legal] == [
        ("5-2", "spinner_arms_unfinished")]
    # the reader finds the 6-4 at last (a hand no longer shading it)
    events = tracker._place([(Tile(6, 4), pose_from_detection(below), tracker.window[-1])])
    assert [e.tile for e in events if isinstance(e, FlagWithdrawn)] == ["5-2"]
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-4", True), ("5-2", True)]
    assert tracker.board[Tile(5, 2)].status == "legal"


def test_a_flag_for_an_unfinished_spinner_stays_when_the_arm_was_laid_after_the_play():
    from vision.tracking.geometry import pose_from_detection

    tracker, _, below = _flag_while_an_arm_is_unread(below_laid_before=False)
    obs = tracker.window[-1]
    obs.image = _picture([*_cross_of_arms()])  # the 6-4 is there now, but was not at the flag
    events = tracker._place([(Tile(6, 4), pose_from_detection(below), obs)])
    assert not [e for e in events if e.kind == "flag_withdrawn"]
    # the table kept the 5-2 as the 6-4 was laid: in the round as it lies, still flagged
    assert tracker.board[Tile(5, 2)].stood and tracker.state.illegal_on_table == ["5-2"]
    assert tracker.current.illegal[0]["rule"] == "spinner_arms_unfinished"


def _plays_with_a_second_box_on_the_6_1(ghost_pips: tuple[int, int]) -> list[TilePlayed]:
    """The 6-1 laid against the spinner, read in every picture together with a second box 8 px
    off it that reads `ghost_pips`: the plays the tracker reports."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second = _three()
    _feed(tracker, [[spinner], [spinner, arm]])
    ghost = _det(second.corners + np.array([8.0, 0.0], np.float32), ghost_pips)
    events = _feed(tracker, [[spinner, arm, second, ghost]])
    return [e for e in events if isinstance(e, TilePlayed)]


def test_a_second_box_naming_a_tile_that_lies_elsewhere_does_not_outvote_the_new_tile():
    """One tile boxed twice, the second box taking in a neighbour's end and reading as a tile
    already on the board (and seen in its own place in the same reading): a set holds each
    tile once, so that reading is impossible and the new tile is played at once."""
    plays = _plays_with_a_second_box_on_the_6_1((6, 2))
    assert [(p.tile, p.on, p.legal) for p in plays] == [("6-1", "6-6", True)]


def test_a_flagged_play_the_table_built_on_past_a_waiting_spinner_is_made_plain_when_the_missed_arm_turns_up():
    """The 5-2 is flagged (the spinner seems to wait for an arm the reader missed) and the next
    player lays a 5-1 on it: the table kept the 5-2 and went on without feeding the spinner, so
    the 5-1 is judged on that table (legal), not flagged for the same waiting spinner. When the
    reader finds the 6-4 at last, lying there since before the flag, the 5-2 was legal all along."""
    from vision.tracking import FlagWithdrawn
    from vision.tracking.geometry import pose_from_detection

    tracker, events, below = _flag_while_an_arm_is_unread(below_laid_before=True)
    spinner, arm, second, left, _, beyond = _cross_of_arms()
    on_top = _det([[320, 100], [280, 100], [280, 20], [320, 20]], (5, 1))  # its 5 against the 2-5's 5
    seen = [spinner, arm, second, left, beyond]
    events = _feed(tracker, [(seen + [on_top], seen + [below, on_top])], pictures=True)
    assert [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)] == [("5-1", "5-2", True)]
    assert tracker.board[Tile(5, 2)].stood and [f["rule"] for f in tracker.current.illegal] == [
        "spinner_arms_unfinished"]
    events = tracker._place([(Tile(6, 4), pose_from_detection(below), tracker.window[-1])])
    assert [e.tile for e in events if isinstance(e, FlagWithdrawn)] == ["5-2"]
    assert [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)] == [
        ("6-4", "6-6", True), ("5-2", "6-2", True)]
    assert not tracker.board[Tile(5, 2)].stood and tracker.board[Tile(5, 1)].status == "legal"
    assert not any(p.stood for p in tracker.current.referee.plays)


def test_tiles_found_in_one_still_stretch_go_in_the_order_the_rules_accept():
    """The 2-5 is read a few frames before the spinner's fourth arm, with no hand between: that
    is reading luck, not the order of play, and the order in which both plays are legal wins."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second, left, below, beyond = _cross_of_arms()
    seen = [spinner, arm, second, left]
    _feed(tracker, [seen[:1], seen[:2], seen[:3], seen])
    events = []
    for k, dets in enumerate([seen + [beyond]] * 3 + [seen + [beyond, below]] * 6):
        tracker.gate.moving = k == 0
        tracker.detector = lambda _f, d=dets: list(d)
        events.extend(tracker.push(object(), 10.0 + k / 10))
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-4", True), ("5-2", True)]


def test_a_tile_boxed_twice_is_taken_as_the_reading_the_rules_accept_there():
    """The reader boxes one place twice in every picture, as the 6-1 and as a 5-3 (the second
    box taking in part of a neighbour): reading again would not settle it, and only the 6-1
    can lie there, so it is played at once."""
    plays = _plays_with_a_second_box_on_the_6_1((5, 3))
    assert [(p.tile, p.on, p.legal) for p in plays] == [("6-1", "6-6", True)]


def test_a_second_box_half_over_a_tile_just_played_is_not_set_down_as_a_loose_tile():
    import cv2

    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second = _three()
    _feed(tracker, [[spinner], [spinner, arm]])
    c = second.corners.mean(0) + np.array([36.0, 14.0])
    ghost = _det(cv2.boxPoints(((float(c[0]), float(c[1])), (70.0, 34.0), 30.0)), (5, 3))
    events = _feed(tracker, [[spinner, arm, second, ghost]])
    assert [(e.kind, getattr(e, "tile", None)) for e in events] == [("tile_played", "6-1")]
    assert Tile(5, 3) not in tracker.board


def test_a_tile_once_read_apart_from_the_layout_is_played_when_read_where_it_can_go():
    """A reading set down as loose (a stray box, a misread) must not keep the tile of that
    name from being played later: the set has one, and play goes on in the layout."""
    from vision.tracking.board import BoardTile
    from vision.tracking.geometry import pose_from_detection

    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second, left, _, _ = _cross_of_arms()
    _feed(tracker, [[spinner], [spinner, arm], [spinner, arm, second]])
    stray = pose_from_detection(_tile_at(900, 600, (6, 3)))
    tracker.board[Tile(6, 3)] = BoardTile(Tile(6, 3), stray, "loose", None, None, None, 0)
    events = _feed(tracker, [[spinner, arm, second, left]])
    assert [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-3", "6-6", True)]


def test_a_closer_look_reads_a_crowded_chickie_toe_in_the_frame_s_coordinates():
    """On a rendered double-15 table, the 11-2 laid as a 2-2 chickie's third toe (~40 px
    long, crowded by the other toes) is read by a closer look around the chickie, where it
    lies in the frame."""
    from lab.synth.sequence import SequenceRenderer
    from vision.recognize import Recognizer
    from vision.tracking.tracker import RecognizerDetector

    plan = plan_sequence(sequence_rng(1, 15), (1280, 720), 15)
    frame = plan.frames[1200]
    truth = {t.name: plan.image_corners(t.id, frame.camera) for t in plan.tiles if t.id in frame.tiles}
    image = SequenceRenderer(plan).frame(1200)
    chickie = truth["2-2"]
    reader = RecognizerDetector(Recognizer(), 15)
    length = float(np.linalg.norm(chickie[0] - chickie[3]))
    found = reader.look_closer(image, chickie.mean(0), 2 * length)
    toe = [d for d in found if np.hypot(*(np.mean(d.corners, 0) - truth["11-2"].mean(0))) < 0.25 * length]
    assert [Tile(*d.pips) for d in toe] == [Tile(11, 2)]
    assert all(0 <= x < 1280 and 0 <= y < 720 for d in found for x, y in d.corners)


def _laid_beyond_a_misread_arm(closer_reads_arm_as, end_for_end=False):
    """The cross of arms, the upper arm (truly 6-5) read as 6-2 in every whole frame; then a 5-0
    laid on its free end. `closer_reads_arm_as`: the arm's reading on a closer look (naming its
    ends the other way round with `end_for_end`)."""
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second, left, below, beyond = _cross_of_arms()
    beyond = _det(beyond.corners, (5, 0))
    arms = [spinner, arm, second, left, below]
    reread = _det(np.roll(arm.corners, 2, axis=0), closer_reads_arm_as[::-1]) if end_for_end \
        else _det(arm.corners, closer_reads_arm_as)
    closer = [d for d in arms if d is not arm] + [reread, beyond]
    events = _feed(tracker, [([spinner], [spinner]), (arms, arms), (arms + [beyond], arms + [beyond])],
                   pictures=True, closer=closer)
    return tracker, events


def test_a_tile_misread_the_same_way_in_every_frame_is_corrected_when_a_closer_look_reads_what_the_next_play_needs():
    from vision.tracking import PlayCorrected

    tracker, events = _laid_beyond_a_misread_arm((6, 5))
    fixed = [e for e in events if isinstance(e, PlayCorrected)]
    assert [(e.read_as, e.tile) for e in fixed] == [("6-2", "6-5")]
    assert [(e.tile, e.legal, e.on) for e in events if isinstance(e, TilePlayed)][-2:] == [
        ("6-5", True, "6-6"), ("5-0", True, "6-5")]
    assert Tile(6, 2) not in tracker.board and tracker.board[Tile(6, 5)].status == "legal"
    assert [p.tile for p in tracker.current.referee.plays].count(Tile(6, 5)) == 1
    assert not tracker.current.illegal


def test_a_closer_look_read_either_way_round_corrects_the_tile_end_for_end():
    # the closer look names the ends the other way round (5 first): the 6 still touches the spinner
    tracker, events = _laid_beyond_a_misread_arm((6, 5), end_for_end=True)
    assert tracker.board[Tile(6, 5)].pose.pips == (6, 5)
    assert not tracker.current.illegal


def test_a_closer_look_that_reads_the_end_against_the_parent_differently_corrects_nothing():
    # 5 against the spinner's 6 and 6 free: not how the arm could have been accepted
    tracker, events = _laid_beyond_a_misread_arm((5, 6))
    assert Tile(6, 2) in tracker.board and Tile(6, 5) not in tracker.board
    assert [e.rule for e in events if isinstance(e, TilePlayed) and not e.legal] == ["ends_do_not_match"]


def test_a_play_that_does_not_match_stays_flagged_when_a_closer_look_reads_the_tile_it_lies_against_alike():
    tracker, events = _laid_beyond_a_misread_arm((6, 2))
    assert not [e for e in events if e.kind == "play_corrected"]
    assert [(e.tile, e.rule) for e in events if isinstance(e, TilePlayed) and not e.legal] == [
        ("5-0", "ends_do_not_match")]


def test_a_double_missed_across_an_arm_is_found_on_a_closer_look_at_the_toe_laid_on_it():
    # the cross of arms, a 2-2 laid across the upper arm's free 2 that the whole frame never shows,
    # then a 2-5 laid straight on the 2-2
    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, second, left, below, _ = _cross_of_arms()
    arms = [spinner, arm, second, left, below]
    across = _tile_at(300, 160, (2, 2), vertical=False)
    toe = _det(np.roll(_tile_at(300, 100, (2, 5)).corners, 2, axis=0), (2, 5))
    events = _feed(tracker, [([spinner], [spinner]), (arms, arms), (arms + [toe], arms + [across, toe])],
                   pictures=True, closer=arms + [across, toe])
    assert [(e.tile, e.legal, e.on) for e in events if isinstance(e, TilePlayed)][-2:] == [
        ("2-2", True, "6-2"), ("5-2", True, "2-2")]
    assert any("closer look" in e.message for e in events if e.kind == "notice")


def test_a_play_the_tracker_corrected_later_counts_as_the_tile_it_was_corrected_to():
    from lab.tracking_eval import RunResult
    from vision.tracking import PlayCorrected

    plan = _plan(0)
    legal = [gt for gt in plan.plays() if not gt.planted]
    events = [TilePlayed(gt.frame + 5, 0.0, gt.tile, gt.player, gt.on, None, None) for gt in legal]
    first = events[1]
    played = {gt.tile for gt in plan.plays()}
    misread = next(str(t) for t in full_set(6) if str(t) not in played)  # what the reader said at first
    events[1] = TilePlayed(first.frame, 0.0, misread, first.player, first.on, None, None)
    events += [PlayCorrected(first.frame + 30, 0.0, first.tile, misread, "corrected"), first]
    tally = Tally()
    tally.add(RunResult(plan, events, len(plan.frames), 0, 1.0, "test"))
    s = tally.summary()
    assert s["plays_corrected_later"] == 1
    assert s["tracker_plays"] == len(legal) and s["play_precision"] == 1.0
    assert s["false_flags"] == 0


def test_a_play_moved_onto_a_double_found_later_counts_where_it_lies_now():
    """A tile corrected to itself (moved onto a double the reader never saw) is shown again after
    the correction with its first frame: that showing counts, with its new parent; the first does
    not."""
    from lab.tracking_eval import RunResult
    from vision.tracking import PlayCorrected

    plan = _plan(0)
    legal = [gt for gt in plan.plays() if not gt.planted]
    events = [TilePlayed(gt.frame + 5, 0.0, gt.tile, gt.player, gt.on, None, None) for gt in legal]
    moved = events[1]
    events[1] = TilePlayed(moved.frame, 0.0, moved.tile, moved.player, "somewhere else", None, None)
    events += [PlayCorrected(moved.frame + 30, 0.0, moved.tile, moved.tile, "moved"), moved]
    tally = Tally()
    tally.add(RunResult(plan, events, len(plan.frames), 0, 1.0, "test"))
    s = tally.summary()
    assert s["plays_corrected_later"] == 1 and s["tracker_plays"] == len(legal)
    assert s["play_precision"] == 1.0 and s["attachment_correct"] == 1.0


def test_a_play_seen_after_its_tile_was_laid_again_matches_the_later_laying():
    """A planted 6-5 (frame 238) is taken back and laid again legally (frame 274). A tracker that
    missed the planted one and saw the legal one missed one play, the planted one; matching the
    legal sighting to the planted laying (within its 200 frames) called it unflagged and the
    legal play missed."""
    from lab.tracking_eval import RunResult

    plan = _plan(0)
    assert [(gt.frame, bool(gt.planted)) for gt in plan.plays() if gt.tile == "6-5"] == [(238, True), (274, False)]
    legal = [gt for gt in plan.plays() if not gt.planted]
    events = [TilePlayed(gt.frame + 5, 0.0, gt.tile, gt.player, gt.on, None, None) for gt in legal]
    tally = Tally()
    tally.add(RunResult(plan, events, len(plan.frames), 0, 1.0, "test"))
    assert not tally.unflagged and not tally.extras
    assert [m["tile"] for m in tally.misses] == [gt.tile for gt in plan.plays() if gt.planted]
    assert tally.matched == len(legal)


def test_a_closer_look_at_one_place_of_the_same_readings_is_made_once():
    """A tile left undecided comes back at every still frame, and still frames reuse one reading:
    its closer look is not made again until a new reading brings a new picture."""
    from vision.tracking.board import Observation
    from vision.tracking.geometry import pose_from_detection

    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner = _tile_at(300, 300, (6, 6))
    tracker.detector = reader = _CloserReader([spinner], [spinner])
    image = _picture([spinner])
    pose = pose_from_detection(spinner)
    tracker.window = [Observation(k, k / 10, [pose], image, read=1) for k in range(3)]
    first = tracker._closer_looks(pose)
    assert tracker._closer_looks(pose) == first and len(reader.looks) == 1
    tracker.window.append(Observation(3, 0.3, [pose], image, read=2))
    tracker._closer_looks(pose)
    assert len(reader.looks) == 3  # the two latest readings' pictures, read afresh



def test_closer_looks_are_made_at_a_few_places_per_still_stretch():
    """On a far, flat view a dozen tiles can touch nothing at once, each worth a look around: the
    tracker looks at a few places per still stretch, not at all of them at every play."""
    from vision.tracking.tracker import CLOSE_LOOK_PLACES

    cfg = GameConfig(2, 6, HouseRules())
    tracker = Tracker(cfg, gate=_Still())
    spinner, arm, _ = _three()
    apart = [_tile_at(100 + 60 * k, 600, pips) for k, pips in enumerate([(0, 0), (1, 0), (2, 0), (3, 0), (4, 0),
                                                                         (5, 0), (1, 1), (2, 1)])]
    scenes = [([spinner], [spinner]), ([spinner, arm] + apart, [spinner, arm] + apart)]
    _feed(tracker, scenes, pictures=True, closer=[])
    looks = tracker.detector.looks
    assert 0 < len({centre for centre, _ in looks}) <= CLOSE_LOOK_PLACES
    _feed(tracker, [([spinner, arm] + apart, [spinner, arm] + apart)], pictures=True, closer=[])
    assert len(tracker.detector.looks) <= 2 * CLOSE_LOOK_PLACES  # the next still stretch has its own few


def _arm_read_as(pips, second=()):
    """The `_three` arm (a 6-2 above the spinner, its 6 end down) as the reader gives it."""
    _, arm, _ = _three()
    d = _det(arm.corners, pips)
    d.second_readings = list(second)
    return d


def _arm_read_sure_later(first):
    """A tracker that played the `_three` arm as the reader first gave it (`first`, drawn as the
    6-2 it is), then read eight still frames in which every reading is the 6-2, sure: the tracker,
    the play events of the first stretch and the events of the later one."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, _ = _three()
    played = _feed(tracker, [([spinner], [spinner]), ([spinner, first], [spinner, arm])], pictures=True)
    later = _feed(tracker, [([spinner, arm], [spinner, arm])], repeat=8, pictures=True)
    return tracker, [(e.tile, e.legal) for e in played if isinstance(e, TilePlayed)], later


def test_a_play_read_unsure_is_corrected_when_every_later_reading_of_its_unchanged_place_is_sure_of_another_tile():
    """A 6-2 first read 6-4 with 6-2 a close second is taken as 6-4; once every reading of the
    same picture reads 6-2, sure, the first reading was the misread: the play is corrected."""
    tracker, played, events = _arm_read_sure_later(_arm_read_as((6, 4), [((6, 2), 0.1)]))
    assert played == [("6-4", True)]
    assert [(e.tile, e.read_as) for e in events if e.kind == "play_corrected"] == [("6-2", "6-4")]
    assert [(e.tile, e.on) for e in events if isinstance(e, TilePlayed)] == [("6-2", "6-6")]
    assert Tile(6, 2) in tracker.board and Tile(6, 4) not in tracker.board
    assert tracker.state.plays == 1


def test_a_play_taken_from_the_reader_s_second_reading_is_corrected_by_later_sure_readings_of_its_place():
    """The arm first read 5-2 (no 6 against the spinner) with 6-4 a close second is taken as 6-4,
    the reading the rules accept; that choice was unsure, so when every later reading of the same
    picture reads 6-2, sure, the play is corrected. (A 13-7 read 1-5 in a box taking in a
    neighbour, taken as 13-1, kept a rendered double-15 round from seeing the chickie on its 7.)"""
    tracker, played, events = _arm_read_sure_later(_arm_read_as((5, 2), [((6, 4), 0.1)]))
    assert played == [("6-4", True)]
    assert [(e.tile, e.read_as) for e in events if e.kind == "play_corrected"] == [("6-2", "6-4")]
    assert Tile(6, 2) in tracker.board and Tile(6, 4) not in tracker.board


def test_a_play_boxed_with_part_of_a_neighbour_is_corrected_by_later_sure_readings_of_its_place():
    """A box half again as long as the tile took in part of what lies beyond it; its reading, 6-4,
    sure as it was, is corrected when every later, tile-sized box there reads 6-2, sure."""
    long_box = _arm_read_as((6, 4))
    long_box.corners[2:, 1] -= 40  # its far end reaches 40 px beyond the tile's
    tracker, played, events = _arm_read_sure_later(long_box)
    assert played == [("6-4", True)]
    assert [(e.tile, e.read_as) for e in events if e.kind == "play_corrected"] == [("6-2", "6-4")]
    assert Tile(6, 2) in tracker.board and Tile(6, 4) not in tracker.board


def test_a_play_read_sure_is_not_corrected_by_later_readings_of_another_tile_at_its_place():
    tracker, _, events = _arm_read_sure_later(_arm_read_as((6, 4)))
    assert not [e for e in events if e.kind in ("play_corrected", "tile_played", "tile_taken_back")]
    assert Tile(6, 4) in tracker.board and Tile(6, 2) not in tracker.board


def test_a_new_tile_that_would_be_flagged_is_the_tile_a_closer_look_reads_at_its_place():
    """The arm 6-2 read 5-2 in every whole frame (no 6 against the spinner: illegal); both closer
    looks read 6-2 there, so 6-2 is played and nothing is flagged."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, _ = _three()
    misread = _arm_read_as((5, 2))
    events = _feed(tracker, [([spinner], [spinner]), ([spinner, misread], [spinner, arm])], pictures=True,
                   closer=[spinner, arm])
    assert [(e.tile, e.legal, e.on) for e in events if isinstance(e, TilePlayed)] == [("6-2", True, "6-6")]
    assert [e.message for e in events if e.kind == "notice"] == ["5-2 was 6-2 misread: a closer look reads 6-2 there"]
    assert not tracker.current.illegal


def test_a_new_tile_a_closer_look_reads_alike_is_flagged_as_read():
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, _ = _three()
    misread = _arm_read_as((5, 2))
    events = _feed(tracker, [([spinner], [spinner]), ([spinner, misread], [spinner, arm])], pictures=True,
                   closer=[spinner, misread])
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("5-2", False)]


def test_a_tile_laid_on_a_flagged_tile_the_table_kept_is_judged_on_its_own_merits():
    """The rules allow a play to be taken back only before the next play. A 5-4 laid with its 5
    against the 6-2's 2 is flagged; nobody takes it back, and the next player lays a 4-1 on its
    4. The table kept the 5-4, so the round goes on from it: the 4-1 matches and is legal, not
    flagged as laid against a tile that is not part of the layout (one misread used to flag a
    whole arm, one tile after another)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second, left, below, _ = _cross_of_arms()
    cross = [spinner, arm, second, left, below]
    wrong = _det([[320, 180], [280, 180], [280, 100], [320, 100]], (5, 4))
    beyond = _det([[320, 100], [280, 100], [280, 20], [320, 20]], (4, 1))
    events = _feed(tracker, [[spinner], cross[:2], cross[:3], cross[:4], cross, cross + [wrong],
                             cross + [wrong, beyond]])
    plays = [(e.tile, e.on, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)][4:]
    assert plays == [("5-4", "6-2", False, "ends_do_not_match"), ("4-1", "5-4", True, None)]
    assert tracker.board[Tile(5, 4)].stood and tracker.state.illegal_on_table == ["5-4"]
    stood = [p for p in tracker.current.referee.plays if p.stood]
    assert [(p.tile, p.on) for p in stood] == [(Tile(5, 4), Tile(6, 2))]
    assert tracker.current.illegal[0]["rule"] == "ends_do_not_match"


def test_a_flagged_tile_nobody_builds_on_stays_out_of_the_round():
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second, left, below, _ = _cross_of_arms()
    cross = [spinner, arm, second, left, below]
    wrong = _det([[320, 180], [280, 180], [280, 100], [320, 100]], (5, 4))
    _feed(tracker, [[spinner], cross[:2], cross[:3], cross[:4], cross, cross + [wrong]])
    assert tracker.board[Tile(5, 4)].status == "illegal" and not tracker.board[Tile(5, 4)].stood
    assert Tile(5, 4) not in [p.tile for p in tracker.current.referee.plays]


def test_the_next_play_elsewhere_past_a_kept_flag_for_a_waiting_spinner_is_not_flagged_again():
    """The 5-2 is flagged while the spinner seems to wait for an arm (the reader missed the 6-4);
    nobody takes it back, and the next player lays a 1-3 on the 6-1. The table went on without
    feeding the spinner: one flag, not one for every play until the reader finds the arm."""
    tracker, _, below = _flag_while_an_arm_is_unread(below_laid_before=True)
    spinner, arm, second, left, _, beyond = _cross_of_arms()
    nxt = _det([[400, 280], [400, 320], [480, 320], [480, 280]], (1, 3))
    seen = [spinner, arm, second, left, beyond]
    events = _feed(tracker, [(seen + [nxt], seen + [below, nxt])], pictures=True)
    assert [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)] == [("3-1", "6-1", True)]
    assert tracker.board[Tile(5, 2)].stood and len(tracker.current.illegal) == 1
    assert [p.waived for p in tracker.current.referee.plays if p.tile == Tile(5, 2)] == [True]


def test_a_tile_read_together_with_the_flagged_tile_it_lies_on_is_judged_on_its_own_merits():
    """A hand hid the table while the 5-4 (its 5 against the 6-2's 2) and the 4-1 on its 4 were
    laid, so both are read in the same pictures: the 4-1 was laid on the 5-4, so the table kept it."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second, left, below, _ = _cross_of_arms()
    cross = [spinner, arm, second, left, below]
    wrong = _det([[320, 180], [280, 180], [280, 100], [320, 100]], (5, 4))
    beyond = _det([[320, 100], [280, 100], [280, 20], [320, 20]], (4, 1))
    events = _feed(tracker, [[spinner], cross[:2], cross[:3], cross[:4], cross, cross + [wrong, beyond]])
    plays = [(e.tile, e.on, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)][4:]
    assert plays == [("5-4", "6-2", False, "ends_do_not_match"), ("4-1", "5-4", True, None)]
    assert tracker.board[Tile(5, 4)].stood


def _chickie_and_a_tile_read_late(laid_before_the_double: bool):
    """Four arms on the spinner; a 2-5 is laid on the 6-2's 2 (when `laid_before_the_double`,
    before the 1-1 chickie on the 6-1's 1, the reader never reading it the same way twice then)
    but the reader reads it only after the chickie."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, second, left, below, beyond = _cross_of_arms()
    chickie = _tile_at(420, 300, (1, 1))
    arms = [spinner, arm, second, left, below]
    late = [beyond] if laid_before_the_double else []
    events = _feed(tracker, [([spinner], [spinner]), ([spinner, arm], [spinner, arm]),
                             ([spinner, arm, second], [spinner, arm, second]), (arms[:4], arms[:4]), (arms, arms)],
                   pictures=True)
    # the 2-5 read a different way in each frame (or not at all), so never played
    readings = iter([[_det(beyond.corners, pips)] if laid_before_the_double else [] for pips in
                     ((2, 5), (2, 4), (3, 5), (1, 5), (2, 3), (4, 5))])
    frame, t = _picture(arms + late), 10.0
    for k in range(6):
        tracker.gate.moving = k == 0
        tracker.detector = lambda _f, extra=next(readings): arms + extra
        events.extend(tracker.push(frame, t + 0.1 * k))
    events += _feed(tracker, [(arms + [chickie], arms + late + [chickie])], pictures=True)
    if not laid_before_the_double:  # laid now, by a hand of its own
        events += _feed(tracker, [(arms + [chickie, beyond], arms + [chickie, beyond])], pictures=True)
    else:  # read at last, the board not touched since the chickie
        frame = _picture(arms + [chickie, beyond])
        tracker.detector = lambda _f: arms + [chickie, beyond]
        for k in range(6):
            events.extend(tracker.push(frame, 20.0 + 0.1 * k))
    return tracker, [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)][4:]


def test_a_tile_read_only_after_the_double_laid_next_but_lying_there_before_it_is_played_before_it():
    """The table showed the 2-5 before the hands that laid the 1-1 came in: it was played first,
    and the 1-1 after it; play elsewhere while the chickie waited it was not (in a rendered double-12
    round, a 12-11 the reader missed for a few frames was flagged so)."""
    tracker, plays = _chickie_and_a_tile_read_late(True)
    assert plays == [("1-1", True), ("5-2", True)]
    assert not tracker.current.illegal
    order = [p.tile for p in tracker.current.referee.plays]
    assert order.index(Tile(2, 5)) < order.index(Tile(1, 1))


def test_a_tile_laid_after_the_double_while_it_waits_for_toes_is_flagged():
    tracker, plays = _chickie_and_a_tile_read_late(False)
    assert plays == [("1-1", True), ("5-2", False)]
    assert tracker.current.illegal[-1]["rule"] == "chickie_unfinished"


def test_a_tile_the_reader_missed_until_the_board_settled_with_it_is_played_when_read_at_an_open_end():
    """The 6-2 laid on the spinner went unread in the frames after it was laid, so the board
    settled with it in the picture; read after the next hand went by, its place looks as it did,
    which the tracker took for a gap between tiles read as a tile. Lying against an open end with
    that end's value, it is a play (in a fresh rendered double-15 round, a 6-11 on an 11-8 went unread
    for the rest of the round, and two tiles played on it with it)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    spinner, arm, _ = _three()
    missed = _feed(tracker, [([spinner], [spinner]), ([spinner], [spinner, arm])], repeat=6, pictures=True)
    assert [e.kind for e in missed] == ["round_started"]
    events = _feed(tracker, [([spinner, arm], [spinner, arm])], repeat=6, pictures=True)
    assert [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)] == [("6-2", "6-6", True)]


def _size_advice(run) -> list:
    return [e for e in run.events if e.kind == "notice" and "bring the camera closer" in e.describe()]


def test_tiles_too_small_to_read_get_advice_once_whatever_the_nudges():
    # a double-15 round filmed from afar: its tiles are about 43 px long, where its 13s, 14s and
    # 15s (rows of five dots) merge into bars (vision.capture); the camera is nudged three times
    run = run_oracle(plan_sequence(sequence_rng(25, 27), (1280, 720), 15), seed=1)
    advice = _size_advice(run)
    assert sum(e.kind == "camera_moved" for e in run.events) >= 2
    assert len(advice) == 1
    assert "double-15" in advice[0].describe()
    plays = [e for e in run.events if e.kind == "tile_played"]
    assert advice[0].frame <= plays[3].frame  # as soon as a few tiles lie there to be measured


def test_tiles_large_enough_to_read_get_no_advice(noisy_runs):
    assert not any(_size_advice(run) for run in noisy_runs)


def _a_line_misread_alike(by_colour: bool):
    """Four arms round a 6-6 spinner; a 2-5 laid on the 6-2 arm's open 2 and a 5-1 on it, both
    read with their 5 as a 3 (sure, and legal so: 2-3, then 3-1 on its 3), and a 1-4 on the 6-1
    arm; then every reading of
    both places reads 2-5 and 5-1, sure, `by_colour` or not (the recognizer's `recoloured` mark: an end
    was read again because its pips' colour is not the first value's, `vision.colour_check`)."""
    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    arms = _four_arms()
    _feed(tracker, [(arms[:k], arms[:k]) for k in range(1, 6)], pictures=True)

    def laid(y, pips, recoloured=False):
        d = _det(np.roll(_tile_at(300, y, pips).corners, 2, axis=0), pips)
        d.recoloured = recoloured
        return d

    first, real = [laid(140, (2, 3)), laid(60, (3, 1))], [laid(140, (2, 5)), laid(60, (5, 1))]
    last = _det([[400, 280], [400, 320], [480, 320], [480, 280]], (1, 4))  # the next play, on the 6-1 arm
    _feed(tracker, [(arms + first[:1], arms + real[:1]), (arms + first, arms + real),
                    (arms + first + [last], arms + real + [last])], pictures=True)
    again = [laid(140, (2, 5), by_colour), laid(60, (5, 1), by_colour), last]
    events = _feed(tracker, [(arms + again, arms + real + [last])], repeat=6, pictures=True)
    return tracker, events


def test_a_line_of_plays_read_again_by_the_colour_of_their_pips_is_corrected_together():
    """Neither correction replays alone (the 5-1 does not lie on a 2-3); both together do."""
    tracker, events = _a_line_misread_alike(by_colour=True)
    kinds = [(e.kind, e.tile) + ((e.on,) if isinstance(e, TilePlayed) else ()) for e in events
             if e.kind in ("tile_played", "play_corrected")]
    assert kinds == [("play_corrected", "5-2"), ("tile_played", "5-2", "6-2"),
                     ("play_corrected", "5-1"), ("tile_played", "5-1", "5-2")], kinds
    assert Tile(2, 3) not in tracker.board and Tile(3, 1) not in tracker.board
    assert not tracker.current.illegal


def test_a_line_of_sure_plays_read_otherwise_later_but_not_by_colour_is_kept():
    """Two sure readings of one place disagree, and nothing in the picture says which is
    right: the plays stay as first read."""
    tracker, events = _a_line_misread_alike(by_colour=False)
    assert not [e for e in events if e.kind in ("tile_played", "play_corrected")]
    assert Tile(2, 3) in tracker.board and Tile(3, 1) in tracker.board


def _small_spinner_with_arms(up_read, scale=1.0):
    """A small 15-15 spinner (40-px tiles, as on a webcam's double-15 table; `scale` times that)
    with its four arms, the one above it read `up_read` (15 end down against the spinner)."""
    spinner = _tile_at(300, 300, (15, 15), w=20)
    up = _det(np.roll(_tile_at(300, 260, up_read, w=20).corners, 2, axis=0), up_read)
    down = _tile_at(300, 340, (15, 3), w=20)
    right = _det([[310, 290], [310, 310], [350, 310], [350, 290]], (15, 1))
    left = _det([[290, 310], [290, 290], [250, 290], [250, 310]], (15, 2))
    return [_det(d.corners * scale, d.pips) for d in (spinner, up, down, right, left)]


def _laid_above_small_arm(up_read, laid, elsewhere=(), scale=1.0):
    """The tracker's events as a tile read `laid` (its second end down against the arm's outer
    end) is laid on the arm above the spinner, with `elsewhere` tiles on the table before it."""
    tracker = Tracker(GameConfig(2, 15, HouseRules()), gate=_Still())
    board = _small_spinner_with_arms(up_read, scale) + list(elsewhere)
    _feed(tracker, [board[:1], board[:5], board])
    nxt = _tile_at(300, 220, laid, w=20)
    return tracker, _feed(tracker, [board + [_det(nxt.corners * scale, laid)]])


def _plays(events):
    return [(e.tile, e.on, e.legal) for e in events if isinstance(e, TilePlayed)]


def test_a_dense_end_laid_against_a_neighbouring_dense_value_corrects_the_tile_that_showed_it():
    """15-13 read 15-14 (a 13 read as a 14 on a small tile, sure and wrong) is played; the 13-2
    laid against its outer end says that end was a 13: the play is corrected, not the new tile
    flagged."""
    tracker, events = _laid_above_small_arm((15, 14), (2, 13))
    assert [(e.tile, e.read_as) for e in events if e.kind == "play_corrected"] == [("15-13", "15-14")]
    assert ("13-2", "15-13", True) in _plays(events)
    assert Tile(15, 14) not in tracker.board and tracker.board[Tile(15, 13)].status == "legal"


def test_where_the_open_end_cannot_have_been_misread_the_dense_end_laid_against_it_was():
    """15-13 lies on the table elsewhere, so the 14 read above the spinner is no misread 13: the
    13 of the tile laid against it was the misread end, and that tile is the 14-2."""
    elsewhere = _tile_at(500, 100, (15, 13), vertical=False, w=20)
    tracker, events = _laid_above_small_arm((15, 14), (2, 13), [elsewhere])
    assert not [e for e in events if e.kind == "play_corrected"]
    assert [e.message for e in events if e.kind == "notice"] == [
        "13-2 was 14-2 misread: it lies against the 14 of 15-14, a misread 14 on tiles this small"]
    assert ("14-2", "15-14", True) in _plays(events)
    assert tracker.board[Tile(15, 14)].status == "legal"


def test_a_sparse_end_laid_against_another_value_is_flagged_not_taken_for_a_misread():
    _, events = _laid_above_small_arm((15, 4), (2, 6))
    assert not [e for e in events if e.kind in ("play_corrected", "notice")]
    assert [(e.tile, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)] == [
        ("6-2", False, "ends_do_not_match")]


def test_a_dense_end_laid_against_a_dense_value_far_from_it_is_flagged():
    _, events = _laid_above_small_arm((15, 14), (2, 10))
    assert not [e for e in events if e.kind in ("play_corrected", "notice")]
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("10-2", False)]


def test_a_large_tile_s_dense_end_counted_dot_by_dot_is_not_taken_for_a_neighbouring_value():
    _, events = _laid_above_small_arm((15, 14), (2, 13), scale=3.0)  # 120-px tiles
    assert not [e for e in events if e.kind in ("play_corrected", "notice")]
    assert [(e.tile, e.legal) for e in events if isinstance(e, TilePlayed)] == [("13-2", False)]


def test_a_play_taken_for_a_misread_end_and_taken_back_at_once_was_laid_as_read_and_is_flagged():
    """Players take back what the table calls illegal: the 13-2 laid on the 14 of 15-14, taken
    for a misread 13 there, is taken back before the next play, so 15-14 was read right and
    the 13-2 was laid illegally: flagged at the frame it was laid, and taken back."""
    tracker, events = _laid_above_small_arm((15, 14), (2, 13))
    laid_at = next(e.frame for e in events if isinstance(e, TilePlayed) and e.tile == "13-2")
    events = _feed(tracker, [_small_spinner_with_arms((15, 14))])
    assert [(e.tile, e.read_as) for e in events if e.kind == "play_corrected"] == [
        ("15-14", "15-13"), ("13-2", "13-2")]
    assert [(e.tile, e.on, e.legal, e.rule, e.frame == laid_at) for e in events if isinstance(e, TilePlayed)][-1] == (
        "13-2", "15-14", False, "ends_do_not_match", True)
    assert [(e.tile, e.was_legal) for e in events if isinstance(e, TileTakenBack)] == [("13-2", False)]
    assert tracker.board[Tile(15, 14)].status == "legal" and Tile(15, 13) not in tracker.board
    assert [f["tile"] for f in tracker.current.illegal if f["taken_back_frame"] is not None] == ["13-2"]


def test_a_play_taken_for_a_misread_end_stays_legal_once_another_play_follows():
    tracker, _ = _laid_above_small_arm((15, 14), (2, 13))
    board = _small_spinner_with_arms((15, 14))
    laid = _tile_at(300, 220, (2, 13), w=20)
    beyond = _tile_at(300, 180, (9, 2), w=20)  # its 2 end down against the 13-2's 2
    played = _feed(tracker, [board + [laid, beyond]])
    assert ("9-2", "13-2", True) in _plays(played)
    events = _feed(tracker, [board + [beyond]])  # 13-2 gone from under the tile laid on it
    assert not [e for e in events if isinstance(e, TilePlayed) and not e.legal and e.tile == "13-2"]
    assert tracker.board[Tile(15, 13)].status == "legal"


def test_a_tile_taken_for_a_misread_of_its_own_end_and_taken_back_at_once_is_flagged_as_read():
    elsewhere = _tile_at(500, 100, (15, 13), vertical=False, w=20)
    tracker, _ = _laid_above_small_arm((15, 14), (2, 13), [elsewhere])
    events = _feed(tracker, [_small_spinner_with_arms((15, 14)) + [elsewhere]])
    assert [(e.tile, e.read_as) for e in events if e.kind == "play_corrected"] == [("13-2", "14-2")]
    assert [(e.tile, e.legal, e.rule) for e in events if isinstance(e, TilePlayed)] == [
        ("13-2", False, "ends_do_not_match")]
    assert [e.tile for e in events if isinstance(e, TileTakenBack)] == ["13-2"]
    assert Tile(14, 2) not in tracker.board and tracker.board[Tile(15, 14)].status == "legal"


def test_a_board_tile_s_status_is_written_as_its_lower_case_name():
    """The status is an enum in the tracker and the same plain string in its state and records."""
    from vision.tracking.board import BoardTile, TileStatus
    from vision.tracking.geometry import pose_from_detection

    bt = BoardTile(Tile(6, 3), pose_from_detection(_tile_at(300, 300, (6, 3))), TileStatus.ILLEGAL, 0, None, None, 0)
    out = bt.to_dict()
    assert type(out["status"]) is str and json.dumps(out["status"]) == '"illegal"'
    assert TileStatus("loose") is TileStatus.LOOSE and bt.status == "illegal"


def test_a_step_that_decides_everything_alone_ends_the_decision():
    """A knocked camera re-registers the board, and the steps declared after it do not run on
    the same observations."""
    from vision.tracking.board import Observation
    from vision.tracking.corrections import decide

    tracker = Tracker(GameConfig(2, 6, HouseRules()), gate=_Still())
    tracker.window = [Observation(k, k / 10, [], None, read=k + 1) for k in range(tracker.window_size)]
    ran = []

    def alone(d):
        ran.append("alone")
        d.done = True
        return []

    def after(d):
        ran.append("after")
        return []

    decide(tracker, steps=(alone, after))
    assert ran == ["alone"]
    decide(tracker, steps=(after, after))
    assert ran == ["alone", "after", "after"]
