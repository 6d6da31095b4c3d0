"""Stored games: create one, record, edit or take back rounds, read the score sheet, export the
record, delete a game.

A round's hands may be typed points, typed tiles, or a hand photo read by
POST /api/v1/score (its `hand_id`); see `service.db` for how each is counted.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from engine import PRESETS, HouseRules

from ..db import GameStore
from ..deps import get_store
from ..schemas import (Game, GameDeleted, GamePage, GameRecord, GameSheet, HouseRuleChoices, LiveEvents,
                       RoundDeleted, RoundEdited, RoundRecorded)

router = APIRouter(prefix="/api/v1/games", tags=["games"], default_response_class=JSONResponse)
rules_router = APIRouter(prefix="/api/v1", tags=["games"], default_response_class=JSONResponse)


class NewGame(BaseModel):
    players: list[str] = Field(..., description="names in seat order, 2 to 10", examples=[["Ann", "Bob", "Cy"]])
    set: int = Field(9, description="the set: 6, 9, 12, 15 or 18 (double-N)")
    house_rules: dict[str, Any] | str | None = Field(
        None, description="house rules as an object (see GET /api/v1/house-rules), a preset name such as "
                          "\"howto\", or the same object as JSON text",
    )


class NewRound(BaseModel):
    hands: list[Any] = Field(
        ..., description="one per player in seat order: {\"points\": 12}, {\"tiles\": [\"6-4\", \"0-0\"]} "
                         "or {\"hand_id\": \"...\"} from POST /api/v1/score",
        examples=[[{"points": 12}, {"tiles": ["6-4", "0-0"]}, {"points": 0}]],
    )
    index: int | None = Field(
        None, description="the round's index (0 first); when given, resending the same round is harmless",
    )


@router.post("", status_code=201, response_model=Game, response_model_exclude_unset=True)
def create_game(body: NewGame, store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """Start a game: players, the set and the house rules are fixed from here on."""
    game = store.create_game(body.players, body.set, HouseRules.parse(body.house_rules))
    return {**game.summary(), "sheet": store.sheet(game.id)}


MAX_PAGE = 500


@router.get("", response_model=GamePage, response_model_exclude_unset=True)
def list_games(
    limit: int = Query(50, ge=1, le=MAX_PAGE, description=f"games per page (1 to {MAX_PAGE})"),
    offset: int = Query(0, ge=0, le=2**62, description="how many of the newest games to skip"),
    store: GameStore = Depends(get_store),
) -> dict[str, Any]:
    """Stored games, newest first, a page at a time: `total` says how many there are in all and
    `next_offset` where the next page starts (null on the last page)."""
    total = store.count_games()
    games = [g.summary() for g in store.list_games(limit, offset)]
    following = offset + len(games)
    return {"games": games, "total": total, "limit": limit, "offset": offset,
            "next_offset": following if following < total else None}


@router.get("/{game_id}", response_model=Game, response_model_exclude_unset=True)
def get_game(game_id: str, store: GameStore = Depends(get_store)) -> dict[str, Any]:
    game = store.get_game(game_id)
    return {**game.summary(), "sheet": store.sheet(game_id)}


REPLAYED = {200: {"model": RoundRecorded,
                  "description": "the same round sent again with its index: the stored round, nothing added"}}


@router.post("/{game_id}/rounds", status_code=201, response_model=RoundRecorded, response_model_exclude_unset=True,
             responses=REPLAYED)
def record_round(game_id: str, body: NewRound, response: Response,
                 store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """Record the next round; answered only once it is safely on disk."""
    result = store.record_round(game_id, body.hands, body.index)
    if result["replayed"]:
        response.status_code = 200
    return result


class EditedRound(BaseModel):
    hands: list[Any] = Field(
        ..., description="the round's hands again, one per player in seat order, as for recording a round",
        examples=[[{"points": 25}, {"tiles": ["6-4", "0-0"]}, {"points": 0}]],
    )


@router.put("/{game_id}/rounds/{index}", response_model=RoundEdited, response_model_exclude_unset=True)
def edit_round(game_id: str, index: int, body: EditedRound,
               store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """Replace a recorded round's hands (checked as a new round is); answered once it is on disk."""
    return store.edit_round(game_id, index, body.hands)


@router.delete("/{game_id}/rounds/{index}", response_model=RoundDeleted, response_model_exclude_unset=True)
def delete_round(game_id: str, index: int, store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """Take back the last round. Only the last: a round's index fixes its double, so an earlier
    round is edited, never removed (409 says so)."""
    return store.delete_round(game_id, index)


@router.delete("/{game_id}", response_model=GameDeleted, response_model_exclude_unset=True)
def delete_game(game_id: str, store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """Remove a game for good: its rounds, the hand photos read for it and its live events."""
    store.delete_game(game_id)
    return {"deleted": game_id}


@router.get("/{game_id}/sheet", response_model=GameSheet, response_model_exclude_unset=True)
def score_sheet(game_id: str, store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """Rounds, totals, standings, and the house rules they were counted by."""
    return store.sheet(game_id)


@router.get("/{game_id}/live-events", response_model=LiveEvents, response_model_exclude_unset=True)
def live_events(game_id: str, store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """What the live camera tracker saw of this game (`/api/v1/live?game_id=...`): plays,
    violations with the engine's rule, take-backs, a disturbed board, oldest first."""
    return store.live_events(game_id)


@router.get("/{game_id}/record", response_model=GameRecord, response_model_exclude_unset=True)
def export_record(game_id: str, store: GameStore = Depends(get_store)) -> JSONResponse:
    """The game record (engine format) as a file to keep."""
    record = store.export_record(game_id)
    return JSONResponse(
        record,
        headers={"Content-Disposition": f'attachment; filename="chickenfoot-{game_id}.json"'},
    )


@rules_router.get("/house-rules", response_model=HouseRuleChoices, response_model_exclude_unset=True)
def house_rules() -> dict[str, Any]:
    """The defaults and the published presets, so a client offers the same choices the engine knows."""
    return {
        "default": HouseRules().to_dict(),
        "presets": {name: {"rules": r.to_dict(), "summary": r.describe()} for name, r in PRESETS.items()},
    }
