"""`chickenfoot simulate`: play random legal games to measure the engine and check its invariants."""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from .common import add_rules_arg, load_rules

if TYPE_CHECKING:
    from engine import HouseRules


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="play random full games and check the rules engine's invariants",
        description=(
            "Play complete random Chicken Foot games (one round per double, highest down to "
            "double-blank) with random legal players, and report speed, stalemates and any "
            "broken invariant (tiles lost or duplicated, refused offered plays, unfinished "
            "rounds, scores that do not add up)."
        ),
    )
    p.add_argument("--games", type=int, default=100, help="number of full games (default 100)")
    p.add_argument("--players", type=int, default=4, help="players, 2 or more, as many as the set seats (default 4)")
    p.add_argument("--set", dest="set_max", type=int, default=9,
                   help="set size: 6, 9, 12, 15 or 18 for double-N (default 9)")
    p.add_argument("--seed", type=int, default=None, help="random seed for a repeatable run")
    add_rules_arg(p)
    p.add_argument("--hand-size", default=None,
                   help="tiles per player: a number or 'table' (42 / players); overrides --rules")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def _rules(args: argparse.Namespace) -> "HouseRules":
    """`--rules`, with `--hand-size` (when given) in place of its hand size."""
    from engine import HouseRulesError
    from service.cli import UserError

    rules = load_rules(args.rules)
    if args.hand_size is None:
        return rules
    try:
        size = args.hand_size if args.hand_size == "table" else int(args.hand_size)
        return rules.replace(hand_size=size)
    except (HouseRulesError, ValueError):
        raise UserError(f"--hand-size must be a number (1 or more) or 'table', got {args.hand_size!r}") from None


def run(args: argparse.Namespace) -> int:
    from engine import ConfigError, simulate
    from engine.rules import MIN_PLAYERS
    from engine.tiles import SUPPORTED_SETS
    from service.cli import UserError

    if args.games < 1:
        raise UserError(f"--games must be at least 1, got {args.games}")
    if args.players < MIN_PLAYERS:
        # No fixed upper bound: the set's tiles decide, and GameConfig says so (a ConfigError).
        raise UserError(f"--players must be at least {MIN_PLAYERS}, got {args.players}")
    if args.set_max not in SUPPORTED_SETS:
        raise UserError(f"--set must be one of {', '.join(map(str, SUPPORTED_SETS))}, got {args.set_max}")
    rules = _rules(args)
    try:
        result = simulate(args.games, args.players, args.set_max, args.seed, rules)
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result.summary())
        for problem in result.problems:
            print(f"  {problem}")
    return 1 if result.invariant_violations else 0
