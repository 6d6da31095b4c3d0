"""`chickenfoot lab train`: reproduce the committed models from scratch (data generation included)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from service.errors import UserError


def register(sub) -> None:
    p = sub.add_parser("train", help="render training data and train the tile and pip detectors")
    p.add_argument("--data", default="data/synth", help="folder for the rendered training data")
    p.add_argument("--scenes", type=int, default=2400, help="hand scenes to render (skipped if present)")
    p.add_argument("--table-scenes", type=int, default=0, help="table scenes to render in addition")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--det-hours", type=float, default=None, help="detector training budget (default 1.55)")
    p.add_argument("--pip-hours", type=float, default=None, help="pip reader training budget (default 0.75)")
    p.add_argument("--finetune-hours", type=float, default=None, help="pip fine-tune budget (default 0.6)")
    p.add_argument("--packed-hours", type=float, default=None,
                   help="pip reader stage on two crops per input (default 0.6; 0 skips it)")
    p.add_argument("--imgsz", type=int, default=None, help="detector input size (default 320)")
    p.add_argument("--no-finetune", action="store_true", help="skip the second-renderer pip fine-tune")
    p.add_argument("--stage2-hours", type=float, default=None,
                   help="detector second stage on block and table scenes (default 1.7; 0 skips it)")
    p.add_argument("--tables-hours", type=float, default=None,
                   help="detector third stage on windows of table scenes (default 0: skipped; "
                        "tried and not kept, see models/README.md)")
    p.add_argument("--half-hours", type=float, default=None,
                   help="half reader (small tiles' ends) training budget (default 0.55; 0 skips it)")
    p.add_argument("--half-tune-hours", type=float, default=None,
                   help="half reader fine-tune on hue-coded sets (default 0: skipped; tried and not kept, "
                        "see models/README.md)")
    p.add_argument("--half-big-hours", type=float, default=None,
                   help="the big sets' half reader (half_reader_big.onnx, read where double-13 or more is "
                        "declared) made on the CPU by fine-tuning on their small tiles (default 0: skipped; "
                        "where a GPU is present it is made there instead, see models/README.md)")
    p.add_argument("--gpu-hours", type=float, default=None,
                   help="detector's last stage at 640 px on fresh scenes (default 0.32 where a GPU is "
                        "present, else skipped; a budget given runs it on the CPU too, at about an hour an epoch)")
    p.add_argument("--steep-hours", type=float, default=None,
                   help="detector's fine-tune on scenes seen by a steep camera, last (default 0: skipped; see models/README.md)")
    p.add_argument("--sequential", action="store_true", help="on a CPU, train one model after the other")
    p.add_argument("--out", default="models", help="where the ONNX models are written")
    p.set_defaults(func=run)


TRAINING_PACKAGES = ("torch", "torchvision", "ultralytics")
"""What `chickenfoot lab train` needs beyond the run-time install (checked first, for a one-line error)."""


def run(args) -> int:
    missing = [name for name in TRAINING_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise UserError(f"training needs the lab extra's libraries ({', '.join(missing)} missing): "
                        "pip install -e .[lab] or make venv-lab (installs requirements/lab.txt)")
    from lab.synth.dataset import SynthJob, generate
    from lab.training.train import Recipe, train_all

    recipe = Recipe()
    for name, value in (("det_hours", args.det_hours), ("pip_hours", args.pip_hours),
                        ("pip_finetune_hours", args.finetune_hours), ("det_imgsz", args.imgsz)):
        if value is not None:
            if value <= 0:
                raise UserError(f"--{name.replace('_', '-')} must be positive")
            setattr(recipe, name, value)
    # budgets that may be 0 (the stage skipped): (flag, the Recipe's field)
    for flag, field in (("packed_hours", "pip_packed_hours"), ("tables_hours", "det_tables_hours"),
                        ("half_hours", "half_hours"), ("half_tune_hours", "half_tune_hours"),
                        ("half_big_hours", "half_big_tune_hours"), ("steep_hours", "det_steep_hours")):
        value = getattr(args, flag)
        if value is not None:
            if value < 0:
                raise UserError(f"--{flag.replace('_', '-')} must be 0 (skip) or positive")
            setattr(recipe, field, value)
    if args.gpu_hours is not None:
        if args.gpu_hours < 0:
            raise UserError("--gpu-hours must be 0 (skip) or positive")
        recipe.det_gpu_hours = args.gpu_hours
    elif not _gpu_present():
        print("no GPU: the detector's 640-px stage is skipped (--gpu-hours N runs it on the CPU)")
        recipe.det_gpu_hours = 0.0
    if recipe.det_tables_hours > 0 and args.stage2_hours == 0:
        raise UserError("--tables-hours builds on the second stage's table scenes: it cannot go with --stage2-hours 0")
    root = Path(args.data)
    if not (root / "detect" / "data.yaml").exists() or not any((root / "scenes").glob("*.json")):
        print(json.dumps(generate(SynthJob(str(root), "hand", args.seed, None, None), args.scenes)))
        if args.table_scenes:
            print(json.dumps(generate(SynthJob(str(root), "table", args.seed, None, None), args.table_scenes)))
    ft_root = None
    if not args.no_finetune:
        ft_root = root.with_name(root.name + "_pips_ft")
        if not (ft_root / "pips" / "data.yaml").exists():
            job = SynthJob(str(ft_root), "hand", args.seed + 1, None, None, detect=False, scenes=False)
            print(json.dumps(generate(job, args.scenes)))
    stage2 = []
    if args.stage2_hours is not None and args.stage2_hours < 0:
        raise UserError("--stage2-hours must be 0 (skip) or positive")
    if args.stage2_hours != 0:
        if args.stage2_hours is not None:
            recipe.det_stage2_hours = args.stage2_hours
        for kind, count, seed in (("hand", recipe.stage2_hand_scenes, args.seed + 2),
                                  ("table", recipe.stage2_table_scenes, args.seed + 3)):
            r = root.with_name(f"{root.name}_stage2_{kind}")
            if not (r / "detect" / "data.yaml").exists():
                print(json.dumps(generate(SynthJob(str(r), kind, seed, None, None, pips=False), count)))
            stage2.append(r)
    tables = []
    if recipe.det_tables_hours > 0 and stage2:
        extra = _scenes_only(root.with_name(f"{root.name}_tables"), "table", args.seed + 4,
                             recipe.tables_extra_scenes)
        tables = [stage2[1], extra]  # stage 2's table scenes and these
    halves = None
    if recipe.half_hours > 0:
        # the half reader learns from the first set's scenes, stage 2's tables and big-set scenes
        halves = stage2[1:] + [_scenes_only(root.with_name(f"{root.name}_halves_{kind}{set_max}"), kind,
                                            args.seed + 10 + k, count, set_max)
                               for k, (kind, set_max, count) in enumerate(recipe.half_scenes)]
    result = train_all(root, Path(args.out), recipe, ft_root, parallel=not args.sequential, stage2_roots=stage2,
                       table_roots=tables, half_roots=halves)
    print(json.dumps(result, indent=2))
    return 0


def _gpu_present() -> bool:
    from lab.training.train import has_gpu

    return has_gpu()


def _scenes_only(folder: Path, kind: str, seed: int, count: int, set_max: int | None = None) -> Path:
    """`folder` holding `count` rendered scenes (images and their JSON, no training labels),
    rendered unless some are there already."""
    from lab.synth.dataset import SynthJob, generate

    if not any((folder / "scenes").glob("*.json")):
        job = SynthJob(str(folder), kind, seed, None, set_max, detect=False, pips=False)
        print(json.dumps(generate(job, count)))
    return folder
