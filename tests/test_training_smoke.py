"""`chickenfoot lab train`'s machinery works end to end on a handful of tiny rendered images:
render -> YOLO-OBB, pip-detector and half-reader training -> ONNX export -> our onnxruntime
pipeline."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ultralytics")
pytest.importorskip("torch")


def test_tiny_training_run_exports_models_the_recognizer_can_load(tmp_path: Path):
    from lab.synth.dataset import SynthJob, generate
    from lab.training.half_data import build_half_dataset
    from lab.training.half_train import train_half_reader
    from lab.training.pack_pips import mark_packed, pack_pip_dataset
    from lab.training.quantize import quantize_int8
    from lab.training.train import detector_plan, export_onnx, pip_plan, train_one
    from vision.recognize import Recognizer

    data = tmp_path / "data"
    generate(SynthJob(str(data), "hand", 5, (320, 240), 9, val_every=3), 6, workers=1, progress=False)
    det_plan = detector_plan(str(data / "detect" / "data.yaml"), epochs=1, imgsz=64, gpu=False)
    det_plan.batch = 2
    det = train_one(det_plan, tmp_path / "runs", workers=0)
    packed = pack_pip_dataset([(data, 40)], [(data, 10)], tmp_path / "packed")  # two crops per input
    pips = pip_plan(str(packed), epochs=1, imgsz=64, gpu=False)
    pips.batch = 4
    pip_w = train_one(pips, tmp_path / "runs", workers=0)
    models = tmp_path / "models"
    export_onnx(det, 64, models / "tile_detector.onnx", dynamic=True)
    pip_float = export_onnx(pip_w, 64, tmp_path / "pip_float.onnx", dynamic=True)
    quantize_int8(pip_float, models / "pip_detector.onnx", list((tmp_path / "packed" / "images").rglob("*.jpg")), (64, 64))
    mark_packed(models / "pip_detector.onnx")
    assert (models / "pip_detector.onnx").stat().st_size < pip_float.stat().st_size / 2
    assert (models / "tile_detector.onnx").stat().st_size > 100_000

    halves = build_half_dataset([data / "scenes"], tmp_path / "halves", versions=1, val_share=0.3, workers=1)
    assert halves["train"] > 0 and halves["val"] > 0
    result = train_half_reader(tmp_path / "halves", models / "half_reader.onnx", hours=0.001, batch=16,
                               log=lambda _line: None)
    assert result["epochs"] >= 1 and 0.0 <= result["val_acc"] <= 1.0

    rec = Recognizer(models)
    assert rec.halves is not None  # the folder's half reader is loaded for small tiles
    assert rec.detector.dynamic  # runs each image at its own aspect
    assert rec.pips.pack  # the exported reader says it was trained on two crops per input
    img = next((data / "scenes").glob("*.jpg"))
    result = rec.recognize(img)  # an untrained model finds little; it must run, not crash
    assert result.width == 320 and result.height == 240
    assert all(len(t.pips) == 2 for t in result.tiles)
    assert np.isfinite([t.confidence for t in result.tiles]).all()


def test_gpu_stage_renders_hands_tables_and_windows_then_trains_from_the_committed_weights(tmp_path: Path):
    """The detector's last stage (`chickenfoot lab train` on a GPU) on a CPU at toy size: it renders
    its own scenes, cuts table windows, trains one epoch from the committed checkpoint, and
    leaves weights that export."""
    from lab.training.gpu_detector import train_gpu_stage
    from lab.training.train import MODELS_DIR, export_onnx

    best = train_gpu_stage(tmp_path / "gpu", MODELS_DIR / "checkpoints" / "tile_detector.pt", 0.0003,
                           hands=10, tables=10, windows_per_table=1, imgsz=64, batch=4, workers=1, epochs=1,
                           cache=False)
    assert best.exists()
    windows = list((tmp_path / "gpu" / "windows" / "detect" / "images").rglob("*.jpg"))
    assert len(windows) == 10  # one window per table scene, at the stage's image size
    import cv2

    assert max(cv2.imread(str(windows[0])).shape[:2]) == 64
    onnx = export_onnx(best, 64, tmp_path / "tile_detector.onnx", dynamic=True)
    assert onnx.stat().st_size > 100_000


def test_the_exported_half_reader_loads_back_into_torch_computing_what_the_file_does():
    """Fine-tuning (`lab.training.half_tune`) starts from the committed file, whose batch
    norms the export folded away: the network rebuilt from it must read exactly as it does."""
    import torch

    from lab.training.half_train import _freeze_norm, load_exported
    from vision.halfreader import HALF_H, HALF_W, HalfReader

    path = Path(__file__).resolve().parents[1] / "models" / "half_reader.onnx"
    model = load_exported(path)
    model.train()
    _freeze_norm(model)  # as while fine-tuning: only dropout differs from eval
    model.eval()
    x = np.random.default_rng(0).random((6, 3, HALF_H, HALF_W)).astype(np.float32)
    ours = model(torch.from_numpy(x)).detach().numpy()
    reader = HalfReader(path)
    theirs = reader.session.run(None, {reader.input_name: x})[0]
    assert np.abs(ours - theirs).max() < 1e-3 * np.abs(theirs).max()


def test_any_seat_recipe_renders_every_part_and_its_windows_into_one_data_file(tmp_path: Path):
    """The lent-GPU recipe's data step at toy size: 3D and flat parts, windows cut from the parts
    that ask for them, one data.yaml over all; a share already spent renders nothing more."""
    import time

    from lab.training.gpu_any_seat import AnySeatPlan, Keeper, Part, render_all

    parts = [Part("h3", "hand3d", 3, steep=True), Part("t3", "table3d", 2, steep=True, windows=1),
             Part("h", "hand", 2)]
    plan = AnySeatPlan(parts, imgsz=64, workers=1, val_every=2)
    lines: list[str] = []
    data, counts = render_all(tmp_path / "w", plan, time.time() + 600, lines.append, rounds=2)
    assert counts == {"h3": 3, "t3": 2, "h": 2, "t3_windows": 2}
    text = data.read_text()
    for root in ("h3", "t3", "h", "t3_windows"):
        assert f"/{root}/detect/images/train" in text and f"/{root}/detect/images/val" in text
    assert len(list((tmp_path / "w" / "h3" / "detect" / "labels").rglob("*.txt"))) == 3

    late = AnySeatPlan([Part("x", "hand3d", 4)], imgsz=64, workers=1)
    _, counts = render_all(tmp_path / "late", late, time.time() - 1, lines.append)
    assert counts == {"x": 0}

    class Trainer:  # what the callback reads and sets on Ultralytics' trainer
        class args:
            time = None

    keeper = Keeper(tmp_path, time.time() + 100, lines.append)
    keeper.on_train_start(Trainer)
    assert 0.025 < Trainer.args.time <= 100 / 3600  # hours left to the training deadline
