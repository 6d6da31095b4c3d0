"""The `chickenfoot` console command.

Each subcommand lives in its own module under `service.commands` and exposes
`register(subparsers)`; the module is imported only to build the parser, and heavy
imports (onnxruntime, OpenCV, torch) stay inside each command's handler so that
`chickenfoot --help` and the engine-only commands start instantly.
"""
from __future__ import annotations

import argparse
import importlib
import sys

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
    "synth",
    "train",
    "eval",
    "eval_layout",
    "eval_tracking",
    "bench",
]


def build_parser() -> argparse.ArgumentParser:
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
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        result = args.func(args)
    except UserError as exc:
        print(f"chickenfoot {args.command}: {exc}", file=sys.stderr)
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
