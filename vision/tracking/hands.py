"""The hands of the round in progress, which the camera cannot see.

Each hand's size is counted, not seen: from the deal, the plays the camera saw, the passes and
draws people tell the tracker, and the last-tile calls (`engine.HandTally`). What follows from
the count (a player down to one tile, a forgotten call's penalty, a round every seat passed in
with nothing to draw) is reported once, when it first holds.
"""
from __future__ import annotations

from engine import GameConfig, HandTally, IllegalPlay, explain_board

from .events import ChickenlittlePenalty, LastTile, RoundBlocked, TrackEvent
from .referee import Referee

Note = tuple[int, str, int]
"""What people told of the round: (plays before it, "draw" or "announce", player)."""


class HandWatch:
    """The hands of one table's round in progress: what people told of it, and what was reported."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.notes: list[Note] = []
        """What people told of the round in progress that the camera cannot see."""
        self.reported: tuple[set[int], int, bool] = (set(), 0, False)
        """Last-tile players, penalties and blocked state already reported (`watch`)."""

    def new_round(self) -> None:
        """A round starts: nothing told of it yet, nothing reported."""
        self.notes = []
        self.reported = (set(), 0, False)

    def note(self, plays: int, kind: str, player: int) -> None:
        """Keep what was told ("draw" or "announce"), after `plays` plays of the round."""
        if not 0 <= player < self.config.players:
            raise ValueError(f"there is no player {player} at this table")
        self.notes.append((plays, kind, player))

    def tally(self, referee: Referee) -> HandTally:
        """Each hand's size, counted from the deal, the plays `referee` holds, the passes and
        draws noted and the Chickenlittle penalties."""
        tally = HandTally.for_round(self.config, referee.spinner_player)
        notes = sorted(self.notes, key=lambda n: n[0])
        k = 0

        def upto(i: int) -> None:
            nonlocal k
            for _ in range(referee.passes.get(i, 0)):
                if tally.over:
                    return
                who = tally.turn
                if tally.boneyard > 0:
                    tally.draw(who)
                tally.pass_turn(who)
            while k < len(notes) and notes[k][0] <= i:
                _, kind, who = notes[k]
                k += 1
                try:
                    if kind == "draw":
                        tally.draw(who)
                    else:
                        tally.announce(who)
                except IllegalPlay:
                    pass  # (a call no longer owed after a correction to the plays)

        for i, play in enumerate(referee.plays):
            upto(i)
            if tally.over:
                break
            tally.play(play.player)
        upto(len(referee.plays))
        return tally

    def watch(self, referee: Referee, frame: int, t: float) -> list[TrackEvent]:
        """Report a player newly down to one tile, a forgotten call's penalty, and a round every
        seat passed in with nothing to draw (with the proof of why)."""
        tally = self.tally(referee)
        out: list[TrackEvent] = []
        seen_last, seen_penalties, seen_blocked = self.reported
        last = set(tally.last_tile)
        for p in sorted(last - seen_last):
            out.append(LastTile(frame, t, p, p in tally.unannounced))
        for pen in tally.penalties[seen_penalties:]:
            out.append(ChickenlittlePenalty(frame, t, pen.player, pen.form, pen.by, pen.sentence()))
        stalled = self.stalled(tally)
        if stalled and not seen_blocked:
            proof = explain_board(referee.board, self.config.set_max, boneyard=tally.boneyard)
            out.append(RoundBlocked(frame, t, proof.blocked, proof.reason, proof.to_dict()))
        self.reported = (last, len(tally.penalties), stalled)
        return out

    @staticmethod
    def stalled(tally: HandTally) -> bool:
        """Every seat has passed since the last play, and nothing is left to draw."""
        if tally.boneyard > 0 or tally.over:
            return False
        passes = 0
        for entry in reversed(tally.history):
            if entry[0] == "play":
                break
            passes += entry[0] == "pass"
        return passes >= tally.players
