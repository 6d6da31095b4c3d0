"""`chickenfoot study`: each player's figures across several recorded games."""
from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("study", help="per-player figures across game records: points per round, zero "
                                            "rounds, rounds and games won, standing by the tie-breaks")
    p.add_argument("records", nargs="+", metavar="RECORD.json")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine import RecordError
    from engine.replay import study_games
    from service.cli import UserError

    try:
        stats = study_games(args.records)
    except RecordError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps({"players": [s.to_dict() for s in stats]}))
        return 0
    print("rank  player            games  rounds  points/round  zero rounds  rounds won  games won")
    for s in stats:
        print(f"{s.standing:>4}  {s.name[:16]:<16}  {s.games:>5}  {s.rounds:>6}  {s.points_per_round:>12.2f}  "
              f"{s.zero_rounds:>11}  {s.rounds_won:>10}  {s.games_won:>9}")
    return 0
