#!/usr/bin/env python3
"""Property-based run over the whole API: Hypothesis makes requests from the OpenAPI document,
every answer must be under 500 and match what the document declares for its status.

    .venv/bin/python scripts/api_fuzz.py                       # 200 requests an operation
    .venv/bin/python scripts/api_fuzz.py --examples 1000 --seed 7
    .venv/bin/python scripts/api_fuzz.py --url http://127.0.0.1:8000   # a running server (it adds games)

Starts `chickenfoot serve` on loopback with a throw-away database unless --url is given; between
operations that database is emptied, so an operation reading every game stays as cheap as it
would be on a real table's few dozen games. A server given with --url is never emptied.

For each operation in /openapi.json, requests are drawn from its parameters and body schema:
mostly values the schema allows (so the handlers run, not just the validation), some arbitrary
JSON, garbage bytes and huge numbers instead (so the validation is tested too). Ids in paths come
from games, rounds and a hand photo made before the run, or are made up. An answer fails when its
status is 500 or over, when the document declares no answer for its status, or when its JSON body
breaks the declared schema. Hypothesis shrinks a failure to a small request, which is printed.

Prints the requests sent and the failures per operation; exits 1 when any operation failed.
"""
from __future__ import annotations

import argparse
import io
import json
import math
import string
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from hypothesis import HealthCheck, Phase, given, settings, seed as fixed_seed  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

HEADERS = {"host": "127.0.0.1:8000"}
METHODS = ("get", "put", "post", "delete", "patch")


# -- values from a schema -------------------------------------------------------------------------

def wild_json() -> st.SearchStrategy[Any]:
    """Any JSON a client could send, with the awkward corners: huge and non-finite numbers,
    long and odd strings, deep-ish nesting."""
    leaves = st.one_of(
        st.none(), st.booleans(), st.integers(), st.integers(min_value=10**30, max_value=10**60),
        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40),
        st.sampled_from(["", "6-4", "18-18", "howto", "Infinity", "\u0000", "x" * 300]),
    )
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)), max_leaves=12)


def mostly(valid: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Three draws in four from `valid`: enough bad values to test the checks, enough good ones to get past them."""
    return st.integers(0, 3).flatmap(lambda i: other if i == 0 else valid)


def from_schema(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values a JSON schema (the subset FastAPI writes) allows; its examples among them."""
    if schema.get("examples"):
        plain = {k: v for k, v in schema.items() if k != "examples"}
        return st.one_of(st.sampled_from(schema["examples"]), from_schema(plain, defs, depth))
    if "$ref" in schema:
        return from_schema(defs[schema["$ref"].rsplit("/", 1)[1]], defs, depth)
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s, defs, depth) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}, defs, depth) for k in kind])
    if kind == "string":
        if schema.get("contentMediaType") or schema.get("format") == "binary":
            return st.binary(max_size=64)
        return st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 30), 60))
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum"), max_value=schema.get("maximum"))
    if kind == "number":
        return st.floats(min_value=schema.get("minimum"), max_value=schema.get("maximum"), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        items = schema.get("items") or {}
        inner = from_schema(items, defs, depth + 1) if items and depth < 4 else wild_json()
        return st.lists(inner, min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 6), 12))
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        required = set(schema.get("required", ()))
        fixed = {k: from_schema(v, defs, depth + 1) for k, v in props.items() if k in required}
        optional = {k: from_schema(v, defs, depth + 1) for k, v in props.items() if k not in required}
        base = st.fixed_dictionaries(fixed, optional=optional)
        if props:
            return base
        return st.dictionaries(st.text(max_size=12), wild_json(), max_size=4)
    return wild_json()


# -- checking an answer against the document -------------------------------------------------------

def schema_problems(value: Any, schema: dict[str, Any], defs: dict[str, Any], where: str = "$") -> list[str]:
    """Where `value` breaks `schema` (the subset of JSON Schema the document uses); empty when it fits."""
    if "$ref" in schema:
        return schema_problems(value, defs[schema["$ref"].rsplit("/", 1)[1]], defs, where)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            if any(not schema_problems(value, s, defs, where) for s in schema[key]):
                return []
            return [f"{where}: matches none of {key}"]
    problems: list[str] = []
    for sub in schema.get("allOf", ()):
        problems += schema_problems(value, sub, defs, where)
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r} not one of {schema['enum']}")
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_is(value, k) for k in kinds):
            return problems + [f"{where}: expected {kind}, got {type(value).__name__}"]
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in value:
                problems.append(f"{where}: missing {name!r}")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in props:
                problems += schema_problems(item, props[name], defs, f"{where}.{name}")
            elif extra is False:
                problems.append(f"{where}: unexpected {name!r}")
            elif isinstance(extra, dict):
                problems += schema_problems(item, extra, defs, f"{where}.{name}")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            problems += schema_problems(item, schema["items"], defs, f"{where}[{i}]")
    return problems


def _is(value: Any, kind: str) -> bool:
    return {
        "object": isinstance(value, dict), "array": isinstance(value, list), "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool), "null": value is None,
    }.get(kind, True)


def declared(operation: dict[str, Any], status: int) -> dict[str, Any] | None:
    responses = operation.get("responses", {})
    return responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")


# -- the run ---------------------------------------------------------------------------------------

@dataclass
class Operation:
    method: str
    path: str
    spec: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.method.upper()} {self.path}"


@dataclass
class Result:
    operation: str
    requests: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    failure: str | None = None
    seconds: float = 0.0


FRESH = "(a new game)"
"""Stands in a path for a game made just before the request: deleting and editing need one each time."""


@dataclass
class Pools:
    """Ids that exist, so generated requests reach the handlers and not only the 404s."""

    game_id: list[str] = field(default_factory=list)
    hand_id: list[str] = field(default_factory=list)
    photos: list[bytes] = field(default_factory=list)
    index: list[int] = field(default_factory=lambda: [0, 1, 2])
    tile_id: list[int] = field(default_factory=lambda: [0, 1, 2, 3])


def small_images() -> list[bytes]:
    """Real images small enough that reading one costs milliseconds, and a few that only look like one."""
    from PIL import Image

    out = []
    for size, fmt in (((32, 24), "PNG"), ((40, 30), "JPEG"), ((64, 48), "WEBP")):
        buf = io.BytesIO()
        Image.new("RGB", size, (30, 120, 60)).save(buf, fmt)
        out.append(buf.getvalue())
    return out + [b"", b"\xff\xd8\xff\xe0" + b"\x00" * 40, b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, b"GIF89a"]


def new_game(client: Any, players: list[str] | None = None, set_max: int = 9) -> str:
    """A stored game with two rounds recorded."""
    players = players or ["Ann", "Bob", "Cy"]
    game = client.post("/api/v1/games", json={"players": players, "set": set_max}, headers=HEADERS)
    game.raise_for_status()
    gid = game.json()["id"]
    for scores in ([5, 0, 7, 2][:len(players)], [0, 3, 9, 1][:len(players)]):
        client.post(f"/api/v1/games/{gid}/rounds", json={"hands": scores}, headers=HEADERS).raise_for_status()
    return gid


def prepare(client: Any) -> Pools:
    """Games of 2, 3 and 4 players and a hand photo with tiles read from it (a rendered hand)."""
    pools = Pools(photos=small_images())
    refill(client, pools)
    try:
        import cv2
        import numpy as np

        from lab.synth.scene import render_hand

        ok, jpeg = cv2.imencode(".jpg", render_hand(np.random.default_rng(2), (640, 480)).image)
        photo = jpeg.tobytes()
    except ImportError:
        photo = pools.photos[0]
    hand = client.post("/api/v1/score?annotate=false", files={"photo": ("h.jpg", photo, "image/jpeg")},
                       headers=HEADERS)
    if hand.status_code == 200:
        pools.hand_id.append(hand.json()["hand_id"])
    return pools


def empty(client: Any, above: int = 30) -> bool:
    """Delete every stored game once there are more than `above` (only on a server this run started)."""
    if client.get("/api/v1/games?limit=1", headers=HEADERS).json()["total"] <= above:
        return False
    while True:
        page = client.get("/api/v1/games?limit=500", headers=HEADERS).json()["games"]
        if not page:
            return True
        for game in page:
            client.delete(f"/api/v1/games/{game['id']}", headers=HEADERS)


def refill(client: Any, pools: Pools) -> None:
    """New games for the next operation (the last one may have deleted them)."""
    pools.game_id = [FRESH] + [new_game(client, players, set_max) for players, set_max in
                               ((["Ann", "Bob"], 6), (["A", "B", "C"], 9), (["Ann", "Bob", "Cy", "Di"], 12))]


def request_strategy(op: Operation, defs: dict[str, Any], pools: Pools) -> st.SearchStrategy[dict[str, Any]]:
    path_values = {}
    query = {}
    for param in op.spec.get("parameters", []):
        schema = param.get("schema", {})
        if param["in"] == "path":
            pool = getattr(pools, param["name"], None)
            made_up = from_schema(schema, defs).map(str).filter(bool) if schema.get("type") != "string" else \
                st.text(min_size=1, max_size=30)
            wild = st.one_of(made_up, st.integers(-10, 40).map(str), st.text(min_size=1, max_size=12))
            path_values[param["name"]] = mostly(st.sampled_from(pool), wild) if pool else wild
        elif param["in"] == "query":
            query[param["name"]] = mostly(from_schema(schema, defs), wild_json()).map(_query_text)
    extra_query = st.dictionaries(st.sampled_from(["x", "token", "utm", "limit", "set", "annotate"]),
                                  st.text(max_size=10), max_size=2)
    body = st.none()
    content = op.spec.get("requestBody", {}).get("content", {})
    if "application/json" in content:
        schema = content["application/json"]["schema"]
        body = mostly(from_schema(schema, defs).map(lambda v: ("json", v)),
                      st.one_of(wild_json().map(lambda v: ("json", v)), st.binary(max_size=80).map(lambda b: ("raw", b))))
    elif "multipart/form-data" in content:
        body = _form_strategy(content["multipart/form-data"]["schema"], defs, pools)
    return st.fixed_dictionaries({
        "path": st.fixed_dictionaries(path_values),
        "query": st.fixed_dictionaries({}, optional=query),
        "extra_query": extra_query,
        "header": st.text(string.ascii_letters + string.digits + "-_.;=", max_size=20),
        "body": body,
    })


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value if isinstance(value, str) else json.dumps(value)


def _form_strategy(schema: dict[str, Any], defs: dict[str, Any], pools: Pools) -> st.SearchStrategy[Any]:
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for name, prop in schema.get("properties", {}).items():
        if name == "photo":
            continue
        allowed = from_schema(prop, defs).filter(lambda v: v is not None).map(_query_text)
        likely = {"house_rules": ["howto", "plain", '{"hand_size": 9}', "{}"], "set": ["6", "9", "12", "18"],
                  "round_double": ["0", "5", "9"]}.get(name) or [g for g in pools.game_id if g != FRESH] or ["x"]
        fields[name] = mostly(st.sampled_from(likely), st.one_of(allowed, st.text(max_size=20),
                                                                 st.sampled_from(["[[[[", "9" * 40, "-1"])))
    photo = mostly(st.sampled_from(pools.photos), st.binary(max_size=200))
    return st.tuples(st.just("form"), st.fixed_dictionaries({}, optional=fields), st.one_of(st.none(), photo))


class Runner:
    """Sends generated requests through an httpx-like client and judges the answers."""

    def __init__(self, client: Any, doc: dict[str, Any]) -> None:
        self.client = client
        self.doc = doc
        self.defs = doc.get("components", {}).get("schemas", {})

    def operations(self) -> list[Operation]:
        return [Operation(m, p, spec) for p, ops in self.doc["paths"].items() for m, spec in ops.items() if m in METHODS]

    def send(self, op: Operation, req: dict[str, Any]) -> Any:
        path = op.path
        for name, value in req["path"].items():
            if value == FRESH:
                value = new_game(self.client)
            path = path.replace("{" + name + "}", quote(str(value), safe=""))
        params = {**req["extra_query"], **req["query"]}
        headers = {**HEADERS, "x-fuzz": req["header"]}
        body = req["body"]
        kwargs: dict[str, Any] = {}
        if body is not None and body[0] == "json":
            kwargs["content"] = json.dumps(body[1]).encode()  # NaN and Infinity as Python writes them
            headers["content-type"] = "application/json"
        elif body is not None and body[0] == "raw":
            kwargs["content"] = body[1]
            headers["content-type"] = "application/json"
        elif body is not None and body[0] == "form":
            kwargs["data"] = body[1]
            if body[2] is not None:
                kwargs["files"] = {"photo": ("photo.jpg", body[2], "image/jpeg")}
            else:
                kwargs["files"] = {"unrelated": ("x.txt", b"x", "text/plain")}  # still multipart, no photo
        return self.client.request(op.method.upper(), path, params=params, headers=headers, **kwargs)

    def judge(self, op: Operation, resp: Any) -> str | None:
        if resp.status_code >= 500:
            return f"status {resp.status_code}: {resp.text[:300]}"
        answer = declared(op.spec, resp.status_code)
        if answer is None:
            return f"status {resp.status_code} is not declared for {op.name}: {resp.text[:200]}"
        schema = answer.get("content", {}).get("application/json", {}).get("schema")
        if not schema:
            return None
        if "json" not in resp.headers.get("content-type", ""):
            return f"status {resp.status_code} declared as JSON, answered {resp.headers.get('content-type')}"
        try:
            body = resp.json()
        except ValueError:
            return f"status {resp.status_code}: the body is not JSON: {resp.text[:200]}"
        problems = schema_problems(body, schema, self.defs)
        if problems:
            return f"status {resp.status_code} breaks its declared schema: {'; '.join(problems[:3])}"
        return None

    def fuzz(self, op: Operation, pools: Pools, examples: int, seed: int) -> Result:
        result = Result(op.name)

        @settings(max_examples=examples, deadline=None, database=None, print_blob=False,
                  suppress_health_check=list(HealthCheck), phases=(Phase.generate, Phase.shrink))
        @fixed_seed(seed)
        @given(request_strategy(op, self.defs, pools))
        def check(req: dict[str, Any]) -> None:
            resp = self.send(op, req)
            result.requests += 1
            result.statuses[resp.status_code] = result.statuses.get(resp.status_code, 0) + 1
            problem = self.judge(op, resp)
            if problem:
                raise AssertionError(f"{problem}\n  request: {_shown_request(req)}")

        started = time.monotonic()
        try:
            check()
        except AssertionError as exc:
            result.failure = str(exc).split("\nFalsifying example")[0]
        result.seconds = time.monotonic() - started
        return result


def _shown_request(req: dict[str, Any]) -> str:
    text = repr({k: v for k, v in req.items() if v})
    return text if len(text) < 600 else text[:600] + "..."


def run(client: Any, examples: int | Callable[[Operation], int], seed: int, own_server: bool = False,
        only: Callable[[Operation], bool] = lambda op: True,
        report: Callable[[Result], None] = lambda r: None) -> list[Result]:
    """Fuzz every operation in the server's document; `examples` may depend on the operation."""
    doc = client.get("/openapi.json", headers=HEADERS).json()
    runner = Runner(client, doc)
    pools = prepare(client)
    results: list[Result] = []
    stale = False  # the last operation may have deleted the games in the pool
    for op in runner.operations():
        if only(op):
            if (own_server and empty(client)) or stale:
                refill(client, pools)
            stale = op.method == "delete"
            count = examples(op) if callable(examples) else examples
            results.append(runner.fuzz(op, pools, count, seed))
            report(results[-1])
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=200, help="requests generated per operation (default 200)")
    ap.add_argument("--seed", type=int, default=20240601, help="the random seed (the same seed, the same run)")
    ap.add_argument("--url", help="a running loopback server without a token (games are added to it)")
    ap.add_argument("--only", help="only operations whose 'METHOD /path' contains this text")
    args = ap.parse_args(argv)

    def report(r: Result) -> None:
        codes = ", ".join(f"{k}x{v}" for k, v in sorted(r.statuses.items()))
        print(f"{'FAIL' if r.failure else 'ok  '} {r.operation:<48} {r.requests:>6} requests {r.seconds:5.1f} s  [{codes}]",
              flush=True)
        if r.failure:
            print("     " + r.failure.replace("\n", "\n     "))

    only = (lambda op: args.only in op.name) if args.only else (lambda op: True)
    import shutil

    import httpx

    from local_server import local_server, scratch_dir

    started = time.monotonic()
    if args.url:
        with httpx.Client(base_url=args.url.rstrip("/"), timeout=120) as client:
            results = run(client, args.examples, args.seed, False, only, report)
    else:
        workdir = scratch_dir("chickenfoot-fuzz-")
        with local_server(workdir) as (base, _), httpx.Client(base_url=base, timeout=120) as client:
            results = run(client, args.examples, args.seed, True, only, report)
        if "Traceback" in (workdir / "serve.log").read_text(errors="replace"):
            print(f"the server logged a traceback: {workdir / 'serve.log'}")
            return 1
        shutil.rmtree(workdir, ignore_errors=True)
    failed = [r for r in results if r.failure]
    total = sum(r.requests for r in results)
    print(f"{len(results)} operations, {total} requests in {time.monotonic() - started:.0f} s (seed {args.seed}); "
          f"{len(failed)} operation(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
