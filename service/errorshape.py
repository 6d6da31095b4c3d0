"""The one shape every error the server answers has, whoever writes it.

`{"error": code, "message": one line}`, as JSON: from the routers, from the guards in front of
them, from the HTTP protocol layer (a request h11 cannot parse, a connection over the cap)
and from a refused WebSocket handshake. A client needs one parser for all of them.

A message never carries a large value back: what it quotes from the request goes through
`shown`, and the whole message is cut at `MAX_MESSAGE` characters as a last guard, so an
error cannot be used to make the server echo megabytes, nor fill a log.
"""
from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

MAX_MESSAGE = 400
"""Longest message an error carries; a longer one is cut (with "...") rather than sent whole."""


def shown(value: Any, limit: int = 40) -> str:
    """A value for an error message, never echoing a long one back whole (nor failing on a huge int)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** limit:
        return f"a number of {len(str(abs(value))) if abs(value) < 10 ** 4000 else 'over 4000'} digits"
    text = repr(value) if isinstance(value, str) else str(value) if isinstance(value, (int, float)) else None
    if text is None:
        text = f"a {type(value).__name__}" if not isinstance(value, (list, dict)) else \
            f"a {'list' if isinstance(value, list) else 'JSON object'}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def one_line(message: str, limit: int = MAX_MESSAGE) -> str:
    """A message on one line and no longer than `limit` characters."""
    message = " ".join(str(message).split())
    return message if len(message) <= limit else message[:limit - 3] + "..."


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": code, "message": one_line(message), **extra}


def raw_json_response(status: int, code: str, message: str) -> bytes:
    """A complete HTTP/1.1 error response that closes the connection, for the protocol layer,
    which answers outside any application (and outside h11's state machine)."""
    body = json.dumps(error_body(code, message)).encode()
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "Error"
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode("ascii") + body
