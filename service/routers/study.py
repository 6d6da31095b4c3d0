"""Studying games and advising on the deal: the engine's answers over HTTP.

- POST /api/v1/advise: how many tiles to deal (`engine.advise`), as `chickenfoot advise`;
- POST /api/v1/replay: a game record step by step with board diagrams and flags
  (`engine.replay`), as `chickenfoot replay`;
- POST /api/v1/study: each player's figures across game records, as `chickenfoot study`;
- GET /api/v1/players/stats: the same across every stored game;
- POST /api/v1/blocked: why a table is blocked, from a layout audit (`engine.blocked`).
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from engine import ConfigError, HouseRules, RecordError
from engine.advise import AdviceTuning, advise
from engine.blocked import explain_audit
from engine.replay import replay_game, study_games

from ..db import GameStore
from ..deps import ApiError, get_store
from ..schemas import Advice, BlockProof, GameReplay, Study
from .common import RULES_HELP, check_set

router = APIRouter(prefix="/api/v1", tags=["study"], default_response_class=JSONResponse)

MAX_ADVICE_ROUNDS = 20_000
"""Rounds per hand size one request may ask for (a few seconds of one core)."""
MAX_RECORDS = 200


class AdviceRequest(BaseModel):
    players: int = Field(..., description="players at the table", examples=[4])
    set: int = Field(9, description="the set: 6, 9, 12, 15 or 18 (double-N)")
    house_rules: dict[str, Any] | str | None = Field(None, description=RULES_HELP)
    rounds: int = Field(2000, description=f"rounds per hand size, 1 to {MAX_ADVICE_ROUNDS}")
    seed: int | None = Field(None, description="for a repeatable answer")


@router.post("/advise", response_model=Advice, response_model_exclude_unset=True)
def advise_deal(body: AdviceRequest) -> dict[str, Any]:
    """Share of stalled rounds, round length and points left for each hand size around the table's,
    and the hand size recommended."""
    check_set(body.set)
    if not 1 <= body.rounds <= MAX_ADVICE_ROUNDS:
        raise ApiError(422, "invalid_parameter", f"rounds must be 1 to {MAX_ADVICE_ROUNDS}, got {body.rounds}")
    rules = HouseRules.parse(body.house_rules)
    try:
        result = advise(body.players, body.set, rules, AdviceTuning(rounds=body.rounds, workers=1), seed=body.seed)
    except ConfigError as exc:
        raise ApiError(422, "invalid_game", str(exc)) from None
    return result.to_dict()


@router.post("/replay", response_model=GameReplay, response_model_exclude_unset=True)
def replay(record: dict[str, Any]) -> dict[str, Any]:
    """A game record (engine format) replayed round by round, step by step."""
    try:
        return replay_game(record).to_dict()
    except (RecordError, KeyError, TypeError, ValueError) as exc:
        raise ApiError(422, "bad_record", f"not a readable game record: {exc}") from None


class StudyRequest(BaseModel):
    records: list[dict[str, Any]] = Field(..., description="game records (engine format)")


def _study(records: list[dict[str, Any]]) -> dict[str, Any]:
    if len(records) > MAX_RECORDS:
        raise ApiError(422, "too_many_records", f"at most {MAX_RECORDS} records at once")
    try:
        return {"players": [s.to_dict() for s in study_games(records)], "games": len(records)}
    except (RecordError, KeyError, TypeError, ValueError) as exc:
        raise ApiError(422, "bad_record", f"not a readable game record: {exc}") from None


@router.post("/study", response_model=Study, response_model_exclude_unset=True)
def study(body: StudyRequest) -> dict[str, Any]:
    """Each player's points per round, zero rounds, rounds and games won, and standing."""
    return _study(body.records)


@router.get("/players/stats", response_model=Study, response_model_exclude_unset=True)
def stored_player_stats(store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """The same figures across every stored game (players matched by name)."""
    games = store.list_games(MAX_RECORDS, 0)
    return _study([store.export_record(g.id) for g in games])


class BlockedRequest(BaseModel):
    audit: dict[str, Any] = Field(..., description="the answer of POST /api/v1/audit (or `chickenfoot audit --json`)")
    set: int = Field(9, description="the set in use")


@router.post("/blocked", response_model=BlockProof, response_model_exclude_unset=True)
def blocked(body: BlockedRequest) -> dict[str, Any]:
    """Whether play can go on, as far as the picture shows."""
    check_set(body.set)
    try:
        return explain_audit(body.audit, body.set).to_dict()
    except (KeyError, TypeError, ValueError) as exc:
        raise ApiError(422, "bad_audit", f"not a readable layout audit: {exc}") from None
