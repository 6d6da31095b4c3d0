"""Hypothesis over the whole OpenAPI document (scripts/api_fuzz.py) against a real server, with a fixed
seed and a small budget: no answer of 500 or over, none the document does not declare, none that
breaks its declared schema. The script runs the same with more requests."""
from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

import httpx
import pytest

from test_service_server import serve

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
SEED = 20240601
EXAMPLES = 20
"""Requests per operation here; `scripts/api_fuzz.py` sends 200 an operation by default."""
SLOW = {"POST /api/v1/advise": 5}
"""Operations that take a large part of a second a request get fewer here (the script sends them all)."""


def _load(name: str):
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fuzz():
    return _load("api_fuzz")


def test_the_judge_refuses_a_5xx_an_undeclared_status_and_a_broken_schema(fuzz):
    doc = {"paths": {}, "components": {"schemas": {"Error": {
        "type": "object", "required": ["error", "message"],
        "properties": {"error": {"type": "string"}, "message": {"type": "string"}}}}}}
    op = fuzz.Operation("get", "/x", {"responses": {
        "200": {"content": {"application/json": {"schema": {"type": "object"}}}},
        "4XX": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}})
    runner = fuzz.Runner(None, doc)
    ok = httpx.Response(404, json={"error": "not_found", "message": "no such thing"})
    assert runner.judge(op, ok) is None
    assert runner.judge(op, httpx.Response(200, json={"a": 1})) is None
    assert "status 500" in runner.judge(op, httpx.Response(500, json={"error": "internal_error", "message": "x"}))
    assert "not declared" in runner.judge(op, httpx.Response(302, headers={"location": "/"}))
    assert "schema" in runner.judge(op, httpx.Response(422, json={"detail": [{"msg": "field required"}]}))
    assert "schema" in runner.judge(op, httpx.Response(200, json=[1, 2]))
    assert "declared as JSON" in runner.judge(op, httpx.Response(404, text="Not Found"))


def test_the_document_declares_the_error_shape_everywhere(fuzz, tmp_path):
    from fastapi.testclient import TestClient

    from service.app import create_app
    from service.deps import Settings

    with TestClient(create_app(Settings(db_path=tmp_path / "g.sqlite3")), base_url="http://127.0.0.1:8000") as c:
        doc = c.get("/openapi.json").json()
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            for status in ("422", "4XX"):
                assert op["responses"][status]["content"]["application/json"]["schema"] == \
                    {"$ref": "#/components/schemas/Error"}, (method, path, status)


NOT_JSON = {"GET /api/v1/live/evidence/{session}/{name}"}
"""Operations whose answer is not JSON (an evidence image)."""


def test_every_json_operation_declares_the_shape_of_its_answer(tmp_path):
    from fastapi.testclient import TestClient

    from service.app import create_app
    from service.deps import Settings

    with TestClient(create_app(Settings(db_path=tmp_path / "g.sqlite3")), base_url="http://127.0.0.1:8000") as c:
        doc = c.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    checked = set()
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            name = f"{method.upper()} {path}"
            if not path.startswith("/api/v1/") or name in NOT_JSON:
                continue
            statuses = [s for s in ("200", "201") if s in op["responses"]]
            assert statuses, name
            for status in statuses:
                schema = op["responses"][status].get("content", {}).get("application/json", {}).get("schema", {})
                shape = schemas[schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema
                assert shape.get("properties"), (name, status, schema)
                assert all(p.get("description") for p in shape["properties"].values()), (name, status)
            checked.add(name)
    assert {"POST /api/v1/score", "POST /api/v1/audit", "GET /api/v1/games/{game_id}/sheet", "POST /api/v1/replay",
            "GET /api/v1/health", "GET /api/v1/players/stats", "POST /api/v1/blocked"} <= checked


def test_generated_requests_over_every_operation_get_declared_answers_under_500(fuzz, tmp_path):
    shm = Path("/dev/shm")
    scratch = Path(tempfile.mkdtemp(prefix="fuzz-", dir=shm if shm.is_dir() else tmp_path))
    try:
        with serve(scratch / "g.sqlite3", log_dir=tmp_path) as (_, base), \
                httpx.Client(base_url=base, timeout=60) as client:
            port = int(base.rsplit(":", 1)[1])
            results = fuzz.run(client, lambda op: SLOW.get(op.name, EXAMPLES), SEED, own_server=True)
        log = (tmp_path / f"serve-{port}.log").read_text(errors="replace")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    failed = [f"{r.operation}: {r.failure}" for r in results if r.failure]
    assert not failed, "\n".join(failed)
    names = {r.operation for r in results}
    assert {"POST /api/v1/games", "POST /api/v1/score", "PATCH /api/v1/hands/{hand_id}/tiles/{tile_id}",
            "DELETE /api/v1/games/{game_id}/rounds/{index}", "GET /api/v1/health"} <= names
    for r in results:
        assert r.requests >= SLOW.get(r.operation, EXAMPLES), r
    assert any(200 <= code < 300 for r in results for code in r.statuses)  # the handlers ran, not only the checks
    assert "Traceback" not in log, log[-3000:]
