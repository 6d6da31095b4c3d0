"""Studying a game: every round play by play, and players' figures across games.

`replay_game` runs a game record through `load_record` (the same checks as live
play) and keeps a step for every turn: what was done, the board as a diagram
drawn from the layout graph (where each tile lies follows from what it was laid
against, not from any photo), each hand's size and the boneyard, and every flag
with the rule it names: a play the table kept although it broke a rule, an
illegal play a camera saw and the table took back, a forgotten last-tile call.
A round that stalled ends with the proof of why (`engine.blocked`).

`study_games` reads several records and sums up each player: points per round,
rounds at zero, rounds won, games won, and a standing by the game's own
tie-breaks (lowest points, then most zero rounds, then the lowest single round),
here on points per round so that players with different numbers of games compare.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .blocked import explain_round
from .board import Board
from .errors import IllegalPlay
from .record import TurnError, _read, load_record
from .round import RoundState
from .scoring import rank_players
from .tiles import Tile

TILE_LENGTH = 2.0
"""Diagram units: a tile is 2 long and 1 wide."""
GAP = 0.12
TOE_SPREAD = 50.0
"""Degrees between a chickie's toes."""


@dataclass(frozen=True)
class DiagramTile:
    """One tile of the board diagram: centre, direction of its line, and its two values."""

    index: int
    tile: Tile
    parent: int | None
    x: float
    y: float
    angle: float
    """Direction of the line it continues, degrees (0 = right, 90 = down)."""
    facing: int
    """Value toward the parent (first along the line)."""
    outer: int
    kind: str
    player: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "tile": str(self.tile), "parent": self.parent, "x": round(self.x, 3),
                "y": round(self.y, 3), "angle": round(self.angle, 1), "facing": self.facing, "outer": self.outer,
                "kind": self.kind, "player": self.player, "double": self.tile.is_double}


def board_diagram(board: Board) -> list[DiagramTile]:
    """Where to draw each tile: the spinner at the origin, its arms evenly round it, every line
    straight on from the tile it was laid against, a chickie's toes fanned out ahead of it."""
    out: list[DiagramTile] = []
    placements = board.placements
    if not placements:
        return out
    arms = board.spinner_arms
    where: dict[int, tuple[float, float, float]] = {}
    for p in placements:
        if p.parent is None:
            where[p.index] = (0.0, 0.0, 0.0)
        else:
            px, py, pangle = where[p.parent]
            parent = placements[p.parent]
            if parent.kind == "spinner":
                angle = 360.0 * (p.slot or 0) / arms
            elif parent.kind == "chickie":
                angle = pangle + TOE_SPREAD * ((p.slot or 0) - 1)
            else:
                angle = pangle
            reach = _half(parent.tile, parent.kind == "spinner") + _half(p.tile, False) + GAP
            if parent.kind == "chickie":
                reach += 0.35  # fanned toes need room beside each other
            rad = math.radians(angle)
            where[p.index] = (px + reach * math.cos(rad), py + reach * math.sin(rad), angle)
        x, y, angle = where[p.index]
        out.append(DiagramTile(p.index, p.tile, p.parent, x, y, angle, p.facing, p.outer, p.kind, p.player))
    return out


def _half(tile: Tile, spinner: bool) -> float:
    """Half a tile's extent along its line: doubles lie across it."""
    return 0.5 if tile.is_double else TILE_LENGTH / 2


@dataclass
class Flag:
    """Something the rules say about a step: the rule's code and its sentence."""

    step: int
    rule: str
    message: str
    player: int | None = None
    tile: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "rule": self.rule, "message": self.message, "player": self.player,
                "tile": self.tile}


@dataclass
class ReplayStep:
    index: int
    kind: str
    """"deal" (the spinner down), "play", "draw", "pass" or "announce"."""
    player: int | None
    text: str
    board: list[DiagramTile]
    hand_sizes: list[int]
    boneyard: int
    turn: int | None
    """Whose turn it is after this step (None once the round is over)."""
    flags: list[Flag] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "player": self.player, "text": self.text,
                "board": [t.to_dict() for t in self.board], "hand_sizes": self.hand_sizes,
                "boneyard": self.boneyard, "turn": self.turn, "flags": [f.to_dict() for f in self.flags]}


@dataclass
class RoundReplay:
    index: int
    double: int
    steps: list[ReplayStep] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    result: dict[str, Any] | None = None
    blocked: dict[str, Any] | None = None
    """The proof of why the round stalled, when it did."""

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "double": self.double, "steps": [s.to_dict() for s in self.steps],
                "flags": [f.to_dict() for f in self.flags], "result": self.result, "blocked": self.blocked}


@dataclass
class GameReplay:
    players: int
    set_max: int
    names: list[str]
    rounds: list[RoundReplay]
    error: TurnError | None
    sheet: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "set": self.set_max, "names": self.names,
                "rounds": [r.to_dict() for r in self.rounds],
                "error": None if self.error is None else self.error.to_dict(), "sheet": self.sheet}


def player_names(record: dict[str, Any]) -> list[str]:
    n = int(record.get("players", 0))
    names = record.get("player_names")
    if isinstance(names, list) and len(names) == n:
        return [str(x) for x in names]
    return [f"Player {p + 1}" for p in range(n)]


def replay_game(source: dict[str, Any] | str | Path) -> GameReplay:
    """Every round of a record, step by step (see the module docstring). Raises `RecordError`
    for a malformed record; a turn the rules refuse ends the replay there (`error`)."""
    record = _read(source)
    names = player_names(record)
    rounds: list[RoundReplay] = []
    pending: dict[str, Any] = {}

    def name(p: int | None) -> str:
        return "someone" if p is None or not 0 <= p < len(names) else names[p]

    def snapshot(rr: RoundReplay, state: RoundState, kind: str, player: int | None, text: str,
                 flags: list[Flag]) -> None:
        step = ReplayStep(len(rr.steps), kind, player, text, board_diagram(state.board),
                          [len(h) for h in state.hands], state.boneyard_count,
                          None if state.is_over() else state.turn, flags)
        for f in flags:
            f.step = step.index
        rr.steps.append(step)
        rr.flags.extend(flags)

    def observe(stage: str, r: int, t: int, turn: dict[str, Any] | None, state: RoundState) -> None:
        if stage == "start":
            rr = RoundReplay(r, state.round_double)
            rounds.append(rr)
            snapshot(rr, state, "deal", state.spinner_player,
                     f"{name(state.spinner_player)} laid the spinner {state.spinner}", [])
            pending["history"] = len(state.history)
            return
        rr = rounds[-1]
        if stage == "before":
            pending["flag"] = _stood_flag(turn, state) if turn and turn.get("stood") else None
            return
        if stage == "end":
            observed = (record.get("rounds") or [])[r].get("observed") if r < len(record.get("rounds") or []) else None
            _camera_flags(rr, observed)
            if state.is_over():
                rr.result = state.result().to_dict()
                if state.stalemate:
                    rr.blocked = explain_round(state).to_dict()
            return
        assert turn is not None
        kind = turn["type"]
        player = turn.get("player")
        player = int(player) if player is not None else None
        flags: list[Flag] = []
        if pending.get("flag") is not None:
            flags.append(pending["flag"])
        if kind == "play":
            placed = state.board.placements[-1]
            where = f" on {turn.get('on')}" if turn.get("on") else ""
            text = f"{name(player)} played {placed.tile}{where}"
        elif kind == "draw":
            text = f"{name(player)} drew a tile"
        elif kind == "pass":
            text = f"{name(player)} passed"
        else:
            text = f"{name(player)} called their last tile"
        for entry in state.history[pending["history"]:]:
            if entry[0] == "penalty":
                cost = "drew a tile" if entry[2] is not None else "loses a turn"
                flags.append(Flag(0, "chickenlittle", f"{name(entry[1])} did not call their last tile in time and "
                                  f"{cost}", entry[1]))
        pending["history"] = len(state.history)
        if state.is_over():
            text += "; " + (f"{name(state.winner)} went out" if state.winner is not None else "the round is blocked")
        snapshot(rr, state, kind, player, text, flags)

    result = load_record(record, observe)
    return GameReplay(int(record["players"]), int(record["set"]), names, rounds, result.error,
                      _sheet(record, result.sheet.to_dict()))


def _stood_flag(turn: dict[str, Any], state: RoundState) -> Flag | None:
    """The rule a play the table kept broke, as the engine words it."""
    try:
        tile = Tile.parse(turn["tile"])
        on = Tile.parse(turn["on"])
    except (KeyError, TypeError, ValueError):
        return None
    slot = turn.get("slot")
    end = state.board.end_at(on, None if slot is None else int(slot))
    player = turn.get("player")
    if end is None:
        return Flag(0, "no_such_open_end", f"{tile} was laid on {on}, which had no free end", player, str(tile))
    facing = turn.get("facing")
    if facing is not None and int(facing) != end.value:
        return Flag(0, "ends_do_not_match",
                    f"{tile} was laid with its {facing} against the open {end.value} on {on}", player, str(tile))
    try:
        state.check_play(tile, end.id, player=None if player is None else int(player))
    except IllegalPlay as exc:
        return Flag(0, exc.code, exc.message, player, str(tile))
    return None


def _camera_flags(rr: RoundReplay, observed: dict[str, Any] | None) -> None:
    """Illegal plays a camera saw and the table took back: they never reached the board, so each
    is shown at the step of the last play seen before it."""
    if not isinstance(observed, dict):
        return
    frames = [p.get("frame", 0) for p in observed.get("plays", [])]
    play_steps = [s.index for s in rr.steps if s.kind == "play"]
    for item in observed.get("illegal", []) or []:
        if not isinstance(item, dict) or item.get("stood"):
            continue
        before = sum(1 for f in frames if f <= item.get("frame", 0))
        step = play_steps[before - 1] if 0 < before <= len(play_steps) else 0
        flag = Flag(step, str(item.get("rule", "illegal")), str(item.get("message", "illegal play")),
                    item.get("player"), item.get("tile"))
        rr.steps[step].flags.append(flag)
        rr.flags.append(flag)


def _sheet(record: dict[str, Any], replayed: dict[str, Any]) -> dict[str, Any]:
    """The score sheet the record keeps (a watched game's hands were counted at the table, not
    replayed), else the one the replay made."""
    kept = record.get("scores")
    if isinstance(kept, dict) and isinstance(kept.get("rounds"), list) and kept["rounds"]:
        return kept
    return replayed


# --- across games ------------------------------------------------------------------------


@dataclass
class PlayerStats:
    name: str
    games: int = 0
    rounds: int = 0
    points: int = 0
    zero_rounds: int = 0
    rounds_won: int = 0
    """Rounds in which nobody scored less (ties each count)."""
    games_won: int = 0
    """Games finished at rank 1 by the tie-breaks (shared ranks each count)."""
    lowest_nonzero: int | None = None
    standing: int = 0

    @property
    def points_per_round(self) -> float:
        return self.points / self.rounds if self.rounds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "games": self.games, "rounds": self.rounds, "points": self.points,
                "points_per_round": round(self.points_per_round, 2), "zero_rounds": self.zero_rounds,
                "rounds_won": self.rounds_won, "games_won": self.games_won,
                "lowest_nonzero": self.lowest_nonzero, "standing": self.standing}


def study_games(records: Sequence[dict[str, Any] | str | Path]) -> list[PlayerStats]:
    """Each player's figures over the games of `records` (players matched by name), best first."""
    stats: dict[str, PlayerStats] = {}
    for source in records:
        record = _read(source)
        names = player_names(record)
        sheet = _sheet(record, load_record(record).sheet.to_dict())
        rows = [list(r["scores"]) for r in sheet.get("rounds", [])]
        standings = rank_players(rows, len(names)) if rows else []
        for p, who in enumerate(names):
            s = stats.setdefault(who, PlayerStats(who))
            s.games += 1
            for row in rows:
                score = row[p]
                s.rounds += 1
                s.points += score
                s.zero_rounds += score == 0
                s.rounds_won += score == min(row)
                if score and (s.lowest_nonzero is None or score < s.lowest_nonzero):
                    s.lowest_nonzero = score
        for st in standings:
            if st.rank == 1 and rows:
                stats[names[st.player]].games_won += 1
    ordered = sorted(stats.values(), key=_tie_key)
    for i, s in enumerate(ordered):
        s.standing = ordered[i - 1].standing if i and _tie_key(s)[:4] == _tie_key(ordered[i - 1])[:4] else i + 1
    return ordered


def _tie_key(s: PlayerStats) -> tuple[bool, float, float, float, str]:
    """The game's tie-breaks on per-round figures: fewest points, most zero rounds, lowest round;
    a player with no round played yet stands after every player who has (no points is not a
    good score)."""
    zero_share = s.zero_rounds / s.rounds if s.rounds else 0.0
    lowest = s.lowest_nonzero if s.lowest_nonzero is not None else math.inf
    return (s.rounds == 0, s.points_per_round, -zero_share, lowest, s.name)
