"""House rules: every point on which the published Chicken Foot texts disagree.

Players agree on these before the first round and may not change them during a
game, so `HouseRules` is immutable and travels with every score and game record;
a score is meaningless without knowing what a double-blank was worth.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal, NoReturn, Union

from .errors import ConfigError, HouseRulesError

HandSize = int | Literal["table"]
StartDouble = Literal["required", "highest_available", "highest_unused"]
DoubleDraw = Literal["in_turn", "everyone"]

START_DOUBLE_CHOICES: tuple[str, ...] = ("required", "highest_available", "highest_unused")
DOUBLE_DRAW_CHOICES: tuple[str, ...] = ("in_turn", "everyone")
SPINNER_ARM_CHOICES: tuple[int, ...] = (4, 6)
DOUBLE_BLANK_CHOICES: tuple[int, ...] = (0, 25, 50)
CHICKIE_TOES = 3
MIN_PLAYERS = 2
TABLE_TILES = 42
"""The "42 divided by the number of players" hand-size table."""
MAX_RULES_CHARS = 1 << 20
"""Longest house-rules text (inline or in a file) read; a game record holding rules fits easily."""
MAX_PATH_CHARS = 4096
"""Longer text is never taken for a file name (the system would refuse it anyway)."""
SHOWN_CHARS = 60
"""Longest piece of the caller's input quoted back in an error message."""

RulesSpec = Union["HouseRules", dict[str, Any], str, os.PathLike, None]
"""Anything `HouseRules.parse` accepts."""


def _shown(value: Any) -> str:
    """The caller's value as an error message quotes it: on one line and never longer than a line.

    Lists and objects are named, not printed, so a deeply nested or huge value
    cannot blow up the message (or the repr itself).
    """
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"an object with {len(value)} keys"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a number far too large"
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _shown_path(path: Path) -> str:
    """A file name as an error message quotes it: long ones keep their end, where the name is."""
    text = str(path)
    return repr(text if len(text) <= 2 * SHOWN_CHARS else "..." + text[-2 * SHOWN_CHARS:])


def table_hand_size(players: int, half_up: bool = True) -> int:
    """Tiles per player by the "42 divided by the number of players" table.

    Only four players land exactly on a half (10.5); the published table says 11,
    some tables round it down to 10, hence `half_up`. The table stops at ten players;
    beyond, the same division goes on (a double-12 set seats more), down to one tile.
    """
    if isinstance(players, bool) or not isinstance(players, int) or players < MIN_PLAYERS:
        raise ConfigError(f"players must be a whole number, at least {MIN_PLAYERS}, got {players!r}")
    whole, rest = divmod(TABLE_TILES, players)
    twice = 2 * rest
    if twice > players or (twice == players and half_up):
        whole += 1
    if whole < 1:
        raise ConfigError(f"the 42 / players table deals no tiles to {players} players")
    return whole


@dataclass(frozen=True, slots=True)
class HouseRules:
    """Options agreed at the table; defaults are the plainest reading of the rules."""

    hand_size: HandSize = 7
    """Tiles dealt to each player: a fixed number, or "table" for 42 / players."""
    table_half_up: bool = True
    """With hand_size "table" and four players: True deals 11 tiles, False deals 10."""
    spinner_arms: int = 4
    """Tiles the starting double takes before anything else: 4, or 6 ("double chickenfoot")."""
    start_double: StartDouble = "required"
    """"required": the round's double must start it (drawn for if nobody holds it);
    "highest_available": the highest double at or below it that someone holds;
    "highest_unused": the highest double held that has not started a round yet, the
    encyclopedia's "the highest double drawn that has not yet been used to start a round
    starts the next round" and the French "sort le double qui a démarré la manche, et le
    prochain tour commence avec le double le plus élevé". Read as: used doubles are crossed
    out, so a game has one round per double; a round's score-sheet row is the double that
    started it; when nobody holds an unused double, players draw for one (`double_draw`)."""
    double_draw: DoubleDraw = "in_turn"
    """How players draw for the starting double when nobody holds it. "in_turn": seats
    draw one at a time until it shows up. "everyone": Montgomery's "Every player must draw
    one domino. This process repeats until someone draws the double", and "if multiple
    players draw doubles at the same time, the highest double is played": whole passes of
    one tile per seat, the highest fitting double of the pass starts the round."""
    first_round_draw: bool = False
    """First round only: everyone draws a tile, the highest tile plays first."""
    voluntary_draw: bool = False
    """A player may draw and pass even when holding a tile that fits."""
    must_play_drawn: bool = False
    """A drawn tile that fits must be played, not kept: the French "il doit tirer un domino
    de la pile et jouer si possible ou faire Passe". Off, a player may pass on it
    (Montgomery: "If the tile drawn is playable, it can (but does not have to) be played")."""
    double_blank_value: int = 0
    """Points for a double-blank left in hand: 0 (its pips), 25 or 50."""
    curved_scoring: bool = False
    """When nobody went out, subtract the lowest hand from every hand."""
    chickenlittle: bool = False
    """A player left with one tile must announce it or draw (or skip a turn)."""

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        hs = self.hand_size
        if isinstance(hs, bool) or not (hs == "table" or (isinstance(hs, int) and hs >= 1)):
            raise HouseRulesError(
                f"hand_size must be a whole number of tiles (1 or more) or \"table\", got {_shown(hs)}"
            )
        for name in ("table_half_up", "first_round_draw", "voluntary_draw", "must_play_drawn", "curved_scoring",
                     "chickenlittle"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise HouseRulesError(f"{name} must be true or false, got {_shown(value)}")
        if not _whole_number_in(self.spinner_arms, SPINNER_ARM_CHOICES):
            raise HouseRulesError(
                f"spinner_arms must be 4 or 6 (the \"double chickenfoot\"), got {_shown(self.spinner_arms)}"
            )
        if not isinstance(self.start_double, str) or self.start_double not in START_DOUBLE_CHOICES:
            raise HouseRulesError(
                "start_double must be \"required\", \"highest_available\" or \"highest_unused\", "
                f"got {_shown(self.start_double)}"
            )
        if not isinstance(self.double_draw, str) or self.double_draw not in DOUBLE_DRAW_CHOICES:
            raise HouseRulesError(
                f"double_draw must be \"in_turn\" or \"everyone\", got {_shown(self.double_draw)}"
            )
        if not _whole_number_in(self.double_blank_value, DOUBLE_BLANK_CHOICES):
            raise HouseRulesError(
                f"double_blank_value must be 0, 25 or 50, got {_shown(self.double_blank_value)}"
            )

    def hand_size_for(self, players: int) -> int:
        if self.hand_size == "table":
            return table_hand_size(players, self.table_half_up)
        return int(self.hand_size)

    def replace(self, **changes: Any) -> "HouseRules":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HouseRules":
        """Rules from an object of option names; options not given keep their defaults.

        Unknown names are refused rather than ignored: a misspelt rule silently left
        at its default would change the score without anyone noticing.
        """
        if not isinstance(data, dict):
            raise HouseRulesError(f"house rules must be a JSON object, got {_kind(data)}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known, key=str)
        if unknown:
            names = ", ".join(_shown(name) for name in unknown[:5])
            raise HouseRulesError(f"unknown house rule {names}; known rules are {', '.join(sorted(known))}")
        for name, value in data.items():
            if isinstance(value, (dict, list, tuple)):
                raise HouseRulesError(f"{name} must be a single value, got {_shown(value)}")
        return cls(**data)

    def to_json(self, **dumps_kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **dumps_kwargs)

    @classmethod
    def from_json(cls, text: str) -> "HouseRules":
        """Rules from JSON text: an object of option names, or an object holding one under
        "rules" (a game record or a score sheet), so a kept game can set up the next."""
        if len(text) > MAX_RULES_CHARS:
            raise HouseRulesError(
                f"house rules are too long ({len(text)} characters; at most {MAX_RULES_CHARS})"
            )
        try:
            data = json.loads(text)
        except RecursionError:
            raise HouseRulesError("house rules are not valid JSON: nested too deeply") from None
        except json.JSONDecodeError as exc:
            raise HouseRulesError(f"house rules are not valid JSON: {_one_line(exc)}") from None
        except ValueError:  # a number with more digits than Python will convert
            raise HouseRulesError("house rules are not valid JSON: a number in them is far too long") from None
        if isinstance(data, dict) and isinstance(data.get("rules"), dict):
            data = data["rules"]
        return cls.from_dict(data)

    @classmethod
    def parse(cls, spec: RulesSpec, *, allow_files: bool = False) -> "HouseRules":
        """House rules from whatever form a person or a program gives them in.

        Every way into the program (command line, form field, query string, JSON
        body) goes through here, so each accepts the same forms and refuses bad
        ones with the same one-line `HouseRulesError`:

        - nothing (None, or blank text): the default rules;
        - `HouseRules`: itself; a dict: its options (as `from_dict`);
        - text starting with "{" (or "["): JSON, which must be an object of options
          (as `from_json`);
        - any other text: a preset name (as `preset`); failing that, and only with
          `allow_files`, the path of a UTF-8 JSON file; a `Path` is always a file.

        Reading files is off unless asked for: a name typed at the terminal may be
        a file, but a name sent by a remote client must never open one on the server.
        A preset wins over a file of the same name (write "./howto" for the file).
        Text, and files, longer than `MAX_RULES_CHARS` are refused unread.
        """
        if spec is None or isinstance(spec, HouseRules):
            return spec if spec is not None else cls()
        if isinstance(spec, dict):
            return cls.from_dict(spec)
        if isinstance(spec, os.PathLike):
            return cls.from_file(Path(spec))
        if not isinstance(spec, str):
            raise HouseRulesError(
                f"house rules must be a preset name, a JSON object or a file, got {_kind(spec)}"
            )
        return cls._parse_text(spec, allow_files)

    @classmethod
    def _parse_text(cls, spec: str, allow_files: bool) -> "HouseRules":
        text = spec.strip()
        if not text:
            return cls()
        if text[0] in "{[":
            return cls.from_json(text)
        if text in PRESETS:
            return PRESETS[text]
        if allow_files and _exists(text):
            return cls.from_file(Path(text))
        return cls._not_understood(text, allow_files)

    @classmethod
    def _not_understood(cls, text: str, allow_files: bool) -> NoReturn:
        """Refuse text that names no preset, saying what would have been understood."""
        presets = ", ".join(PRESETS)
        if allow_files:
            raise HouseRulesError(
                f"unknown preset {_shown(text)} and no such file; give a preset ({presets}), "
                "a JSON object or a JSON file"
            )
        if text.lower().endswith(".json") or "/" in text or "\\" in text:
            raise HouseRulesError(
                f"house rules cannot be read from a file here ({_shown(text)}); "
                f"give a preset ({presets}) or a JSON object"
            )
        raise HouseRulesError(f"unknown preset {_shown(text)}; choose one of {presets}, or give a JSON object")

    @classmethod
    def from_file(cls, path: Path) -> "HouseRules":
        """Rules from a UTF-8 JSON file (as `from_json`); errors name the file."""
        name = _shown_path(path)
        try:
            if not path.exists():
                raise HouseRulesError(f"house rules file {name} does not exist")
            if not path.is_file():
                raise HouseRulesError(f"house rules file {name} is not a regular file")
            size = path.stat().st_size
            if size > MAX_RULES_CHARS:
                raise HouseRulesError(f"house rules file {name} is too big ({size} bytes; at most {MAX_RULES_CHARS})")
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise HouseRulesError(f"cannot read house rules file {name}: {exc.strerror or _one_line(exc)}") from None
        except UnicodeDecodeError:
            raise HouseRulesError(f"house rules file {name} is not UTF-8 text") from None
        try:
            return cls.from_json(text)
        except HouseRulesError as exc:
            raise HouseRulesError(f"house rules file {name}: {exc}") from None

    def describe(self) -> str:
        """One line for the foot of a score sheet, so nobody argues about the count later."""
        hand = "42/players tiles" if self.hand_size == "table" else f"{self.hand_size} tiles"
        if self.hand_size == "table":
            hand += " (4 players: 11)" if self.table_half_up else " (4 players: 10)"
        parts = [
            f"hand {hand}",
            f"spinner {self.spinner_arms} arms",
            _START_WORDS[self.start_double],
        ]
        if self.double_draw == "everyone":
            parts.append("everyone draws for the double")
        if self.first_round_draw:
            parts.append("first round: highest drawn tile starts")
        if self.voluntary_draw:
            parts.append("voluntary draw")
        if self.must_play_drawn:
            parts.append("a drawn tile that fits must be played")
        parts.append(f"double-blank {self.double_blank_value}")
        if self.curved_scoring:
            parts.append("curved scoring")
        if self.chickenlittle:
            parts.append("chickenlittle")
        return ", ".join(parts)

    @classmethod
    def preset(cls, name: str) -> "HouseRules":
        """The rules as one published source states them."""
        try:
            return PRESETS[name]
        except KeyError:
            raise HouseRulesError(f"unknown preset {_shown(name)}; choose one of {', '.join(PRESETS)}") from None


_START_WORDS: dict[str, str] = {
    "required": "start with the round's double",
    "highest_available": "start with highest available double",
    "highest_unused": "start with the highest unused double",
}


def _whole_number_in(value: Any, choices: tuple[int, ...]) -> bool:
    """True for a whole number (not a bool, not 25.0) among `choices`."""
    return isinstance(value, int) and not isinstance(value, bool) and value in choices


def _exists(text: str) -> bool:
    """Whether `text` names something on disk; names the system could never open are not."""
    if len(text) > MAX_PATH_CHARS:
        return False
    try:
        return Path(text).exists()
    except (OSError, ValueError):
        return False


def _kind(value: Any) -> str:
    """What sort of JSON value this is, in words, for error messages."""
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number",
             float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[: 4 * SHOWN_CHARS]


PRESETS: dict[str, HouseRules] = {
    "plain": HouseRules(),
    # "In the first round only, everyone draws a single domino from the boneyard";
    # "the highest double drawn that has not yet been used to start a round starts the next round".
    "encyclopedia": HouseRules(first_round_draw=True, start_double="highest_unused"),
    # "Every player must draw one domino. This process repeats until someone draws the double"
    # is the standard beginning; the highest-available one is an agreed alternative.
    "montgomery": HouseRules(hand_size="table", spinner_arms=6, voluntary_draw=True, double_blank_value=50,
                             double_draw="everyone"),
    "howto": HouseRules(double_blank_value=50),
    # "Si aucun joueur n'a de double-6, alors le joueur avec le plus grand double joue";
    # "sort le double qui a démarré la manche"; "jouer si possible ou faire Passe".
    "escale": HouseRules(hand_size=5, start_double="highest_unused", must_play_drawn=True),
}
