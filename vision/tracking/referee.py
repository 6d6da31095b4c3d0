"""The rules engine's view of a round the camera is watching.

A camera sees the board, never the hands, the boneyard or who drew. So the referee
keeps the list of plays it has seen and, whenever it must judge a new one, rebuilds a
`RoundState` by replaying those plays from a deal reconstructed to fit them: each seat
holds the tiles it has played (and the tile being judged), plus one tile nobody has
played so that no hand runs dry before the round really ends; every other tile is in
the boneyard. The engine then judges the play exactly as in live play (whose turn,
the open ends, a spinner or chickie that must be fed first, matching numbers), with
the same `IllegalPlay` codes and messages.

What the camera cannot see is left out of the rebuilt round's house rules: it lets a
player draw at will (a pass seen only as "nobody played"), does not deal the
first-round draw, and skips Chickenlittle calls. None of these changes which tile may
go where, which is all the referee is asked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from engine import Deal, EndsDoNotMatch, GameConfig, IllegalPlay, NoSuchOpenEnd, RoundState, Tile, full_set
from engine.board import SLOT_STRIDE

NO_SLOT = SLOT_STRIDE - 1
"""An open-end slot no double ever has: asking the engine about it gets `NoSuchOpenEnd`."""


@dataclass
class SeenPlay:
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
        if not spinner.is_double:
            raise ValueError(f"the spinner must be a double, got {spinner}")
        self.config = config
        self.spinner = spinner
        self.spinner_player = spinner_player % config.players
        rules = config.rules.replace(voluntary_draw=True, first_round_draw=False, chickenlittle=False,
                                     start_double="required")
        # the rebuilt round starts with the double the camera saw, whatever the round's number
        self._config = GameConfig(config.players, config.set_max, rules)
        self._round_index = config.set_max - spinner.high
        self.plays: list[SeenPlay] = []
        self.passes: dict[int, int] = {}
        """Passes noted (told, or inferred from which seat a hand came from), by how many plays
        came before them."""
        self.state = self._rebuild(None)

    # --- rebuilding -----------------------------------------------------------------

    def _rebuild(self, extra: Tile | None) -> RoundState:
        """The round replayed from the plays seen (plus `extra`, a tile being judged).

        Who made each play follows from the turn order and the passes noted: nobody can
        play out of turn, so a play by another seat than the engine expects means the
        seats in between drew and passed. Each play's tile is dealt to the seat that made
        it; the boneyard keeps one tile per pass to draw; every seat also gets a tile
        nobody played while tiles last, so no hand empties before the round really ends."""
        cfg = self._config
        n = cfg.players
        tiles = [p.tile for p in self.plays]
        if extra is not None and extra.in_set(cfg.set_max) and extra not in tiles and extra != self.spinner:
            tiles.append(extra)
        used = {self.spinner, *tiles}
        unused = [t for t in full_set(cfg.set_max) if t not in used]
        # a tile nobody played for every seat comes first (without it a hand could empty
        # mid-replay and end the round; when tiles run short the newest player goes without,
        # as their play is checked before their hand could empty); then as many passes as the
        # boneyard can feed draws, keeping the one tile a deal must leave there
        fill = max(0, min(n, len(unused) - 1))
        budget = max(0, len(unused) - 1 - fill)
        passes: dict[int, int] = {}
        for k in sorted(self.passes):
            take = min(self.passes[k], budget)
            if take:
                passes[k] = take
                budget -= take
        # who plays each tile
        seats = []
        turn = (self.spinner_player + 1) % n
        for i in range(len(tiles)):
            turn = (turn + passes.get(i, 0)) % n
            seats.append(turn)
            turn = (turn + 1) % n
        for play, seat in zip(self.plays, seats):
            play.player = seat
        hands: list[list[Tile]] = [[] for _ in range(n)]
        hands[self.spinner_player].append(self.spinner)
        for tile, seat in zip(tiles, seats):
            hands[seat].append(tile)
        spare = [t for t in unused if not t.is_double] + [t for t in unused if t.is_double]
        last = seats[-1] if seats else self.spinner_player
        for k in range(1, fill + 1):
            hands[(last + k) % n].append(spare.pop())
        deal = Deal.arrange(cfg, hands)
        state = RoundState(cfg, self._round_index, deal)
        for i, tile in enumerate(tiles):
            for _ in range(passes.get(i, 0)):
                self._pass(state)
            if i < len(self.plays):
                play = self.plays[i]
                if play.stood:
                    state.force_play(tile, play.end, player=seats[i], facing=play.touching, waive=play.waived)
                else:
                    state.play(tile, play.end, player=seats[i])
        if len(tiles) == len(self.plays):  # passes after the last play
            for _ in range(passes.get(len(tiles), 0)):
                self._pass(state)
        self._seats = seats
        return state

    @staticmethod
    def _pass(state: RoundState) -> bool:
        """Draw (when the boneyard allows) and pass for whoever's turn it is."""
        if state.is_over():
            return False
        try:
            if state.can_draw():
                state.draw()
            state.pass_turn()
        except IllegalPlay:
            return False
        return True

    def _saved_plays(self) -> list[SeenPlay]:
        return [SeenPlay(**p.__dict__) for p in self.plays]

    def _replays(self, saved: list[SeenPlay], passes: dict[int, int] | None = None) -> bool:
        """Rebuild the round from the plays as changed; where it does not replay, put back the
        plays `saved` before the change (and the `passes`, where given). Returns whether it
        replayed."""
        try:
            self.state = self._rebuild(None)
            return True
        except IllegalPlay:
            self.plays = saved
            if passes is not None:
                self.passes = passes
            self.state = self._rebuild(None)
            return False

    def _renumber_ends(self) -> None:
        """An open end's id names its tile by the order it was laid in: after plays moved, each
        play's end id follows its tile's new place (the slot within kept). Raises `IllegalPlay`
        where a play lies on a tile not in the layout."""
        index = {self.spinner: 0, **{p.tile: i + 1 for i, p in enumerate(self.plays)}}
        for p in self.plays:
            if p.on not in index:
                raise IllegalPlay(f"{p.on} is not in the layout")
            p.end = index[p.on] * SLOT_STRIDE + p.end % SLOT_STRIDE

    def copy(self) -> "Referee":
        """An independent referee at the same point (for trying plays out)."""
        other = Referee.__new__(Referee)
        other.__dict__.update(self.__dict__)
        other.passes = dict(self.passes)
        other.plays = self._saved_plays()
        return other

    # --- reading --------------------------------------------------------------------

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
        return self.plays[-1] if self.plays else None

    # --- judging --------------------------------------------------------------------

    def judge(self, tile: Tile, on: Tile | None, touching: int | None = None) -> Verdict:
        """What the engine says about `tile` laid against `on` with its `touching` value
        against it, by whoever's turn it is."""
        if on is None:
            return Verdict(self.turn, None, None, NoSuchOpenEnd(f"{tile} is not laid against any open end"))
        state = self._rebuild(tile)
        p = self._seats[-1] if len(self._seats) > len(self.plays) else state.turn
        board = state.board
        parent = board.placement_of(on)
        if parent is None:
            return Verdict(p, None, None, NoSuchOpenEnd(
                f"{tile} is laid against {on}, which is not part of the layout (it was not a legal play)"))
        base = parent.index * SLOT_STRIDE
        slots = [base + s for s in range(board.capacity(parent)) if base + s in board.open_ends]
        end = slots[0] if slots else base + (NO_SLOT if parent.is_double else 0)
        try:
            state.check_play(tile, end, player=p)
        except IllegalPlay as exc:
            if isinstance(exc, NoSuchOpenEnd) and not slots:
                what = "spinner" if parent.kind == "spinner" else ("chickie" if parent.kind == "chickie" else "tile")
                exc = NoSuchOpenEnd(f"{tile} is laid against {on}, but that {what} has no free end left")
            return Verdict(p, None, None, exc)
        value = board.open_ends[end].value
        if touching is not None and not tile.is_double and touching != value:
            return Verdict(p, None, None, EndsDoNotMatch(
                f"{tile} is laid with its {touching} against the open {value} on {on}; the {value} end must touch"))
        slot = end % SLOT_STRIDE if on.is_double else None
        return Verdict(p, end, slot, None)

    def accept(self, tile: Tile, verdict: Verdict, frame: int, t: float, touching: int | None = None) -> SeenPlay:
        """Add a legal play to the round."""
        if not verdict.legal or verdict.end is None:
            raise ValueError("only legal plays are added to the round")
        on = self.state.board.placements[verdict.end // SLOT_STRIDE].tile
        play = SeenPlay(verdict.player, tile, on, verdict.end, frame, t, touching)
        self.plays.append(play)
        try:
            self.state = self._rebuild(None)
        except IllegalPlay:
            self.plays.pop()
            raise
        return play

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
        play = SeenPlay(self.turn, tile, on, slots[0], frame, t, touching, stood=True, waived=waive)
        saved = list(self.plays)
        self.plays.append(play)
        return play if self._replays(saved) else None

    def stand_corrected(self, tile: Tile, earlier: list[Tile]) -> SeenPlay | None:
        """The stood play of `tile` found legal after all: the plays of `earlier` (tiles read
        only later, which already lay on the table when it was played) move before it, and it
        becomes a plain play, when the round replays so. Returns the play, or None with nothing
        changed."""
        k = next((i for i, p in enumerate(self.plays) if p.tile == tile and p.stood), None)
        if k is None:
            return None
        saved = self._saved_plays()
        moved = [p for p in self.plays[k + 1:] if p.tile in earlier]
        rest = [p for p in self.plays[k + 1:] if p.tile not in earlier]
        self.plays = self.plays[:k] + moved + [self.plays[k]] + rest
        self.plays[k + len(moved)].stood = self.plays[k + len(moved)].waived = False
        self._renumber_ends()
        return self.plays[k + len(moved)] if self._replays(saved) else None

    def play_before_last(self, tile: Tile, on: Tile, touching: int | None, frame: int, t: float) -> SeenPlay | None:
        """Enter the play of `tile` on `on` before the last play, when it is legal there and the
        last play is still legal after it: the camera saw `tile` only after the last play, but the
        table shows it lay there before (the reader missed it for a while). Returns the play
        entered, or None with nothing changed (no last play, a pass noted around it, `on` the
        last play's tile, or either play illegal in that order)."""
        if not self.plays or on == self.plays[-1].tile or any(k >= len(self.plays) - 1 for k in self.passes):
            return None
        saved = self._saved_plays()
        last = self.plays.pop()
        self.state = self._rebuild(None)
        verdict = self.judge(tile, on, touching)
        if not verdict.legal:
            self.plays = saved
            self.state = self._rebuild(None)
            return None
        assert verdict.end is not None
        play = SeenPlay(verdict.player, tile, on, verdict.end, frame, t, touching)
        self.plays.append(play)
        self.plays.append(last)
        return play if self._replays(saved) else None

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
        index = {p.tile: i for i, p in enumerate(self.plays)}
        news = [new for new, _ in fixes.values()]
        if not fixes or any(old not in index for old in fixes) or len(set(news)) != len(news) or \
                any(new == self.spinner or not new.in_set(self.config.set_max) for new in news) or \
                any(p.tile in news and p.tile not in fixes for p in self.plays):
            return None
        saved = self._saved_plays()
        for old, (new, touching) in fixes.items():
            self.plays[index[old]].tile = new
            if touching is not None:
                self.plays[index[old]].touching = touching
        for p in self.plays:
            if p.on in fixes:
                p.on = fixes[p.on][0]
        return [self.plays[index[old]] for old in fixes] if self._replays(saved) else None

    def take_back(self) -> SeenPlay:
        """Undo the last play (the rules allow it before the next player plays)."""
        play = self.plays.pop()
        self.passes = {k: v for k, v in self.passes.items() if k <= len(self.plays)}
        self.state = self._rebuild(None)
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
        k = next((i for i, p in enumerate(self.plays) if p.tile == toe), None)
        if k is None or not double.is_double or double == self.spinner or self.on_board(double) or \
                not double.in_set(self.config.set_max) or self.plays[k].on.is_double or len(fellows) > 2:
            return None
        first = self.plays[k]
        play = SeenPlay(first.player, double, first.on, first.end, first.frame, first.t, None)
        moved = [SeenPlay(first.player, toe, double, 0, first.frame, first.t, first.touching)]
        moved += [SeenPlay(first.player, tile, double, slot, frame, t, touching)
                  for slot, (tile, touching, frame, t) in enumerate(fellows, start=1)]
        moved.sort(key=lambda p: p.frame)  # (the toes in the order they were first seen)
        play.frame, play.t = moved[0].frame, moved[0].t  # (laid before the first toe seen)
        return play if self._insert(k, [play, *moved], drop=k) else None

    def _insert(self, k: int, plays: list[SeenPlay], drop: int | None = None) -> bool:
        """Put `plays` at position `k` (in place of the play at `drop`, where given), renumber the
        ends (`_renumber_ends`), and replay; where
        the round does not replay so, nothing is changed. Passes noted before a later play stay
        before it; one noted before the play at `k` stays before a play put in its place, and
        goes after plays put before it."""
        saved, saved_passes = self._saved_plays(), dict(self.passes)
        rest = self.plays[k + 1:] if drop == k else self.plays[k:]
        self.plays = self.plays[:k] + plays + rest
        grow = len(plays) - (1 if drop == k else 0)
        self.passes = {(n + grow if n > k or (n == k and drop is None) else n): m for n, m in self.passes.items()}
        try:
            self._renumber_ends()
        except IllegalPlay:
            self.plays, self.passes = saved, saved_passes
            return False
        return self._replays(saved, saved_passes)

    def take_back_entered_with_last(self, tile: Tile) -> SeenPlay | None:
        """Undo the play of `tile`, which is not the last play, when every play after it was
        entered at the same frame (the camera saw them in one reading, and their order was a
        guess) and the round replays without it. Returns the play undone, or None with nothing
        changed (plays after it from other frames, one of them laid on it, a pass noted among
        them, or one of them illegal without it)."""
        k = next((i for i, p in enumerate(self.plays) if p.tile == tile), None)
        if k is None or k == len(self.plays) - 1:
            return None
        play, later = self.plays[k], self.plays[k + 1:]
        if any(p.frame != play.frame or p.on == tile for p in later) or \
                any(k < n <= len(self.plays) for n in self.passes):
            return None
        saved = self._saved_plays()
        self.plays = self.plays[:k]
        self.state = self._rebuild(None)
        for p in later:
            verdict = self.judge(p.tile, p.on, p.touching)
            if not verdict.legal:
                self.plays = saved
                self.state = self._rebuild(None)
                return None
            self.accept(p.tile, verdict, p.frame, p.t, p.touching)
        return play

    def note_pass(self, player: int | None = None) -> bool:
        """A player drew and passed (seen by a person, or inferred from the next hand's seat):
        the turn moves on past `player` (default: whoever's turn it is)."""
        n = self.config.players
        steps = 1 if player is None else (player - self.turn) % n + 1
        k = len(self.plays)
        self.passes[k] = self.passes.get(k, 0) + steps
        before = self.turn
        self.state = self._rebuild(None)
        return self.turn != before or steps % n == 0

    def forget_pass(self) -> bool:
        """Drop the latest pass noted (one inferred from a hand that came from the wrong seat)."""
        if not self.passes:
            return False
        k = max(self.passes)
        self.passes[k] -= 1
        if not self.passes[k]:
            del self.passes[k]
        self.state = self._rebuild(None)
        return True

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
