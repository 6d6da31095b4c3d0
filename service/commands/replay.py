"""`chickenfoot replay`: step through a recorded game play by play, with every flag and its rule."""
from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("replay", help="step through a game record play by play, with each flag and its rule")
    p.add_argument("record", metavar="RECORD.json", help="a game record (from watch --record, or exported)")
    p.add_argument("--round", type=int, default=None, metavar="N", help="only round N (from 1)")
    p.add_argument("--json", action="store_true", help="print the replay as JSON (steps with board diagrams)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine import RecordError
    from engine.replay import replay_game
    from service.cli import UserError

    try:
        replay = replay_game(args.record)
    except RecordError as exc:
        raise UserError(str(exc)) from None
    rounds = replay.rounds
    if args.round is not None:
        if not 1 <= args.round <= len(rounds):
            raise UserError(f"--round must be between 1 and {len(rounds)}")
        rounds = [rounds[args.round - 1]]
    if args.json:
        data = replay.to_dict()
        data["rounds"] = [r.to_dict() for r in rounds]
        print(json.dumps(data))
        return 0
    for rr in rounds:
        print(f"round {rr.index + 1} (double-{rr.double})")
        for step in rr.steps:
            sizes = " ".join(str(s) for s in step.hand_sizes)
            print(f"  {step.index:>3}. {step.text}   [hands {sizes}; boneyard {step.boneyard}]")
            for flag in step.flags:
                print(f"       FLAG {flag.rule}: {flag.message}")
        if rr.blocked is not None:
            from engine.blocked import BASIS_WORDS

            print(f"  blocked: {rr.blocked['reason']} ({BASIS_WORDS[rr.blocked['basis']]})")
        if rr.result is not None:
            print(f"  scores: {rr.result['scores']}")
    if replay.error is not None:
        print(f"replay stopped: {replay.error}")
        return 1
    return 0
