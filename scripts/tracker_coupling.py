"""How tightly the tracker's parts hang together, from their syntax trees.

    python scripts/tracker_coupling.py [--json]

For each module of `vision/tracking/` that defines a class the tracker is made of or works
with (its mixins, its collaborators, the step functions of `corrections`), prints the
`self.X` attributes the module reads and writes (a write is an assignment, augmented
assignment or deletion of `self.X` itself; `self.X[k] = v` or `self.X.add(v)` reads `X`),
and the `self.m()` calls it makes to methods defined in another of these modules. In
`corrections.py` (functions over a `Decision` whose `tracker` is the orchestrator) the
receiver is `d.tracker`, `tracker` or `tr` instead of `self`. Then the totals: the attributes
`Tracker.__init__` sets (with `Tracker`'s properties, which read like attributes), how many of
them the mixins and steps touch, read and write, and the cross-part calls.

Why: parts that share one bag of mutable state and call one another cannot be understood,
tested or replaced one at a time; these figures show how far that is so, before and after.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vision" / "tracking"
ORCHESTRATOR = "tracker.py"
STEPS = "corrections.py"
"""The decision steps: functions whose `tracker` (or `d.tracker`) is the orchestrator."""


@dataclass
class Part:
    module: str
    kind: str
    """"mixin" (a base of `Tracker`: its `self` is the tracker), "steps" (functions over the
    tracker), "collaborator" (an object the tracker holds: its `self` is its own) or
    "orchestrator"."""
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    calls_out: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Module called into -> the tracker methods called there."""


def _receiver_is_tracker(node: ast.AST, kind: str) -> bool:
    """`self.X` in a mixin or the orchestrator; `tracker.X` or `d.tracker.X` in the steps."""
    if kind in ("mixin", "orchestrator", "collaborator"):
        return isinstance(node, ast.Name) and node.id == "self"
    return (isinstance(node, ast.Name) and node.id in ("tracker", "tr")) or \
        (isinstance(node, ast.Attribute) and node.attr == "tracker")


def _imports(tree: ast.Module) -> dict[str, str]:
    """Name imported from a sibling module -> that module's file name."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                out[alias.asname or alias.name] = node.module + ".py"
    return out


def _tracker_class(tree: ast.Module) -> ast.ClassDef:
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tracker")


def _init(cls: ast.ClassDef) -> ast.FunctionDef | None:
    return next((i for i in cls.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"), None)


def layout() -> tuple[dict[str, str], set[str], dict[str, str]]:
    """(module -> kind, the tracker's attributes (set in `Tracker.__init__`, or properties of
    `Tracker`), tracker method -> module defining it)."""
    tree = ast.parse((PACKAGE / ORCHESTRATOR).read_text())
    imports = _imports(tree)
    cls = _tracker_class(tree)
    kinds = {ORCHESTRATOR: "orchestrator", STEPS: "steps"}
    bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
    for base in bases:
        kinds[imports[base]] = "mixin"
    init = _init(cls)
    attrs: set[str] = set()
    if init is not None:
        for node in ast.walk(init):
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    attrs.add(t.attr)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imports:
                module = imports[node.func.id]
                kinds.setdefault(module, "collaborator")
    methods: dict[str, str] = {}
    for module, kind in kinds.items():
        if kind not in ("mixin", "orchestrator"):
            continue
        mtree = ast.parse((PACKAGE / module).read_text())
        for node in mtree.body:
            if isinstance(node, ast.ClassDef) and (kind == "mixin" and node.name in bases or node.name == "Tracker"):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_property(item):
                        methods.setdefault(item.name, module)
    attrs |= {item.name for item in cls.body if isinstance(item, ast.FunctionDef) and _is_property(item)}
    return kinds, attrs, methods


def _is_property(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A property reads state like an attribute (the tracker's `board`, `current`): counted as one."""
    return any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)


def measure(module: str, kind: str, methods: dict[str, str]) -> Part:
    part = Part(module, kind)
    tree = ast.parse((PACKAGE / module).read_text())
    funcs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                _receiver_is_tracker(node.func.value, kind):
            funcs.add(id(node.func))
            owner = methods.get(node.func.attr)
            if kind != "collaborator" and owner is not None and owner != module:
                part.calls_out[owner].add(node.func.attr)
    own = {i.name for n in tree.body if isinstance(n, ast.ClassDef) for i in n.body
           if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef)) and (kind == "collaborator" or not _is_property(i))}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not _receiver_is_tracker(node.value, kind):
            continue
        if id(node) in funcs and (node.attr in methods or node.attr in own):
            continue  # a method call, counted above
        if node.attr in own or (kind != "collaborator" and node.attr in methods):
            continue  # a property or method of the object itself, not state
        (part.writes if isinstance(node.ctx, (ast.Store, ast.Del)) else part.reads).add(node.attr)
    return part


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    kinds, tracker_state, methods = layout()
    parts = [measure(m, k, methods) for m, k in sorted(kinds.items(), key=lambda mk: (mk[1], mk[0]))]
    work = [p for p in parts if p.kind in ("mixin", "steps")]
    shared = {a for p in work for a in p.reads | p.writes}
    calls = sum(len(ms) for p in parts for ms in p.calls_out.values())
    pairs = sum(len(p.calls_out) for p in parts)
    totals = {"mixins": sum(p.kind == "mixin" for p in parts),
              "collaborators": sum(p.kind == "collaborator" for p in parts),
              "tracker_attributes": len(tracker_state),
              "tracker_attributes_touched_by_mixins_and_steps": len(shared & tracker_state),
              "tracker_attributes_read_by_mixins_and_steps": sum(len(p.reads & tracker_state) for p in work),
              "tracker_attributes_written_by_mixins_and_steps": sum(len(p.writes & tracker_state) for p in work),
              "cross_part_methods_called": calls, "part_pairs_calling": pairs}
    if args.json:
        print(json.dumps({"parts": [{**asdict(p), "reads": sorted(p.reads), "writes": sorted(p.writes),
                                     "calls_out": {k: sorted(v) for k, v in sorted(p.calls_out.items())}}
                                    for p in parts], "totals": totals}, indent=2))
        return 0
    for p in parts:
        print(f"{p.module} ({p.kind}): reads {len(p.reads)}, writes {len(p.writes)}, "
              f"calls {sum(len(v) for v in p.calls_out.values())} methods in {len(p.calls_out)} other parts")
        if p.reads:
            print("  reads:  " + ", ".join(sorted(p.reads)))
        if p.writes:
            print("  writes: " + ", ".join(sorted(p.writes)))
        for module, names in sorted(p.calls_out.items()):
            print(f"  calls {module}: " + ", ".join(sorted(names)))
    print()
    print(f"mixins: {totals['mixins']}, collaborators held by the tracker: {totals['collaborators']}")
    print(f"Tracker attributes (set in __init__, or properties): {totals['tracker_attributes']}")
    print(f"tracker attributes touched by mixins and steps: {totals['tracker_attributes_touched_by_mixins_and_steps']}")
    print(f"tracker attributes read, summed over mixins and steps: {totals['tracker_attributes_read_by_mixins_and_steps']}")
    print(f"tracker attributes written, summed over mixins and steps: {totals['tracker_attributes_written_by_mixins_and_steps']}")
    print(f"cross-part method calls: {calls} distinct methods, {pairs} calling pairs of parts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
