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
    from lab.synth.scene import render_hand

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


def test_the_stand_in_tracker_reports_each_audit_violation_once_as_its_json():
    from engine import HouseRules
    from lab.layout_eval import Noise, detections_from_plan
    from lab.synth.table import plan_table
    from service.routers.live import RecognizerTracker
    from vision.layout import audit_photo
    from vision.types import Recognition

    plan = plan_table(np.random.default_rng(200), plant_kind="chickie_unfinished")
    det = detections_from_plan(plan, np.random.default_rng(0), Noise(drop=0.0))
    rules = HouseRules.from_dict(plan.meta["rules"])
    rec = Recognition("frame", 1280, 960, det.tiles, det.face_down, plan.set_max)
    tracker = RecognizerTracker(LiveOptions(plan.set_max, rules, None, None))
    (event,) = tracker._violations(rec)
    (v,) = audit_photo(rec, plan.set_max, rules).to_dict()["violations"]
    assert event["event"] == "violation" and event["violation"] == v and event["message"] == v["message"]
    assert tracker._violations(rec) == []  # said once


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


# -- the webcam tracker behind the socket, on a rendered round ------------------------------

def _rendered_round_jpegs():
    """A short rendered round (double-6, three players, three planted illegal plays that are
    each taken back) as the JPEG frames a browser camera would send, with its plan."""
    from lab.synth.sequence import SequenceRenderer, plan_sequence, sequence_rng

    plan = plan_sequence(sequence_rng(11, 25), (1280, 720), 6, max_plays=3, illegal_chance=1.0)
    renderer = SequenceRenderer(plan)
    jpegs = []
    for f in plan.frames:
        ok, buf = cv2.imencode(".jpg", renderer.frame(f.index), [cv2.IMWRITE_JPEG_QUALITY, 90])
        jpegs.append(buf.tobytes())
    return plan, jpegs


def _feed_frames(ws, jpegs) -> list[dict]:
    """Send every frame, one answer at a time as a browser does; every message back, in order."""
    got = []
    for jpeg in jpegs:
        ws.send_bytes(jpeg)
        while True:  # events of the frame before, then this frame's overlay
            msg = _recv(ws)
            got.append(msg)
            if msg["type"] in ("overlay", "skipped", "error"):
                break
    ws.send_text(json.dumps({"type": "ping"}))
    while (msg := _recv(ws))["type"] != "pong":
        got.append(msg)
    return got


def test_the_webcam_tracker_reports_plays_and_flags_a_planted_illegal_play_over_the_socket(tmp_path):
    """The default live tracker (the real recognizer with the models in models/, no stand-ins)
    follows a rendered round sent frame by frame as JPEGs: plays arrive as `tile_played`, a
    planted illegal play as a `violation` with the engine's rule code, message and the saved
    frame, and with a game_id the plays are kept with the stored game."""
    from urllib.parse import urlencode

    plan, jpegs = _rendered_round_jpegs()
    truth = plan.plays()
    legal = {e.tile for e in truth if not e.planted}
    planted = {e.tile: e.rule for e in truth if e.planted}
    assert legal and planted
    with _client(tmp_path) as c:
        gid = c.post("/api/v1/games", json={"players": ["Ann", "Bob", "Cy"][: plan.players], "set": plan.set_max,
                                            "house_rules": plan.rules.to_dict()}).json()["id"]
        query = urlencode({"game_id": gid, "spinner_player": plan.spinner_player,
                           "round_double": plan.set_max - plan.round_index})
        with _ws(c, f"/api/v1/live?{query}") as ws:
            ready = _recv(ws)
            assert ready["type"] == "ready" and ready["players"] == plan.players and ready["set"] == plan.set_max
            got = _feed_frames(ws, jpegs)
        overlays = [m for m in got if m["type"] == "overlay"]
        assert len(overlays) == len(jpegs) and all(m["width"] == 1280 for m in overlays)
        # most frames are decided by the motion gate; the recognizer runs on few
        assert sum(m["read"] for m in overlays) < len(jpegs) / 4
        events = [m for m in got if m["type"] == "event"]
        assert events[0]["event"] == "tracking_started"
        started = [e for e in events if e["event"] == "round_started"]
        assert started and started[0]["spinner"] == next(e.tile for e in plan.events if e.kind == "spinner")
        plays = [e for e in events if e["event"] == "tile_played"]
        assert any(e["tile"] in legal for e in plays), plays
        flagged = [e for e in events if e["event"] == "violation" and planted.get(e["tile"]) == e["rule"]]
        assert flagged, [e for e in events if e["event"] == "violation"]
        v = flagged[0]
        assert v["rule_message"] and v["tile"] in v["message"] and v["violation"]["rule"] == v["rule"]
        assert v["frame"] > 0 and v["evidence_url"].startswith("/api/v1/live/evidence/")
        image = c.get(v["evidence_url"])
        assert image.status_code == 200 and image.headers["content-type"] == "image/jpeg"
        assert cv2.imdecode(np.frombuffer(image.content, np.uint8), cv2.IMREAD_COLOR).shape == (720, 1280, 3)
        assert any(e["event"] == "tile_taken_back" and e["tile"] == v["tile"] for e in events)
        # the stored game keeps what the camera saw, as it was reported
        stored = c.get(f"/api/v1/games/{gid}/live-events").json()
        kinds = [e["event"] for e in stored["events"]]
        assert stored["plays"] == len(plays) and stored["violations"] == kinds.count("violation") >= 1
        assert "tracking_started" not in kinds and stored["sessions"] == 1
        assert c.get("/api/v1/live/evidence/0123456789ab/../../g.sqlite3").status_code == 404


def test_live_options_come_from_the_query_and_bad_ones_close_the_socket(tmp_path):
    with _client(tmp_path) as c:
        with _ws(c, "/api/v1/live?players=3&spinner_player=2&set=12&round_double=7") as ws:
            ready = _recv(ws)
            assert (ready["players"], ready["spinner_player"], ready["set"], ready["round_double"]) == (3, 2, 12, 7)
        for query, word in (("players=1", "players"), ("players=3&spinner_player=3", "spinner_player"),
                            ("set=12&round_double=13", "round_double"), ("players=x", "players")):
            with _ws(c, f"/api/v1/live?{query}") as ws:
                error = _recv(ws)
                assert error["type"] == "error" and word in error["message"], (query, error)
                with pytest.raises(WebSocketDisconnect):
                    ws.receive_text()


def test_a_games_database_from_before_live_events_is_migrated_in_place(tmp_path):
    import sqlite3

    from engine import HouseRules
    from service.db import MIGRATIONS, GameStore

    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(f"BEGIN;\n{MIGRATIONS[0]}\nPRAGMA user_version = 1;\nCOMMIT;")
    conn.execute("INSERT INTO games VALUES ('abc123', '2026-01-01T00:00:00.000+00:00', '[\"A\", \"B\"]', 6, ?)",
                 (HouseRules().to_json(),))
    conn.close()
    store = GameStore(path)
    assert store.schema_version() == len(MIGRATIONS) >= 2
    store.add_live_events("abc123", "s1", [{"type": "event", "event": "tile_played", "tile": "6-4", "frame": 9}])
    seen = store.live_events("abc123")
    assert seen["plays"] == 1 and seen["events"][0]["tile"] == "6-4" and store.get_game("abc123").players == ["A", "B"]
