"""The rules engine's view of a round the camera is watching.

A camera sees the board, never the hands, the boneyard or who drew. So the referee keeps
the log of what it has seen (`engine.SeenRound`: the plays in the order they were laid and
the passes noted) and lets the engine replay it from a deal reconstructed to fit
(`SeenRound.replay`). The engine then judges each new play exactly as in live play (whose
turn, the open ends, a spinner or chickie that must be fed first, matching numbers), with
the same `IllegalPlay` codes and messages.

Every change the tracker makes to the round is an edit of that log, made by one commit:
the edited log becomes the round when it replays, and the round stays as it was when the
rules refuse it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from engine import EndsDoNotMatch, GameConfig, IllegalPlay, LoggedPlay, NoSuchOpenEnd, RoundState, SeenRound, Tile
from engine.board import SLOT_STRIDE

NO_SLOT = SLOT_STRIDE - 1
"""An open-end slot no double ever has: asking the engine about it gets `NoSuchOpenEnd`."""


@dataclass
class SeenPlay:
    """A play as the referee reports it: the logged play, with the seat that made it and the
    open-end id it went on as the round's latest replay works them out."""

    player: int
    tile: Tile
    on: Tile
    end: int
    frame: int
    t: float
    touching: int | None = None
    """The value of the new tile's end that touches (None when unknown)."""
    stood: bool = False
    """Flagged, but the table kept it and play went on from it (see `Referee.let_stand`)."""
    waived: bool = False
    """A stood play made elsewhere while a double waited: the table went on without feeding it."""


@dataclass
class Verdict:
    player: int
    end: int | None
    """The engine's open-end id the play goes on (legal plays)."""
    slot: int | None
    error: IllegalPlay | None

    @property
    def legal(self) -> bool:
        return self.error is None


class Referee:
    """Judges the plays of one round as the camera sees them."""

    def __init__(self, config: GameConfig, spinner: Tile, spinner_player: int) -> None:
        """Raises `ValueError` when `spinner` is not a double."""
        self.config = config
        self.log = SeenRound(spinner, spinner_player % config.players)
        replay = self.log.replayed(config)
        self.state: RoundState = replay.state
        self._seats: tuple[int, ...] = replay.seats
        self._views: list[SeenPlay] | None = None

    # --- the one way the round changes ----------------------------------------------

    def _commit(self, log: SeenRound) -> IllegalPlay | None:
        """Make `log` the round when the engine replays it; when the rules refuse it, the round
        stays as it was. Returns the refusal (None when `log` was kept)."""
        try:
            replay = log.replayed(self.config)
        except IllegalPlay as exc:
            self._unchanged()
            return exc
        self.state, self.log, self._views = replay.state, log, None
        self._seat(replay.seats)
        return None

    def _seat(self, seats: tuple[int, ...]) -> None:
        """Credit each play to its seat in `seats`, the latest replay's (a judged tile's too: a
        tile dealt for judging can leave the boneyard a draw short of a pass noted, and so move
        the seats after it)."""
        seats = seats[:len(self.log.plays)]
        if seats != self._seats:
            self._seats, self._views = seats, None

    def copy(self) -> "Referee":
        """An independent referee at the same point (for trying plays out)."""
        other = Referee.__new__(Referee)
        other.__dict__.update(self.__dict__)
        other._views = None
        return other

    # --- reading --------------------------------------------------------------------

    @property
    def spinner(self) -> Tile:
        return self.log.spinner

    @property
    def spinner_player(self) -> int:
        return self.log.spinner_player

    @property
    def plays(self) -> list[SeenPlay]:
        """The plays seen, in the order they were laid."""
        if self._views is None:
            self._views = [SeenPlay(seat, p.tile, p.on, end, p.frame, p.t, p.touching, p.stood, p.waived)
                           for p, seat, end in zip(self.log.plays, self._seats, self.log.ends())]
        return list(self._views)

    @property
    def passes(self) -> dict[int, int]:
        """Passes noted (told, or inferred from which seat a hand came from), by how many plays
        came before them."""
        return self.log.passes_noted()

    @property
    def turn(self) -> int:
        return self.state.turn

    @property
    def first_player(self) -> int:
        return (self.spinner_player + 1) % self.config.players

    @property
    def board(self):
        return self.state.board

    def on_board(self, tile: Tile) -> bool:
        return self.state.board.placement_of(tile) is not None

    def open_slots(self, tile: Tile) -> list[int]:
        """Open-end ids hanging off `tile` (several for a double, at most one otherwise)."""
        b = self.state.board
        p = b.placement_of(tile)
        if p is None:
            return []
        base = p.index * SLOT_STRIDE
        return [base + s for s in range(b.capacity(p)) if base + s in b.open_ends]

    def open_value(self, tile: Tile) -> int | None:
        p = self.state.board.placement_of(tile)
        return None if p is None else p.outer

    def last_play(self) -> SeenPlay | None:
        return self.plays[-1] if self.log.plays else None

    # --- judging --------------------------------------------------------------------

    def judge(self, tile: Tile, on: Tile | None, touching: int | None = None) -> Verdict:
        """What the engine says about `tile` laid against `on` with its `touching` value
        against it, by whoever's turn it is."""
        if on is None:
            return Verdict(self.turn, None, None, NoSuchOpenEnd(f"{tile} is not laid against any open end"))
        verdict, seats = self._judge_on(self.log, tile, on, touching)
        self._seat(seats)
        return verdict

    def _judge_on(self, log: SeenRound, tile: Tile, on: Tile,
                  touching: int | None) -> tuple[Verdict, tuple[int, ...]]:
        """`judge` against the round `log` replays to; also returns the seats that replay gives."""
        replay = log.replayed(self.config, pending=tile)
        state, seats = replay.state, replay.seats
        p = seats[-1] if len(seats) > len(log.plays) else state.turn
        board = state.board
        parent = board.placement_of(on)
        if parent is None:
            return Verdict(p, None, None, NoSuchOpenEnd(
                f"{tile} is laid against {on}, which is not part of the layout (it was not a legal play)")), seats
        base = parent.index * SLOT_STRIDE
        slots = [base + s for s in range(board.capacity(parent)) if base + s in board.open_ends]
        end = slots[0] if slots else base + (NO_SLOT if parent.is_double else 0)
        try:
            state.check_play(tile, end, player=p)
        except IllegalPlay as exc:
            if isinstance(exc, NoSuchOpenEnd) and not slots:
                what = "spinner" if parent.kind == "spinner" else ("chickie" if parent.kind == "chickie" else "tile")
                exc = NoSuchOpenEnd(f"{tile} is laid against {on}, but that {what} has no free end left")
            return Verdict(p, None, None, exc), seats
        value = board.open_ends[end].value
        if touching is not None and not tile.is_double and touching != value:
            return Verdict(p, None, None, EndsDoNotMatch(f"{tile} is laid with its {touching} against the open "
                                                         f"{value} on {on}; the {value} end must touch")), seats
        slot = end % SLOT_STRIDE if on.is_double else None
        return Verdict(p, end, slot, None), seats

    # --- changing the round ---------------------------------------------------------

    def accept(self, tile: Tile, verdict: Verdict, frame: int, t: float, touching: int | None = None) -> SeenPlay:
        """Add a legal play to the round."""
        if not verdict.legal or verdict.end is None:
            raise ValueError("only legal plays are added to the round")
        on = self.state.board.placements[verdict.end // SLOT_STRIDE].tile
        refused = self._commit(self.log.append(LoggedPlay(tile, on, verdict.end % SLOT_STRIDE, touching,
                                                          frame=frame, t=t)))
        if refused is not None:
            raise refused
        return self.plays[-1]

    def let_stand(self, tile: Tile, on: Tile, touching: int | None, frame: int, t: float,
                  waive: bool = False) -> SeenPlay | None:
        """Enter a flagged play the table kept: the next play was made with it still there, so
        play went on from the table as it is. The flag stands (the rule was broken); the round
        holds the tile so that later plays are judged on their own merits, not each flagged as
        laid off the layout (or, with `waive`, for the same double still waiting). Needs a free
        end on `on`; returns the play, or None with nothing changed."""
        if self.on_board(tile) or not tile.in_set(self.config.set_max) or tile == self.spinner:
            return None
        slots = self.open_slots(on)
        if not slots:
            return None
        play = LoggedPlay(tile, on, slots[0] % SLOT_STRIDE, touching, stood=True, waived=waive, frame=frame, t=t)
        return self.plays[-1] if self._commit(self.log.append(play)) is None else None

    def stand_corrected(self, tile: Tile, earlier: list[Tile]) -> SeenPlay | None:
        """The stood play of `tile` found legal after all: the plays of `earlier` (tiles read
        only later, which already lay on the table when it was played) move before it, and it
        becomes a plain play, when the round replays so. Returns the play, or None with nothing
        changed."""
        k = next((i for i, p in enumerate(self.log.plays) if p.tile == tile and p.stood), None)
        if k is None:
            return None
        later = self.log.plays[k + 1:]
        moved = [p for p in later if p.tile in earlier]
        rest = [p for p in later if p.tile not in earlier]
        plain = replace(self.log.plays[k], stood=False, waived=False)
        if self._commit(self.log.splice(k, len(later) + 1, [*moved, plain, *rest])) is not None:
            return None
        return self.plays[k + len(moved)]

    def play_before_last(self, tile: Tile, on: Tile, touching: int | None, frame: int, t: float) -> SeenPlay | None:
        """Enter the play of `tile` on `on` before the last play, when it is legal there and the
        last play is still legal after it: the camera saw `tile` only after the last play, but the
        table shows it lay there before (the reader missed it for a while). Returns the play
        entered, or None with nothing changed (no last play, a pass noted around it, `on` the
        last play's tile, or either play illegal in that order)."""
        last = len(self.log.plays) - 1
        if last < 0 or on == self.log.plays[last].tile or any(k >= last for k in self.passes):
            return None
        verdict, _ = self._judge_on(self.log.upto(last), tile, on, touching)
        if not verdict.legal or verdict.end is None:
            self._unchanged()
            return None
        play = LoggedPlay(tile, on, verdict.end % SLOT_STRIDE, touching, frame=frame, t=t)
        return self.plays[last] if self._commit(self.log.splice(last, 0, [play])) is None else None

    def replace(self, old: Tile, new: Tile, touching: int | None = None) -> SeenPlay | None:
        """Put `new` in place of the play of `old`, a tile that was misread, when the round still
        replays with it (every play after it legal too, those laid on it now laid on `new`).
        Returns the corrected play, or None with nothing changed."""
        done = self.replace_many({old: (new, touching)})
        return done[0] if done else None

    def replace_many(self, fixes: dict[Tile, tuple[Tile, int | None]]) -> list[SeenPlay] | None:
        """Put each `new` in place of the play of its `old` (old -> (new, touching)) at once, when
        the round replays with all of them. One misread can make the next: a tile laid on a
        misread end is read as the value that end was taken for, when its own reading is split
        and the engine breaks the tie. Neither correction replays alone then; both together do.
        Returns the corrected plays (in the order given), or None with nothing changed."""
        index = {p.tile: i for i, p in enumerate(self.log.plays)}
        news = [new for new, _ in fixes.values()]
        if not fixes or any(old not in index for old in fixes) or len(set(news)) != len(news) or \
                any(new == self.spinner or not new.in_set(self.config.set_max) for new in news) or \
                any(p.tile in news and p.tile not in fixes for p in self.log.plays):
            return None
        if self._commit(self.log.retiled(fixes)) is not None:
            return None
        plays = self.plays
        return [plays[index[old]] for old in fixes]

    def take_back(self) -> SeenPlay:
        """Undo the last play (the rules allow it before the next player plays)."""
        play = self.plays[-1]
        refused = self._commit(self.log.upto(len(self.log.plays) - 1))
        if refused is not None:
            raise refused
        return play

    def slip_double_under(self, toe: Tile, double: Tile,
                          fellows: Sequence[tuple[Tile, int | None, int, float]] = ()) -> SeenPlay | None:
        """Enter the play of `double` on the tile `toe` was laid on, just before `toe`, and move
        `toe` onto it, followed at once by the plays of `fellows` ((tile, touching value, frame,
        t) each) on it, when the round replays so: the reader never saw a chickie, and the toe laid
        straight on beyond it was taken for a play on the end the double covers, while the other
        toes lay apart (the double waits for all three before play goes on elsewhere). Returns the
        double's play, or None with nothing changed (`toe` not played, or not laid on a tile's end;
        `double` played already; more than two fellows; or a play illegal so)."""
        k = self.log.index(toe)
        if k is None or not double.is_double or double == self.spinner or self.on_board(double) or \
                not double.in_set(self.config.set_max) or self.log.plays[k].on.is_double or len(fellows) > 2:
            return None
        first = self.log.plays[k]
        toes = [LoggedPlay(toe, double, 0, first.touching, frame=first.frame, t=first.t)]
        toes += [LoggedPlay(tile, double, slot, touching, frame=frame, t=t)
                 for slot, (tile, touching, frame, t) in enumerate(fellows, start=1)]
        toes.sort(key=lambda p: p.frame)  # (the toes in the order they were first seen)
        play = LoggedPlay(double, first.on, first.slot, frame=toes[0].frame, t=toes[0].t)  # (laid before them)
        return self.plays[k] if self._commit(self.log.splice(k, 1, [play, *toes])) is None else None

    def take_back_entered_with_last(self, tile: Tile) -> SeenPlay | None:
        """Undo the play of `tile`, which is not the last play, when every play after it was
        entered at the same frame (the camera saw them in one reading, and their order was a
        guess) and the round replays without it. Returns the play undone, or None with nothing
        changed (plays after it from other frames, one of them laid on it, a pass noted among
        them, or one of them illegal without it)."""
        k = self.log.index(tile)
        if k is None or k == len(self.log.plays) - 1:
            return None
        frame, later = self.log.plays[k].frame, self.log.plays[k + 1:]
        if any(p.frame != frame or p.on == tile for p in later) or \
                any(k < n <= len(self.log.plays) for n in self.passes):
            return None
        play, log = self.plays[k], self._entered_again(self.log.upto(k), later)
        return play if log is not None and self._commit(log) is None else None

    def _entered_again(self, log: SeenRound, plays: Sequence[LoggedPlay]) -> SeenRound | None:
        """`log` with `plays` entered again in turn, each as a plain play on the free end the
        engine now gives it on its tile; None where one of them is illegal so (the round left
        as it is)."""
        for p in plays:
            verdict, _ = self._judge_on(log, p.tile, p.on, p.touching)
            if not verdict.legal or verdict.end is None:
                self._unchanged()
                return None
            log = log.append(LoggedPlay(p.tile, p.on, verdict.end % SLOT_STRIDE, p.touching, frame=p.frame, t=p.t))
        return log

    def _unchanged(self) -> None:
        """Leave the round as it is after trying an edit out: each play credited to the seat the
        round's own replay gives it, as after a refused commit."""
        self._seat(self.log.seats(self.config))

    def note_pass(self, player: int | None = None) -> bool:
        """A player drew and passed (seen by a person, or inferred from the next hand's seat):
        the turn moves on past `player` (default: whoever's turn it is). Returns whether it did
        (nothing is noted where the round does not replay with the pass)."""
        n = self.config.players
        steps = 1 if player is None else (player - self.turn) % n + 1
        before = self.turn
        return self._commit(self.log.add_pass(steps)) is None and (self.turn != before or steps % n == 0)

    def forget_pass(self) -> bool:
        """Drop the latest pass noted (one inferred from a hand that came from the wrong seat).
        Returns whether one was dropped (not where none was noted, or the round does not replay
        without it)."""
        return bool(self.log.passes) and self._commit(self.log.drop_pass()) is None

    def round_record(self, round_index: int, hands_left: list[list[Tile]] | None = None) -> dict[str, Any]:
        """This round as a game-record round: plays as seen, and a deal reconstructed from them
        (each seat's played tiles, then what it held at the end when hand photos said so)."""
        state = self.state
        rec = state.to_record()
        rec["index"] = round_index
        rec["double"] = self.config.set_max - round_index
        rec["observed"] = {
            "note": "hands and the boneyard are not seen by the camera: the deal lists each seat's played "
                    "tiles plus one unplayed tile, draws are inferred",
            "plays": [{"player": p.player, "tile": str(p.tile), "on": str(p.on), "frame": p.frame,
                       "t": round(p.t, 3), **({"stood": True} if p.stood else {}),
                       **({"waived": True} if p.waived else {})} for p in self.plays],
        }
        if hands_left is not None:
            rec["observed"]["hands_left"] = [[str(t) for t in h] for h in hands_left]
        return rec
