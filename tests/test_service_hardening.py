"""What a probe of `chickenfoot serve` found: inputs that ended in a 500, a framable page, unpaged lists."""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from service.app import create_app
from service.deps import Settings

BASE = "http://127.0.0.1:8000"
DEEP = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 5000 + "1" + "}" * 5000
LONG_NUMBER = '{"double_blank_value": ' + "9" * 5000 + "}"


@pytest.fixture
def app(tmp_path):
    return create_app(Settings(db_path=tmp_path / "games.sqlite3", live_min_interval=0.0))


@pytest.fixture
def client(app):
    with TestClient(app, base_url=BASE) as c:  # raise_server_exceptions: an escaped exception fails the test
        yield c


def _plain_4xx(resp, limit: int = 300) -> dict:
    assert 400 <= resp.status_code < 500, resp.text[:300]
    body = resp.json()
    assert set(body) >= {"error", "message"} and body["message"]
    assert len(body["message"]) < limit and "Traceback" not in body["message"] and "99999999" not in body["message"]
    return body


# -- 2: inputs that ended in a 500 ------------------------------------------------------------

@pytest.mark.parametrize("rules", [DEEP, DEEP_OBJECT, LONG_NUMBER], ids=["deep-list", "deep-object", "long-number"])
@pytest.mark.parametrize("endpoint", ["/api/v1/score", "/api/v1/audit", "/api/v1/games"])
def test_house_rules_nested_too_deep_or_with_a_huge_number_are_refused_in_plain_words(client, endpoint, rules):
    if endpoint == "/api/v1/games":
        resp = client.post(endpoint, json={"players": ["A", "B"], "house_rules": rules})
    else:
        resp = client.post(endpoint, data={"house_rules": rules},
                           files={"photo": ("x.jpg", b"\xff\xd8\xff" + b"0" * 64, "image/jpeg")})
    body = _plain_4xx(resp)
    if resp.status_code == 422:
        assert body["error"] == "invalid_house_rules"
    else:  # /audit without a layout reader says so first
        assert body["error"] == "audit_unavailable"


@pytest.mark.parametrize("tiles", [
    "[[Infinity, 1]]", "[[-Infinity, 1]]", "[[NaN, 1]]", "[[1.5, 2]]", "[[" + "9" * 4000 + ", 1]]",
    "[[true, 1]]", "[[1, 2, 3]]", '["' + "6" * 5000 + '-1"]', "[{}]", "[null]", "[[-1, 2]]", "[[10, 2]]",
], ids=["inf", "-inf", "nan", "float", "huge", "bool", "three", "long-text", "object", "null", "negative", "over-set"])
def test_a_tile_value_that_is_not_a_whole_number_in_the_set_is_refused_with_a_4xx(client, tiles):
    gid = client.post("/api/v1/games", json={"players": ["A", "B"]}).json()["id"]
    raw = '{"hands": [{"tiles": %s}, {"points": 3}]}' % tiles
    resp = client.post(f"/api/v1/games/{gid}/rounds", content=raw, headers={"content-type": "application/json"})
    body = _plain_4xx(resp)
    assert body["error"] in ("invalid", "invalid_request", "invalid_round"), body
    assert client.get(f"/api/v1/games/{gid}/sheet").json()["rounds"] == []


def test_huge_points_and_ids_are_refused_without_echoing_them(client):
    gid = client.post("/api/v1/games", json={"players": ["A", "B"]}).json()["id"]
    for hands in ('[{"points": %s}, 0]' % ("9" * 4000), '[{"hand_id": "%s"}, 0]' % ("x" * 100_000)):
        resp = client.post(f"/api/v1/games/{gid}/rounds", content='{"hands": %s}' % hands,
                           headers={"content-type": "application/json"})
        _plain_4xx(resp)
        assert "x" * 100 not in resp.text
    resp = client.post(f"/api/v1/games/{gid}/rounds", content='{"hands": [1, 2], "index": %s}' % ("9" * 4000),
                       headers={"content-type": "application/json"})
    _plain_4xx(resp)


def _ws(client: TestClient, path: str):
    return client.websocket_connect(path, headers={"host": "127.0.0.1:8000"})


def test_a_websocket_text_frame_nested_too_deep_gets_a_plain_error_not_internal(client):
    with _ws(client, "/api/v1/live") as ws:
        assert json.loads(ws.receive_text())["type"] == "ready"
        ws.send_text("[" * 100_000)
        error = json.loads(ws.receive_text())
        assert error["type"] == "error" and error["error"] == "bad_message", error
        assert "nested too deeply" in error["message"]
        ws.send_text(json.dumps({"type": "ping"}))  # and the connection still works
        assert json.loads(ws.receive_text()) == {"type": "pong"}


@pytest.mark.parametrize("rules", [DEEP, LONG_NUMBER], ids=["deep", "long-number"])
def test_bad_house_rules_on_the_live_socket_close_it_with_a_reason(client, rules):
    from urllib.parse import quote

    with _ws(client, f"/api/v1/live?house_rules={quote(rules)}") as ws:
        error = json.loads(ws.receive_text())
        assert error["type"] == "error" and error["error"] == "invalid_house_rules" and len(error["message"]) < 300
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    assert closed.value.code == 1008 and "house rules" in closed.value.reason and len(closed.value.reason) <= 123


# -- 3: an unexpected exception is a JSON 500, not a dropped connection ----------------------------

def test_an_unexpected_exception_is_answered_as_a_json_500_and_goes_no_further(app):
    @app.get("/boom")
    def boom():
        raise RuntimeError("a bug")

    # raise_server_exceptions=True: an exception reaching the server (which then drops the connection) fails here
    with TestClient(app, base_url=BASE) as c:
        resp = c.get("/boom")
        assert resp.status_code == 500
        assert resp.json()["error"] == "internal_error" and "a bug" not in resp.text
        assert resp.headers["content-security-policy"]
        assert c.get("/api/v1/health").status_code == 200


# -- 4: nobody else may frame the page ------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/static/app.js", "/api/v1/health", "/api/v1/games", "/docs", "/no/such/page"])
def test_every_response_forbids_framing_by_other_sites(client, path):
    resp = client.get(path)
    csp = resp.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and resp.headers["x-frame-options"] == "DENY"
    assert "object-src 'none'" in csp


def test_a_refused_host_still_gets_the_framing_headers(client):
    resp = client.get("/", headers={"host": "evil.example"})
    assert resp.status_code == 403 and "frame-ancestors 'none'" in resp.headers["content-security-policy"]


def test_the_page_works_under_its_policy_no_inline_script_or_style(client):
    import re

    html = client.get("/").text
    csp = client.get("/").headers["content-security-policy"]
    assert "script-src 'self';" in csp and "'unsafe-inline'" not in csp
    assert "img-src 'self' data: blob:" in csp  # photos show as blob: URLs, annotated ones as data: URLs
    assert "ws://127.0.0.1:8000" in csp  # the live tab's WebSocket back to this server
    assert not re.search(r"<script(?![^>]*\bsrc=)", html), "inline script would be blocked"
    assert "<style" not in html and " style=" not in html and not re.search(r"\son[a-z]+=", html)
    js = client.get("/static/app.js").text
    assert "eval(" not in js and "new Function" not in js and "innerHTML" not in js


# -- 6: the games list is paged -------------------------------------------------------------------

def test_the_games_list_is_paged_with_limit_offset_and_a_total(client):
    ids = [client.post("/api/v1/games", json={"players": ["A", "B"]}).json()["id"] for _ in range(7)]
    newest_first = list(reversed(ids))
    page = client.get("/api/v1/games").json()
    assert page["total"] == 7 and page["limit"] == 50 and page["offset"] == 0 and page["next_offset"] is None
    assert [g["id"] for g in page["games"]] == newest_first
    seen, offset = [], 0
    while offset is not None:
        page = client.get(f"/api/v1/games?limit=3&offset={offset}").json()
        assert page["total"] == 7 and len(page["games"]) <= 3
        seen += [g["id"] for g in page["games"]]
        offset = page["next_offset"]
    assert seen == newest_first
    assert client.get("/api/v1/games?offset=100").json()["games"] == []
    for bad in ("limit=0", "limit=501", "offset=-1", "limit=x", "limit=" + "9" * 5000):
        _plain_4xx(client.get(f"/api/v1/games?{bad}"))
    assert len(client.get("/api/v1/games?limit=500").json()["games"]) == 7


