"""`chickenfoot lab bench`: recognizer and tracker speed on this machine, as ratios to a reference pass."""
from __future__ import annotations

import json

from lab.tuning_file import Tuning, add_config_arg, load_config_arg, tuning_line
from service.commands.common import add_model_arg, load_recognizer
from service.errors import UserError


def register(sub) -> None:
    p = sub.add_parser("bench", help="measure recognition and tracking speed as ratios to a fixed reference pass")
    p.add_argument("--repeat", type=int, default=10, help="timed reads of each picture (default 10)")
    p.add_argument("--only", metavar="CASE,CASE", default=None,
                   help="only these pictures (labels as printed, e.g. table_frame_1280x720)")
    p.add_argument("--tracker-rounds", type=int, default=1,
                   help="rendered double-6 rounds fed to the live tracker (default 1, ~25 s; 0 leaves it out)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    add_model_arg(p)
    add_config_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from lab.bench import BenchConfig, default_cases, run_bench
    from lab.bench_tracker import TrackerBenchConfig
    from vision.onnx_yolo import ModelError

    if args.repeat < 1:
        raise UserError("--repeat must be at least 1")
    if args.tracker_rounds < 0:
        raise UserError("--tracker-rounds must be 0 or more")
    only = None
    if args.only:
        only = tuple(s.strip() for s in args.only.split(",") if s.strip())
        known = {c.label for c in default_cases()}
        unknown = [s for s in only if s not in known]
        if unknown:
            raise UserError(f"--only: no case {', '.join(unknown)} (cases: {', '.join(sorted(known))})")
    tuning = load_config_arg(args.config)
    rec = load_recognizer(args.model, tuning.recognizer)
    tracker = TrackerBenchConfig(rounds=args.tracker_rounds, tuning=tuning.tracker) if args.tracker_rounds else None
    config = BenchConfig(repeat=args.repeat, only=only, tracker=tracker)
    try:
        report = run_bench(rec, config)
    except ModelError as exc:
        raise UserError(str(exc)) from None
    ran_with = Tuning(rec.config, tuning.tracker, tuning.audit)
    report["config"] = ran_with.to_dict()
    if args.json:
        print(json.dumps(report, indent=1, ensure_ascii=False))
    else:
        _print(report)
        print(tuning_line(ran_with, args.config))
    return 0


def _print(r: dict) -> None:
    ref = r["reference"]
    print(f"reference pass: {ref['model']} at {ref['input']}, median {ref['ms_median']} ms over {ref['passes']} "
          f"passes ({ref['ms_min']}-{ref['ms_max']} ms); sha256 {ref['sha256'][:16]}...")
    print(f"{'case':28s} {'ratio':>6s} {'(min-max)':>13s} {'ms':>7s} {'decode':>7s} {'detect':>7s} {'tiles':>5s}")
    for label, c in r["cases"].items():
        print(f"{label:28s} {c['ratio']:6.2f} {c['ratio_min']:6.2f}-{c['ratio_max']:<6.2f} {c['total_ms_median']:7.1f} "
              f"{c['decode_ms']:7.1f} {c['detect_ms']:7.1f} {c['tiles_found']:5d}")
    t = r["tracker"]
    if t:
        print(f"tracker at {t['size']} ({t['rounds']} rendered {t['set']} round(s), {t['frames']} frames filmed at "
              f"{t['sequence_fps']:g} fps, {t['frames_dropped']} dropped as a live camera drops them, recognizer ran "
              f"on {t['recognizer_reads']}): {t['processed_fps']} processed "
              f"frames/s, {t['ms_per_frame']} ms a frame (ratio {t['ratio_per_frame']}); play latency median "
              f"{t['play_latency_s_median']} s, p95 {t['play_latency_s_p95']} s over {t['plays_announced']} of "
              f"{t['plays']} plays")
    for g in r["targets"]:
        state = "not measured" if g["met"] is None else ("met" if g["met"] else "NOT met")
        print(f"target {g['case']} {g['figure']} {g['limit']}: {g['value']} ({state})")
    print(f"load average (1 min) at start / end: {r['load_1min'][0]} / {r['load_1min'][1]}; {r['seconds']} s")
