#!/usr/bin/env python3
"""Bad input against a real server: every kind answered with a 4xx in the JSON error shape, the server
healthy after each.

    .venv/bin/python scripts/bad_input_suite.py            # starts `chickenfoot serve` on loopback
    .venv/bin/python scripts/bad_input_suite.py --url http://127.0.0.1:8000

Each kind is sent as raw bytes over its own connection, so what reaches the server is exactly what
is written here (a client library would fix or refuse half of it): broken HTTP, requests the guards
refuse, wrong routes and methods, malformed JSON and forms, values out of range or absurdly large,
photos that are not photos, and WebSocket handshakes that cannot be accepted. A kind passes when
the answer has a 4xx status, is JSON with a non-empty "error" and "message", does not echo a large
value back (message at most 400 characters, answer under 4 KB), and GET /api/v1/health answers "ok"
straight after. Messages sent over an open live WebSocket have no status; those pass when the
server answers with an error message (or closes with a reason) and the socket or server still works.

Prints one line per kind and the count; exits 1 when any kind failed.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"
MAX_ANSWER = 4096
MAX_MESSAGE = 400
UPLOAD_LIMIT_MB = 1
"""The server this suite starts takes uploads up to this size, so the over-the-limit kinds stay small."""
BIG = "7" * 5000
"""A value no answer may echo back whole."""


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    raw_size: int


@dataclass
class Outcome:
    name: str
    group: str
    ok: bool
    detail: str


@dataclass
class Case:
    name: str
    group: str
    send: Callable[["Target"], "Answer | Outcome"]
    codes: tuple[str, ...] = ()
    """Error codes expected (any of them); empty: any code."""


@dataclass
class Target:
    host: str
    port: int
    game_id: str = ""
    finished_game_id: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def authority(self) -> str:
        return f"{self.host}:{self.port}"


# -- talking to the server -----------------------------------------------------------------------

def exchange(target: Target, data: bytes, timeout: float = 10.0) -> Answer:
    """Send raw bytes, read one HTTP response (to its Content-Length, or until the server closes)."""
    with socket.create_connection((target.host, target.port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before all of it was sent (a refused upload)
        got = b""
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                got += chunk
                head, sep, body = got.partition(b"\r\n\r\n")
                if sep:
                    length = _header(head, b"content-length")
                    if length is not None and len(body) >= int(length):
                        break
        except ConnectionResetError:
            pass
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return Answer(0, {}, got[:200], len(got))
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    return Answer(status, headers, body, len(got))


def _header(head: bytes, name: bytes) -> bytes | None:
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    return None


def request(method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
            host: str | None = None) -> Callable[[Target], Answer]:
    def send(target: Target) -> Answer:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {host or target.authority}", "Connection: close"]
        given = {k.lower() for k in (headers or {})}
        for key, value in (headers or {}).items():
            lines.append(f"{key}: {value}")
        if body and "content-length" not in given and "transfer-encoding" not in given:
            lines.append(f"Content-Length: {len(body)}")
        return exchange(target, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)

    return send


def raw(data: bytes) -> Callable[[Target], Answer]:
    return lambda target: exchange(target, data.replace(b"{host}", target.authority.encode()))


def game(method: str, suffix: str, body: bytes | str = b"", finished: bool = False,
         ctype: str = "application/json") -> Callable[[Target], Answer]:
    """A request under the suite's game (or its finished one)."""
    data = body.encode() if isinstance(body, str) else body

    def send(target: Target) -> Answer:
        gid = target.finished_game_id if finished else target.game_id
        headers = {"Content-Type": ctype} if data else {}
        return request(method, f"/api/v1/games/{gid}{suffix}", data, headers)(target)

    return send


def post_json(path: str, body: bytes | str, ctype: str = "application/json") -> Callable[[Target], Answer]:
    data = body.encode() if isinstance(body, str) else body
    return request("POST", path, data, {"Content-Type": ctype})


def multipart(path: str, fields: dict[str, str], photo: bytes | None = b"", filename: str = "hand.jpg",
              boundary: str = "suiteboundary", broken: bool = False) -> Callable[[Target], Answer]:
    parts = []
    for name, value in fields.items():
        parts.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode())
    if photo is not None:
        parts.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{filename}\"\r\n"
                     f"Content-Type: image/jpeg\r\n\r\n".encode() + photo + b"\r\n")
    body = b"".join(parts) + (b"" if broken else f"--{boundary}--\r\n".encode())
    return request("POST", path, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})


def ws_upgrade(path: str = "/api/v1/live", version: str = "13", key: str | None = None, method: str = "GET",
               extra: str = "", host: str | None = None) -> Callable[[Target], Answer]:
    def send(target: Target) -> Answer:
        k = base64.b64encode(os.urandom(16)).decode() if key is None else key
        lines = [f"{method} {path} HTTP/1.1", f"Host: {host or target.authority}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Version: {version}"]
        if k:
            lines.append(f"Sec-WebSocket-Key: {k}")
        data = ("\r\n".join(lines) + "\r\n" + extra + "\r\n").encode("latin-1")
        return exchange(target, data)

    return send


def png_declaring(w: int, h: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


# -- messages over an open live socket ----------------------------------------------------------

def live(messages: list[str | bytes], query: str = "", expect_close: bool = False) -> Callable[[Target], Outcome]:
    """Open the live socket, send each message, expect an error answer to each (or a close with a
    reason), then check the socket still answers a ping unless it was meant to close."""

    def send(target: Target) -> Outcome:
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect

        url = f"ws://{target.authority}/api/v1/live" + (f"?{query}" if query else "")
        with connect(url, open_timeout=10, close_timeout=2, max_size=2**24) as ws:
            first = json.loads(ws.recv(10))
            if expect_close:
                try:
                    ws.recv(5)
                    return Outcome("", "", False, f"the socket stayed open after {first}")
                except ConnectionClosed as closed:
                    ok = first.get("type") == "error" and _plain(first) and closed.rcvd is not None \
                        and closed.rcvd.code == 1008 and bool(closed.rcvd.reason)
                    return Outcome("", "", ok, f"error {first.get('error')}, closed {closed.rcvd.code if closed.rcvd else None}")
            if first.get("type") != "ready":
                return Outcome("", "", False, f"expected ready, got {first}")
            codes = []
            for message in messages:
                ws.send(message)
                reply = json.loads(ws.recv(20))
                if reply.get("type") != "error" or not _plain(reply):
                    return Outcome("", "", False, f"expected an error, got {str(reply)[:200]}")
                codes.append(reply["error"])
            ws.send(json.dumps({"type": "ping"}))
            alive = json.loads(ws.recv(10)) == {"type": "pong"}
            return Outcome("", "", alive, f"error {', '.join(codes)}; " + ("still answers" if alive else "no pong"))

    return send


def _plain(body: dict) -> bool:
    message = body.get("message")
    return bool(body.get("error")) and isinstance(message, str) and 0 < len(message) <= MAX_MESSAGE \
        and BIG[:200] not in message


# -- the kinds ------------------------------------------------------------------------------------

def deep(n: int = 5000) -> str:
    return "[" * n + "]" * n


def cases() -> list[Case]:
    H = "Host: {host}\r\nConnection: close\r\n"
    jpeg = b"\xff\xd8\xff\xe0" + b"\x00" * 64  # starts like a JPEG, is not one
    c: list[Case] = []
    add = lambda name, group, send, *codes: c.append(Case(name, group, send, codes))  # noqa: E731

    # the HTTP layer: what h11 and uvicorn answer before the app runs
    add("garbage request line", "protocol", raw(b"HELLO THERE\r\n\r\n"), "bad_request")
    add("Content-Length not a number", "protocol",
        raw(f"POST /api/v1/games HTTP/1.1\r\n{H}Content-Length: abc\r\n\r\n".encode()), "bad_request")
    add("two different Content-Lengths", "protocol",
        raw(f"POST /api/v1/games HTTP/1.1\r\n{H}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{{}}".encode()), "bad_request")
    add("negative Content-Length", "protocol",
        raw(f"POST /api/v1/games HTTP/1.1\r\n{H}Content-Length: -5\r\n\r\n".encode()), "bad_request")
    add("chunk size not hex", "protocol",
        raw(f"POST /api/v1/games HTTP/1.1\r\n{H}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n".encode()),
        "bad_request")
    add("unsupported Transfer-Encoding", "protocol",
        raw(f"POST /api/v1/games HTTP/1.1\r\n{H}Transfer-Encoding: gzip\r\n\r\n".encode()), "bad_request")
    add("NUL byte in the target", "protocol", raw(f"GET /\x00 HTTP/1.1\r\n{H}\r\n".encode()), "bad_request")
    add("space in the target", "protocol", raw(f"GET /a b HTTP/1.1\r\n{H}\r\n".encode()), "bad_request")
    add("no Host header", "protocol", raw(b"GET /api/v1/health HTTP/1.1\r\nConnection: close\r\n\r\n"), "bad_request")
    add("header line without a colon", "protocol", raw(f"GET / HTTP/1.1\r\n{H}Broken\r\n\r\n".encode()), "bad_request")
    add("space before a header's colon", "protocol", raw(f"GET / HTTP/1.1\r\n{H}X-Bad : 1\r\n\r\n".encode()), "bad_request")
    add("non-ASCII header name", "protocol", raw(f"GET / HTTP/1.1\r\n{H}".encode() + b"X-\xe9: 1\r\n\r\n"), "bad_request")
    add("request head over 16 KB", "protocol",
        raw(f"GET / HTTP/1.1\r\n{H}X-Big: {'a' * 40000}\r\n\r\n".encode()), "request_head_too_large")

    # the guards in front of every route
    add("a Host this server does not answer to", "guard", request("GET", "/api/v1/games", host="evil.example"),
        "host_not_allowed")
    add("a Host 5000 characters long", "guard", request("GET", "/api/v1/games", host="a" * 5000), "host_not_allowed")
    add("a change from another site (Origin)", "guard",
        request("POST", "/api/v1/games", b'{"players": ["A", "B"]}',
                {"Content-Type": "application/json", "Origin": "http://evil.example"}), "cross_origin")
    add("a declared upload over the limit", "guard",
        raw(f"POST /api/v1/score HTTP/1.1\r\n{H}Content-Type: multipart/form-data; boundary=x\r\n"
            f"Content-Length: {UPLOAD_LIMIT_MB * 2**20 + 1}\r\n\r\n".encode()), "upload_too_large")
    add("a chunked upload growing over the limit", "guard",
        raw(f"POST /api/v1/score HTTP/1.1\r\n{H}Content-Type: multipart/form-data; boundary=x\r\n"
            f"Transfer-Encoding: chunked\r\n\r\n".encode()
            + b"".join(b"10000\r\n" + b"x" * 0x10000 + b"\r\n" for _ in range(UPLOAD_LIMIT_MB * 16 + 2)) + b"0\r\n\r\n"),
        "upload_too_large")

    # routes and methods
    add("an unknown path", "route", request("GET", "/no/such/page"), "not_found")
    add("an unknown API path", "route", request("GET", "/api/v2/games"), "not_found")
    add("a method the route has not", "route", request("PATCH", "/api/v1/games"), "method_not_allowed")
    add("DELETE on the games list", "route", request("DELETE", "/api/v1/games"), "method_not_allowed")
    add("an unknown game", "route", request("GET", "/api/v1/games/000000000000"), "not_found")
    add("a game id 10 000 characters long", "route", request("GET", "/api/v1/games/" + "g" * 10000), "not_found")
    add("a broken percent-escape in the path", "route", request("GET", "/api/v1/games/%ZZ"), "not_found")
    add("a path that is not UTF-8", "route", request("GET", "/api/v1/games/%ff%fe"), "not_found")
    add("an unknown hand photo", "route", request("GET", "/api/v1/hands/000000000000"), "not_found")
    add("an evidence path climbing out of its folder", "route",
        request("GET", "/api/v1/live/evidence/0123456789ab/..%2F..%2Fgames.sqlite3"), "not_found")
    add("a static file that is not there", "route", request("GET", "/static/../service/app.py"), "not_found")

    # query parameters
    add("games page size 0", "query", request("GET", "/api/v1/games?limit=0"), "invalid_request")
    add("games page size not a number", "query", request("GET", "/api/v1/games?limit=x"), "invalid_request")
    add("games offset negative", "query", request("GET", "/api/v1/games?offset=-1"), "invalid_request")
    add("games page size of 5000 digits", "query", request("GET", f"/api/v1/games?limit={BIG}"), "invalid_request")
    add("annotate neither true nor false", "query",
        multipart("/api/v1/score?annotate=maybe", {}, jpeg), "invalid_request")

    # new games: JSON bodies
    g = "/api/v1/games"
    add("a body that is not JSON", "game", post_json(g, "{players: [A, B]"), "invalid_request")
    add("an empty body", "game", post_json(g, ""), "invalid_request")
    add("a JSON list instead of an object", "game", post_json(g, '["A", "B"]'), "invalid_request")
    add("JSON sent as text/plain", "game", post_json(g, '{"players": ["A", "B"]}', "text/plain"), "invalid_request")
    add("players not a list", "game", post_json(g, '{"players": "Ann and Bob"}'), "invalid_request")
    add("one player", "game", post_json(g, '{"players": ["Ann"]}'), "invalid")
    add("eleven players", "game", post_json(g, json.dumps({"players": [f"P{i}" for i in range(11)]})), "invalid")
    add("a name of 5000 characters", "game", post_json(g, json.dumps({"players": [BIG, "B"]})), "invalid")
    add("an empty name", "game", post_json(g, '{"players": ["  ", "B"]}'), "invalid")
    add("a set that does not exist", "game", post_json(g, '{"players": ["A", "B"], "set": 7}'), "invalid")
    add("a set given as text", "game", post_json(g, '{"players": ["A", "B"], "set": "nine"}'), "invalid_request")
    add("a set of 5000 digits", "game", post_json(g, '{"players": ["A", "B"], "set": %s}' % BIG), "bad_request")
    add("house rules nested 5000 deep", "game",
        post_json(g, json.dumps({"players": ["A", "B"], "house_rules": deep()})), "invalid_house_rules")
    add("house rules with a 5000-digit number", "game",
        post_json(g, '{"players": ["A", "B"], "house_rules": {"double_blank_value": %s}}' % BIG), "bad_request")
    add("an unknown house-rules preset", "game", post_json(g, '{"players": ["A", "B"], "house_rules": "poker"}'),
        "invalid_house_rules")
    add("an unknown house rule", "game",
        post_json(g, '{"players": ["A", "B"], "house_rules": {"jokers_wild": true}}'), "invalid_house_rules")
    add("a house rule of the wrong type", "game",
        post_json(g, '{"players": ["A", "B"], "house_rules": {"hand_size": "seven"}}'), "invalid_house_rules")
    add("a JSON body nested 100 000 deep", "game", post_json(g, deep(100_000)), "bad_request")

    # rounds
    r = "/rounds"
    add("a round with too few hands", "round", game("POST", r, '{"hands": [3]}'), "invalid")
    add("a round that is not a list", "round", game("POST", r, '{"hands": {"A": 3}}'), "invalid_request")
    add("negative points", "round", game("POST", r, '{"hands": [-3, 0]}'), "invalid")
    add("points with a fraction", "round", game("POST", r, '{"hands": [{"points": 2.5}, 0]}'), "invalid")
    add("points of 5000 digits", "round", game("POST", r, '{"hands": [{"points": %s}, 0]}' % BIG), "bad_request")
    add("points as true", "round", game("POST", r, '{"hands": [true, 0]}'), "invalid")
    add("tiles not a list", "round", game("POST", r, '{"hands": [{"tiles": "6-4"}, 0]}'), "invalid")
    add("a tile of Infinity", "round", game("POST", r, '{"hands": [{"tiles": [[Infinity, 1]]}, 0]}'),
        "invalid_request", "invalid")
    add("a tile of NaN", "round", game("POST", r, '{"hands": [{"tiles": [[NaN, 1]]}, 0]}'), "invalid_request", "invalid")
    add("a tile that is not a tile", "round", game("POST", r, '{"hands": [{"tiles": ["7-x"]}, 0]}'), "invalid")
    add("a tile outside the set", "round", game("POST", r, '{"hands": [{"tiles": ["10-2"]}, 0]}'), "invalid")
    add("a tile written 5000 characters long", "round",
        game("POST", r, json.dumps({"hands": [{"tiles": [BIG + "-1"]}, 0]})), "invalid")
    add("an unknown hand photo in a round", "round", game("POST", r, '{"hands": [{"hand_id": "nope"}, 0]}'), "invalid")
    add("a hand id of 100 000 characters", "round",
        game("POST", r, json.dumps({"hands": [{"hand_id": "x" * 100_000}, 0]})), "invalid")
    add("points and tiles in one hand", "round",
        game("POST", r, '{"hands": [{"points": 1, "tiles": ["1-1"]}, 0]}'), "invalid")
    add("a round index far ahead", "round", game("POST", r, '{"hands": [1, 0], "index": 40}'), "conflict")
    add("a round index of 5000 digits", "round", game("POST", r, '{"hands": [1, 0], "index": %s}' % BIG),
        "bad_request")
    add("a round for a game that is over", "round", game("POST", r, '{"hands": [1, 0]}', finished=True), "conflict")
    add("editing a round not recorded", "round", game("PUT", r + "/7", '{"hands": [1, 0]}'), "not_found")
    add("a round index that is not a number", "round", game("PUT", r + "/first", '{"hands": [1, 0]}'),
        "invalid_request")
    add("deleting a round not recorded", "round", game("DELETE", r + "/12"), "not_found")
    add("deleting a round that is not the last", "round", game("DELETE", r + "/0", finished=True), "conflict")

    # corrections to a hand photo
    add("a correction with one end", "hand",
        request("PATCH", "/api/v1/hands/000000000000/tiles/0", b'{"pips": [6]}', {"Content-Type": "application/json"}),
        "invalid_request")
    add("a correction of an unknown hand", "hand",
        request("PATCH", "/api/v1/hands/000000000000/tiles/0", b'{"pips": [6, 4]}', {"Content-Type": "application/json"}),
        "not_found")
    add("a tile id that is not a number", "hand",
        request("PATCH", "/api/v1/hands/000000000000/tiles/x", b'{"pips": [6, 4]}', {"Content-Type": "application/json"}),
        "invalid_request")

    # photos
    s = "/api/v1/score"
    add("a photo sent as JSON", "photo", post_json(s, '{"photo": "hand.jpg"}'), "unsupported_media_type")
    add("a form without the photo", "photo", multipart(s, {"set": "9"}, None), "invalid_request")
    add("an empty photo", "photo", multipart(s, {}, b""), "empty_upload")
    add("a photo that is not an image", "photo", multipart(s, {}, b"this is not a picture" * 20), "bad_image")
    add("a JPEG cut off after its header", "photo", multipart(s, {}, jpeg), "bad_image")
    add("a PNG declaring 100 000 x 100 000 pixels", "photo", multipart(s, {}, png_declaring(100_000, 100_000)),
        "image_too_large")
    add("a photo with an unknown set", "photo", multipart(s, {"set": "7"}, jpeg), "invalid_set")
    add("a photo with a set of 5000 digits", "photo", multipart(s, {"set": BIG}, jpeg), "invalid_request", "invalid_set")
    add("a photo with house rules nested 5000 deep", "photo", multipart(s, {"house_rules": deep()}, jpeg),
        "invalid_house_rules")
    add("a photo for an unknown game", "photo", multipart(s, {"game_id": "000000000000"}, jpeg), "not_found")
    add("a form that stops mid-part", "photo", multipart(s, {"set": "9"}, jpeg, broken=True),
        "bad_request", "invalid_request")
    add("a file name of 5000 characters", "photo", multipart(s, {}, b"not an image", filename=BIG), "bad_request")
    add("an audit photo that is not an image", "photo", multipart("/api/v1/audit", {}, b"garbage" * 30),
        "bad_image", "audit_unavailable")
    add("an audit with round_double 99", "photo", multipart("/api/v1/audit", {"round_double": "99"}, jpeg),
        "invalid_round_double", "audit_unavailable")

    # WebSocket handshakes the server cannot accept
    add("WebSocket from a foreign Host", "websocket", ws_upgrade(host="evil.example"), "host_not_allowed")
    add("WebSocket from another site (Origin)", "websocket", ws_upgrade(extra="Origin: http://evil.example\r\n"),
        "cross_origin")
    add("WebSocket to an HTTP-only path", "websocket", ws_upgrade("/api/v1/health"), "not_found")
    add("WebSocket to an unknown path", "websocket", ws_upgrade("/nope"), "not_found")
    add("WebSocket version 8", "websocket", ws_upgrade(version="8"), "bad_websocket_handshake")
    add("WebSocket key that is not 16 bytes", "websocket", ws_upgrade(key="c2hvcnQ="), "bad_websocket_handshake")
    add("WebSocket without a key", "websocket", ws_upgrade(key=""), "bad_websocket_handshake")
    add("WebSocket upgrade with POST", "websocket", ws_upgrade(method="POST"), "method_not_allowed")
    add("WebSocket URL over the parser's line limit", "websocket", ws_upgrade("/api/v1/live?x=" + "a" * 9000),
        "uri_too_long")
    add("WebSocket with 200 headers", "websocket",
        ws_upgrade(extra="".join(f"X-H{i}: {i}\r\n" for i in range(200))), "headers_too_large")

    # messages over an open live socket
    add("live: text that is not JSON", "live", live(["hello"]))
    add("live: a JSON list", "live", live(["[1, 2]"]))
    add("live: an unknown message type", "live", live([json.dumps({"type": "dance"})]))
    add("live: a frame that is not base64", "live", live([json.dumps({"type": "frame", "image": "%%%"})]))
    add("live: bytes that are not an image", "live", live([b"not a picture" * 10]))
    add("live: JSON nested 100 000 deep", "live", live(["[" * 100_000]))
    add("live: a PNG declaring 100 000 x 100 000", "live", live([png_declaring(100_000, 100_000)]))
    add("live: house rules nested 5000 deep", "live", live([], query="house_rules=" + "%5B" * 2000, expect_close=True))
    add("live: one player", "live", live([], query="players=1", expect_close=True))
    add("live: an unknown game", "live", live([], query="game_id=000000000000", expect_close=True))
    add("live: a set of 30 digits", "live", live([], query="set=" + "9" * 30, expect_close=True))
    return c


# -- running them ------------------------------------------------------------------------------

def judge(case: Case, answer: Answer) -> Outcome:
    problems = []
    if not 400 <= answer.status < 500:
        problems.append(f"status {answer.status or 'none'}")
    if answer.raw_size > MAX_ANSWER:
        problems.append(f"answer of {answer.raw_size} bytes")
    try:
        body = json.loads(answer.body)
    except ValueError:
        body = None
        problems.append(f"not JSON: {answer.body[:80]!r}")
    if isinstance(body, dict):
        if not _plain(body):
            problems.append(f"not the error shape: {str(body)[:120]}")
        elif case.codes and body["error"] not in case.codes:
            problems.append(f"error {body['error']!r}, expected {' or '.join(case.codes)}")
    elif body is not None:
        problems.append("JSON but not an object")
    code = body.get("error") if isinstance(body, dict) else None
    return Outcome(case.name, case.group, not problems, f"{answer.status} {code}" + (f"  ({'; '.join(problems)})" if problems else ""))


def healthy(target: Target) -> bool:
    answer = request("GET", "/api/v1/health")(target)
    try:
        return answer.status == 200 and json.loads(answer.body)["status"] == "ok"
    except (ValueError, KeyError):
        return False


def prepare(target: Target) -> None:
    """A game to send rounds to, and a finished one (every round recorded) for the kinds that need it."""
    def new_game() -> str:
        answer = post_json("/api/v1/games", '{"players": ["Ann", "Bob"], "set": 6}')(target)
        if answer.status != 201:
            raise SystemExit(f"could not create a game: {answer.status} {answer.body[:200]!r}")
        return json.loads(answer.body)["id"]

    target.game_id = new_game()
    target.finished_game_id = new_game()
    for _ in range(7):  # a double-six game has 7 rounds
        answer = game("POST", "/rounds", '{"hands": [5, 0]}', finished=True)(target)
        if answer.status != 201:
            raise SystemExit(f"could not record a round: {answer.status} {answer.body[:200]!r}")


def run(target: Target, selected: list[Case] | None = None) -> list[Outcome]:
    prepare(target)
    outcomes = []
    for case in selected if selected is not None else cases():
        try:
            result = case.send(target)
            outcome = judge(case, result) if isinstance(result, Answer) else \
                Outcome(case.name, case.group, result.ok, result.detail)
        except Exception as exc:  # noqa: BLE001 - a kind that breaks the client is a failed kind, not a crash
            outcome = Outcome(case.name, case.group, False, f"{type(exc).__name__}: {str(exc)[:160]}")
        if not healthy(target):
            outcome = Outcome(case.name, case.group, False, outcome.detail + "  (server not healthy after)")
        outcomes.append(outcome)
    return outcomes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(workdir: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    log = open(workdir / "serve.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, "serve", "--port", str(port), "--db", str(workdir / "suite.sqlite3"),
         "--max-upload-mb", str(UPLOAD_LIMIT_MB)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    target = Target("127.0.0.1", port)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited; see {workdir / 'serve.log'}")
        try:
            if healthy(target):
                return proc, port
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start within 60 s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a server already running (started with --max-upload-mb 1 for the upload kinds)")
    ap.add_argument("--json", action="store_true", help="print the outcomes as JSON instead")
    args = ap.parse_args(argv)
    proc = None
    workdir = Path(tempfile.mkdtemp(prefix="chickenfoot-bad-input-"))
    if args.url:
        host, _, port = args.url.split("//", 1)[-1].rstrip("/").rpartition(":")
        target = Target(host.strip("[]"), int(port))
    else:
        proc, port = start_server(workdir)
        target = Target("127.0.0.1", port)
    try:
        started = time.monotonic()
        outcomes = run(target)
        took = time.monotonic() - started
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
    failed = [o for o in outcomes if not o.ok]
    if args.json:
        print(json.dumps([o.__dict__ for o in outcomes], indent=1))
    else:
        width = max(len(o.name) for o in outcomes)
        for o in outcomes:
            print(f"{'ok  ' if o.ok else 'FAIL'} {o.group:<9} {o.name:<{width}}  {o.detail}")
        print(f"{len(outcomes)} kinds of bad input, {len(outcomes) - len(failed)} answered as they should, "
              f"{len(failed)} not ({took:.1f} s)")
    if proc is not None:
        log = (workdir / "serve.log").read_text(errors="replace")
        if "Traceback" in log:
            print(f"the server logged a traceback; see {workdir / 'serve.log'}")
            return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
