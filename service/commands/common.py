"""Pieces several commands share."""
from __future__ import annotations

from ..cli import UserError


def load_recognizer(model: str | None):
    """The recognizer for `--model` (a detector file or a folder of both models), or a one-line error."""
    from vision.onnx_yolo import ModelError
    from vision.recognize import Recognizer

    try:
        return Recognizer(model)
    except ModelError as exc:
        raise UserError(str(exc)) from None


def add_model_arg(parser) -> None:
    parser.add_argument("--model", metavar="PATH", help="detector .onnx file or folder holding both models")
