"""A tuning file: the recognizer's, the tracker's and the layout audit's configuration for one
measuring run.

The lab's measuring commands take `--config FILE` so that a change of tuning is measured without
editing code, and write the configuration they ran with into what they report, so that a figure
is never read without the tuning that produced it. The file is a JSON object of up to three parts,

    {"recognizer": {"small_tile_px": 80, "faces": {"face_sure": 0.95}},
     "tracker": {"window": 4, "motion": {"change_share": 0.0004}},
     "audit": {"near_layout": 0.5}}

each naming only the settings it changes (the rest keep their defaults: see `RecognizerConfig`,
`TrackerConfig` and `AuditConfig`); the smaller configurations inside them (the recognizer's
`faces`, the tracker's `pictures` and `motion`, ...) are objects of their own settings, named the
same way. Anything the configurations do not know is refused, not ignored: a misspelt name left
at its default would measure the defaults while seeming to measure a change.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from service.errors import UserError

if TYPE_CHECKING:  # imported when used: the commands' parsers import this module, and build fast
    from vision.recognition.config import RecognizerConfig
    from vision.table_audit import AuditConfig
    from vision.tracking.tuning import TrackerConfig

SECTIONS = ("recognizer", "tracker", "audit")
"""The parts a tuning file may hold, each optional."""


class TuningFileError(ValueError):
    """A tuning file that cannot be used; the message is one line naming the file."""


class Tuning(NamedTuple):
    """The recognizer's, the tracker's and the layout audit's configuration, together."""

    recognizer: RecognizerConfig
    tracker: TrackerConfig
    audit: AuditConfig

    @classmethod
    def defaults(cls) -> Tuning:
        """Every part at its defaults: what a run without a tuning file measures."""
        from vision.recognition.config import RecognizerConfig
        from vision.table_audit import AuditConfig
        from vision.tracking.tuning import TrackerConfig

        return cls(RecognizerConfig(), TrackerConfig(), AuditConfig())

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Every setting of every part, defaults included: what an evaluation output records."""
        return {"recognizer": self.recognizer.to_dict(), "tracker": self.tracker.to_dict(),
                "audit": self.audit.to_dict()}

    def changes(self) -> dict[str, dict[str, Any]]:
        """The settings that differ from the defaults, by part (parts without any left out); a
        setting of a smaller configuration is named with its place in the part (`motion.change_share`)."""
        defaults = {part: dict(_leaves(values)) for part, values in Tuning.defaults().to_dict().items()}
        out = {}
        for part, values in self.to_dict().items():
            changed = {k: v for k, v in _leaves(values) if v != defaults[part][k]}
            if changed:
                out[part] = changed
        return out


def _leaves(values: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Every setting of a configuration's `to_dict`, those of the smaller configurations in it named
    with their place ("faces.face_sure")."""
    out: list[tuple[str, Any]] = []
    for k, v in values.items():
        out.extend(_leaves(v, f"{prefix}{k}.") if isinstance(v, dict) else [(prefix + k, v)])
    return out


def read_tuning_file(path: str | Path) -> Tuning:
    """The configuration a tuning file gives; `TuningFileError` (one line) when it cannot be read or used."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TuningFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TuningFileError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TuningFileError(f"{path}: not valid JSON ({exc})") from None
    return tuning_from_dict(data, str(path))


def tuning_from_dict(data: Any, source: str = "tuning") -> Tuning:
    """The configuration an object of the tuning file's form gives; `source` names it in errors."""
    from vision.recognition.config import RecognizerConfig, RecognizerConfigError
    from vision.table_audit import AuditConfig, AuditConfigError
    from vision.tracking.tuning import TrackerConfig, TrackerConfigError

    if not isinstance(data, dict):
        raise TuningFileError(f"{source}: must hold a JSON object with {' and/or '.join(map(repr, SECTIONS))}, "
                              f"got {type(data).__name__}")
    unknown = sorted(str(k) for k in data if k not in SECTIONS)
    if unknown:
        raise TuningFileError(f"{source}: unknown part {', '.join(map(repr, unknown))}; "
                              f"a tuning file holds {' and/or '.join(map(repr, SECTIONS))}")
    parts: dict[str, Any] = {}
    for part, config, error in (("recognizer", RecognizerConfig, RecognizerConfigError),
                                ("tracker", TrackerConfig, TrackerConfigError),
                                ("audit", AuditConfig, AuditConfigError)):
        try:
            parts[part] = config.from_dict(data.get(part, {}))
        except error as exc:  # the configuration's own message, which names the setting
            raise TuningFileError(f"{source}: {part}: {exc}") from None
    return Tuning(**parts)


def tuning_line(tuning: Tuning, path: str | Path | None) -> str:
    """One line for a text report saying which tuning it ran with, naming only what differs from the defaults."""
    changes = tuning.changes()
    if path is None and not changes:
        return "tuning: defaults"
    what = "; ".join(f"{part}: " + ", ".join(f"{k}={v}" for k, v in values.items())
                     for part, values in changes.items())
    return f"tuning: {path or 'given'} ({what or 'every setting at its default'})"


def add_config_arg(parser: Any) -> None:
    """`--config FILE`, the same on every lab command that measures the recognizer, the tracker or the audit."""
    parser.add_argument("--config", metavar="FILE", default=None,
                        help='tuning file: JSON {"recognizer": {...}, "tracker": {...}, "audit": {...}}, each part optional, '
                             "naming only the settings it changes (the defaults otherwise)")


def load_config_arg(path: str | None) -> Tuning:
    """The tuning `--config` names (the defaults without it); a bad file is a one-line error for the terminal."""
    if path is None:
        return Tuning.defaults()
    try:
        return read_tuning_file(path)
    except TuningFileError as exc:
        raise UserError(f"--config: {exc}") from None
