"""Every kind of bad input in scripts/bad_input_suite.py against a real server on loopback: a 4xx in
the JSON error shape for each (an error message on the live socket), the server healthy after each."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from test_service_server import serve

SUITE = Path(__file__).resolve().parents[1] / "scripts" / "bad_input_suite.py"


def _suite():
    spec = importlib.util.spec_from_file_location("bad_input_suite", SUITE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def suite():
    return _suite()


def test_the_suite_covers_at_least_sixty_kinds_with_distinct_names(suite):
    cases = suite.cases()
    names = [c.name for c in cases]
    assert len(names) == len(set(names))
    assert len([c for c in cases if c.group != "live"]) >= 60  # answered with an HTTP status
    assert {c.group for c in cases} >= {"protocol", "guard", "route", "game", "round", "photo", "websocket", "live"}


def test_the_judge_fails_what_it_should(suite):
    case = suite.Case("x", "x", lambda t: None, ("not_found",))
    shape = b'{"error": "not_found", "message": "no such thing"}'
    assert suite.judge(case, suite.Answer(404, {}, shape, 200)).ok
    assert not suite.judge(case, suite.Answer(500, {}, shape, 200)).ok
    assert not suite.judge(case, suite.Answer(404, {}, b"Not Found", 200)).ok
    assert not suite.judge(case, suite.Answer(404, {}, b"", 200)).ok  # an empty 403/404
    assert not suite.judge(case, suite.Answer(404, {}, shape, 9000)).ok  # a large value echoed in a header
    echoed = b'{"error": "not_found", "message": "%s"}' % suite.BIG.encode()
    assert not suite.judge(case, suite.Answer(404, {}, echoed, 200)).ok
    other = b'{"error": "conflict", "message": "taken"}'
    assert not suite.judge(case, suite.Answer(409, {}, other, 200)).ok


def test_every_kind_of_bad_input_is_answered_in_the_error_shape_and_leaves_the_server_healthy(suite, tmp_path):
    with serve(tmp_path / "g.sqlite3", "--max-upload-mb", str(suite.UPLOAD_LIMIT_MB)) as (_, base):
        port = int(base.rsplit(":", 1)[1])
        outcomes = suite.run(suite.Target("127.0.0.1", port))
        log = (tmp_path / f"serve-{port}.log").read_text(errors="replace")
    failed = [f"{o.name}: {o.detail}" for o in outcomes if not o.ok]
    assert not failed, "\n".join(failed)
    assert len(outcomes) >= 60
    assert "Traceback" not in log, log[-3000:]
