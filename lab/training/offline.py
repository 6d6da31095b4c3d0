"""Keep Ultralytics and onnxruntime off the network.

Ultralytics fetches fonts for plots, checks the hub and pings for AMP weights; none of
that may happen here. We point its config dir at a folder inside the project's data
dir, put a font there (matplotlib's DejaVu Sans, saved under the names Ultralytics
looks for) and turn its settings' sync off before it is imported.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

FONT_NAMES = ("Arial.ttf", "Arial.Unicode.ttf")


def config_dir() -> Path:
    base = os.environ.get("CHICKENFOOT_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share", "chickenfoot")
    return Path(base) / "ultralytics"


def set_offline_env() -> None:
    """Environment switches; safe to call before or without importing anything heavy."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("YOLO_VERBOSE", "False")
    os.environ.setdefault("HUB_OFFLINE", "1")
    cfg = config_dir()
    cfg.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg))


def _ship_font(cfg: Path) -> None:
    missing = [n for n in FONT_NAMES if not (cfg / n).exists()]
    if not missing:
        return
    try:
        import matplotlib

        src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    except ImportError:  # run-time installs have no matplotlib and draw no plots
        return
    if src.exists():
        for n in missing:
            shutil.copyfile(src, cfg / n)


def import_ultralytics():
    """Import Ultralytics with every network path switched off; returns the module."""
    set_offline_env()
    from .tv_shim import install

    install()
    import ultralytics
    from ultralytics.utils import SETTINGS, USER_CONFIG_DIR

    _ship_font(Path(USER_CONFIG_DIR))
    off = {k: False for k in ("sync", "hub", "wandb", "mlflow", "tensorboard", "clearml", "comet", "dvc",
                              "neptune", "raytune") if k in SETTINGS}
    SETTINGS.update(off)
    return ultralytics
