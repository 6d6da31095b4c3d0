"""`chickenfoot lab eval-layout`: how well the layout stage reads rendered tables with ground truth."""
from __future__ import annotations

import json

from lab.tuning_file import add_config_arg, load_config_arg, tuning_line
from service.errors import UserError


def register(sub) -> None:
    p = sub.add_parser("eval-layout", help="measure layout reading and the audit on rendered tables")
    p.add_argument("--count", type=int, default=500, help="tables to read (default 500)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plant-share", type=float, default=0.3,
                   help="share of tables with a planted violation (default 0.3)")
    p.add_argument("--clean", action="store_true", help="no detector noise: exact corners, nothing missed")
    p.add_argument("--render", action="store_true",
                   help="also render each photo and give it the audit's second look (slower: ~0.5 s a table)")
    p.add_argument("--bench", type=int, default=10, metavar="N",
                   help="time layout + audit on N tables of 55+ tiles (default 10; 0 to skip)")
    p.add_argument("--explain", action="store_true",
                   help="list each legal table with a violation reported (and each planted one missed): "
                        "what was reported and which layout tiles the detector missed")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_config_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    if args.count < 1:
        raise UserError("--count must be at least 1")
    if not 0 <= args.plant_share <= 1:
        raise UserError("--plant-share must be between 0 and 1")
    from lab.layout_eval import Noise, benchmark, evaluate

    tuning = load_config_arg(args.config)
    noise = Noise(0.0, 0.0, 0.0, 0.0) if args.clean else Noise()
    summary, scores = evaluate(args.count, args.seed, noise, args.plant_share, progress=not args.json,
                               render=args.render, config=tuning.audit)
    summary["rendered"] = bool(args.render)
    if args.explain:
        summary["explained"] = [{"table": i, "plant": s.plant, "notes": s.notes}
                                for i, s in enumerate(scores) if s.notes]
    if args.bench > 0:
        summary["benchmark"] = benchmark(args.bench, seed=args.seed, config=tuning.audit)
    summary["noise"] = vars(noise)
    summary["config"] = tuning.to_dict()
    if args.json:
        print(json.dumps(summary))
        return 0
    print_summary(summary)
    print(tuning_line(tuning, args.config))
    for x in summary.get("explained", []):
        print(f"  table {x['table']} ({'planted ' + x['plant'] + ', not reported' if x['plant'] else 'legal'}):")
        for line in x["notes"]:
            print(f"    {line}")
    return 0


def print_summary(s: dict) -> None:
    n = s["noise"]
    how = "rendered and photographed" if s.get("rendered") else "laid out (labels only, no pixels)"
    print(f"{s['tables']} tables {how}, {s['layout_tiles']} layout tiles "
          f"(noise: corners {n['corner_sigma']:.0%} of tile width, {n['drop']:.0%} of tiles missed, "
          f"~{n['false_tiles']:g} false tiles per photo)")
    print(f"  layout edges: precision {s['edge_precision']:.4f}, recall {s['edge_recall']:.4f} "
          f"({s['edges_true']} true edges between detected tiles)")
    print(f"  spinner found: {s['spinner_found']:.4f} ({s['spinner_visible_tables']} tables with the spinner detected)")
    print("  planted violations reported (tables where every tile the violation rests on was detected):")
    for kind, k in s["planted"].items():
        print(f"    {kind:22s} {k['found']}/{k['visible']}" + (f" ({k['scenes']} planted)" if k["scenes"] != k["visible"] else ""))
    print(f"  legal layouts with no violation reported: {s['legal_clean']:.2%} of {s['legal_tables']}; "
          f"{s['legal_complete_clean']:.2%} of the {s['legal_complete_tables']} where no layout tile was missed")
    if s["false_violations"]:
        print(f"    false reports by rule: {s['false_violations']}")
    print(f"  missed tiles inside the layout: {s['missed_inner_tiles']}, gaps reported: {s['gaps_reported']}")
    print(f"  layout + audit per table: median {s['ms_median']} ms, 95th percentile {s['ms_p95']} ms")
    b = s.get("benchmark")
    if b:
        print(f"  benchmark, {b['tables']} tables of {b['tiles_min']}-{b['tiles_max']} layout tiles "
              f"(+{b['other_tiles_mean']:.0f} hand/boneyard/false tiles on average): "
              f"median {b['ms_median']} ms, worst {b['ms_max']} ms wall clock (best of {b['repeats']} runs each); "
              f"CPU time median {b['cpu_ms_median']} ms, worst {b['cpu_ms_max']} ms")
