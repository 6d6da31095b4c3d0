"""The advisor, the replay, players' figures and the blocked-round proof over HTTP: the same engine
functions the command line calls."""
from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient

from engine import GameConfig, HouseRules, random_game
from engine.replay import replay_game
from service.app import create_app
from service.deps import Settings


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(Settings(db_path=tmp_path / "g.sqlite3")), base_url="http://127.0.0.1:8000") as c:
        yield c


def test_advise_answers_the_table_the_command_prints(client) -> None:
    r = client.post("/api/v1/advise", json={"players": 4, "set": 9, "rounds": 100, "seed": 3})
    assert r.status_code == 200
    data = r.json()
    assert data["table_hand_size"] == 11 and [s["hand_size"] for s in data["sizes"]] == [9, 10, 11, 12, 13]
    assert data["recommended"] in [9, 10, 11, 12, 13]


def test_advise_refuses_a_table_the_set_cannot_deal(client) -> None:
    r = client.post("/api/v1/advise", json={"players": 12, "set": 6, "rounds": 10})
    assert r.status_code == 422 and r.json()["error"] == "invalid_game"


def test_replay_answers_what_the_engine_replays(client) -> None:
    record = random_game(GameConfig(3, 6, HouseRules(hand_size=5)), random.Random(4)).to_record(["A", "B", "C"])
    r = client.post("/api/v1/replay", json=record)
    assert r.status_code == 200
    assert r.json() == replay_game(record).to_dict()


def test_replay_refuses_what_is_not_a_record(client) -> None:
    r = client.post("/api/v1/replay", json={"format": "something-else"})
    assert r.status_code == 422 and r.json()["error"] == "bad_record"


def test_player_figures_across_stored_games(client) -> None:
    game = client.post("/api/v1/games", json={"players": ["Ann", "Bob"], "set": 6}).json()
    client.post(f"/api/v1/games/{game['id']}/rounds", json={"hands": [{"points": 0}, {"points": 12}]})
    stats = client.get("/api/v1/players/stats").json()
    assert [(p["name"], p["rounds"], p["zero_rounds"], p["standing"]) for p in stats["players"]] == \
        [("Ann", 1, 1, 1), ("Bob", 1, 0, 2)]


def test_blocked_explains_a_layout_audit(client) -> None:
    audit = {"tiles": [{"id": 0, "pips": [6, 6]}], "layout": {"spinner": 0, "edges": [], "chickies": []},
             "open_ends": [{"tile": 0, "value": 6, "free": 4, "playable_now": True}]}
    r = client.post("/api/v1/blocked", json={"audit": audit, "set": 6})
    assert r.status_code == 200 and r.json()["blocked"] is False and r.json()["basis"] == "photo"
