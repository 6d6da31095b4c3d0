"""Settings and the FastAPI dependencies every router shares.

Routers never reach for globals: the settings, the game store, the recognizer and
the live tracker factory all hang off `app.state` and come in through `Depends`,
so a test can build an app around a temporary database and nothing leaks between
apps in one process.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from fastapi import Depends
from starlette.requests import HTTPConnection

from .db import GameStore

DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def default_db_path() -> Path:
    """Where games live unless --db says otherwise: the XDG data directory."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "chickenfoot" / "games.sqlite3"


@dataclass(frozen=True)
class Settings:
    """Everything `chickenfoot serve` can change; the defaults are what a laptop user gets."""

    db_path: Path = field(default_factory=default_db_path)
    token: str | None = None
    """When set, every request must carry it (Authorization: Bearer, ?token= or the cookie)."""
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES
    model_dir: str | None = None
    """Folder (or detector file) with the ONNX models; None means the project's models/."""
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    """Host header names accepted without a token: stops DNS-rebinding pages reaching a loopback server."""
    recognition_slots: int = 2
    """Photos read at once; more would only queue on the CPU and multiply peak memory."""
    live_min_interval: float = 0.1
    """Seconds between two frames the live tracker takes on one connection; frames between are dropped.
    The tracker runs the recognizer only on frames its motion gate picks, so most frames cost a
    few milliseconds; a rate like a camera's keeps the gate seeing every hand that comes in."""
    live_evidence: Path | None = None
    """Where live connections save the frames of illegal plays (default: `live-evidence` beside the database)."""

    @property
    def live_evidence_dir(self) -> Path:
        return self.live_evidence if self.live_evidence is not None else Path(self.db_path).parent / "live-evidence"

    def __post_init__(self) -> None:
        if self.max_upload_bytes < 1:
            raise ValueError("max_upload_bytes must be positive")
        if self.token is not None and len(self.token) < 8:
            raise ValueError("an access token must be at least 8 characters")


class ApiError(Exception):
    """An error meant for the API's caller: it becomes {"error": code, "message": message}."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def get_settings(conn: HTTPConnection) -> Settings:
    return conn.app.state.settings


def get_store(conn: HTTPConnection) -> GameStore:
    return conn.app.state.store


def get_recognizer(settings: Settings = Depends(get_settings)):
    """The process-wide recognizer (models load once, ~100 ms); a missing model is a 503, not a crash."""
    from vision.onnx_yolo import ModelError
    from vision.recognize import get_recognizer as load

    try:
        return load(settings.model_dir)
    except (ModelError, OSError) as exc:
        raise ApiError(503, "models_unavailable", f"the tile models cannot be loaded: {exc}") from None


class RecognitionSlots:
    """Bounds how many photos are decoded and read at once.

    A phone photo costs ~100 MB while it is being read; with more requests than
    cores, letting all of them in at once only raises peak memory, it does not
    finish any sooner.
    """

    def __init__(self, slots: int) -> None:
        self._sem = threading.BoundedSemaphore(max(1, slots))

    @contextmanager
    def hold(self) -> Iterator[None]:
        with self._sem:
            yield


def get_slots(conn: HTTPConnection) -> RecognitionSlots:
    return conn.app.state.slots


def get_tracker_factory(conn: HTTPConnection) -> Callable[..., Any]:
    """Makes one live tracker per WebSocket connection (see routers/live.py for the protocol)."""
    return conn.app.state.tracker_factory
