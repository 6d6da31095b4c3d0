"""Connection limits for `chickenfoot serve`: slow or incomplete clients cannot hold the server.

uvicorn (0.54, h11) closes an idle keep-alive connection, but it has no timeout of its own
for a client that connects and sends nothing, sends half the headers, or announces a body and
stops; each such connection holds a file descriptor for ever, and a thousand of them stop the
server. `LimitedH11Protocol` (in `limited_h11`, imported only when the server starts) adds, per connection:

- a header timeout: from the moment the connection opens (or the first byte of a later
  request on a keep-alive connection) until the full request head has arrived;
- a body timeout: the longest pause between two pieces of a request body (not counted while
  the app itself is not reading, i.e. while reading is paused for back-pressure);
- a cap on open connections (HTTP and WebSocket together): one over the cap is answered 503
  and closed at once;
- a WebSocket upgrade whose request line or headers the WebSocket parser would refuse is
  answered with a JSON 414/431 here (uvicorn passed it on and the parser failed silently,
  so the client got no answer at all).

The keep-alive timeout is uvicorn's own (`timeout_keep_alive`). The access token is still
checked by the app's `AccessGuard` as soon as the request head has arrived; connections
without it are bound by the same timeouts as any other.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .limited_h11 import LimitedH11Protocol


@dataclass(frozen=True)
class ServerLimits:
    """How long a client may take and how many may connect at once; the defaults suit a laptop server."""

    header_timeout: float = 10.0
    """Seconds from connecting (or from the first byte of a later request) until the request head is complete."""
    body_timeout: float = 30.0
    """Longest pause, in seconds, between two pieces of a request body."""
    keep_alive: float = 5.0
    """Seconds an idle keep-alive connection stays open after a response."""
    max_connections: int = 200
    """Open connections (HTTP and WebSocket) at once; more are answered 503 and closed."""
    max_head_bytes: int = 16 * 1024
    """Largest request head (request line and headers) accepted; a longer one is refused with 400/431."""
    backlog: int = 2048
    """Connections the OS queues before the server accepts them."""

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout", "keep_alive"):
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"{name.replace('_', ' ')} must be a positive number of seconds, got {value}")
        if self.max_connections < 1:
            raise ValueError(f"max connections must be at least 1, got {self.max_connections}")
        if self.max_head_bytes < 1024:
            raise ValueError("max head bytes must be at least 1024")

    def protocol_class(self) -> type[LimitedH11Protocol]:
        """The HTTP protocol class to give uvicorn (`http=`), bound to these limits."""
        from .limited_h11 import LimitedH11Protocol

        return type("LimitedH11Protocol", (LimitedH11Protocol,),
                    {"limits": self, "__module__": LimitedH11Protocol.__module__})

    def uvicorn_options(self) -> dict[str, Any]:
        """Keyword arguments for `uvicorn.run` / `uvicorn.Config` that put these limits in force."""
        return {
            "http": self.protocol_class(),
            "timeout_keep_alive": self.keep_alive,
            "h11_max_incomplete_event_size": self.max_head_bytes,
            "backlog": self.backlog,
        }
