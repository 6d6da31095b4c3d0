"""What ships does not depend on the lab: the renderer, the trainer and the evaluators.

A user's `chickenfoot score`, `audit`, `watch`, `serve` and `simulate` need the engine, the
recognizer, the layout, the tracker and the service; the scene renderer, the training recipes,
the evaluators and the benchmarks exist to build and measure those, and may change or go
without the product noticing. They live in their own top-level package, `lab`, which may import
the product but never the other way round. Checked on the source (every import statement,
those inside functions too, and every module named to `importlib.import_module`), so a lab
import hidden in a rarely used branch still fails here.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("engine", "vision", "service")
"""The packages a run-time install needs."""
LAB = "lab"
"""The package that builds and measures them."""
DYNAMIC_IMPORTS = {"import_module", "__import__"}


def _is_lab(name: str) -> bool:
    return name == LAB or name.startswith(LAB + ".")


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
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in DYNAMIC_IMPORTS:
                found.append((node.args[0].value, node.lineno))
    return found


def _shipped() -> list[Path]:
    return [p for pkg in SHIPPED for p in (ROOT / pkg).rglob("*.py")]


def test_no_shipped_module_imports_the_lab():
    offences = [f"{_module_name(p)} imports {name} (line {line})"
                for p in _shipped() for name, line in _imports(p) if _is_lab(name)]
    assert not offences, "\n".join(offences)


def test_the_check_sees_an_import_inside_a_function():
    """The check itself: a lab import made only when a function runs is still found."""
    found = _imports_in("def f():\n    from lab.synth.scene import render_hand\n", "vision")
    assert any(_is_lab(name) and line == 2 for name, line in found)
    assert not any(_is_lab(name) for name, _ in _imports_in("from .layout import read_layout\n", "vision"))
    assert not any(_is_lab(name) for name, _ in _imports_in("import label_maker\n", "vision"))


def test_the_check_sees_a_module_imported_by_name():
    found = _imports_in("import importlib\nm = importlib.import_module('lab.bench')\n", "service")
    assert ("lab.bench", 2) in found


def test_the_lab_is_a_package_beside_the_shipped_ones():
    """Moved or renamed, the lab is named here again, or the check would pass by default."""
    assert (ROOT / LAB / "__init__.py").is_file() and (ROOT / LAB / "commands" / "__init__.py").is_file()
    assert all((ROOT / pkg / "__init__.py").is_file() for pkg in SHIPPED)
