"""The OpenAPI document describes the errors the server really sends.

FastAPI declares every 422 as its own `{"detail": [...]}` validation error, which this server
never answers (see `service.errorshape`), and declares no other error at all. A client generated
from the document, or a tool checking answers against it, would then call every real error a
broken response. Here each operation declares its errors with the one shape: 422 and any other
4xx, and 503 where the operation needs the game store or the tile models (which can be out of
order while the server runs, see `service.storefaults`).
"""
from __future__ import annotations

from typing import Any

from fastapi import FastAPI

ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "description": "Every error the server answers: a code to branch on and one line for people.",
    "properties": {
        "error": {"type": "string", "description": "what went wrong, as a code (not_found, invalid, ...)"},
        "message": {"type": "string", "description": "the same in one line a person can act on"},
    },
    "required": ["error", "message"],
    "additionalProperties": True,
}
ERROR_REF = {"$ref": "#/components/schemas/Error"}
NEEDS_STORE_OR_MODELS = ("games", "hands", "score", "audit")
"""Tags of the operations that can answer 503 (the game store or the models out of order)."""


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR_REF}}}


def declare_errors(doc: dict[str, Any]) -> dict[str, Any]:
    """Rewrite a generated document in place so every operation's errors have the one shape."""
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Error"] = ERROR_SCHEMA
    for operations in doc.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            responses["422"] = _error("the request is not valid (a missing field, a value out of range...)")
            responses["4XX"] = _error("the request was refused; `error` says why")
            if any(tag in NEEDS_STORE_OR_MODELS for tag in operation.get("tags", ())):
                responses["503"] = _error("the game store or the tile models are out of order; `message` says which")
    return doc


def install(app: FastAPI) -> None:
    """Make `app.openapi()` (and /openapi.json) serve the document with the errors declared."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = declare_errors(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
