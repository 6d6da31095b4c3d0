"""`chickenfoot advise`: how many tiles to deal, measured by playing many rounds."""
from __future__ import annotations

import argparse
import json

from .common import add_rules_arg, load_rules


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "advise",
        help="recommend a hand size: play thousands of rounds for each size around the 42/players table",
        description=(
            "Deal and play rounds for each hand size around the 42 / players table, with players "
            "of several styles (random, most pips first, doubles first), and report for each size "
            "the share of rounds that stall, the average round length and the points left in hands; "
            "recommend the largest hand whose rounds stall no more than --max-stall."
        ),
    )
    p.add_argument("--players", type=int, required=True, help="players at the table")
    p.add_argument("--set", dest="set_max", type=int, default=9, help="set size: 6, 9, 12, 15 or 18 (default 9)")
    add_rules_arg(p)
    p.add_argument("--rounds", type=int, default=10_000, help="rounds per hand size (default 10000)")
    p.add_argument("--max-stall", type=float, default=0.35, metavar="SHARE",
                   help="most stalled rounds a recommended hand may have, 0 to 1 (default 0.35)")
    p.add_argument("--seed", type=int, default=None, help="random seed for a repeatable answer")
    p.add_argument("--workers", type=int, default=None,
                   help="processes to play in (default: one per hand size, up to the cores)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine import ConfigError
    from engine.advise import AdviceTuning, advise
    from service.cli import UserError

    rules = load_rules(args.rules)
    try:
        tuning = AdviceTuning(rounds=args.rounds, max_stall_share=args.max_stall, workers=args.workers)
        result = advise(args.players, args.set_max, rules, tuning, seed=args.seed)
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result.table())
    return 0
