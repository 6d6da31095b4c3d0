"""The tile detector's GPU recipe: fresh scenes, table windows, 640 px, from the committed weights.

The CPU recipe (`train.py`) trains at 320 px on pictures stored at most 640 px long, so a
whole table reaches it at a quarter of its rendered size, and its 960-px zoomed pass meets
table tiles at a size it learnt only from hands. On a GPU the image size is cheap, so this
recipe renders hands and tables with the current renderer on every core of the machine,
cuts windows of the tables at the zoomed pass's scale (`table_windows`), and trains at
640 px on all three together, so that tables are learnt without losing hands (a table-only
stage on the CPU found more table tiles but read real hand photos worse: models/README.md).

Run on a machine with a GPU:  python -m lab.training.gpu_detector --out OUT
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

from .train import MODELS_DIR, combined_detect_yaml, detector_plan, train_one


def _patch_ultralytics() -> None:
    """Ultralytics' AMP check downloads weights, and its results reader needs polars (not
    installed on the GPU machines, and only used to copy results.csv into checkpoints)."""
    import csv

    import ultralytics.engine.trainer as trainer

    trainer.check_amp = lambda *a, **k: True

    def read_results_csv(self) -> dict:
        try:
            with open(self.csv, newline="") as fh:
                rows = list(csv.DictReader(fh))
            return {k.strip(): [float(r[k]) for r in rows] for k in rows[0]} if rows else {}
        except Exception:
            return {}

    trainer.BaseTrainer.read_results_csv = read_results_csv


def render(work: Path, hands: int, tables: int, workers: int, seed: int, win_side: tuple[float, float],
           win_px: int, per_table: int, windows: bool = True) -> Path:
    """The stage's hand and table scenes, and (`windows`) the detector's windows cut from the
    tables; returns the detector's data.yaml."""
    from lab.synth.dataset import SynthJob, generate
    from .table_windows import window_dataset

    t0 = time.perf_counter()
    for kind, count, s in (("hand", hands, seed), ("table", tables, seed + 1)):
        if count and not (work / kind / "detect" / "images" / "train").is_dir():
            generate(SynthJob(str(work / kind), kind, s, None, None, pips=False), count, workers=workers,
                     progress=False)
        print(f"rendered {count} {kind} scenes ({time.perf_counter() - t0:.0f} s)", flush=True)
    if not windows:
        return work / "data.yaml"
    win_dir = work / "windows"
    if tables and not (win_dir / "detect" / "data.yaml").exists():
        window_dataset([work / "table" / "scenes"], win_dir, seed=seed + 2, per_scene=per_table, out_px=win_px,
                       side_range=win_side, workers=workers)
    print(f"cut table windows ({time.perf_counter() - t0:.0f} s)", flush=True)
    roots = [work / k for k in ("hand", "table") if (work / k).is_dir()] + ([win_dir] if tables else [])
    return combined_detect_yaml(roots, work / "data.yaml")


def train_gpu_stage(work: Path, init: Path, hours: float, *, hands: int = 4000, tables: int = 2000,
                    windows_per_table: int = 2, imgsz: int = 640, batch: int = 64, workers: int | None = None,
                    seed: int = 61, lr0: float = 0.01, epochs: int = 300, cache: str | bool = "ram") -> Path:
    """Render the stage's data under `work` (kept if present), train from `init` for `hours`
    (on the GPU when there is one), and return the run's best.pt."""
    from .offline import import_ultralytics
    from .train import has_gpu

    work = Path(work)
    workers = workers or os.cpu_count() or 2
    data = render(work, hands, tables, workers, seed, (0.94 * imgsz, 1.72 * imgsz), imgsz, windows_per_table)
    import_ultralytics()
    _patch_ultralytics()
    plan = detector_plan(str(data), epochs, imgsz, gpu=has_gpu())
    plan.batch, plan.hours, plan.name = batch, hours, "detector_gpu"
    plan.augment.update(close_mosaic=3, lr0=lr0, warmup_epochs=1.0)
    return train_one(plan, work / "runs", workers=workers, init_weights=Path(init),
                     overrides=dict(patience=1000, cache=cache, optimizer="SGD"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for best.pt, last.pt, results.csv")
    ap.add_argument("--work", default="/tmp/cf_gpu", help="rendered data and the run")
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--tables", type=int, default=2000)
    ap.add_argument("--windows-per-table", type=int, default=2)
    ap.add_argument("--hours", type=float, default=0.32, help="training time budget")
    ap.add_argument("--epochs", type=int, default=300, help="upper bound; the time budget decides")
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--seed", type=int, default=61)
    ap.add_argument("--init", default=str(MODELS_DIR / "checkpoints" / "tile_detector.pt"))
    ap.add_argument("--lr0", type=float, default=0.01)
    ap.add_argument("--cache", default="ram")
    args = ap.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    best = train_gpu_stage(Path(args.work), Path(args.init), args.hours, hands=args.hands, tables=args.tables,
                           windows_per_table=args.windows_per_table, imgsz=args.imgsz, batch=args.batch,
                           workers=args.workers, seed=args.seed, lr0=args.lr0, epochs=args.epochs,
                           cache=args.cache)
    run = best.parents[1]
    for f in ("weights/best.pt", "weights/last.pt", "results.csv", "args.yaml"):
        if (run / f).exists():
            shutil.copyfile(run / f, out / Path(f).name)
    (out / "summary.json").write_text(json.dumps({"seconds": round(time.perf_counter() - t0), **vars(args)}, indent=1))
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
