"""How tightly the tracker's parts hang together, from their syntax trees.

    python scripts/tracker_coupling.py [--json]

For each part of the tracker (its mixins, the collaborators `Tracker.__init__` builds, the
orchestrator `Tracker` itself, and the decision steps of `corrections`), prints the attributes it
reads and writes (a write is an assignment, augmented assignment or deletion of `self.X` itself;
`self.X[k] = v` or `self.X.add(v)` reads `X`) and the tracker methods it calls that another part
defines. In a mixin `self` is the tracker; in a collaborator it is the object itself (its own
state); in `corrections.py` (functions over a `Decision` whose `tracker` is the orchestrator) the
receiver is `d.tracker`, `tracker` or `tr`. Then the totals: the tracker's attributes (set in
`Tracker.__init__`, with `Tracker`'s properties, which read like attributes), how many of them
the mixins and steps touch, read and write (all of them, and the plain state among them: not the
attributes that hold a collaborator), the cross-part calls, and the part touching most.

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
    name: str
    """"module.py:Class" for a class, "module.py" for the steps."""
    kind: str
    """"mixin" (a base of `Tracker`: its `self` is the tracker), "steps" (functions over the
    tracker), "collaborator" (an object the tracker builds and holds: its `self` is its own) or
    "orchestrator" (`Tracker` itself)."""
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    calls_out: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Part called into -> the tracker methods called there."""


def _receiver_is_tracker(node: ast.AST, kind: str) -> bool:
    """`self.X` in a class; `tracker.X`, `tr.X` or `d.tracker.X` in the steps."""
    if kind != "steps":
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


def _class(module: str, name: str) -> ast.ClassDef | None:
    tree = ast.parse((PACKAGE / module).read_text())
    return next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)


def _init(cls: ast.ClassDef) -> ast.FunctionDef | None:
    return next((i for i in cls.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"), None)


def _is_property(node: ast.AST) -> bool:
    """A property reads state like an attribute (the tracker's `board`, `current`): counted as one."""
    return isinstance(node, ast.FunctionDef) and \
        any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)


def _methods(cls: ast.ClassDef) -> set[str]:
    return {i.name for i in cls.body if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_property(i)}


Layout = tuple[dict[str, tuple[str, ast.AST]], set[str], set[str], dict[str, str]]


def layout() -> Layout:
    """(part name -> (kind, its syntax tree), the tracker's attributes (set in `Tracker.__init__`,
    or properties of `Tracker`), those of them that hold a collaborator (assigned a value built by
    a collaborator's constructor), tracker method -> the part defining it)."""
    tree = ast.parse((PACKAGE / ORCHESTRATOR).read_text())
    imports = _imports(tree)
    tracker = _class(ORCHESTRATOR, "Tracker")
    assert tracker is not None
    parts: dict[str, tuple[str, ast.AST]] = {f"{ORCHESTRATOR}:Tracker": ("orchestrator", tracker),
                                             STEPS: ("steps", ast.parse((PACKAGE / STEPS).read_text()))}
    for base in (b.id for b in tracker.bases if isinstance(b, ast.Name)):
        cls = _class(imports[base], base)
        if cls is not None:
            parts[f"{imports[base]}:{base}"] = ("mixin", cls)
    init = _init(tracker)
    attrs: set[str] = set()
    handles: dict[str, ast.AST] = {}
    if init is not None:
        for node in ast.walk(init):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for t in getattr(node, "targets", None) or [getattr(node, "target", None)]:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        handles[t.attr] = node.value
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    attrs.add(t.attr)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imports:
                cls = _class(imports[node.func.id], node.func.id)
                if cls is not None:
                    parts.setdefault(f"{imports[node.func.id]}:{node.func.id}", ("collaborator", cls))
    methods: dict[str, str] = {}
    for name, (kind, node) in parts.items():
        if kind in ("mixin", "orchestrator") and isinstance(node, ast.ClassDef):
            for method in _methods(node):
                methods.setdefault(method, name)
    attrs |= {item.name for item in tracker.body if _is_property(item)}
    built = {name.split(":")[1] for name, (kind, _) in parts.items() if kind == "collaborator"}
    held = {attr for attr, value in handles.items()
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in built
                   for n in ast.walk(value))}
    return parts, attrs, held, methods


def measure(name: str, kind: str, tree: ast.AST, methods: dict[str, str]) -> Part:
    part = Part(name, kind)
    own = _methods(tree) if isinstance(tree, ast.ClassDef) else set()
    if kind == "collaborator" and isinstance(tree, ast.ClassDef):
        own |= {i.name for i in tree.body if _is_property(i)}
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                _receiver_is_tracker(node.func.value, kind):
            called.add(id(node.func))
            owner = methods.get(node.func.attr)
            if kind != "collaborator" and owner is not None and owner != name:
                part.calls_out[owner].add(node.func.attr)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not _receiver_is_tracker(node.value, kind):
            continue
        if node.attr in own or (kind != "collaborator" and node.attr in methods):
            continue  # a method of the object itself (called, or handed on), not state
        (part.writes if isinstance(node.ctx, (ast.Store, ast.Del)) else part.reads).add(node.attr)
    return part


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    found, tracker_state, held, methods = layout()
    plain = tracker_state - held
    order = {"orchestrator": 0, "collaborator": 1, "mixin": 2, "steps": 3}
    parts = [measure(n, k, t, methods) for n, (k, t) in sorted(found.items(), key=lambda x: (order[x[1][0]], x[0]))]
    work = [p for p in parts if p.kind in ("mixin", "steps")]
    shared = {a for p in work for a in p.reads | p.writes}
    calls = sum(len(ms) for p in parts for ms in p.calls_out.values())
    pairs = sum(len(p.calls_out) for p in parts)
    largest = max(parts, key=lambda p: len(p.reads | p.writes))
    totals = {"mixins": sum(p.kind == "mixin" for p in parts),
              "collaborators": sum(p.kind == "collaborator" for p in parts),
              "tracker_attributes": len(tracker_state),
              "tracker_attributes_holding_collaborators": len(held),
              "plain_state_read_by_mixins_and_steps": sum(len(p.reads & plain) for p in work),
              "plain_state_written_by_mixins_and_steps": sum(len(p.writes & plain) for p in work),
              "tracker_attributes_touched_by_mixins_and_steps": len(shared & tracker_state),
              "tracker_attributes_read_by_mixins_and_steps": sum(len(p.reads & tracker_state) for p in work),
              "tracker_attributes_written_by_mixins_and_steps": sum(len(p.writes & tracker_state) for p in work),
              "cross_part_methods_called": calls, "part_pairs_calling": pairs,
              "most_state_touched": f"{largest.name} ({len(largest.reads | largest.writes)})"}
    if args.json:
        print(json.dumps({"parts": [{**asdict(p), "reads": sorted(p.reads), "writes": sorted(p.writes),
                                     "calls_out": {k: sorted(v) for k, v in sorted(p.calls_out.items())}}
                                    for p in parts], "totals": totals}, indent=2))
        return 0
    for p in parts:
        print(f"{p.name} ({p.kind}): reads {len(p.reads)}, writes {len(p.writes)}, "
              f"calls {sum(len(v) for v in p.calls_out.values())} methods in {len(p.calls_out)} other parts")
        if p.reads:
            print("  reads:  " + ", ".join(sorted(p.reads)))
        if p.writes:
            print("  writes: " + ", ".join(sorted(p.writes)))
        for module, names in sorted(p.calls_out.items()):
            print(f"  calls {module}: " + ", ".join(sorted(names)))
    print()
    print(f"mixins: {totals['mixins']}, collaborators the tracker builds: {totals['collaborators']}")
    print(f"Tracker attributes (set in __init__, or properties): {totals['tracker_attributes']}")
    print(f"  of which hold a collaborator: {totals['tracker_attributes_holding_collaborators']}"
          f" ({', '.join(sorted(held))})")
    print(f"tracker attributes touched by mixins and steps: {totals['tracker_attributes_touched_by_mixins_and_steps']}")
    print("tracker attributes read, summed over mixins and steps:",
          totals["tracker_attributes_read_by_mixins_and_steps"])
    print("tracker attributes written, summed over mixins and steps:",
          totals["tracker_attributes_written_by_mixins_and_steps"])
    print("plain state (no collaborator) read, summed over mixins and steps:",
          totals["plain_state_read_by_mixins_and_steps"])
    print("plain state (no collaborator) written, summed over mixins and steps:",
          totals["plain_state_written_by_mixins_and_steps"])
    print(f"cross-part method calls: {calls} distinct methods, {pairs} calling pairs of parts")
    print(f"part touching the most attributes: {totals['most_state_touched']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
