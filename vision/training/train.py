"""Train the two models from rendered data and export them to ONNX.

1. Tile detector: YOLO11n-OBB, classes tile / back, on whole scenes.
2. Pip detector: YOLO11n, one class `pip`, on rectified tile crops (vision.rectify).
Counting detected pips per half reads any value 0-18 in any colour without a class per
value, which is what the published phone counter found to read real photos best.

Uses a GPU when torch sees one, else the CPU at a reduced image size.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from .offline import import_ultralytics

REPO = Path(__file__).resolve().parents[2]
MODELS_DIR = REPO / "models"


@dataclass
class TrainPlan:
    data_yaml: str
    model_cfg: str  # e.g. yolo11n-obb.yaml (built from scratch: nothing is downloaded)
    imgsz: int
    epochs: int
    batch: int
    name: str
    augment: dict
    hours: float | None = None  # wall-clock budget; Ultralytics fits the epochs and LR schedule to it


def detector_plan(data_yaml: str, epochs: int, imgsz: int, gpu: bool) -> TrainPlan:
    return TrainPlan(data_yaml, "yolo11n-obb.yaml", imgsz, epochs, 64 if gpu else 16, "detector",
                     dict(degrees=0.0, fliplr=0.5, flipud=0.0, mosaic=1.0, scale=0.5, translate=0.1,
                          hsv_h=0.2, hsv_s=0.6, hsv_v=0.4, close_mosaic=max(1, epochs // 5)))


def pip_plan(data_yaml: str, epochs: int, imgsz: int, gpu: bool) -> TrainPlan:
    return TrainPlan(data_yaml, "yolo11n.yaml", imgsz, epochs, 128 if gpu else 32, "pips",
                     dict(degrees=3.0, fliplr=0.5, flipud=0.5, mosaic=0.0, scale=0.15, translate=0.04,
                          hsv_h=0.5, hsv_s=0.6, hsv_v=0.4, close_mosaic=0))


def has_gpu() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def train_one(plan: TrainPlan, project: Path, workers: int = 2, threads: int | None = None) -> Path:
    """Train and return the path of best.pt."""
    import_ultralytics()
    import torch
    from ultralytics import YOLO

    if threads:
        torch.set_num_threads(threads)
    gpu = has_gpu()
    model = YOLO(plan.model_cfg)
    model.train(data=plan.data_yaml, imgsz=plan.imgsz, epochs=plan.epochs, batch=plan.batch,
                device=0 if gpu else "cpu", workers=workers, project=str(project), name=plan.name,
                exist_ok=True, plots=False, amp=gpu, verbose=False, patience=100, cache=False,
                pretrained=False, val=True, seed=0, deterministic=False,
                **({"time": plan.hours} if plan.hours else {}), **plan.augment)
    return project / plan.name / "weights" / "best.pt"


def export_onnx(weights: Path, imgsz: int, dest: Path, dynamic: bool = False) -> Path:
    """Export to ONNX (opset 17) so inference needs only onnxruntime; `dynamic` lets the pip
    reader run all of a photo's tile crops as one batch."""
    import_ultralytics()
    from ultralytics import YOLO

    model = YOLO(str(weights))
    out = model.export(format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=dynamic, nms=False)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(out, dest)
    return dest


def train_all(data_root: Path, out_dir: Path = MODELS_DIR, det_epochs: int | None = None, pip_epochs: int | None = None,
              det_imgsz: int | None = None, runs: Path | None = None) -> dict:
    gpu = has_gpu()
    det_imgsz = det_imgsz or (640 if gpu else 320)
    det_epochs = det_epochs or (80 if gpu else 15)
    pip_epochs = pip_epochs or (60 if gpu else 12)
    runs = runs or (data_root / "runs")
    t0 = time.perf_counter()
    det = train_one(detector_plan(str(data_root / "detect" / "data.yaml"), det_epochs, det_imgsz, gpu), runs)
    t1 = time.perf_counter()
    pips = train_one(pip_plan(str(data_root / "pips" / "data.yaml"), pip_epochs, 160, gpu), runs)
    t2 = time.perf_counter()
    det_onnx = export_onnx(det, det_imgsz, out_dir / "tile_detector.onnx")
    pip_onnx = export_onnx(pips, 160, out_dir / "pip_detector.onnx", dynamic=True)
    return {"detector": str(det_onnx), "pips": str(pip_onnx), "detector_seconds": round(t1 - t0),
            "pip_seconds": round(t2 - t1), "gpu": gpu, "det_imgsz": det_imgsz, "det_epochs": det_epochs,
            "pip_epochs": pip_epochs, "cpu_count": os.cpu_count()}
