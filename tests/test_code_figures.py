"""scripts/code_figures.py on tiny sources with known answers."""
from __future__ import annotations

import ast
import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cf():
    spec = importlib.util.spec_from_file_location("code_figures", ROOT / "scripts" / "code_figures.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["code_figures"] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("code_figures", None)


def _cc(cf, source: str) -> int:
    func = ast.parse(textwrap.dedent(source)).body[0]
    return cf.complexity(func)


def test_two_ifs_and_an_and_make_four(cf):
    assert _cc(cf, """
        def f(a, b):
            if a and b:
                return 1
            if b:
                return 2
            return 3
    """) == 4


def test_each_kind_of_decision_counts_once(cf):
    assert _cc(cf, "def f():\n    return 0\n") == 1
    assert _cc(cf, """
        def f(xs):
            for x in xs:          # +1
                while x:          # +1
                    x -= 1
            if xs:                # +1
                pass
            elif xs is None:      # +1
                pass
            try:
                pass
            except ValueError:    # +1
                pass
            except KeyError:      # +1
                pass
            y = 3 if xs else 4    # +1
            z = [v for v in xs if v if v > 3]   # +2 (the comprehension's for adds nothing)
            return a or b or c    # +2
    """) == 1 + 11


def test_match_cases_count(cf):
    assert _cc(cf, """
        def f(x):
            match x:
                case 1:
                    return "a"
                case 2:
                    return "b"
                case _:
                    return "c"
    """) == 4


def test_nested_functions_are_measured_on_their_own(cf):
    fig = cf.measure_source(textwrap.dedent("""
        def outer(a):
            def inner(b):
                if b:
                    return 1
                return 0
            if a:
                return inner(a)
            return lambda x: x and a
    """), "m")
    by_name = {f.name: f for f in fig.functions}
    assert by_name["m:outer"].complexity == 3  # its if and the lambda's `and`
    assert by_name["m:outer.inner"].complexity == 2
    assert by_name["m:outer"].lines == 8


def test_longest_function_largest_class_constants_and_literals(cf):
    source = textwrap.dedent("""
        import os
        LIMIT = 640
        _PRIVATE_TABLE = {"a": 37, "b": -5}
        lower_case = 99
        if os.name == "nt":
            WINDOWS = 3
        LIMIT = 641

        class Box:
            SIZE = 12

            def area(self, w, h):
                return w * h * 0.5

            def grow(self):
                factors = (2, 1, 0, -1, 1.0, -7)
                return self.scale(*factors)

        def short():
            return 42
    """)
    fig = cf.measure_source(source, "m")
    s = fig.summary()
    assert s["longest_function"] == {"name": "m:Box.grow", "lines": 3, "complexity": 1}
    assert s["largest_class"] == {"name": "m:Box", "lines": 9, "methods": 2}
    assert s["module_constants"] == 3  # LIMIT (once), _PRIVATE_TABLE, WINDOWS
    # counted: 99 (lower-case name), 12 (class level), 0.5, -7 and 42;
    # not: 640, 641, 37, -5, 3 (constants' values) nor 2, 1, 0, -1, 1.0 (plain numbers)
    assert s["numeric_literals"] == 5
    assert s["functions"] == 3 and s["classes"] == 1


def test_negative_numbers_are_one_literal(cf):
    tree = ast.parse("x = -1\ny = -3\nz = 3\n")
    assert sorted(cf.numeric_literals(tree, [])) == [-3, 3]


def test_repository_packages_measure(cf):
    figures = cf.report(["engine"])
    assert figures["engine"]["files"] > 5
    assert figures["engine"]["longest_function"]["lines"] > 10
    assert len(figures["engine"]["most_complex"]) == 5
