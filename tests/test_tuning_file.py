"""`--config FILE` on the lab's measuring commands: a tuning file reaches the recognizer and the
trackers the command builds, a bad one is refused in one line naming what is wrong, and every
output records the configuration it ran with."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab.commands import bench, eval_layout, eval_tracking
from lab.commands import eval as eval_cmd
from lab.tuning_file import Tuning, TuningFileError, read_tuning_file, tuning_from_dict, tuning_line
from service.errors import UserError
from vision.recognition.config import FaceConfig, RecognizerConfig
from vision.table_audit import AuditConfig
from vision.tracking.tuning import MotionConfig, PictureConfig, TrackerConfig

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "datasets" / "demo"
CLI = [sys.executable, "-c", "from service.cli import main; raise SystemExit(main())"]
QUICKEST = {  # the smallest run each command accepts
    "eval": [str(DEMO), "--labels", str(DEMO / "labels.json")],
    "bench": ["--only", "frame_1280x720", "--repeat", "1", "--tracker-rounds", "0"],
    "eval-tracking": ["--rounds", "1"],
    "eval-layout": ["--count", "30", "--bench", "0"],
}
MODULES = {"eval": eval_cmd, "bench": bench, "eval-tracking": eval_tracking, "eval-layout": eval_layout}


class _NoPictures:
    """A stand-in renderer for the bench's tracker rounds: what is checked is the tracker the bench
    builds, not the pictures."""

    def __init__(self, plan):
        pass

    def frame(self, i):
        return None


class _Built(Exception):
    """Raised by a stand-in builder once it has seen what the bench built: the round goes no further."""


def _file(tmp_path: Path, content: object, name: str = "tuning.json") -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def _args(command: str, *extra: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="chickenfoot")
    MODULES[command].register(p.add_subparsers(dest="command"))
    return p.parse_args([command, *QUICKEST[command], *extra])


def _run(capsys, command: str, *extra: str) -> str:
    args = _args(command, *extra)
    assert args.func(args) == 0
    return capsys.readouterr().out


def test_a_file_names_only_what_it_changes_and_the_rest_keeps_its_defaults(tmp_path):
    tuning = read_tuning_file(_file(tmp_path, {"recognizer": {"small_tile_px": 80}}))
    assert tuning.recognizer == RecognizerConfig(small_tile_px=80)
    assert tuning.tracker == TrackerConfig()
    tracker_only = read_tuning_file(_file(tmp_path, {"tracker": {"window": 4}}))
    assert tracker_only == (RecognizerConfig(), TrackerConfig(window=4), AuditConfig())
    assert read_tuning_file(_file(tmp_path, {})) == Tuning.defaults()


@pytest.mark.parametrize("content, named", [
    ({"recognizer": {"small_tile": 80}}, "recognizer: unknown recognizer setting 'small_tile'"),
    ({"tracker": {"windows": 4}}, "tracker: unknown tracker tuning windows"),
    ({"recognizer": {"detector_conf": "high"}}, "recognizer: recognizer setting detector_conf must be a number"),
    ({"recognizer": {"small_tiles": 0}}, "small_tiles must be true or false"),
    ({"tracker": {"window": "3"}}, "tracker: window must be a whole number"),
    ({"recogniser": {}}, "unknown part 'recogniser'"),
    ({"audit": {"max_gap": 0}}, "audit: unknown audit setting max_gap"),
    ({"recognizer": {"faces": {"blank_sur": 0.7}}}, "recognizer: unknown recognizer setting 'faces.blank_sur'"),
    ({"recognizer": {"faces": {"bar_turns": []}}}, "faces.bar_turns must be one or more numbers"),
    ({"tracker": {"motion": {"change_share": "small"}}}, "tracker: motion.change_share must be a number"),
    ({"tracker": {"pictures": {"patch": [12.5, 24]}}}, "tracker: pictures.patch must be 2 whole numbers"),
    ({"tracker": {"motion": 0.001}}, "tracker: motion must be an object of settings"),
    ({"tracker": None}, "tracker: a tracker tuning must be an object"),
    ([1, 2], "must hold a JSON object"),
])
def test_a_file_the_configurations_cannot_use_is_refused_naming_what_is_wrong(tmp_path, content, named):
    path = _file(tmp_path, content)
    with pytest.raises(TuningFileError) as refused:
        read_tuning_file(path)
    assert named in str(refused.value) and str(refused.value).startswith(path)
    assert "\n" not in str(refused.value)


def test_the_smaller_configurations_are_objects_of_their_own_names_the_rest_at_their_defaults(tmp_path):
    tuning = read_tuning_file(_file(tmp_path, {"recognizer": {"faces": {"bar_turns": [-8, 8]}},
                                               "tracker": {"attach_max": 0.6, "motion": {"change_share": 0.001}}}))
    assert tuning.recognizer == RecognizerConfig(faces=FaceConfig(bar_turns=(-8, 8)))
    assert tuning.tracker == TrackerConfig(attach_max=0.6, motion=MotionConfig(change_share=0.001))
    assert tuning.tracker.pictures == PictureConfig()
    assert tuning_line(tuning, "t.json") == ("tuning: t.json (recognizer: faces.bar_turns=[-8, 8]; "
                                             "tracker: attach_max=0.6, motion.change_share=0.001)")


def test_every_setting_written_out_reads_back_the_same():
    tuning = Tuning(RecognizerConfig(faces=FaceConfig(face_sure=0.95, bar_turns=(-3.0, 3.0))),
                    TrackerConfig(straight_toe_gap=(0.5, 1.5), pictures=PictureConfig(patch=(10, 20))),
                    AuditConfig(max_gaps=3, near_layout=0.5))
    written = json.loads(json.dumps(tuning.to_dict()))
    assert written == tuning.to_dict()  # tuples written as the lists JSON reads back
    assert tuning_from_dict(written) == tuning


def test_bad_json_and_a_missing_file_are_refused_plainly(tmp_path):
    with pytest.raises(TuningFileError, match=r"not valid JSON \(Expecting .*line 1"):
        read_tuning_file(_file(tmp_path, '{"tracker": {"window": 4,}}'))
    with pytest.raises(TuningFileError, match="no such file"):
        read_tuning_file(tmp_path / "absent.json")


@pytest.mark.parametrize("command", sorted(QUICKEST))
def test_each_command_refuses_a_bad_file_before_measuring(tmp_path, command):
    args = _args(command, "--config", _file(tmp_path, {"tracker": {"windows": 4}}))
    with pytest.raises(UserError, match="--config: .*unknown tracker tuning windows"):
        args.func(args)


def test_a_bad_file_on_the_command_line_is_one_line_and_exit_2(tmp_path):
    out = subprocess.run([*CLI, "lab", "eval-tracking", "--rounds", "1", "--config", _file(tmp_path, "{not json")],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "--config:" in out.stderr and "not valid JSON" in out.stderr


def test_the_tracker_part_changes_what_eval_tracking_measures(tmp_path, capsys):
    plain = json.loads(_run(capsys, "eval-tracking", "--json"))
    slower = json.loads(_run(capsys, "eval-tracking", "--json",
                             "--config", _file(tmp_path, {"tracker": {"still_before_read": 4}})))
    assert plain["config"] == Tuning.defaults().to_dict()
    assert slower["config"]["tracker"] == TrackerConfig(still_before_read=4).to_dict()
    assert slower["frames_read"] < plain["frames_read"]  # more still frames wanted before each read


def test_the_recognizer_part_changes_what_eval_measures(tmp_path, capsys):
    plain = json.loads(_run(capsys, "eval", "--json"))
    strict = json.loads(_run(capsys, "eval", "--json",
                             "--config", _file(tmp_path, {"recognizer": {"detector_conf": 0.97}})))
    assert plain["summary"]["tile_recall"] == 1.0
    assert strict["summary"]["tile_recall"] < 1.0  # boxes under 0.97 left out
    assert strict["config"] == Tuning(RecognizerConfig(detector_conf=0.97), TrackerConfig(), AuditConfig()).to_dict()


def test_the_recognizer_part_reaches_the_bench_s_recognizer(tmp_path, capsys):
    report = json.loads(_run(capsys, "bench", "--json",
                             "--config", _file(tmp_path, {"recognizer": {"detector_conf": 0.97}})))
    assert report["config"]["recognizer"]["detector_conf"] == 0.97
    assert report["config"]["tracker"] == TrackerConfig().to_dict()
    assert report["cases"]["frame_1280x720"]["tiles_found"] == 0  # the defaults find its tiles (test_bench)


def test_the_tracker_part_reaches_the_bench_s_tracker(tmp_path, monkeypatch):
    import lab.synth.sequence
    import lab.tracking_eval

    built = []

    def make_tracker(*args, tuning=None, **kwargs):
        built.append(tuning)
        raise _Built

    monkeypatch.setattr(lab.synth.sequence, "SequenceRenderer", _NoPictures)
    monkeypatch.setattr(lab.tracking_eval, "make_tracker", make_tracker)
    args = _args("bench", "--tracker-rounds", "1", "--config", _file(tmp_path, {"tracker": {"window": 5}}))
    with pytest.raises(_Built):
        args.func(args)
    assert built == [TrackerConfig(window=5)]


def test_the_audit_part_changes_what_eval_layout_measures(tmp_path, capsys):
    plain = json.loads(_run(capsys, "eval-layout", "--json"))
    no_gaps = json.loads(_run(capsys, "eval-layout", "--json", "--config", _file(tmp_path, {"audit": {"max_gaps": 0}})))
    assert plain["config"] == Tuning.defaults().to_dict()
    assert no_gaps["config"]["audit"] == AuditConfig(max_gaps=0).to_dict()
    assert plain["gaps_reported"] > 0 and no_gaps["gaps_reported"] == 0  # no tile inferred across a hole
    assert _run(capsys, "eval-layout", "--config", _file(tmp_path, {"audit": {"max_gaps": 0}})).splitlines()[-1] \
        .endswith("(audit: max_gaps=0)")


def test_text_reports_say_which_tuning_they_ran_with(tmp_path, capsys):
    path = _file(tmp_path, {"recognizer": {"small_tile_px": 80, "pip_conf": 0.5}, "tracker": {"window": 4}})
    assert _run(capsys, "eval-tracking").splitlines()[-1].strip() == "tuning: defaults"
    assert (_run(capsys, "eval-tracking", "--config", path).splitlines()[-1].strip()
            == f"tuning: {path} (recognizer: small_tile_px=80; tracker: window=4)")  # pip_conf is its default
    assert tuning_line(Tuning.defaults(), path) == f"tuning: {path} (every setting at its default)"


def test_a_tracker_value_in_the_file_changes_how_eval_tracking_lays_tiles(tmp_path, capsys):
    plain = json.loads(_run(capsys, "eval-tracking", "--json"))
    strict = json.loads(_run(capsys, "eval-tracking", "--json",
                             "--config", _file(tmp_path, {"tracker": {"attach_max": 0.05}})))
    assert plain["tracker_plays"] == plain["true_plays"]
    assert strict["tracker_plays"] < plain["tracker_plays"]  # a tile laid a little off its place is not laid


def test_the_motion_gate_the_tracker_builds_is_tuned_by_the_file(tmp_path):
    """The gate's thresholds in the file (`motion`) decide what the tracker's own gate calls motion."""
    from engine import GameConfig, HouseRules
    from vision.tracking import Tracker

    still = np.full((144, 256, 3), 90, np.uint8)
    hand = still.copy()
    hand[40:100, 60:160] = 200  # a hand over a tenth of the picture
    tuning = read_tuning_file(_file(tmp_path, {"tracker": {"motion": {"move_share": 0.5}}}))

    def moving(tracker_tuning: TrackerConfig) -> bool:
        gate = Tracker(GameConfig(2, 6, HouseRules()), tuning=tracker_tuning).gate
        gate.update(still)
        return gate.update(hand).moving

    assert moving(TrackerConfig())
    assert not moving(tuning.tracker)  # half the picture must change to move


@pytest.mark.skipif(not (REPO / "models" / "half_reader.onnx").exists(), reason="no committed models")
def test_a_face_judgment_in_the_file_changes_what_the_recognizer_reads(tmp_path):
    """With `faces.mottled_step` and `faces.mottled_share` at 0 every face counts as streaked, so
    each box read with a dot or none is dropped as a patch of the table."""
    import cv2

    from lab.synth.scene import render_hand
    from vision.recognize import Recognizer

    scene = render_hand(np.random.default_rng(15), (640, 480), set_max=6, n=4)
    photo = cv2.imencode(".png", scene.image)[1].tobytes()
    tuning = read_tuning_file(_file(tmp_path, {"recognizer": {"faces": {"mottled_step": 0, "mottled_share": 0}}}))

    def read(recognizer: Recognizer) -> list[tuple[int, int]]:
        return sorted(tuple(sorted(t.pips)) for t in recognizer.recognize(photo).tiles)

    assert read(Recognizer()) == [(0, 0), (0, 1), (0, 5), (3, 3)]
    assert read(Recognizer(config=tuning.recognizer)) == [(0, 5), (3, 3)]


@pytest.mark.skipif(not (REPO / "models" / "half_reader.onnx").exists(), reason="no committed models")
def test_the_set_s_rules_in_the_file_change_what_the_recognizer_reads(tmp_path):
    """`corrections.set_evidence` at 1 takes the smallest set the sure faces fit, however few; and
    `corrections.max_cost` at 0 leaves no second reading plausible."""
    import cv2

    from lab.synth.scene import render_hand
    from vision.recognize import Recognizer

    scene = render_hand(np.random.default_rng(15), (640, 480), set_max=6, n=4)
    photo = cv2.imencode(".png", scene.image)[1].tobytes()
    sure = read_tuning_file(_file(tmp_path, {"recognizer": {"corrections": {"set_evidence": 1.0}}}))
    strict = read_tuning_file(_file(tmp_path, {"recognizer": {"corrections": {"max_cost": 0}}}, "strict.json"))
    plain = Recognizer().recognize(photo)

    assert plain.set_max == 12  # four tiles are too few to rule out the larger sets
    assert Recognizer(config=sure.recognizer).recognize(photo).set_max == 6
    assert any(t.second_readings for t in plain.tiles)
    assert not any(t.second_readings for t in Recognizer(config=strict.recognizer).recognize(photo).tiles)


def test_the_detector_part_tunes_the_detector_the_bench_builds(tmp_path, monkeypatch):
    """`tracker.detector.tiles_for_size` at 2 lets a frame of two tiles teach the detector their size."""
    import lab.synth.sequence
    import lab.tracking_eval
    from vision.tracking.detector import RecognizerDetector

    built = []

    def make_tracker(plan, detector, *args, **kwargs):
        built.append(detector)
        raise _Built

    class TwoTiles:  # a stand-in recognizer that reads two tiles in any frame
        def recognize_loaded(self, *args, **kwargs):
            tile = type("Tile", (), {"corners": np.array([[0, 0], [100, 0], [100, 50], [0, 50]], float)})
            return type("Read", (), {"tiles": [tile(), tile()]})

    monkeypatch.setattr(lab.synth.sequence, "SequenceRenderer", _NoPictures)
    monkeypatch.setattr(lab.tracking_eval, "make_tracker", make_tracker)
    args = _args("bench", "--tracker-rounds", "1",
                 "--config", _file(tmp_path, {"tracker": {"detector": {"tiles_for_size": 2}}}))
    with pytest.raises(_Built):
        args.func(args)
    tuned, plain = built[0], RecognizerDetector(TwoTiles(), 6)
    tuned.recognizer = TwoTiles()
    frame = np.zeros((120, 160, 3), np.uint8)
    tuned(frame)
    plain(frame)
    assert plain.tile_px is None  # five tiles by default before their size is trusted
    assert tuned.tile_px is not None


def test_the_hands_a_tracker_remembers_are_tuned_by_the_file(tmp_path):
    """`tracker.kept_hands` bounds the hands remembered within one stretch of motion."""
    from engine import GameConfig, HouseRules
    from vision.tracking import Tracker
    from vision.tracking.motion import MotionReading

    class HandsComingIn:  # a stand-in gate: every frame moves, a hand coming in at the left edge
        def update(self, frame):
            return MotionReading(True, True, 0.5, 0.5, entry=(0.0, 0.5))

    def hands_kept(tuning: TrackerConfig) -> int:
        tracker = Tracker(GameConfig(2, 6, HouseRules()), detector=lambda frame: [], gate=HandsComingIn(),
                          tuning=tuning)
        for _ in range(30):
            tracker.push("frame")
        return len(tracker.hand_seats.entries)

    tuning = read_tuning_file(_file(tmp_path, {"tracker": {"kept_hands": 3}}))
    assert hands_kept(TrackerConfig()) == 20
    assert hands_kept(tuning.tracker) == 3
