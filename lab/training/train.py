"""Train the two models from rendered data and export them to ONNX.

1. Tile detector: YOLO11n-OBB, classes tile / back, on whole scenes; a second stage adds
   blocks of touching tiles and tables (an optional third, off by default, windows of
   tables at the size the detector's zoomed pass meets them: `table_windows`); where a GPU
   is present, a last stage at 640 px on fresh hands, tables and such windows
   (`gpu_detector`: how the committed detector was finished).
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
from .quantize import quantize_int8

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


def train_one(plan: TrainPlan, project: Path, workers: int = 2, threads: int | None = None,
              init_weights: Path | None = None, overrides: dict | None = None) -> Path:
    """Train and return the path of best.pt; `init_weights` fine-tunes an earlier run's weights;
    `overrides` replaces any of the Ultralytics arguments below."""
    import_ultralytics()
    import torch
    from ultralytics import YOLO

    if threads:
        torch.set_num_threads(threads)
    gpu = has_gpu()
    model = YOLO(str(init_weights) if init_weights else plan.model_cfg)
    project = Path(project).resolve()  # a relative project lands under runs/<task>/ in Ultralytics 8.4
    args = dict(data=plan.data_yaml, imgsz=plan.imgsz, epochs=plan.epochs, batch=plan.batch,
                device=0 if gpu else "cpu", workers=workers, project=str(project), name=plan.name,
                exist_ok=True, plots=False, amp=gpu, verbose=False, patience=100, cache=False,
                pretrained=bool(init_weights), val=True, seed=0, deterministic=False,
                **({"time": plan.hours} if plan.hours else {}), **plan.augment)
    model.train(**{**args, **(overrides or {})})
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


def subset_yaml(pips_root: Path, train_n: int, val_n: int, seed: int = 0) -> Path:
    """A data.yaml over a random subset of the crops: an epoch over every crop is hours on a CPU."""
    import random

    rnd = random.Random(seed)
    out = {}
    for split, n in (("train", train_n), ("val", val_n)):
        files = sorted(str(p.resolve()) for p in (pips_root / "images" / split).glob("*.jpg"))
        rnd.shuffle(files)
        lst = pips_root / f"{split}_sub.txt"
        lst.write_text("\n".join(files[:n]))
        out[split] = lst.resolve()
    y = pips_root / "data_sub.yaml"
    y.write_text(f"path: {pips_root.resolve()}\ntrain: {out['train']}\nval: {out['val']}\nnames:\n  0: pip\n")
    return y


def combined_detect_yaml(roots: list[Path], dest: Path) -> Path:
    """One detector data.yaml over several rendered sets (hands, blocks, tables): Ultralytics
    takes lists of image folders, so nothing is copied."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for split in ("train", "val"):
        dirs = [str((r / "detect" / "images" / split).resolve()) for r in roots]
        lines.append(f"{split}:\n" + "".join(f"  - {d}\n" for d in dirs))
    dest.write_text("".join(lines) + "names:\n  0: tile\n  1: back\n")
    return dest


@dataclass
class Recipe:
    """How the committed models were made; `chickenfoot lab train` defaults reproduce it."""

    det_imgsz: int = 320
    det_hours: float = 1.55
    pip_hours: float = 0.75
    pip_train_crops: int = 8000
    pip_finetune_hours: float = 0.55
    pip_finetune_crops: int = 6800
    pip_finetune_lr0: float = 0.002
    pip_packed_hours: float = 0.6  # two crops per input (lab.training.pack_pips); 0 skips it
    pip_packed_lr0: float = 0.002
    pip_packed_crops: tuple[int, int] = (7000, 5000)  # from the fine-tune set, from the first set
    det_stage2_hours: float = 1.7
    det_stage2_lr0: float = 0.005
    stage2_hand_scenes: int = 1000  # with the "block" arrangement (renderer as of 98475a9)
    stage2_table_scenes: int = 500
    det_tables_hours: float = 0.0  # third detector stage on windows of table scenes; 0 skips it
    """Off: tried for 1.35 h (11 epochs, lr0 0.003) and not kept; it found more table tiles but
    read the real photos worse (models/README.md)."""
    det_tables_lr0: float = 0.003
    tables_extra_scenes: int = 300  # table scenes rendered for it besides stage 2's
    tables_samples: tuple[tuple[int, int], ...] = ((700, 60), (500, 60), (200, 0))
    """(train, val) images kept from the first set, stage 2's hands and stage 2's whole tables."""
    half_hours: float = 0.55
    """The half reader for small tiles (vision.halfreader) on the CPU; 0 skips it. Where a GPU is
    present it is trained by `gpu_half` instead for `half_gpu_hours` (the committed reader)."""
    half_gpu_hours: float = 0.135  # the committed run: 42 epochs in ~490 s on one H100
    half_gpu_hue_hours: float = 0.08
    """Where a GPU is present, the reader `gpu_half` trained is then fine-tuned there (lr 1e-3) on
    scenes with hue-coded sets among them (`gpu_half --init ... --hue-scale 1.25`: the
    committed reader, 19 epochs in ~295 s on one H100; 0 skips it)."""
    half_versions: int = 3  # sizes each tile is shrunk to (both ends of each)
    half_tune_hours: float = 0.0
    """Last half-reader stage, on the CPU either way: the reader fine-tuned on hue-coded sets beside
    sets drawn at random (`half_tune`). Off: tried (0.5 h on 2 threads) and not
    kept; it read hue-coded sets better but the real double-6 tiles worse (models/README.md)."""
    half_gpu_big_hours: float = 0.1
    """Where a GPU is present, the big sets' reader (`half_reader_big.onnx`, read only where a set of
    double-13 or more is declared) is the committed reader fine-tuned there (`GPU_BIG_TUNE`:
    18 epochs in 351 s on one H100; 0 skips it). Without a GPU, `half_big_tune_hours` makes it."""
    half_big_tune_hours: float = 0.0
    """The big sets' reader made on the CPU instead (written to `half_reader_big.onnx`):
    the reader fine-tuned (lr 5e-4, seed 3101) on
    720p tables and hands of double-12 to double-18 beside sets drawn at random and hue-coded
    (`half_tune --stage big`). Off: tried (0.6 h on 2 threads, 7 epochs) and not
    kept; it read rendered big-set tables better but the live tracker's fresh rendered rounds worse
    and one more real double-6 tile wrong (models/README.md)."""
    half_scenes: tuple[tuple[str, int, int], ...] = (("table", 15, 300), ("table", 18, 300), ("table", 12, 200),
                                                     ("hand", 15, 500), ("hand", 18, 500))
    """(kind, set, count) of scenes rendered for it besides the first set's and stage 2's tables:
    the big sets' values 13-18 are rare elsewhere."""
    det_gpu_hours: float = 0.32
    """Last detector stage at 640 px on fresh hands, tables and table windows
    (`gpu_detector.train_gpu_stage`; the committed run: one H100, 40 epochs). `chickenfoot lab train`
    runs it only where a GPU is present unless told a budget: at 640 px an epoch on a 2-core CPU
    takes about an hour."""
    det_steep_hours: float = 0.0
    """Last detector stage: the detector fine-tuned at `det_imgsz` on scenes seen by a steep camera
    (`random_camera(steep=True)`) beside scenes from the usual camera, so that a photo taken 45-60
    degrees off straight down is read. Off: the session-25 run (CPU, 1.1 h, 10 epochs, lr0 0.002)
    read steep copies of the real photos better but blurred copies and the real double-12
    close-ups worse, and was not kept (models/README.md)."""
    steep_scenes: tuple[tuple[str, bool, int, int], ...] = (("hand", True, 1400, 9201), ("table", True, 400, 9202),
                                                          ("hand", False, 700, 9203), ("table", False, 300, 9204))
    """(kind, steep, count, seed) of the scenes rendered for it, at random phone and webcam sizes."""
    gpu_hands: int = 4000
    gpu_tables: int = 2000


def train_steep_stage(work: Path, det: Path, recipe: Recipe, workers: int | None = None) -> Path:
    """Render `recipe.steep_scenes` under `work` (kept if present) and fine-tune `det` on them;
    returns the best weights."""
    from lab.synth.dataset import SynthJob, generate

    roots = []
    for kind, steep, count, seed in recipe.steep_scenes:
        root = work / f"{kind}_{'steep' if steep else 'default'}"
        if not (root / "detect" / "images" / "train").is_dir():
            generate(SynthJob(str(root), kind, seed, None, None, pips=False, steep=steep), count,
                     workers=workers or min(2, os.cpu_count() or 1), progress=True)
        roots.append(root)
    gpu = has_gpu()
    plan = detector_plan(str(combined_detect_yaml(roots, work / "data.yaml")), 200, recipe.det_imgsz, gpu)
    plan.hours, plan.name = recipe.det_steep_hours, "detector_steep"
    plan.augment.update(lr0=0.002, warmup_epochs=0.3, close_mosaic=2)
    return train_one(plan, work / "runs", threads=None if gpu else os.cpu_count(), init_weights=det)


def train_all(data_root: Path, out_dir: Path = MODELS_DIR, recipe: Recipe | None = None,
              finetune_root: Path | None = None, runs: Path | None = None, parallel: bool = False,
              stage2_roots: list[Path] | None = None, table_roots: list[Path] | None = None,
              half_roots: list[Path] | None = None) -> dict:
    """Detector and pip reader from scratch on `data_root`; then, if `finetune_root` holds crops
    from a newer renderer, the pip reader is fine-tuned on them. On a 2-core CPU the recipe runs the
    two trainings side by side (one thread each) when `parallel`, as the committed run did."""
    import subprocess
    import sys

    recipe = recipe or Recipe()
    gpu = has_gpu()
    runs = runs or (data_root / "runs")
    t0 = time.perf_counter()
    det_plan = detector_plan(str(data_root / "detect" / "data.yaml"), 200, recipe.det_imgsz, gpu)
    det_plan.hours = recipe.det_hours
    pip_p = pip_plan(str(subset_yaml(data_root / "pips", recipe.pip_train_crops, 600)), 200, 160, gpu)
    pip_p.hours = recipe.pip_hours
    if parallel and not gpu:
        code = ("import sys, pickle; from pathlib import Path; sys.path.insert(0, %r); "
                "from lab.training.train import train_one; plan = pickle.loads(bytes.fromhex(%r)); "
                "print(train_one(plan, Path(%r), workers=1, threads=1))")
        import pickle

        procs = [subprocess.Popen([sys.executable, "-c", code % (str(REPO), pickle.dumps(p).hex(), str(runs))],
                                  env={**os.environ, "OMP_NUM_THREADS": "1"}) for p in (det_plan, pip_p)]
        if any(p.wait() for p in procs):
            raise RuntimeError("a training process failed; see its output above")
        det = runs / det_plan.name / "weights" / "best.pt"
        pips = runs / pip_p.name / "weights" / "best.pt"
    else:
        det = train_one(det_plan, runs)
        pips = train_one(pip_p, runs)
    t1 = time.perf_counter()
    if finetune_root is not None:
        ft = pip_plan(str(subset_yaml(finetune_root / "pips", recipe.pip_finetune_crops, 500)), 200, 160, gpu)
        ft.hours, ft.name = recipe.pip_finetune_hours, "pips_finetune"
        ft.augment.update(lr0=recipe.pip_finetune_lr0, warmup_epochs=0.3)  # small steps: keep what was learnt
        pips = train_one(ft, runs, init_weights=pips)
    packed = None
    if recipe.pip_packed_hours > 0:
        # the reader packs two crops per input, which halves its cost; teach it that picture
        from .pack_pips import pack_pip_dataset

        # crops of the newest renderer first, then (when there was a fine-tune) of the first set
        roots = [finetune_root, data_root] if finetune_root else [data_root]
        train = list(zip(roots, recipe.pip_packed_crops))
        val = list(zip(roots, (500, 300)))
        packed = runs / "pips_packed_data"
        pk = pip_plan(str(pack_pip_dataset(train, val, packed, seed=0)), 200, 160, gpu)
        pk.hours, pk.name = recipe.pip_packed_hours, "pips_packed"
        pk.augment.update(lr0=recipe.pip_packed_lr0, warmup_epochs=0.3)
        pips = train_one(pk, runs, init_weights=pips)
    t2 = time.perf_counter()
    if stage2_roots:
        # second detector stage: the first stage's weights, more scenes (blocks of touching tiles, tables)
        st2 = detector_plan(str(combined_detect_yaml([data_root, *stage2_roots], runs / "detector_stage2.yaml")),
                            200, recipe.det_imgsz, gpu)
        st2.hours, st2.name = recipe.det_stage2_hours, "detector_stage2"
        st2.augment.update(lr0=recipe.det_stage2_lr0, warmup_epochs=0.5, close_mosaic=2)
        det = train_one(st2, runs, threads=None if gpu else os.cpu_count(), init_weights=det)
    t3 = time.perf_counter()
    if table_roots and recipe.det_tables_hours > 0:
        # third stage: tables at the size the zoomed pass meets them (lab.training.table_windows),
        # with hands and whole tables from the earlier sets mixed in so that those are kept
        from .table_windows import table_stage_yaml, window_dataset

        windows = runs / "table_windows"
        window_dataset([r / "scenes" for r in table_roots], windows, seed=0)
        earlier = [data_root, *(stage2_roots or [])]
        data = table_stage_yaml(windows, [(r, n, v) for r, (n, v) in zip(earlier, recipe.tables_samples)],
                                runs / "table_stage")
        st3 = detector_plan(str(data), 200, recipe.det_imgsz, gpu)
        st3.hours, st3.name = recipe.det_tables_hours, "detector_tables"
        st3.augment.update(lr0=recipe.det_tables_lr0, warmup_epochs=0.3, close_mosaic=2)
        det = train_one(st3, runs, threads=None if gpu else os.cpu_count(), init_weights=det)
    t35 = time.perf_counter()
    if recipe.det_gpu_hours > 0:
        from .gpu_detector import train_gpu_stage

        det = train_gpu_stage(runs / "gpu_stage", det, recipe.det_gpu_hours, hands=recipe.gpu_hands,
                              tables=recipe.gpu_tables)
    if recipe.det_steep_hours > 0:
        det = train_steep_stage(runs / "steep_stage", det, recipe)
    t4 = time.perf_counter()
    det_onnx = export_onnx(det, recipe.det_imgsz, out_dir / "tile_detector.onnx", dynamic=True)
    pip_float = export_onnx(pips, 160, runs / "pip_detector_float.onnx", dynamic=True)
    calib = sorted((packed or finetune_root or data_root).glob(("" if packed else "pips/") + "images/val/*.jpg"))
    pip_onnx = quantize_int8(pip_float, out_dir / "pip_detector.onnx", calib, (160, 160))
    if packed is not None:
        from .pack_pips import mark_packed

        mark_packed(pip_onnx)
    t5 = time.perf_counter()
    halves = None
    from vision.recognize import BIG_HALVES_FILE  # the big sets' own reader, read only for declared big sets

    if recipe.half_hours > 0 and gpu:
        from .gpu_half import GPU_BIG_TUNE, GPU_HUE_TUNE, train_gpu_half

        halves = train_gpu_half(runs / "gpu_half", out_dir / "half_reader.onnx", recipe.half_gpu_hours)
        if recipe.half_gpu_hue_hours > 0:
            tuned = train_gpu_half(runs / "gpu_half_hue", out_dir / "half_reader.onnx", recipe.half_gpu_hue_hours,
                                   **GPU_HUE_TUNE, init=out_dir / "half_reader.onnx")
            halves["hue_tune"] = {k: v for k, v in tuned.items() if k != "history"}
        if recipe.half_gpu_big_hours > 0:
            big = train_gpu_half(runs / "gpu_half_big", out_dir / BIG_HALVES_FILE, recipe.half_gpu_big_hours,
                                 **GPU_BIG_TUNE, init=out_dir / "half_reader.onnx")
            halves["big_tune"] = {k: v for k, v in big.items() if k != "history"}
    elif recipe.half_hours > 0 and half_roots is not None:
        from .half_data import build_half_dataset
        from .half_train import train_half_reader

        dirs = [d / "scenes" for d in [data_root, *half_roots] if (d / "scenes").is_dir()]
        build_half_dataset(dirs, runs / "halves", versions=recipe.half_versions)
        halves = train_half_reader(runs / "halves", out_dir / "half_reader.onnx", hours=recipe.half_hours)
    if halves is not None:
        from .half_tune import BIG_TUNE, tune_half_reader

        # the reader's CPU fine-tunes, each on the file the stage before wrote (both off by default)
        for key, hours, work, extra in (("tune", recipe.half_tune_hours, "half_tune", {}),
                                        ("big_tune", recipe.half_big_tune_hours, "half_big_tune", BIG_TUNE)):
            if hours > 0:
                # the big sets' stage writes their own reader
                dest = out_dir / (BIG_HALVES_FILE if key == "big_tune" else "half_reader.onnx")
                res = tune_half_reader(out_dir / "half_reader.onnx", runs / work, dest, hours, **extra)
                halves[key] = {k: v for k, v in res.items() if k != "history"}
    return {"detector": str(det_onnx), "pips": str(pip_onnx), "half_reader": halves,
            "half_seconds": round(time.perf_counter() - t5), "train_seconds": round(t1 - t0),
            "finetune_seconds": round(t2 - t1), "stage2_seconds": round(t3 - t2),
            "tables_seconds": round(t35 - t3),
            "gpu_stage_seconds": round(t4 - t35), "gpu": gpu, "recipe": recipe.__dict__, "cpu_count": os.cpu_count()}
