"""README.md's examples are executed, so the README cannot go stale.

- every ```python block is run as a doctest (written in `>>>` style);
- every `$ chickenfoot ...` line of a ```console block is run through the CLI and its
  output must be exactly what the README shows under it (only the seconds and the
  games per second that `simulate` prints may differ, see `_steady`);
- every other `chickenfoot ...` command the README shows (```sh blocks, inline code such as
  the figures table's) must be accepted by the CLI's own parser, every `make` target named
  must exist in the Makefile, and the house-rules tables must match the engine.
"""
from __future__ import annotations

import argparse
import doctest
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from engine import PRESETS, HouseRules
from service.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
TEXT = README.read_text(encoding="utf-8")
CLI = [sys.executable, "-c", "from service.cli import main; raise SystemExit(main())"]

FENCE = re.compile(r"^```(?P<lang>[\w-]*)[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)


def _blocks(lang: str) -> list[tuple[int, str]]:
    """(line number, body) of every fenced block of this language."""
    return [(TEXT.count("\n", 0, m.start()) + 1, m.group("body"))
            for m in FENCE.finditer(TEXT) if m.group("lang") == lang]


def _console_examples() -> list[tuple[int, str, str]]:
    """(line number, command, expected output) for each `$ ` line of the console blocks."""
    examples = []
    for start, body in _blocks("console"):
        command, line_no, shown = None, 0, []
        for offset, line in enumerate(body.splitlines(), start=1):
            if line.startswith("$ "):
                if command is not None:
                    examples.append((line_no, command, "\n".join(shown)))
                command, line_no, shown = line[2:], start + offset, []
            else:
                shown.append(line)
        if command is not None:
            examples.append((line_no, command, "\n".join(shown)))
    return examples


def _shown_command_lines() -> list[tuple[int, str]]:
    """(line number, command) for each `chickenfoot ...` command shown outside console output:
    lines of shell blocks (comments cut off) and inline code spans."""
    lines = []
    for start, body in _blocks("sh"):
        for offset, line in enumerate(body.splitlines(), start=1):
            line = line.split(" #", 1)[0].strip()
            if line.startswith("chickenfoot "):
                lines.append((start + offset, line))
    for m in re.finditer(r"`(chickenfoot [^`]+)`", TEXT):
        lines.append((TEXT.count("\n", 0, m.start()) + 1, m.group(1)))
    return lines


def _subcommands(parser) -> dict[str, argparse.ArgumentParser]:
    return {name: sub for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for name, sub in action.choices.items()}


def _names_a_command(parser, words: list[str]) -> bool:
    """Whether `words` are a command's name alone, as text names one (`lab`, `lab synth`)."""
    for word in words:
        parser = _subcommands(parser).get(word)
        if parser is None:
            return False
    return True


def _steady(text: str) -> str:
    """The output with the figures that change from run to run (how long `simulate` took) blanked."""
    return re.sub(r"in [\d.]+ s: [\d.]+ games/s", "in <seconds> s: <rate> games/s", text)


PYTHON_BLOCKS = _blocks("python")
CONSOLE_EXAMPLES = _console_examples()
COMMAND_LINES = _shown_command_lines()


def test_readme_has_python_and_console_examples_to_run():
    assert len(PYTHON_BLOCKS) >= 1
    assert any(cmd == "chickenfoot score datasets/demo/hand.jpg" for _, cmd, _ in CONSOLE_EXAMPLES), \
        "the quickstart's `chickenfoot score datasets/demo/hand.jpg` example is gone"


@pytest.mark.parametrize("line,block", PYTHON_BLOCKS, ids=[f"README.md:{n}" for n, _ in PYTHON_BLOCKS])
def test_python_example_runs_as_the_readme_shows(line, block):
    test = doctest.DocTestParser().get_doctest(block, {}, f"README.md:{line}", str(README), line)
    assert test.examples, f"README.md:{line}: a python block must be written as >>> examples"
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=out.append)
    assert result.failed == 0, "".join(out)


@pytest.mark.parametrize("line,command,shown", CONSOLE_EXAMPLES,
                         ids=[f"README.md:{n}" for n, _, _ in CONSOLE_EXAMPLES])
def test_console_example_prints_what_the_readme_shows(line, command, shown):
    args = shlex.split(command)
    assert args[0] == "chickenfoot", f"README.md:{line}: console examples run the chickenfoot command"
    proc = subprocess.run([*CLI, *args[1:]], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    printed = (proc.stdout + proc.stderr).rstrip("\n")
    assert _steady(printed) == _steady(shown.rstrip("\n")), (
        f"README.md:{line}: `{command}` now prints\n{printed}\nbut the README shows\n{shown}")


@pytest.mark.parametrize("line,command", COMMAND_LINES, ids=[f"README.md:{n}" for n, _ in COMMAND_LINES])
def test_command_line_shown_is_accepted_by_the_cli(line, command):
    parser = build_parser()
    words = shlex.split(command)[1:]
    if words and _names_a_command(parser, words):  # a command named in the text, such as `chickenfoot score`
        return
    try:
        args = parser.parse_args(words)
    except SystemExit:
        pytest.fail(f"README.md:{line}: `{command}` is refused by the chickenfoot command")
    assert getattr(args, "func", None), f"README.md:{line}: `{command}` names no subcommand"


def test_every_make_target_named_exists():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+)\s*:(?!=)", makefile, re.M))
    named = set(re.findall(r"`make ([\w-]+)`", TEXT)) | set(re.findall(r"^make ([\w-]+)", TEXT, re.M))
    assert named, "the README names no make target"
    assert named <= targets, f"make targets named in the README but not in the Makefile: {sorted(named - targets)}"


def test_house_rules_tables_list_every_preset_and_option():
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]*) \|", TEXT, re.M))
    assert set(PRESETS) <= set(rows), f"presets missing from the README: {sorted(set(PRESETS) - set(rows))}"
    options = HouseRules().to_dict()
    assert set(options) <= set(rows), f"options missing from the README: {sorted(set(options) - set(rows))}"
    for name, value in options.items():
        shown = rows[name].strip()
        expected = str(value).lower() if isinstance(value, bool) else str(value)
        assert shown.strip('`"') == expected, f"README gives {name} the default {shown}, the engine {value!r}"


def test_pictures_named_exist_and_stay_small():
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", TEXT)
    assert pictures
    for name in pictures:
        path = REPO / name
        assert path.is_file(), f"README shows {name}, which does not exist"
        assert path.stat().st_size < 200_000


def test_readme_speaks_of_the_product_not_its_history():
    assert not re.search(r"session [0-9]|seed[0-9]+-[0-9]+|issue [0-9]", TEXT, re.I)
