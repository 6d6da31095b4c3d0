"""Pieces several commands share."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..cli import UserError

if TYPE_CHECKING:
    from engine import HouseRules
    from vision.recognition.config import RecognizerConfig

RULES_HELP = (
    "house rules: a preset (plain, encyclopedia, montgomery, howto, escale), a JSON file "
    "(options, or a game record holding them), or a JSON object such as '{\"double_blank_value\": 50}'"
)


def load_recognizer(model: str | None, config: RecognizerConfig | None = None):
    """The recognizer for `--model` (a detector file or a folder of both models), tuned by `config`
    (the defaults without it), or a one-line error."""
    from vision.onnx_yolo import ModelError
    from vision.recognize import Recognizer

    try:
        return Recognizer(model, config=config)
    except ModelError as exc:
        raise UserError(str(exc)) from None


def add_model_arg(parser) -> None:
    parser.add_argument("--model", metavar="PATH", help="detector .onnx file or folder holding both models")


def add_rules_arg(parser) -> None:
    """`--rules PRESET|FILE|JSON`, the same on every command that counts or judges by house rules."""
    parser.add_argument("--rules", metavar="PRESET|FILE|JSON", default=None, help=RULES_HELP)


def load_rules(spec: str | None) -> "HouseRules":
    """The house rules `--rules` names, read as the API reads them (`HouseRules.parse`),
    except that a terminal user may also name a file; a bad value is a one-line error."""
    from engine import HouseRules, HouseRulesError

    try:
        return HouseRules.parse(spec, allow_files=True)
    except HouseRulesError as exc:
        raise UserError(f"--rules: {exc}") from None
