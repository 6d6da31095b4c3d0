"""GET /api/v1/health: is the server up, and which parts can it offer."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from ..db import GameStore
from ..deps import Settings, get_settings, get_store
from .audit import layout_module

router = APIRouter(prefix="/api/v1", tags=["health"])


@router.get("/health")
def health(store: GameStore = Depends(get_store), settings: Settings = Depends(get_settings)) -> dict[str, Any]:
    """Cheap enough to poll: touches the database, not the models."""
    from pathlib import Path

    from vision.recognize import DETECTOR_FILE, PIPS_FILE, models_dir

    d = Path(settings.model_dir) if settings.model_dir else models_dir()
    has_models = d.is_file() or ((d / DETECTOR_FILE).is_file() and (d / PIPS_FILE).is_file())
    return {
        "status": "ok",
        "schema": store.schema_version(),
        "models": has_models,
        "audit": layout_module() is not None,
    }
