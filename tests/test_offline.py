"""Nothing may reach the network: not Ultralytics (fonts, hub, AMP checks), not onnxruntime.

Each check runs in a fresh interpreter whose socket layer records and refuses every
connection and DNS lookup, then imports and runs the real code paths.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

GUARD = textwrap.dedent('''
    import socket, sys
    attempts = []
    def _refuse(*a, **k):
        attempts.append(repr(a[:2]))
        raise OSError("network disabled in test")
    socket.socket.connect = lambda self, *a, **k: _refuse(*a)
    socket.socket.connect_ex = lambda self, *a, **k: _refuse(*a)
    socket.create_connection = _refuse
    socket.getaddrinfo = _refuse
    import atexit
    def _report():
        print("NETWORK_ATTEMPTS=%d %s" % (len(attempts), attempts[:5]))
    atexit.register(_report)
''')


def _run(code: str, tmp_path: Path) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CHICKENFOOT_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", GUARD + textwrap.dedent(code)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_recognition_pipeline_opens_no_connection(tmp_path):
    out = _run('''
        import numpy as np, cv2
        from lab.synth.scene import render_hand
        from vision.recognize import Recognizer
        img = render_hand(np.random.default_rng(0), (640, 480)).image
        ok, buf = cv2.imencode(".jpg", img)
        rec = Recognizer().recognize(buf.tobytes())
        print("tiles", len(rec.tiles))
    ''', tmp_path)
    assert "NETWORK_ATTEMPTS=0 " in out, out


def test_ultralytics_training_imports_open_no_connection(tmp_path):
    pytest.importorskip("ultralytics")
    out = _run('''
        from lab.training.offline import import_ultralytics
        import_ultralytics()
        from ultralytics import YOLO
        from ultralytics.utils.checks import check_font
        m = YOLO("yolo11n-obb.yaml")  # built from the packaged yaml: no weights fetched
        check_font("Arial.ttf")       # served from the font we ship into its config dir
        print("params", sum(p.numel() for p in m.model.parameters()))
    ''', tmp_path)
    assert "NETWORK_ATTEMPTS=0 " in out, out
