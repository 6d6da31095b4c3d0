"""The tile detector fine-tuned for tables seen from any seat, in one lent GPU call with a deadline.

The committed detector learnt from flat scenes (one homography, a camera at most 62 degrees
off straight down). Seated players and webcams see the table 10-45 degrees above it: tile
walls, tiles standing in rows, stacks, backs, tiles hiding each other, bent wide-angle
lenses. This recipe renders 3D scenes (`lab.synth.render3d`, mostly low cameras) beside
the flat hands and tables the detector already reads (so hands seen from above are not
unlearnt) and the table windows the GPU recipe uses (`gpu_detector`), then fine-tunes the
committed weights at 640 px. Everything runs against one deadline: rendering stops at its
share of it, Ultralytics' own timer is set to what is left when training starts, the best
checkpoint is copied out after every epoch, and the ONNX export is left its margin.

Run on the GPU machine:  python -m lab.training.gpu_any_seat --out OUT --deadline 540
(`scripts/gpu_any_seat.sh` wraps it; SCALE=tiny there runs the same path on a CPU in minutes).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .train import MODELS_DIR


@dataclass(frozen=True)
class Part:
    """One rendered set: a scene kind, how many, whether the camera is kept low, and whether its
    scenes are also cut into table windows (`windows` per scene, 0 for none)."""

    name: str
    kind: str
    count: int
    steep: bool = False
    windows: int = 0


@dataclass
class AnySeatPlan:
    """The whole call: what to render and how to train, against `deadline` seconds from the start."""

    parts: list[Part]
    deadline: float = 540.0
    render_share: float = 0.33  # most of the deadline rendering and cutting may take
    export_margin: float = 75.0  # seconds kept after training: final validation, ONNX export, copies
    imgsz: int = 640
    batch: int = 64
    lr0: float = 0.004  # fine-tuning: below the 0.01 the GPU stage trained with from these weights
    epochs: int = 200  # an upper bound: the deadline decides
    workers: int = field(default_factory=lambda: os.cpu_count() or 2)
    seed: int = 5201
    cache: str | bool = "ram"
    val_every: int = 10  # every n-th scene (and its windows) is validation
    init: str = str(MODELS_DIR / "checkpoints" / "tile_detector.pt")


# The counts, from measured rendering rates. One process per kind, the sizes `SynthJob(size=None)`
# draws, detector images only (full scenes written where windows are cut), pools warm, on this
# project's shared 2-core CPU under load (`python scripts/synth_rates.py --count 40`, two runs):
# hand3d 0.09-0.11 CPU-s/scene (low camera or not), table3d 0.20-0.28, flat hand 0.34-0.40, flat
# table 0.38-0.46. The GPU machine renders with 16 processes; its share of DEADLINE=540 is
# 0.33 x 540 = 178 s, 2,850 core-seconds. FULL costs, at the slower end of each range,
#   3000 x 0.11 + 1200 x 0.11 + 1500 x 0.28 + 1500 x 0.40 + 800 x 0.46
#   = 330 + 132 + 420 + 600 + 368 = 1,850 core-seconds = 116 s on 16 cores,
# plus ~10 s to cut 2,300 windows: about 70% of the share, the rest left for slower cores, a cold
# disk and the process pools' start. Parts are rendered in rounds (a quarter of each at a time),
# so if the share runs out every part is cut short alike. Training then has about 540 - 126 - 75
# = 340 s; at ~1,000 images/s (the dataloader's mosaics on 16 cores, not the GPU, set the pace
# for YOLO11n at 640 px) plus validation, that is ~20 epochs over the ~10,000 training images
# (8,000 scenes and 2,300 windows, a tenth of each held out). These rates are this CPU's; the
# first lent run's log ("round 1: ... (N s)") gives the GPU machine's, to resize the next run.
FULL = [
    Part("hand3d_low", "hand3d", 3000, steep=True),
    Part("hand3d", "hand3d", 1200),
    Part("table3d_low", "table3d", 1500, steep=True, windows=1),
    Part("hand", "hand", 1500),
    Part("table", "table", 800, windows=2),  # the current recipe's table windows, two per table
]
TINY = [
    Part("hand3d_low", "hand3d", 8, steep=True),
    Part("hand3d", "hand3d", 4),
    Part("table3d_low", "table3d", 4, steep=True, windows=1),
    Part("hand", "hand", 6),
    Part("table", "table", 4, windows=1),
]


def render_part(work: Path, part: Part, seed: int, workers: int, upto: int, stop_at: float, done: int = 0,
                val_every: int = 10) -> int:
    """Render scenes `done`..`upto` of `part` under `work/<name>` in chunks, stopping early once the
    clock passes `stop_at` (time.time()); returns how many it holds. Scene i is the same however
    the work is chunked (`dataset.generate` seeds each scene by its index)."""
    from lab.synth.dataset import SynthJob, generate

    job = SynthJob(str(work / part.name), part.kind, seed, None, None, val_every=val_every, pips=False,
                   scenes=part.windows > 0, steep=part.steep)
    chunk = max(8, workers * 24)  # each chunk forks a process pool: big enough that forking is a small cost
    while done < upto and time.time() < stop_at:
        n = min(chunk, upto - done)
        generate(job, n, workers=workers, start=done, progress=False)
        done += n
    return done


def render_all(work: Path, plan: AnySeatPlan, stop_at: float, log, rounds: int = 4) -> tuple[Path, dict]:
    """Every part (each its own seed) in `rounds` rounds, so a short share cuts every part alike,
    then the windows; returns the combined data.yaml and the counts."""
    from .table_windows import window_dataset
    from .train import combined_detect_yaml

    counts = {part.name: 0 for part in plan.parts}
    for r in range(1, rounds + 1):
        for k, part in enumerate(plan.parts):
            t = time.time()
            upto = -(-part.count * r // rounds)
            counts[part.name] = render_part(work, part, plan.seed + k, plan.workers, upto, stop_at, counts[part.name],
                                            plan.val_every)
            log(f"round {r}: {counts[part.name]}/{part.count} {part.name} ({time.time() - t:.0f} s)")
    roots = [work / part.name for part in plan.parts if counts[part.name]]
    win_px = plan.imgsz
    for k, part in enumerate(plan.parts):
        if not part.windows or not counts[part.name]:
            continue
        t = time.time()
        dest = work / f"{part.name}_windows"
        window_dataset([work / part.name / "scenes"], dest, seed=plan.seed + 100 + k, per_scene=part.windows,
                       out_px=win_px, side_range=(0.94 * win_px, 1.72 * win_px), val_every=plan.val_every,
                       workers=plan.workers)
        n = len(list((dest / "detect" / "images").rglob("*.jpg")))
        counts[f"{part.name}_windows"] = n
        log(f"cut {n} windows from {part.name} in {time.time() - t:.0f} s")
        roots.append(dest)
    return combined_detect_yaml(roots, work / "data.yaml"), counts


class Keeper:
    """Ultralytics callbacks: set the training timer to what the deadline leaves once data is
    loaded, and copy the best checkpoint and the results out after every epoch."""

    def __init__(self, out: Path, train_until: float, log):
        self.out, self.train_until, self.log = out, train_until, log

    def on_train_start(self, trainer) -> None:
        left = self.train_until - time.time()
        trainer.args.time = max(left, 1.0) / 3600
        self.log(f"training for {left:.0f} s")

    def on_fit_epoch_end(self, trainer) -> None:
        for src, name in ((trainer.best, "best.pt"), (trainer.csv, "results.csv")):
            if Path(src).exists():
                shutil.copyfile(src, self.out / name)
        fit = getattr(trainer, "best_fitness", None)
        self.log(f"epoch {trainer.epoch + 1}: fitness {fit if fit is None else round(float(fit), 4)}")


def train(plan: AnySeatPlan, data: Path, work: Path, out: Path, train_until: float, log) -> Path:
    """Fine-tune the committed detector on `data` until `train_until`; returns the run's best.pt."""
    from ultralytics import YOLO

    from .gpu_detector import _patch_ultralytics
    from .offline import import_ultralytics
    from .train import detector_plan, has_gpu

    import_ultralytics()
    _patch_ultralytics()
    gpu = has_gpu()
    p = detector_plan(str(data), plan.epochs, plan.imgsz, gpu=gpu)
    p.augment.update(close_mosaic=2, lr0=plan.lr0, warmup_epochs=0.5)
    model = YOLO(plan.init)
    keeper = Keeper(out, train_until, log)
    model.add_callback("on_train_start", keeper.on_train_start)
    model.add_callback("on_fit_epoch_end", keeper.on_fit_epoch_end)
    project = (work / "runs").resolve()
    model.train(data=str(data), imgsz=plan.imgsz, epochs=plan.epochs, batch=plan.batch, device=0 if gpu else "cpu",
                workers=plan.workers, project=str(project), name="any_seat", exist_ok=True, plots=False, amp=gpu,
                verbose=False, patience=1000, cache=plan.cache, pretrained=True, val=True, seed=0,
                deterministic=False, optimizer="SGD", time=max(train_until - time.time(), 1.0) / 3600, **p.augment)
    return project / "any_seat" / "weights" / "best.pt"


def run(plan: AnySeatPlan, out: Path, work: Path) -> dict:
    """The whole call; writes best.pt, results.csv, tile_detector.onnx and summary.json to `out`."""
    from .train import export_onnx

    t0 = time.time()
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    logf = (out / "any_seat.log").open("a")

    def log(msg: str) -> None:
        line = f"[{time.time() - t0:6.0f} s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    log(f"plan: {json.dumps(asdict(plan))}")
    data, counts = render_all(work, plan, t0 + plan.render_share * plan.deadline, log)
    rendered_at = time.time() - t0
    best = train(plan, data, work, out, t0 + plan.deadline - plan.export_margin, log)
    trained_at = time.time() - t0
    summary = {"counts": counts, "render_s": round(rendered_at), "train_end_s": round(trained_at)}
    if best.exists():
        shutil.copyfile(best, out / "best.pt")
        onnx = export_onnx(best, plan.imgsz, out / "tile_detector.onnx", dynamic=True)
        summary["onnx_bytes"] = onnx.stat().st_size
    summary["total_s"] = round(time.time() - t0)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    log(f"done: {json.dumps(summary)}")
    logf.close()
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for best.pt, results.csv, tile_detector.onnx, the log")
    ap.add_argument("--work", default="/tmp/cf_any_seat", help="rendered data and the run")
    ap.add_argument("--deadline", type=float, default=540.0, help="seconds from start to the last file written")
    ap.add_argument("--scale", choices=["full", "tiny"], default="full",
                    help="tiny: a handful of scenes at 128 px, to check the path end to end on a CPU")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--lr0", type=float, default=AnySeatPlan.lr0)
    args = ap.parse_args(argv)
    if args.scale == "tiny":
        plan = AnySeatPlan(TINY, deadline=args.deadline, imgsz=128, batch=8, workers=args.workers, cache=False,
                           lr0=args.lr0, export_margin=min(60.0, args.deadline / 3), render_share=0.5, val_every=3)
    else:
        plan = AnySeatPlan(FULL, deadline=args.deadline, workers=args.workers, lr0=args.lr0)
    run(plan, Path(args.out), Path(args.work))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
