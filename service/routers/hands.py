"""Hand photos already read: look at one, or correct a tile a person can see was misread.

Corrections are stored beside the original reading (never over it) and the score
is recomputed from the corrected tiles, in the hand and in any round that counts it.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..db import GameStore
from ..deps import get_store
from ..schemas import Hand

router = APIRouter(prefix="/api/v1/hands", tags=["hands"], default_response_class=JSONResponse)


class TileCorrection(BaseModel):
    pips: tuple[int, int] | None = Field(
        ..., description="the two values, end 0 first, e.g. [6, 4]; null if it is not a tile at all",
    )


@router.get("/{hand_id}", response_model=Hand, response_model_exclude_unset=True)
def get_hand(hand_id: str, store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """The hand as it stands: tiles (corrections applied, `read_pips` shows what was read), total and score."""
    return store.get_hand(hand_id)


@router.patch("/{hand_id}/tiles/{tile_id}", response_model=Hand, response_model_exclude_unset=True)
def correct_tile(hand_id: str, tile_id: int, body: TileCorrection,
                 store: GameStore = Depends(get_store)) -> dict[str, Any]:
    """Fix one misread tile; answers the whole hand with the new total and score."""
    return store.correct_tile(hand_id, tile_id, body.pips)
