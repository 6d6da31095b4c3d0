"""The run-time install carries no training stack: what needs one says so in one line."""
from __future__ import annotations

import importlib.util

from service.cli import main


def test_training_without_the_training_dependencies_is_a_one_line_error(monkeypatch, capsys, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("torch", "ultralytics") else real(name, *a))
    assert main(["train", "--data", str(tmp_path / "data"), "--scenes", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "torch, ultralytics missing" in err[0] and "make venv-train" in err[0]
    assert not (tmp_path / "data").exists()  # nothing rendered before the check


def test_the_recognizer_and_the_service_import_no_training_stack():
    import subprocess
    import sys

    code = ("import sys; import service.app, service.cli, vision.recognize, vision.layout, vision.tracking.tracker; "
            "bad = [m for m in ('torch', 'ultralytics', 'torchvision') if m in sys.modules]; "
            "print(bad); raise SystemExit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
