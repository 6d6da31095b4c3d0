# Everything goes through the virtual environment at .venv/ (created on first use).
# torch comes from the CPU wheel on disk (/opt/wheels); everything else from the registries.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
FIND_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)
STAMP := $(VENV)/.installed

export YOLO_OFFLINE := 1
export ORT_DISABLE_TELEMETRY := 1

.PHONY: venv demo test bench clean chromium

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(FIND_LINKS) -e '.[train,test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/chickenfoot score datasets/demo/hand.jpg --annotate out/demo
	$(BIN)/chickenfoot simulate --games 1 --players 4 --set 9 --seed 1

# The browser test drives Debian's Chromium; install it when we may (root with apt), else it skips.
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  echo "chromium not installed: the browser test will skip"; }

test: $(STAMP) chromium
	$(BIN)/python -m pytest -q tests

bench: $(STAMP)
	$(BIN)/chickenfoot bench

clean:
	rm -rf $(VENV) out build *.egg-info
