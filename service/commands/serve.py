"""`chickenfoot serve`: the local web API and page.

Loopback only unless an access token is set: the API can record scores and read
photos, so anything that lets other machines in must also lock them out.
"""
from __future__ import annotations

import ipaddress
import os
import secrets
import sys

from ..cli import UserError
from ..connlimits import ServerLimits

TOKEN_ENV = "CHICKENFOOT_TOKEN"


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the local web API and page (http://127.0.0.1:8000)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; any other needs --token)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", metavar="PATH", help="games database (default: ~/.local/share/chickenfoot/games.sqlite3)")
    p.add_argument("--token", metavar="TOKEN",
                   help=f"access token every request must carry (or set {TOKEN_ENV}); "
                        "\"new\" makes one up and prints it")
    p.add_argument("--max-upload-mb", type=float, default=25, metavar="MB", help="largest upload accepted (default 25)")
    p.add_argument("--model", metavar="PATH", help="detector .onnx file or folder holding both models")
    p.add_argument("--header-timeout", type=float, default=ServerLimits.header_timeout, metavar="S",
                   help=f"seconds a client has to send a request's headers (default {ServerLimits.header_timeout:g})")
    p.add_argument("--body-timeout", type=float, default=ServerLimits.body_timeout, metavar="S",
                   help=f"longest pause in a request body, in seconds (default {ServerLimits.body_timeout:g})")
    p.add_argument("--keep-alive", type=float, default=ServerLimits.keep_alive, metavar="S",
                   help=f"seconds an idle connection stays open (default {ServerLimits.keep_alive:g})")
    p.add_argument("--max-connections", type=int, default=ServerLimits.max_connections, metavar="N",
                   help=f"open connections at once; more are turned away (default {ServerLimits.max_connections})")
    p.set_defaults(func=run)


def bare_host(host: str) -> str:
    """The address without the brackets an IPv6 address may be written in ("[::1]" -> "::1")."""
    host = host.strip()
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def is_loopback(host: str) -> bool:
    host = bare_host(host)
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_names(host: str) -> tuple[str, ...]:
    """Host header names a loopback server listening on `host` answers to without a token: the usual
    loopback names plus the address it was told to listen on (as typed and in canonical form), so the
    address printed at start is one the server answers."""
    from ..deps import LOOPBACK_HOSTS

    names = list(LOOPBACK_HOSTS)
    host = bare_host(host)
    extra = [host.lower()]
    try:
        extra.append(str(ipaddress.ip_address(host)))
    except ValueError:
        pass
    for name in extra:
        if name not in names and name not in ("0.0.0.0", "::"):
            names.append(name)
    return tuple(names)


def shown_url(host: str, port: int, token: str | None) -> str:
    """The address to open: a wildcard address shows as 127.0.0.1, an IPv6 address in one pair of brackets."""
    host = bare_host(host)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def run(args) -> int:
    from pathlib import Path

    import uvicorn

    from ..app import create_app
    from ..db import StoreOpenError
    from ..deps import Settings, default_db_path

    token = args.token or os.environ.get(TOKEN_ENV) or None
    if token == "new":
        token = secrets.token_urlsafe(18)
    host = bare_host(args.host)
    if not host:
        raise UserError("--host needs an address, e.g. 127.0.0.1")
    if not is_loopback(host) and not token:
        raise UserError(
            f"listening on {args.host} lets other machines reach the API; "
            f"set an access token with --token TOKEN (or --token new, or {TOKEN_ENV}=...)"
        )
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be between 0 and 65535, got {args.port}")
    if args.max_upload_mb <= 0:
        raise UserError("--max-upload-mb must be positive")
    try:
        settings = Settings(
            db_path=Path(args.db) if args.db else default_db_path(),
            token=token,
            max_upload_bytes=int(args.max_upload_mb * 2**20),
            model_dir=args.model,
            allowed_hosts=allowed_names(host),
        )
        limits = ServerLimits(
            header_timeout=args.header_timeout, body_timeout=args.body_timeout,
            keep_alive=args.keep_alive, max_connections=args.max_connections,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        app = create_app(settings)
    except StoreOpenError as exc:
        raise UserError(str(exc)) from None
    _warm_models(settings.model_dir)
    url = shown_url(host, args.port, token)
    print(f"chickenfoot: games in {settings.db_path}", file=sys.stderr)
    print(f"chickenfoot: open {url}  (API docs at /docs)", file=sys.stderr, flush=True)
    from ..ws_handshake import JsonHandshakeWebSockets

    uvicorn.run(
        app, host=host, port=args.port, log_level="warning",
        ws=JsonHandshakeWebSockets, ws_max_size=settings.max_upload_bytes + 4096, timeout_graceful_shutdown=5,
        **limits.uvicorn_options(),
    )
    return 0


def _warm_models(model_dir: str | None) -> None:
    """Load the models now so the first photo is not the slow one; without them the games API still works."""
    from vision.onnx_yolo import ModelError
    from vision.recognize import get_recognizer

    try:
        get_recognizer(model_dir)
    except (ModelError, OSError) as exc:
        print(f"chickenfoot: warning: photos cannot be read until the models load: {exc}", file=sys.stderr)
