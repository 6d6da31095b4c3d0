"""GET /api/v1/health: is the server up, and which parts can it offer.

The server answering is not the same as its games being safe: a database made read-only,
deleted, damaged or on a full disk leaves the server up but unable to record a round.
So health always answers 200 (the server is there) and says in `status` ("ok" or
"degraded") and `storage` what it can and cannot do; `storage.message` is the sentence a
refused write carries too.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from ..db import GameStore, StoreUnavailable
from ..deps import Settings, get_settings, get_store
from ..schemas import Health
from .audit import layout_module

router = APIRouter(prefix="/api/v1", tags=["health"], default_response_class=JSONResponse)


@router.get("/health", response_model=Health, response_model_exclude_unset=True)
def health(store: GameStore = Depends(get_store), settings: Settings = Depends(get_settings)) -> dict[str, Any]:
    """Cheap enough to poll: a few file checks and one small read of the database, never the models."""
    from vision.recognize import DETECTOR_FILE, PIPS_FILE, models_dir

    d = Path(settings.model_dir) if settings.model_dir else models_dir()
    has_models = d.is_file() or ((d / DETECTOR_FILE).is_file() and (d / PIPS_FILE).is_file())
    fault = store.check()
    try:
        schema: int | None = store.schema_version()
    except StoreUnavailable:
        schema = None
    storage = fault.to_dict() if fault else {"ok": True, "readable": True, "writable": True}
    return {
        "status": "ok" if fault is None else "degraded",
        "schema": schema,
        "models": has_models,
        "audit": layout_module() is not None,
        "storage": storage,
    }
