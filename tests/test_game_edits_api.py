"""Editing and deleting what was recorded: PUT/DELETE a round, DELETE a game.

A typo of 52 for 25 must be fixable; a round is taken back only from the end
(a round's index fixes its double); everything is on disk before the answer.
"""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.db import GameStore
from service.deps import Settings

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(db_path):
    with TestClient(create_app(Settings(db_path=db_path)), base_url=BASE) as c:
        yield c


def _game(client, rounds=()):
    game = client.post("/api/v1/games", json={"players": ["Ann", "Bob", "Cy"], "set": 9}).json()
    for i, points in enumerate(rounds):
        resp = client.post(f"/api/v1/games/{game['id']}/rounds",
                           json={"hands": [{"points": p} for p in points], "index": i})
        assert resp.status_code == 201, resp.text
    return game["id"]


def _error(resp, status):
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert body["message"] and "Traceback" not in body["message"]
    return body


def test_a_round_is_edited_and_the_edit_is_on_disk(client, db_path):
    gid = _game(client, [(52, 0, 10), (5, 6, 0)])
    resp = client.put(f"/api/v1/games/{gid}/rounds/0", json={"hands": [{"points": 25}, {"points": 0}, {"tiles": ["6-4"]}]})
    assert resp.status_code == 200, resp.text
    assert resp.json()["sheet"]["rounds"][0]["scores"] == [25, 0, 10]
    assert resp.json()["sheet"]["totals"] == [30, 6, 10]
    # a second store on the same file sees it: committed before the answer
    assert GameStore(db_path).sheet(gid)["rounds"][0]["scores"] == [25, 0, 10]
    assert client.get(f"/api/v1/games/{gid}/sheet").json()["round_details"][0]["hands"][2]["source"] == "typed tiles"


@pytest.mark.parametrize("hands, status", [
    ([{"points": -1}, {"points": 0}, {"points": 0}], 422),
    ([{"points": 1}, {"points": 0}], 422),
    ([{"tiles": ["9-10"]}, {"points": 0}, {"points": 0}], 422),
    ([{"points": "lots"}, {"points": 0}, {"points": 0}], 422),
    ([{"hand_id": "nope"}, {"points": 0}, {"points": 0}], 422),
])
def test_an_edit_is_checked_as_a_new_round_is(client, hands, status):
    gid = _game(client, [(1, 2, 0)])
    _error(client.put(f"/api/v1/games/{gid}/rounds/0", json={"hands": hands}), status)
    assert client.get(f"/api/v1/games/{gid}/sheet").json()["rounds"][0]["scores"] == [1, 2, 0]


def test_editing_a_round_that_is_not_there_is_404(client):
    gid = _game(client, [(1, 2, 0)])
    _error(client.put(f"/api/v1/games/{gid}/rounds/1", json={"hands": [0, 0, 0]}), 404)
    _error(client.put(f"/api/v1/games/{gid}/rounds/-1", json={"hands": [0, 0, 0]}), 404)
    _error(client.put("/api/v1/games/nosuch/rounds/0", json={"hands": [0, 0, 0]}), 404)
    _error(client.put(f"/api/v1/games/{gid}/rounds/x", json={"hands": [0, 0, 0]}), 422)
    _error(client.put(f"/api/v1/games/{gid}/rounds/0", json={}), 422)


def test_only_the_last_round_is_deleted(client, db_path):
    gid = _game(client, [(1, 2, 0), (3, 0, 4)])
    body = _error(client.delete(f"/api/v1/games/{gid}/rounds/0"), 409)
    assert "last round" in body["message"]
    _error(client.delete(f"/api/v1/games/{gid}/rounds/5"), 404)
    resp = client.delete(f"/api/v1/games/{gid}/rounds/1")
    assert resp.status_code == 200, resp.text
    assert resp.json()["sheet"]["totals"] == [1, 2, 0]
    assert len(GameStore(db_path).sheet(gid)["rounds"]) == 1
    # the next round is recorded at the freed index, on the same double
    again = client.post(f"/api/v1/games/{gid}/rounds", json={"hands": [0, 7, 1], "index": 1})
    assert again.status_code == 201, again.text
    assert again.json()["sheet"]["rounds"][1]["double"] == resp.json()["sheet"]["next_double"]


def test_a_game_is_deleted_with_everything_in_it(client, db_path):
    gid = _game(client, [(1, 2, 0)])
    keep = _game(client, [(4, 0, 4)])
    resp = client.delete(f"/api/v1/games/{gid}")
    assert resp.status_code == 200 and resp.json() == {"deleted": gid}
    _error(client.get(f"/api/v1/games/{gid}"), 404)
    _error(client.delete(f"/api/v1/games/{gid}"), 404)
    ids = [g["id"] for g in client.get("/api/v1/games").json()["games"]]
    assert ids == [keep]
    assert GameStore(db_path).count_games() == 1


def test_a_round_where_everyone_scores_zero_is_accepted(client):
    gid = _game(client)
    resp = client.post(f"/api/v1/games/{gid}/rounds", json={"hands": [0, 0, 0], "index": 0})
    assert resp.status_code == 201, resp.text
