"""The server's own state: whether it can read and write games, and which parts it offers."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Answer


class StorageState(Answer):
    """What the game store can do now; the problem fields are there only when something is wrong."""

    ok: bool = Field(description="reads and writes both work")
    problem: str | None = Field(None, description="what is wrong: read_only, missing, damaged, full, ...")
    error: str | None = Field(None, description="the error code a refused write carries (store_...)")
    message: str | None = Field(None, description="the sentence a refused write carries")
    readable: bool = Field(description="stored games can be read")
    writable: bool = Field(description="rounds can be recorded")


class Health(Answer):
    """Is the server up, and which parts can it offer (cheap enough to poll)."""

    status: Literal["ok", "degraded"] = Field(description="\"degraded\" while the game store is out of order")
    schema_version: int | None = Field(alias="schema", description="the database's schema version; null if unreadable")
    models: bool = Field(description="the tile models are installed")
    audit: bool = Field(description="the layout reader (POST /api/v1/audit) is installed")
    storage: StorageState = Field(description="what the game store can do")
