"""Playing a dealt round out quickly, for statistics over many thousands of rounds.

`RoundState` checks every action and keeps a history that can be taken back; a
study of ten thousand rounds per hand size needs none of that. `play_out_fast`
takes a round the engine has dealt and opened (spinner found, opening draws made,
first player chosen, all by the engine's own rules) and plays it to the end with
small integer state: the number of open ends per value and the spinner or
chickie that must be fed first. Open ends of one value are interchangeable for
what can follow, so ends are counted, not named.

The players it knows always play when they can, play a drawn tile that fits,
never draw while holding a tile that fits, and always call their last tile. Under
those habits no house rule plays differently from `RoundState`: the tests replay
every fast round, action by action, through `RoundState` and compare the ending.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Literal, Sequence

from .deal import Deal, GameConfig
from .round import RoundState
from .scoring import round_scores
from .tiles import Tile, full_set

Style = Literal["random", "greedy", "double_first"]
STYLES: tuple[str, ...] = ("random", "greedy", "double_first")
STYLE_WORDS: dict[str, str] = {
    "random": "a random tile that fits",
    "greedy": "the tile with the most pips first",
    "double_first": "a double when one fits, else the most pips",
}


@dataclass(frozen=True, slots=True)
class FastResult:
    """How a round played out: its end, its length, and the points left in each hand."""

    stalemate: bool
    winner: int | None
    plays: int
    """Tiles laid after the spinner."""
    turns: int
    """Turns taken (a draw and what follows it is one turn)."""
    raw: tuple[int, ...]
    """Points left in each hand."""
    hands: tuple[tuple[Tile, ...], ...]


# Action log entries (for checking against RoundState):
#   ("play", player, tile, value) ("draw", player, tile) ("pass", player)
LogEntry = tuple


def _order_key(style: str) -> Callable[[Tile], tuple[int, ...]] | None:
    """How a style ranks its tiles (best first), or None for the random style."""
    if style == "greedy":
        return lambda t: (-t.pips, -t.high)
    if style == "double_first":
        return lambda t: (not t.is_double, -t.pips, -t.high)
    return None


_TABLES: dict[int, tuple[list[Tile], dict[Tile, int], list[int], list[int], dict[str, list[int]]]] = {}


def _tables(set_max: int) -> tuple[list[Tile], dict[Tile, int], list[int], list[int], dict[str, list[int]]]:
    """The set's tiles by index, their values, and each ranked style's order (rank by index)."""
    found = _TABLES.get(set_max)
    if found is None:
        tiles = full_set(set_max)
        ranks: dict[str, list[int]] = {}
        for style in STYLES:
            key = _order_key(style)
            if key is not None:
                order = sorted(range(len(tiles)), key=lambda i: key(tiles[i]))
                rank = [0] * len(tiles)
                for r, i in enumerate(order):
                    rank[i] = r
                ranks[style] = rank
        found = (tiles, {t: i for i, t in enumerate(tiles)}, [t.high for t in tiles], [t.low for t in tiles], ranks)
        _TABLES[set_max] = found
    return found


def play_out_fast(state: RoundState, styles: Sequence[str], rng: random.Random,
                  log: list[LogEntry] | None = None) -> FastResult:
    """Play the opened round `state` to its end, each seat by its style; `state` is left as it was.

    `styles[p]` is seat p's style (see `STYLES`). With `log`, every action is appended to it."""
    if state.is_over():
        raw, _ = round_scores(state.hands, state.rules)
        return FastResult(state.stalemate, state.winner, 0, 0, tuple(raw), state.hands)
    tables = _tables(state.set_max)
    index = tables[1]
    hands = [[index[t] for t in h] for h in state.hands]
    pile = [index[t] for t in reversed(state.boneyard)]  # top of the pile at the end, as in RoundState
    board = state.board
    if board.pending is not None:
        pv, missing = board.placements[board.pending].outer, board.pending_missing
    else:
        pv, missing = -1, 0
    return _play(tables, hands, pile, list(board.counts), pv, missing, state.turn, styles, rng,
                 state.rules.double_blank_value, log)


def deal_and_play_fast(config: GameConfig, round_index: int, styles: Sequence[str], rng: random.Random,
                       log: list[LogEntry] | None = None) -> FastResult:
    """Deal a round at random, open it and play it out fast.

    Under the common opening rules (the round's double, or the highest one held at or below it,
    drawn for seat by seat when nobody holds it; no first-round draw) the deal and the opening are
    made here on small integers, exactly as `make_deal` and `RoundState` make them (the tests
    compare the two); under any other rules the engine deals and opens the round itself."""
    rules = config.rules
    if rules.first_round_draw or rules.double_draw != "in_turn" or rules.start_double == "highest_unused":
        return play_out_fast(RoundState.random(config, round_index, rng), styles, rng, log)
    tables = _tables(config.set_max)
    rnd = rng.random
    order = list(range(len(tables[0])))
    order.sort(key=lambda _i: rnd())  # as `engine.deal.shuffled`
    opened = open_fast(config, round_index, order, tables)
    if opened is None:
        return play_out_fast(RoundState(config, round_index, deal_from_order(config, round_index, order),
                                        check_deal=False), styles, rng, log)
    hands, pile, counts, pv, missing, turn = opened
    return _play(tables, hands, pile, counts, pv, missing, turn, styles, rng, rules.double_blank_value, log)


def deal_from_order(config: GameConfig, round_index: int, order: Sequence[int]) -> Deal:
    """The engine's `Deal` for a shuffled order of the set's tiles (as `make_deal` deals it)."""
    tiles = _tables(config.set_max)[0]
    h, n = config.hand_size, config.players
    shuffled = [tiles[i] for i in order]
    return Deal(tuple(tuple(shuffled[p * h:(p + 1) * h]) for p in range(n)), tuple(shuffled[n * h:]),
                round_index % n, None)


def open_fast(config: GameConfig, round_index: int, order: list[int], tables: Any = None
              ) -> tuple[list[list[int]], list[int], list[int], int, int, int] | None:
    """The round dealt from `order` (tile indices), opened: hands, pile (top last), open ends per
    value, the value and count of spinner arms still owed, and whose turn it is. None where the
    opening ends the round at once (a hand emptied by laying the spinner, or nothing left to draw),
    which `RoundState` handles."""
    tiles, _index, HI, _LO, _ranks = tables or _tables(config.set_max)
    h, n = config.hand_size, config.players
    hands = [order[p * h:(p + 1) * h] for p in range(n)]
    pile = order[n * h:]
    pile.reverse()  # top of the pile at the end
    target = config.set_max - round_index
    required = config.rules.start_double == "required"
    spinner = holder = -1
    if required:
        want = tables_double(tiles, target)
        for p in range(n):
            if want in hands[p]:
                spinner, holder = want, p
                break
    else:
        for p in range(n):
            for i in hands[p]:
                if HI[i] == _LO[i] and HI[i] <= target and (spinner < 0 or HI[i] > HI[spinner]):
                    spinner, holder = i, p
    if spinner < 0:
        p = round_index % n
        while pile:
            i = pile.pop()
            hands[p].append(i)
            if (i == tables_double(tiles, target)) if required else (HI[i] == _LO[i] and HI[i] <= target):
                spinner, holder = i, p
                break
            p = (p + 1) % n
        if spinner < 0:
            return None
    hands[holder].remove(spinner)
    if not all(hands) or not pile:
        return None
    value = HI[spinner]
    arms = config.rules.spinner_arms
    counts = [0] * (config.set_max + 1)
    counts[value] = arms
    return hands, pile, counts, value, arms, (holder + 1) % n


def tables_double(tiles: list[Tile], value: int) -> int:
    """Index of the double `value` in the set's tile order (`full_set`: highest first)."""
    return _DOUBLE_INDEX.setdefault((len(tiles), value), tiles.index(Tile(value, value)))


_DOUBLE_INDEX: dict[tuple[int, int], int] = {}


def _play(tables: Any, hands: list[list[int]], pile: list[int], counts: list[int], pv: int, missing: int,
          turn: int, styles: Sequence[str], rng: random.Random, blank: int,
          log: list[LogEntry] | None) -> FastResult:
    """The play loop on small integers (see the module docstring and `play_out_fast`).

    Speed comes from three things: tiles are small integers (index into the set) with their
    values in flat lists; a greedy or doubles-first hand is kept in the order its player prefers,
    so the first tile that fits is the choice; and a stalled round is noticed when every seat has
    passed in a row with nothing left to draw (nothing changes between those passes, so the
    engine's ending, declared as soon as no hand fits, is the same; those passes are not counted
    as turns, and are not logged)."""
    tiles, _index, HI, LO, ranks = tables
    rnd = rng.random
    n = len(hands)
    rank = [ranks.get(styles[p]) for p in range(n)]
    ranked = [r is not None for r in rank]
    for p in range(n):
        if rank[p] is not None:
            hands[p].sort(key=rank[p].__getitem__)
    plays = turns = passes = 0
    winner: int | None = None
    stalemate = False
    while True:
        hand = hands[turn]
        choice = -1
        if ranked[turn]:
            if missing:
                for i in hand:
                    if HI[i] == pv or LO[i] == pv:
                        choice = i
                        break
            else:
                for i in hand:
                    if counts[HI[i]] or counts[LO[i]]:
                        choice = i
                        break
        else:
            if missing:
                fits = [i for i in hand if HI[i] == pv or LO[i] == pv]
            else:
                fits = [i for i in hand if counts[HI[i]] or counts[LO[i]]]
            if fits:
                choice = fits[int(rnd() * len(fits))]
        if choice < 0 and pile:
            drawn = pile.pop()
            if log is not None:
                log.append(("draw", turn, tiles[drawn]))
            if (HI[drawn] == pv or LO[drawn] == pv) if missing else (counts[HI[drawn]] or counts[LO[drawn]]):
                choice = drawn
            order = rank[turn]
            if order is not None:  # keep the hand in its player's order
                r = order[drawn]
                k = 0
                while k < len(hand) and order[hand[k]] < r:
                    k += 1
                hand.insert(k, drawn)
            else:
                hand.append(drawn)
        turns += 1
        if choice >= 0:
            passes = 0
            hi, lo = HI[choice], LO[choice]
            if missing:
                value = pv
                missing -= 1
            elif hi == lo:
                value = hi
            else:
                a, b = counts[hi], counts[lo]
                value = hi if b == 0 or (a and rnd() * (a + b) < a) else lo
            counts[value] -= 1
            if hi == lo:
                counts[hi] += 3
                pv, missing = hi, 3
            else:
                counts[lo if value == hi else hi] += 1
            hand.remove(choice)
            plays += 1
            if log is not None:
                log.append(("play", turn, tiles[choice], value))
            if not hand:
                winner = turn
                break
        else:
            if not pile:
                passes += 1
                if passes == n:
                    stalemate = True
                    turns -= n
                    if log is not None:
                        del log[len(log) - (n - 1):]
                    break
            if log is not None:
                log.append(("pass", turn))
        turn = (turn + 1) % n
    raw = tuple(sum(HI[i] + LO[i] if HI[i] or LO[i] else blank for i in h) for h in hands)
    return FastResult(stalemate, winner, plays, turns, raw, tuple(tuple(tiles[i] for i in h) for h in hands))


def replay_log(state: RoundState, log: Sequence[LogEntry]) -> RoundState:
    """Make the logged actions on `state` through its checked actions (raises `IllegalPlay` where
    one is refused): how the tests hold the fast path to the engine's rules."""
    for entry in log:
        kind, player = entry[0], entry[1]
        if kind == "play":
            tile, value = entry[2], entry[3]
            ends = [e for e in state.ends_for(tile) if state.board.open_ends[e].value == value]
            if not ends:
                from .errors import NoSuchOpenEnd

                raise NoSuchOpenEnd(f"no open {value} for {tile}")
            state.play(tile, ends[0], player=player)
        elif kind == "draw":
            state.draw(player=player)
        else:
            state.pass_turn(player=player)
        while state.unannounced:
            state.announce(state.unannounced[0])  # the fast players always call their last tile
    return state
