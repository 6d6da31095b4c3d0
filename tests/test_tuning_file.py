"""`--config FILE` on the lab's measuring commands: a tuning file reaches the recognizer and the
trackers the command builds, a bad one is refused in one line naming what is wrong, and every
output records the configuration it ran with."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lab.commands import bench, eval_tracking
from lab.commands import eval as eval_cmd
from lab.tuning_file import Tuning, TuningFileError, read_tuning_file, tuning_line
from service.errors import UserError
from vision.recognition.config import RecognizerConfig
from vision.tracking.tuning import TrackerConfig

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "datasets" / "demo"
CLI = [sys.executable, "-c", "from service.cli import main; raise SystemExit(main())"]
QUICKEST = {  # the smallest run each command accepts
    "eval": [str(DEMO), "--labels", str(DEMO / "labels.json")],
    "bench": ["--only", "frame_1280x720", "--repeat", "1", "--tracker-rounds", "0"],
    "eval-tracking": ["--rounds", "1"],
}
MODULES = {"eval": eval_cmd, "bench": bench, "eval-tracking": eval_tracking}


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
    assert tracker_only == (RecognizerConfig(), TrackerConfig(window=4))
    assert read_tuning_file(_file(tmp_path, {})) == Tuning.defaults()


@pytest.mark.parametrize("content, named", [
    ({"recognizer": {"small_tile": 80}}, "recognizer: unknown recognizer setting 'small_tile'"),
    ({"tracker": {"windows": 4}}, "tracker: unknown tracker tuning windows"),
    ({"recognizer": {"detector_conf": "high"}}, "recognizer: recognizer setting detector_conf must be a number"),
    ({"recognizer": {"small_tiles": 0}}, "small_tiles must be true or false"),
    ({"tracker": {"window": "3"}}, "tracker: window must be a whole number"),
    ({"recogniser": {}}, "unknown part 'recogniser'"),
    ({"tracker": None}, "tracker: a tracker tuning must be an object"),
    ([1, 2], "must hold a JSON object"),
])
def test_a_file_the_configurations_cannot_use_is_refused_naming_what_is_wrong(tmp_path, content, named):
    path = _file(tmp_path, content)
    with pytest.raises(TuningFileError) as refused:
        read_tuning_file(path)
    assert named in str(refused.value) and str(refused.value).startswith(path)
    assert "\n" not in str(refused.value)


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
    assert strict["config"] == Tuning(RecognizerConfig(detector_conf=0.97), TrackerConfig()).to_dict()


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

    class NoPictures:  # the tracker is what is checked here, not the renderer
        def __init__(self, plan):
            pass

        def frame(self, i):
            return None

    class Built(Exception):
        pass

    def make_tracker(*args, tuning=None, **kwargs):
        built.append(tuning)
        raise Built

    monkeypatch.setattr(lab.synth.sequence, "SequenceRenderer", NoPictures)
    monkeypatch.setattr(lab.tracking_eval, "make_tracker", make_tracker)
    args = _args("bench", "--tracker-rounds", "1", "--config", _file(tmp_path, {"tracker": {"window": 5}}))
    with pytest.raises(Built):
        args.func(args)
    assert built == [TrackerConfig(window=5)]


def test_text_reports_say_which_tuning_they_ran_with(tmp_path, capsys):
    path = _file(tmp_path, {"recognizer": {"small_tile_px": 80, "pip_conf": 0.5}, "tracker": {"window": 4}})
    assert _run(capsys, "eval-tracking").splitlines()[-1].strip() == "tuning: defaults"
    assert (_run(capsys, "eval-tracking", "--config", path).splitlines()[-1].strip()
            == f"tuning: {path} (recognizer: small_tile_px=80; tracker: window=4)")  # pip_conf is its default
    assert tuning_line(Tuning.defaults(), path) == f"tuning: {path} (every setting at its default)"
