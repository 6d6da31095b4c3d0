"""Code-shape figures of the packages, from their syntax trees (no dependencies beyond Python).

    python scripts/code_figures.py [PATH ...] [--json] [--top N]

PATH is a package folder or a .py file relative to the repository root (default: engine,
vision, service). For each, and for all of them together:

* the longest function or method (lines from `def` to its last line) and its name;
* the largest class (lines, methods defined in its body) and its name;
* the McCabe complexity of the worst N functions (default 5): 1 + one per `if`/`elif`,
  `for`/`while` (async too), `and`/`or` operator, `except` handler, `if` of a comprehension,
  conditional expression and `case` of a `match`. A function nested in another (or a class
  in it) is measured on its own and adds nothing to the one around it; a lambda's decisions
  count in the function that holds it;
* how many functions have a complexity over 10;
* module-level constants: UPPER_CASE names (a leading underscore allowed) assigned at module
  level, inside module-level `if`/`try`/`with` blocks too, each name once per module;
* bare numeric literals: numbers written in the code (a leading minus is part of the number),
  except those equal to 0, 1, -1 or 2, and except those inside a module-level constant's
  assignment. Booleans are not numbers here.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PACKAGES = ("engine", "vision", "service")
CONSTANT_NAME = re.compile(r"^_?[A-Z][A-Z0-9_]*$")
PLAIN_NUMBERS = (0, 1, -1, 2)
COMPLEX_OVER = 10

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class Function:
    name: str
    lines: int
    complexity: int


@dataclass
class Klass:
    name: str
    lines: int
    methods: int


@dataclass
class Figures:
    files: int = 0
    lines: int = 0
    functions: list[Function] = field(default_factory=list)
    classes: list[Klass] = field(default_factory=list)
    constants: int = 0
    literals: int = 0

    def add(self, other: Figures) -> None:
        self.files += other.files
        self.lines += other.lines
        self.functions += other.functions
        self.classes += other.classes
        self.constants += other.constants
        self.literals += other.literals

    def summary(self, top: int = 5) -> dict:
        longest = max(self.functions, key=lambda f: (f.lines, f.name), default=None)
        largest = max(self.classes, key=lambda c: (c.lines, c.name), default=None)
        worst = sorted(self.functions, key=lambda f: (-f.complexity, f.name))[:top]
        return {
            "files": self.files, "lines": self.lines, "functions": len(self.functions), "classes": len(self.classes),
            "longest_function": asdict(longest) if longest else None,
            "largest_class": asdict(largest) if largest else None,
            "most_complex": [asdict(f) for f in worst],
            f"functions_over_{COMPLEX_OVER}": sum(1 for f in self.functions if f.complexity > COMPLEX_OVER),
            "module_constants": self.constants,
            "numeric_literals": self.literals,
        }


# --- complexity --------------------------------------------------------------------------

def _decisions(node: ast.AST) -> int:
    """Decision points in `node` itself (not its children)."""
    if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.IfExp, ast.ExceptHandler)):
        return 1
    if isinstance(node, ast.BoolOp):
        return len(node.values) - 1
    if isinstance(node, ast.comprehension):
        return len(node.ifs)
    if hasattr(ast, "match_case") and isinstance(node, ast.match_case):
        return 1
    return 0


def complexity(func: ast.AST) -> int:
    """McCabe complexity of one function: 1 + its decision points, nested functions and classes left out."""
    total = 1
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            continue
        total += _decisions(node)
        stack.extend(ast.iter_child_nodes(node))
    return total


# --- constants and literals --------------------------------------------------------------

def _module_level(body: list[ast.stmt]):
    """Statements at module level, looking into if/try/with blocks but not into defs or classes."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _module_level(stmt.body)
            yield from _module_level(stmt.orelse)
        elif isinstance(stmt, ast.Try) or (hasattr(ast, "TryStar") and isinstance(stmt, ast.TryStar)):
            yield from _module_level(stmt.body)
            for h in stmt.handlers:
                yield from _module_level(h.body)
            yield from _module_level(stmt.orelse)
            yield from _module_level(stmt.finalbody)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _module_level(stmt.body)


def _target_names(target: ast.AST):
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for t in target.elts:
            yield from _target_names(t)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def module_constants(tree: ast.Module) -> tuple[set[str], list[ast.stmt]]:
    """UPPER_CASE names assigned at module level, and the assignments that set them."""
    names: set[str] = set()
    stmts = []
    for stmt in _module_level(tree.body):
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        else:
            continue
        found = [n for t in targets for n in _target_names(t) if CONSTANT_NAME.match(n)]
        if found:
            names.update(found)
            stmts.append(stmt)
    return names, stmts


def _is_number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, complex)


def numeric_literals(tree: ast.Module, skip: list[ast.stmt]) -> list[int | float | complex]:
    """Bare numbers in the module, outside `skip` (the constants' assignments), plain ones left out."""
    skipped = {id(n) for s in skip for n in ast.walk(s)}
    negated = set()
    values = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _is_number(node.operand):
            negated.add(id(node.operand))
            values.append(-node.operand.value)
        elif _is_number(node) and id(node) not in negated:
            values.append(node.value)
    # ast.walk is breadth first, so a negation is seen before the number under it
    return [v for v in values if v not in PLAIN_NUMBERS]


# --- one source --------------------------------------------------------------------------

def measure_source(source: str, module: str = "<source>") -> Figures:
    tree = ast.parse(source)
    fig = Figures(files=1, lines=len(source.splitlines()))

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, FUNCTIONS):
                name = f"{prefix}{child.name}"
                fig.functions.append(Function(name, child.end_lineno - child.lineno + 1, complexity(child)))
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                name = f"{prefix}{child.name}"
                methods = sum(1 for s in child.body if isinstance(s, FUNCTIONS))
                fig.classes.append(Klass(name, child.end_lineno - child.lineno + 1, methods))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, f"{module}:")
    names, stmts = module_constants(tree)
    fig.constants = len(names)
    fig.literals = len(numeric_literals(tree, stmts))
    return fig


def _module_name(path: Path) -> str:
    try:
        rel = path.resolve().relative_to(ROOT)
    except ValueError:
        rel = path
    return ".".join(rel.with_suffix("").parts)


def measure_path(path: Path) -> Figures:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
    fig = Figures()
    for f in files:
        fig.add(measure_source(f.read_text(encoding="utf-8"), _module_name(f)))
    return fig


# --- output ------------------------------------------------------------------------------

def report(paths: list[str], top: int = 5) -> dict:
    out = {}
    total = Figures()
    for p in paths:
        path = (ROOT / p) if not Path(p).is_absolute() else Path(p)
        if not path.exists():
            raise SystemExit(f"{p}: no such file or folder")
        fig = measure_path(path)
        total.add(fig)
        out[p] = fig.summary(top)
    if len(paths) > 1:
        out["all"] = total.summary(top)
    return out


def print_tables(figures: dict) -> None:
    over = f"functions_over_{COMPLEX_OVER}"
    head = ("package", "files", "lines", "funcs", "longest function", "largest class (methods)",
            f"cc>{COMPLEX_OVER}", "constants", "literals")
    rows = []
    for name, s in figures.items():
        lf, lc = s["longest_function"], s["largest_class"]
        rows.append((name, str(s["files"]), str(s["lines"]), str(s["functions"]),
                     f"{lf['lines']} {lf['name']}" if lf else "-",
                     f"{lc['lines']} ({lc['methods']}) {lc['name']}" if lc else "-",
                     str(s[over]), str(s["module_constants"]), str(s["numeric_literals"])))
    _table(head, rows)
    for name, s in figures.items():
        print(f"\nmost complex functions, {name}:")
        _table(("complexity", "lines", "function"),
               [(str(f["complexity"]), str(f["lines"]), f["name"]) for f in s["most_complex"]])


def _table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    for row in (head, tuple("-" * w for w in widths), *rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=list(DEFAULT_PACKAGES),
                    help="package folders or files, relative to the repository root (default: engine vision service)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--top", type=int, default=5, help="how many of the most complex functions to list (default 5)")
    args = ap.parse_args(argv)
    figures = report(args.paths, args.top)
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print_tables(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
