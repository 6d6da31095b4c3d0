"""The locks in requirements/ pin exactly what pyproject.toml asks for, so every install reads
photos with the same stack. `make lock` refreshes them; these tests fail when the two drift."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCK_EXTRAS = {"runtime": (), "lab": ("lab",), "test": ("lab", "test")}
"""Each lock file and the extras it holds beside the run-time dependencies."""
LAB_ONLY = ("torch", "torchvision", "ultralytics", "playwright", "pytest", "hypothesis", "onnx")
"""Packages a run-time install must not carry: the lab's training and export tools, and test tools."""

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)\s*(\\)?$")


def _declared(extras: tuple[str, ...]) -> list[Requirement]:
    project = PYPROJECT["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        reqs += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return reqs


def _lock(name: str) -> tuple[dict[str, Version], dict[str, list[str]], dict[str, str]]:
    """A lock's pins, the hashes given for each and what each pin is there for (its "via" note)."""
    pins: dict[str, Version] = {}
    hashes: dict[str, list[str]] = {}
    via: dict[str, str] = {}
    current = None
    for line in (ROOT / "requirements" / f"{name}.txt").read_text().splitlines():
        m = PIN.match(line)
        if m:
            current = canonicalize_name(m.group(1))
            pins[current] = Version(m.group(2))
            hashes[current], via[current] = [], ""
        elif current and line.strip().startswith("--hash="):
            hashes[current].append(line.strip().rstrip("\\").strip())
        elif current and line.strip().startswith("#"):
            via[current] += line.strip() + "\n"
    return pins, hashes, via


@pytest.mark.parametrize("lock", sorted(LOCK_EXTRAS))
def test_every_dependency_pyproject_declares_is_pinned_in_the_lock_within_its_range(lock):
    pins, _, _ = _lock(lock)
    for req in _declared(LOCK_EXTRAS[lock]):
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is declared in pyproject.toml but not in requirements/{lock}.txt"
        assert req.specifier.contains(pins[name], prereleases=True), \
            f"requirements/{lock}.txt pins {req.name}=={pins[name]} outside pyproject's {req.specifier}"


@pytest.mark.parametrize("lock", sorted(LOCK_EXTRAS))
def test_a_dependency_dropped_from_pyproject_is_dropped_from_the_lock(lock):
    declared = {canonicalize_name(r.name) for r in _declared(LOCK_EXTRAS[lock])}
    build = {canonicalize_name(Requirement(r).name) for r in PYPROJECT["build-system"]["requires"]}
    pins, _, via = _lock(lock)
    direct = {name for name, note in via.items() if "chickenfoot (pyproject.toml)" in note}
    assert direct - build <= declared, f"requirements/{lock}.txt still pins {sorted(direct - build - declared)}"


@pytest.mark.parametrize("lock", sorted(LOCK_EXTRAS))
def test_every_pin_has_a_hash_and_the_build_tools_are_pinned_too(lock):
    pins, hashes, _ = _lock(lock)
    assert pins and all(hashes[name] for name in pins), [n for n in pins if not hashes[n]]
    for req in PYPROJECT["build-system"]["requires"]:
        name = canonicalize_name(Requirement(req).name)
        assert name in pins and Requirement(req).specifier.contains(pins[name]), (lock, req)


def test_the_three_locks_pin_one_version_of_each_package():
    locks = {name: _lock(name)[0] for name in LOCK_EXTRAS}
    for name, version in locks["test"].items():
        for other in ("runtime", "lab"):
            assert locks[other].get(name, version) == version, (name, other, locks[other][name], version)
    assert set(locks["runtime"]) <= set(locks["lab"]) <= set(locks["test"])


def test_the_run_time_lock_carries_no_training_or_test_tools():
    pins, _, _ = _lock("runtime")
    assert not [p for p in LAB_ONLY if p in pins]


def test_torch_is_pinned_to_the_cpu_build():
    pins, _, _ = _lock("lab")
    assert pins["torch"].local == "cpu", pins["torch"]
