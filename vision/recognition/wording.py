"""How the recognizer's configurations word a refusal, shared by each of them (`config`, `correction_config`)
so a bad setting reads the same whichever part of the recognizer's tuning it belongs to."""
from __future__ import annotations

from ..config_values import Wording


class RecognizerConfigError(ValueError):
    """A configuration the recognizer cannot use: a setting it does not know, or a value of the wrong kind."""


def recognizer_wording(prefix: str = "") -> Wording:
    """The recognizer's words for a refusal; `prefix` names a smaller configuration's place in it (e.g. "faces.")."""
    return Wording(RecognizerConfigError, value="recognizer setting {name} must be {kind}, got {value!r}",
                   unknown="unknown recognizer setting {names}; known settings are {known}",
                   not_object="a recognizer configuration must be an object, got {type}", prefix=prefix, quoted=True)
