"""The run-time install carries no lab: what needs the lab, or its training stack, says so in one line."""
from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from service.cli import main


@pytest.fixture
def no_lab(monkeypatch):
    """The lab package as an install without it sees it: not importable."""
    for name in [m for m in sys.modules if m == "lab" or m.startswith("lab.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "lab", None)


def test_training_without_the_lab_libraries_is_a_one_line_error(monkeypatch, capsys, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("torch", "ultralytics") else real(name, *a))
    assert main(["lab", "train", "--data", str(tmp_path / "data"), "--scenes", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "torch, ultralytics missing" in err[0] and "make venv-lab" in err[0]
    assert not (tmp_path / "data").exists()  # nothing rendered before the check


@pytest.mark.parametrize("argv", [["lab"], ["lab", "synth", "--out", "x"], ["lab", "--help"]])
def test_the_lab_group_without_the_lab_package_is_a_one_line_error(no_lab, capsys, argv):
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "lab is not installed" in err[0] and "pip install -e .[lab]" in err[0], err
    assert not captured.out


def test_a_lab_command_missing_a_lab_library_is_a_one_line_error(monkeypatch, capsys, tmp_path):
    from lab.commands import synth

    def needs_torch(_args):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    monkeypatch.setattr(synth, "run", needs_torch)
    assert main(["lab", "synth", "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("chickenfoot lab synth: needs torch") and "make venv-lab" in err[0]


def test_a_missing_module_the_lab_does_not_install_is_not_hidden(monkeypatch, tmp_path):
    from lab.commands import synth

    def broken(_args):
        raise ModuleNotFoundError("No module named 'vision.gone'", name="vision.gone")

    monkeypatch.setattr(synth, "run", broken)
    with pytest.raises(ModuleNotFoundError):
        main(["lab", "synth", "--out", str(tmp_path / "s")])


def test_product_commands_run_without_the_lab_package(no_lab, capsys):
    assert main(["simulate", "--games", "1", "--players", "2", "--set", "6", "--seed", "1"]) == 0
    assert "games" in capsys.readouterr().out


def test_the_product_loads_no_lab_module():
    code = ("import sys; import service.app, vision.recognize, vision.layout, vision.tracking.tracker; "
            "from service.cli import build_parser; build_parser(with_lab=False); "
            "bad = [m for m in sys.modules if m == 'lab' or m.startswith('lab.')]; "
            "print(bad); raise SystemExit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_recognizer_and_the_service_import_no_training_stack():
    code = ("import sys; import service.app, service.cli, vision.recognize, vision.layout, vision.tracking.tracker; "
            "bad = [m for m in ('torch', 'ultralytics', 'torchvision') if m in sys.modules]; "
            "print(bad); raise SystemExit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_cli_knows_every_library_the_lab_extra_adds():
    """A lab command failing on one of these says how to install the lab; the list follows the extra
    (the GUI OpenCV build is left out: its module, cv2, comes with the run-time install too)."""
    import tomllib
    from pathlib import Path

    from packaging.requirements import Requirement

    from service.cli import LAB_PACKAGES

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    extra = {Requirement(r).name for r in pyproject["project"]["optional-dependencies"]["lab"]}
    assert set(LAB_PACKAGES) == extra - {"opencv-python"}
