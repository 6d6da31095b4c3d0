"""What ships does not depend on the lab: the renderer, the trainer and the evaluators.

A user's `chickenfoot score`, `audit`, `watch`, `serve` and `simulate` need the engine, the
recognizer, the layout, the tracker and the service; the scene renderer, the training recipes,
the evaluators and the benchmarks exist to build and measure those, and may change or go
without the product noticing. Checked on the source (every import statement, those inside
functions too), so a lab import hidden in a rarely used branch still fails here.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "vision", "service")

LAB = (
    "vision.synth", "vision.training", "vision.evaluate", "vision.layout_eval", "vision.bench",
    "vision.bench_reference", "vision.bench_tracker", "vision.tracking.evaluate", "vision.tracking.oracle",
    "service.commands.synth", "service.commands.train", "service.commands.eval", "service.commands.eval_layout",
    "service.commands.eval_tracking", "service.commands.bench",
)
"""Lab modules (and packages): what builds and measures the product."""


def _is_lab(name: str) -> bool:
    return any(name == lab or name.startswith(lab + ".") for lab in LAB)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, int]]:
    """Every module `path` imports, relative imports resolved, with the line."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _imports_in(path.read_text(), package)


def _imports_in(source: str, package: str) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            found += [(origin, node.lineno)] + [(f"{origin}.{a.name}", node.lineno) for a in node.names]
    return found


def _shipped() -> list[Path]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    return [p for p in files if not _is_lab(_module_name(p))]


def test_no_shipped_module_imports_a_lab_module():
    offences = [f"{_module_name(p)} imports {name} (line {line})"
                for p in _shipped() for name, line in _imports(p) if _is_lab(name)]
    assert not offences, "\n".join(offences)


def test_the_check_sees_an_import_inside_a_function():
    """The check itself: a lab import made only when a function runs is still found."""
    found = _imports_in("def f():\n    from .synth.scene import render_hand\n", "vision")
    assert any(_is_lab(name) and line == 2 for name, line in found)
    assert not any(_is_lab(name) for name, _ in _imports_in("from .layout import read_layout\n", "vision"))


def test_every_lab_module_named_exists():
    """A module renamed or moved is named here again, or the check would pass by default."""
    for name in LAB:
        path = ROOT.joinpath(*name.split("."))
        assert path.with_suffix(".py").exists() or (path / "__init__.py").exists(), name
