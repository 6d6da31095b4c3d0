"""The `chickenfoot` console command.

Each subcommand lives in its own module under `service.commands` and exposes
`register(subparsers)`; the module is imported only to build the parser, and heavy
imports (onnxruntime, OpenCV, torch) stay inside each command's handler so that
`chickenfoot --help` and the engine-only commands start instantly.

The lab's tools (render, train, evaluate, benchmark) are one command group,
`chickenfoot lab ...`, found by name in the separate `lab` package and loaded only when
that group is asked for: the product's commands never load it, and an install without
the lab says how to add it instead of failing with a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from functools import partial
from types import ModuleType

from .errors import UserError

__all__ = ["UserError", "build_parser", "main"]

# Order is the order shown in --help.
COMMAND_MODULES = [
    "score",
    "audit",
    "watch",
    "serve",
    "simulate",
    "advise",
    "replay",
    "study",
]

LAB_GROUP = "lab"
"""The command word of the lab's group (`chickenfoot lab synth ...`)."""
LAB_COMMANDS = "lab.commands"
"""The module that registers the lab's commands; present only where the lab is installed."""
LAB_INSTALL = "pip install -e .[lab] (or make venv-lab)"
LAB_PACKAGES = ("torch", "torchvision", "ultralytics", "onnx", "onnxslim")
"""What the lab extra installs beyond the run-time dependencies."""


def build_parser(with_lab: bool = True) -> argparse.ArgumentParser:
    """The whole command line; `with_lab=False` leaves the lab group's commands unloaded
    (the group is still listed), as every product command is run."""
    parser = argparse.ArgumentParser(
        prog="chickenfoot",
        description="Chicken Foot dominoes: read tiles from photos, audit layouts, follow games.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"service.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"service.commands.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    lab = sub.add_parser(LAB_GROUP, help="lab tools: render scenes, train, evaluate, benchmark (the lab extra)",
                         description="Tools that build and measure the product; installed with the lab extra.")
    lab_commands = _lab_commands() if with_lab else None
    if isinstance(lab_commands, ModuleType):
        lab_commands.register(lab.add_subparsers(dest="lab_command", metavar="LAB_COMMAND"))
        lab.set_defaults(func=partial(_group_help, lab))  # `chickenfoot lab` alone: the group's commands
    return parser


def _group_help(group: argparse.ArgumentParser, _args: argparse.Namespace) -> int:
    group.print_help()
    return 2


def _lab_commands() -> ModuleType | str:
    """The lab's command group, or why it cannot be loaded (a one-line reason)."""
    try:
        return importlib.import_module(LAB_COMMANDS)
    except ModuleNotFoundError as exc:
        return f"the lab is not installed ({exc.name or 'a module'} not found): {LAB_INSTALL}"


def _command_name(args: argparse.Namespace) -> str:
    lab_command = getattr(args, "lab_command", None)
    return f"{args.command} {lab_command}" if lab_command else args.command


def _missing_lab_package(exc: ModuleNotFoundError) -> bool:
    return (exc.name or "").split(".")[0] in LAB_PACKAGES


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    with_lab = argv[:1] == [LAB_GROUP]
    if with_lab:
        lab_commands = _lab_commands()
        if isinstance(lab_commands, str):
            print(f"chickenfoot {LAB_GROUP}: {lab_commands}", file=sys.stderr)
            return 2
    parser = build_parser(with_lab)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        result = args.func(args)
    except UserError as exc:
        print(f"chickenfoot {_command_name(args)}: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if args.command != LAB_GROUP or not _missing_lab_package(exc):
            raise
        print(f"chickenfoot {_command_name(args)}: needs {exc.name}, which the lab extra installs: {LAB_INSTALL}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
