# Everything goes through the virtual environment at .venv/ (created on first use), installed
# from the locks in requirements/ (exact versions with hashes), so every machine reads photos with
# the stack the figures were measured on.
#   requirements/runtime.txt  what `chickenfoot score|audit|watch|serve|simulate` needs (no torch)
#   requirements/lab.txt      runtime + the lab extra (`chickenfoot lab ...`: torch, Ultralytics)
#   requirements/test.txt     runtime + the lab + tests (pytest, httpx, Playwright)
# torch comes from the CPU wheel on disk (/opt/wheels); everything else from the registries.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
FIND_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)
LOCKS := requirements/runtime.txt requirements/lab.txt requirements/test.txt
LOCK_VENV := .venv-lock
LATEST_VENV := .venv-latest
PIP_TOOLS := pip-tools==7.6.2

export YOLO_OFFLINE := 1
export ORT_DISABLE_TELEMETRY := 1

.PHONY: venv venv-lab demo test test-latest lock lock-upgrade bench clean chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# install one lock exactly (hashes checked), then the project itself without touching the pins
define install_lock
	$(PIP) install -q --disable-pip-version-check --require-hashes $(FIND_LINKS) -r $(1)
	$(PIP) install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
endef

$(VENV)/.runtime: requirements/runtime.txt pyproject.toml | $(BIN)/python
	$(call install_lock,requirements/runtime.txt)
	touch $@

$(VENV)/.lab: requirements/lab.txt pyproject.toml | $(BIN)/python
	$(call install_lock,requirements/lab.txt)
	touch $@

$(VENV)/.test: requirements/test.txt pyproject.toml | $(BIN)/python
	$(call install_lock,requirements/test.txt)
	touch $@

venv: $(VENV)/.runtime
venv-lab: $(VENV)/.lab

demo: $(VENV)/.runtime
	$(BIN)/chickenfoot score datasets/demo/hand.jpg --annotate out/demo
	$(BIN)/chickenfoot simulate --games 1 --players 4 --set 9 --seed 1

# The browser test drives Debian's Chromium; install it when we may (root with apt), else it skips.
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  echo "chromium not installed: the browser test will skip"; }

test: $(VENV)/.test chromium
	$(BIN)/python -m pytest -q tests

# Non-blocking: the tests against the newest releases of the libraries that read the photos, so a
# change in a new build is seen before it reaches the lock.
test-latest: chromium
	test -x $(LATEST_VENV)/bin/python || $(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install -q --disable-pip-version-check --require-hashes $(FIND_LINKS) -r requirements/test.txt
	$(LATEST_VENV)/bin/python -m pip install -q --disable-pip-version-check --upgrade numpy opencv-python-headless opencv-python onnxruntime
	$(LATEST_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(LATEST_VENV)/bin/python -m pip list --disable-pip-version-check 2>/dev/null | grep -iE "^(numpy|opencv-python|opencv-python-headless|onnxruntime) "
	$(LATEST_VENV)/bin/python -m pytest -q tests

# Refresh the locks from pyproject.toml, keeping every pin that still fits (`lock-upgrade` takes
# the newest releases). The full lock is resolved first; the others are its subsets.
LOCK_FLAGS := -q --generate-hashes --allow-unsafe --all-build-deps --strip-extras --no-emit-index-url --no-emit-find-links $(FIND_LINKS)
lock:
	test -x $(LOCK_VENV)/bin/pip-compile || { $(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install -q $(PIP_TOOLS); }
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_VENV)/bin/pip-compile $(LOCK_FLAGS) $(UPGRADE) \
	  --extra lab --extra test -o requirements/test.txt pyproject.toml
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_VENV)/bin/pip-compile $(LOCK_FLAGS) $(UPGRADE) \
	  --extra lab -c requirements/test.txt -o requirements/lab.txt pyproject.toml
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_VENV)/bin/pip-compile $(LOCK_FLAGS) $(UPGRADE) \
	  -c requirements/test.txt -o requirements/runtime.txt pyproject.toml

lock-upgrade:
	$(MAKE) lock UPGRADE=--upgrade

bench: $(VENV)/.runtime
	$(BIN)/chickenfoot lab bench

clean:
	rm -rf $(VENV) $(LATEST_VENV) out build *.egg-info
