"""The lab's command group, `chickenfoot lab COMMAND`: one module per command, each with
`register(subparsers)`, imported only to build the group's parser (heavy imports stay
inside each command's handler, as the product's commands keep them)."""
from __future__ import annotations

import importlib

COMMAND_MODULES = ["synth", "train", "eval", "eval_layout", "eval_tracking", "bench"]
"""In the order `chickenfoot lab --help` lists them."""


def register(sub) -> None:
    """Add every lab command to `sub`, the subparsers of the `lab` group."""
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub)
