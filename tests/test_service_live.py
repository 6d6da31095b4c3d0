"""The live-tracking WebSocket: frames in, overlays and events out, garbage survived."""
from __future__ import annotations

import base64
import json
from collections import Counter

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from service.app import create_app
from service.deps import Settings
from service.routers.live import BoardWatch, LiveOptions

BASE = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def frame_jpeg() -> bytes:
    from vision.synth.scene import render_hand

    scene = render_hand(np.random.default_rng(3), (640, 480))
    ok, buf = cv2.imencode(".jpg", scene.image)
    return buf.tobytes()


def _client(tmp_path, **settings) -> TestClient:
    settings.setdefault("live_min_interval", 0.0)
    app = create_app(Settings(db_path=tmp_path / "g.sqlite3", **settings))
    return TestClient(app, base_url=BASE)


def _ws(client: TestClient, path: str, headers: dict | None = None):
    # The test client's WebSocket ignores base_url; give it the loopback Host a browser would send.
    return client.websocket_connect(path, headers={"host": "127.0.0.1:8000", **(headers or {})})


def _recv(ws) -> dict:
    return json.loads(ws.receive_text())


def test_a_frame_gets_an_overlay_and_the_first_one_starts_tracking(tmp_path, frame_jpeg):
    with _client(tmp_path) as c, _ws(c, "/api/v1/live") as ws:
        ready = _recv(ws)
        assert ready["type"] == "ready" and ready["max_bytes"] > 0
        ws.send_bytes(frame_jpeg)
        overlay = _recv(ws)
        assert overlay["type"] == "overlay" and (overlay["width"], overlay["height"]) == (640, 480)
        assert isinstance(overlay["tiles"], list) and overlay["frame"] == 1
        event = _recv(ws)
        assert event["type"] == "event" and event["event"] == "tracking_started" and event["message"]


def test_frames_also_arrive_as_base64_json_and_pings_are_answered(tmp_path, frame_jpeg):
    with _client(tmp_path) as c, _ws(c, "/api/v1/live") as ws:
        _recv(ws)
        ws.send_text(json.dumps({"type": "ping"}))
        assert _recv(ws) == {"type": "pong"}
        url = "data:image/jpeg;base64," + base64.b64encode(frame_jpeg).decode()
        ws.send_text(json.dumps({"type": "frame", "image": url}))
        assert _recv(ws)["type"] == "overlay"


@pytest.mark.parametrize("message, code", [
    (b"\x00\x01garbage bytes", "bad_image"),
    (b"", "bad_image"),
    ("not json at all", "bad_message"),
    ('["a", "list"]', "bad_message"),
    ('{"type": "dance"}', "bad_message"),
    ('{"type": "frame", "image": "%%% not base64 %%%"}', "bad_frame"),
    ('{"type": "frame", "image": "aGVsbG8="}', "bad_image"),
])
def test_garbage_gets_an_error_and_the_connection_keeps_working(tmp_path, frame_jpeg, message, code):
    with _client(tmp_path) as c, _ws(c, "/api/v1/live") as ws:
        _recv(ws)
        (ws.send_bytes if isinstance(message, bytes) else ws.send_text)(message)
        error = _recv(ws)
        assert error["type"] == "error" and error["error"] == code and error["message"]
        ws.send_bytes(frame_jpeg)
        assert _recv(ws)["type"] == "overlay"
        assert c.get("/api/v1/health").status_code == 200


def test_frames_sooner_than_the_interval_are_skipped_not_queued(tmp_path, frame_jpeg):
    with _client(tmp_path, live_min_interval=30.0) as c, _ws(c, "/api/v1/live") as ws:
        _recv(ws)
        ws.send_bytes(frame_jpeg)
        assert _recv(ws)["type"] == "overlay"
        _recv(ws)  # tracking_started
        ws.send_bytes(frame_jpeg)
        assert _recv(ws) == {"type": "skipped", "frame": 2, "reason": "throttled"}


def test_a_frame_over_the_size_limit_is_refused(tmp_path):
    with _client(tmp_path, max_upload_bytes=10_000) as c, _ws(c, "/api/v1/live") as ws:
        _recv(ws)
        ws.send_bytes(b"\xff" * 20_000)
        assert _recv(ws)["error"] == "frame_too_large"


def test_an_unknown_game_closes_the_connection_with_a_reason(tmp_path):
    with _client(tmp_path) as c, _ws(c, "/api/v1/live?game_id=nope") as ws:
        error = _recv(ws)
        assert error["type"] == "error" and "nope" in error["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1008


def test_a_live_session_takes_its_games_set_and_rules(tmp_path):
    seen: list[LiveOptions] = []

    class Recorder:
        def __init__(self, options: LiveOptions) -> None:
            seen.append(options)

        def feed(self, image):
            return [{"type": "overlay", "frame": 1, "width": image.width, "height": image.height, "tiles": []}]

        def close(self) -> None:
            pass

    app = create_app(Settings(db_path=tmp_path / "g.sqlite3", live_min_interval=0.0), tracker_factory=Recorder)
    with TestClient(app, base_url=BASE) as c:
        gid = c.post("/api/v1/games", json={"players": ["A", "B"], "set": 12, "house_rules": "howto"}).json()["id"]
        with _ws(c, f"/api/v1/live?game_id={gid}") as ws:
            assert _recv(ws)["set"] == 12
    assert seen[0].game_id == gid and seen[0].set_max == 12 and seen[0].rules.double_blank_value == 50


def test_a_tracker_that_fails_on_a_frame_does_not_end_the_connection(tmp_path, frame_jpeg):
    class Flaky:
        calls = 0

        def __init__(self, options) -> None:
            pass

        def feed(self, image):
            Flaky.calls += 1
            if Flaky.calls == 1:
                raise RuntimeError("tracker bug")
            return [{"type": "overlay", "frame": Flaky.calls, "width": 1, "height": 1, "tiles": []}]

        def close(self) -> None:
            pass

    app = create_app(Settings(db_path=tmp_path / "g.sqlite3", live_min_interval=0.0), tracker_factory=Flaky)
    with TestClient(app, base_url=BASE) as c, _ws(c, "/api/v1/live") as ws:
        _recv(ws)
        ws.send_bytes(frame_jpeg)
        error = _recv(ws)
        assert error["error"] == "internal" and "tracker bug" not in error["message"]
        ws.send_bytes(frame_jpeg)
        assert _recv(ws)["type"] == "overlay"


def test_cross_site_pages_cannot_open_the_live_socket(tmp_path):
    with _client(tmp_path) as c:
        with pytest.raises(WebSocketDisconnect):
            with _ws(c, "/api/v1/live", headers={"origin": "http://evil.example"}) as ws:
                ws.receive_text()


def test_board_changes_count_once_they_hold_for_two_frames():
    watch = BoardWatch(stable_frames=2)
    first = watch.update(Counter({"6-4": 1}))
    assert first == {"added": ["6-4"], "removed": [], "tiles": ["6-4"]}
    assert watch.update(Counter({"6-4": 1, "4-4": 1})) is None  # seen once: could be a blur
    assert watch.update(Counter({"6-4": 1})) is None  # it was: back to the board
    assert watch.update(Counter({"6-4": 1, "4-2": 1})) is None
    change = watch.update(Counter({"6-4": 1, "4-2": 1}))
    assert change == {"added": ["4-2"], "removed": [], "tiles": ["4-2", "6-4"]}
    assert watch.update(Counter({"6-4": 1, "4-2": 1})) is None
