"""Game records: a whole game as JSON, and replaying one through the engine.

A record holds the house rules, the seats, and for each round the deal (hands
and boneyard order) and every turn. Replaying is how a disputed game is settled:
`load_record` runs each turn through the same checks as live play and reports
the first turn the rules refuse, with the scores up to that point.

Record layout (version 1)::

    {"format": "chickenfoot-game", "version": 1, "players": 4, "set": 9,
     "rules": {...HouseRules...}, "player_names": [...optional...],
     "rounds": [{"index": 0, "double": 9,
                 "deal": {"hands": [["9-9", "6-4", ...], ...], "boneyard": ["1-0", ...],
                          "first_seat": 0, "start_draw": null},
                 "turns": [{"type": "play", "player": 1, "tile": "9-4", "on": "9-9", "slot": 0},
                           {"type": "draw", "player": 2, "tile": "3-1"},
                           {"type": "pass", "player": 2},
                           {"type": "announce", "player": 1}, ...]}]}

A play names the tile it goes on ("on", plus "slot" for a double's arm or toe)
and may carry the engine's open-end id ("end"); "on" wins when both are given.
A play marked "stood" broke a rule but the table kept it (a watched game where the
flagged play was not taken back and the next play was made): it is replayed as laid
(`RoundState.force_play`, with "facing", the value laid against the end, where that was
the wrong number; "waived" where the table went on without feeding the spinner or
chickie that had to be fed first), since every later play was made on the table with it there.
Turns marked "auto" (penalty draws, skipped turns) are written for people to
read; the engine redoes them itself on replay. "opening" and "result" blocks
are informative too.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .deal import Deal, GameConfig
from .errors import ConfigError, EngineError, IllegalPlay, NoSuchOpenEnd, RoundOver, TileNotInSet
from .game import RECORD_FORMAT, GameState
from .round import RoundResult, RoundState
from .rules import HouseRules
from .scoring import ScoreSheet
from .tiles import Tile


class RecordError(EngineError, ValueError):
    """The record itself is malformed (not a question of the rules)."""


@dataclass(frozen=True)
class TurnError:
    """The first turn in a record that the rules refuse."""

    round: int
    turn: int
    """Index into that round's "turns" list."""
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "turn": self.turn, "code": self.code, "message": self.message}

    def __str__(self) -> str:
        return f"round {self.round}, turn {self.turn}: {self.message} ({self.code})"


@dataclass
class ReplayResult:
    config: GameConfig
    game: GameState
    """The game as replayed, up to the first refused turn."""
    error: TurnError | None = None
    results: list[RoundResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def sheet(self) -> ScoreSheet:
        return self.game.sheet

    @property
    def scores(self) -> list[int]:
        """Cumulative score per seat over the rounds that finished."""
        return self.game.totals()

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "error": None if self.error is None else self.error.to_dict(),
            "scores": self.scores,
            "rounds": [r.to_dict() for r in self.results],
            "sheet": self.sheet.to_dict(),
            "complete": self.game.is_over(),
        }


def dumps_record(record: dict[str, Any]) -> str:
    return json.dumps(record, indent=1)


def save_record(record: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(dumps_record(record))


def _read(source: dict[str, Any] | str | Path) -> dict[str, Any]:
    if isinstance(source, dict):
        return source
    if isinstance(source, Path) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        try:
            text = Path(source).read_text()
        except OSError as exc:
            raise RecordError(f"cannot read game record {source}: {exc}") from None
    else:
        text = source
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"game record is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RecordError("a game record is a JSON object")
    return data


Observer = Callable[[str, int, int, "dict[str, Any] | None", RoundState], None]
"""`observe(stage, round, turn, turn_record, state)`: stage "start" (the round opened; turn -1),
"before" and "after" each turn the record makes (automatic turns, penalties and skips, are the
engine's own: they show in the state's history after the action that set them off), "end" (the
round's turns are all made)."""


def load_record(source: dict[str, Any] | str | Path, observe: Observer | None = None) -> ReplayResult:
    """Replay a game record; stops at the first turn the rules refuse.

    `source` is the record as a dict, a JSON string, or a path. Malformed records
    (missing fields, an impossible setup) raise `RecordError`; rule breaches are
    reported in the result's `error`. `observe` sees the round at every step (for
    studying a game play by play).
    """
    data = _read(source)
    if data.get("format", RECORD_FORMAT) != RECORD_FORMAT:
        raise RecordError(f"not a chickenfoot game record (format {data.get('format')!r})")
    try:
        config = GameConfig(int(data["players"]), int(data["set"]), HouseRules.from_dict(data.get("rules", {})))
    except KeyError as exc:
        raise RecordError(f"game record lacks {exc.args[0]!r}") from None
    except ConfigError as exc:
        raise RecordError(f"game record describes an impossible game: {exc}") from None
    game = GameState(config)
    replay = ReplayResult(config, game)
    rounds = data.get("rounds", [])
    if not isinstance(rounds, list):
        raise RecordError("\"rounds\" must be a list")
    for r_index, rdata in enumerate(rounds):
        if game.is_over():
            replay.error = TurnError(r_index, 0, "game_over", "every double has had its round; this round is extra")
            return replay
        try:
            deal = Deal.from_dict(rdata["deal"])
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"round {r_index}: unreadable deal ({exc})") from None
        try:
            state = game.start_round(deal=deal)
        except ConfigError as exc:
            replay.error = TurnError(r_index, 0, "bad_deal", str(exc))
            return replay
        turns = rdata.get("turns", [])
        if observe is not None:
            observe("start", r_index, -1, None, state)
        for t_index, turn in enumerate(turns):
            if not isinstance(turn, dict) or "type" not in turn:
                raise RecordError(f"round {r_index}, turn {t_index}: a turn is an object with a \"type\"")
            if turn.get("auto"):
                continue
            try:
                if observe is not None:
                    observe("before", r_index, t_index, turn, state)
                _apply_turn(state, turn)
                if observe is not None:
                    observe("after", r_index, t_index, turn, state)
            except IllegalPlay as exc:
                replay.error = TurnError(r_index, t_index, exc.code, exc.message)
                return replay
            except (KeyError, TypeError, ValueError) as exc:
                replay.error = TurnError(r_index, t_index, "bad_turn", f"cannot read this turn: {exc}")
                return replay
        if observe is not None:
            observe("end", r_index, len(turns), None, state)
        if not state.is_over():
            if r_index < len(rounds) - 1:
                replay.error = TurnError(
                    r_index, len(turns), "round_not_finished",
                    "the round's turns stop before anyone went out or the game blocked",
                )
                return replay
            break  # a game still being played
        replay.results.append(game.finish_round())
    return replay


def _apply_turn(state: RoundState, turn: dict[str, Any]) -> None:
    kind = turn["type"]
    player = turn.get("player")
    if player is not None:
        player = int(player)
    if kind in ("play", "draw", "pass"):
        state._check_turn(player)  # whose turn it is matters before what was played
    if kind == "play":
        try:
            tile = Tile.parse(turn["tile"])
        except ValueError as exc:
            raise TileNotInSet(str(exc)) from None
        if "on" in turn and turn["on"] is not None:
            try:
                on = Tile.parse(turn["on"])
            except ValueError as exc:
                raise NoSuchOpenEnd(str(exc)) from None
            slot = turn.get("slot")
            end = state.board.end_at(on, None if slot is None else int(slot))
            if end is None:
                where = f"{on}" if slot is None else f"{on} slot {slot}"
                if state.is_over():
                    raise RoundOver("the round is over")
                raise NoSuchOpenEnd(f"there is no open end on {where}")
            end_id = end.id
        else:
            end_id = int(turn["end"])
        if turn.get("stood"):
            # broke a rule, but the table kept it: the round went on from it (`force_play`)
            facing = turn.get("facing")
            state.force_play(tile, end_id, player=player, facing=None if facing is None else int(facing),
                             waive=bool(turn.get("waived")))
        else:
            state.play(tile, end_id, player=player)
    elif kind == "draw":
        drawn = turn.get("tile")
        state.draw(player=player, tile=None if drawn is None else Tile.parse(drawn))
    elif kind == "pass":
        state.pass_turn(player=player)
    elif kind == "announce":
        if player is None:
            raise KeyError("player")
        state.announce(player)
    else:
        raise ValueError(f"unknown turn type {kind!r}")
