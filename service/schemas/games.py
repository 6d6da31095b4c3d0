"""Answers about stored games: the game, a page of games, a round's change, the camera's events,
the exported record."""
from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import Answer, HouseRuleSet
from .sheet import EngineSheet, GameSheet, RoundDetail


class GameSummary(Answer):
    """A stored game: who plays, with which set and rules (fixed when the game starts)."""

    id: str = Field(description="the game's id, used in every /api/v1/games/{game_id} path")
    created_at: str = Field(description="when the game was started (UTC, ISO 8601)")
    players: list[str] = Field(description="names in seat order")
    set: int = Field(description="the set (double-N)")
    house_rules: HouseRuleSet = Field(description="the house rules every round is counted by")
    rules_summary: str = Field(description="the rules in one line for people")
    rounds_in_game: int = Field(description="rounds the game lasts")


class Game(GameSummary):
    """A stored game with its score sheet as it stands."""

    sheet: GameSheet = Field(description="rounds, totals, standings")


class GamePage(Answer):
    """A page of stored games, newest first."""

    games: list[GameSummary] = Field(description="the games on this page")
    total: int = Field(description="stored games in all")
    limit: int = Field(description="games per page, as asked")
    offset: int = Field(description="newest games skipped, as asked")
    next_offset: int | None = Field(description="where the next page starts; null on the last page")


class RoundRecorded(Answer):
    """A round on disk, and the sheet with it."""

    index: int = Field(description="the round's index (0 first)")
    replayed: bool = Field(description="true when the same round was sent again and the stored one is answered")
    sheet: GameSheet = Field(description="the sheet with the round counted")


class RoundEdited(Answer):
    """An edited round on disk, and the sheet recounted."""

    index: int = Field(description="the round edited")
    sheet: GameSheet = Field(description="the sheet recounted with the new hands")


class RoundDeleted(Answer):
    """The last round taken back."""

    deleted_index: int = Field(description="the round removed")
    sheet: GameSheet = Field(description="the sheet without it")


class GameDeleted(Answer):
    """A game removed for good."""

    deleted: str = Field(description="the id of the game removed")


class LiveEvent(Answer):
    """One thing the live camera tracker reported, as it reported it: `event` says what
    (tile_played, violation, tile_taken_back, board_disturbed, ...), and the tracker's own fields
    follow; `session` (the live connection) and `recorded_at` (UTC, ISO 8601) are added when it is
    stored. Its fields depend on the kind of event, so none are fixed here."""


class LiveEvents(Answer):
    """What the live camera tracker saw of a game, oldest first, with a tally."""

    game_id: str = Field(description="the game")
    events: list[LiveEvent] = Field(description="every stored event, oldest first")
    plays: int = Field(description="tile_played events")
    violations: int = Field(description="violation events")
    take_backs: int = Field(description="tile_taken_back events")
    sessions: int = Field(description="live connections that reported on this game")


class GameRecord(Answer):
    """The game in the engine's record format (what `chickenfoot replay` and POST /api/v1/replay read).

    The service sees only what is left in each hand at the end of a round, so `rounds` (deals and
    turns) is empty; the sheet and how each round was counted are in `scores` and `score_rounds`."""

    format: str = Field(description="the record format's name")
    version: int = Field(description="the record format's version")
    players: int = Field(description="number of seats")
    set: int = Field(description="the set (double-N)")
    rules: HouseRuleSet = Field(description="the house rules")
    player_names: list[str] = Field(description="names in seat order")
    rounds: list[dict[str, Any]] = Field(description="deals and turns, where known (empty for a stored game)")
    scores: EngineSheet = Field(description="the score sheet")
    score_rounds: list[RoundDetail] = Field(description="how each round's hands were counted")
    game_id: str = Field(description="the stored game")
    created_at: str = Field(description="when the game was started (UTC, ISO 8601)")
