"""Chicken Foot rules engine: tiles, house rules, rounds, games, scoring,
layout audits, game records, rounds seen from outside and random simulation. Pure Python, no I/O."""
from .audit import (
    AuditReport,
    ChickieInfo,
    Layout,
    LayoutBuilder,
    LayoutEdge,
    LayoutTile,
    OpenEndInfo,
    Violation,
    audit_layout,
    layout_from_board,
    layout_from_round,
)
from .advise import Advice, AdviceTuning, HandSizeStats, advise
from .blocked import BlockProof, EndFact, ValueCount, explain_audit, explain_block, explain_board, explain_round
from .board import Board, BoardNode, OpenEnd, Placement
from .deal import Deal, GameConfig, check_deal_possible, make_deal, max_players
from .errors import (
    AlreadyDrew,
    BoneyardEmpty,
    CannotUndo,
    ChickieUnfinished,
    ConfigError,
    DealError,
    EndsDoNotMatch,
    EngineError,
    IllegalPlay,
    MustDrawFirst,
    MustPlay,
    NoSuchOpenEnd,
    NothingToAnnounce,
    NotYourTurn,
    OnlyDrawnTile,
    RoundOver,
    SpinnerArmsUnfinished,
    TileNotInBoneyard,
    TileNotInHand,
    TileNotInSet,
)
from .game import Game, GameState
from .handcount import HandTally, Penalty
from .record import RecordError, ReplayResult, TurnError, dumps_record, load_record, save_record
from .replay import GameReplay, PlayerStats, board_diagram, replay_game, study_games
from .round import Play, RoundResult, RoundState
from .rulecodes import AUDIT_RULES, Rule
from .rules import PRESETS, HouseRules, HouseRulesError, table_hand_size
from .seen_round import LoggedPlay, SeenReplay, SeenRound, seen_config
from .scoring import ScoreSheet, Standing, curved, hand_score, rank_players, round_scores, tile_score
from .simulate import SimulationResult, random_game, random_round, random_step, simulate
from .tiles import SUPPORTED_SETS, Tile, doubles, full_set, set_pip_total, tile_count

__all__ = [
    "Advice", "AdviceTuning", "BlockProof", "EndFact", "GameReplay", "HandSizeStats", "HandTally", "Penalty",
    "PlayerStats", "ValueCount", "advise", "board_diagram", "explain_audit", "explain_block", "explain_board",
    "explain_round", "replay_game", "study_games", "AUDIT_RULES", "Rule",
    "AlreadyDrew", "AuditReport", "Board", "BoardNode", "BoneyardEmpty", "CannotUndo", "ChickieInfo", "ChickieUnfinished",
    "ConfigError", "Deal", "DealError", "EndsDoNotMatch", "EngineError", "Game", "GameConfig", "GameState",
    "HouseRules", "HouseRulesError", "IllegalPlay", "Layout", "LayoutBuilder", "LayoutEdge", "LayoutTile",
    "MustDrawFirst", "MustPlay", "NoSuchOpenEnd", "NotYourTurn", "NothingToAnnounce", "OnlyDrawnTile",
    "OpenEnd", "OpenEndInfo", "PRESETS", "Placement", "Play", "RecordError", "ReplayResult", "RoundOver",
    "RoundResult", "RoundState", "SUPPORTED_SETS", "ScoreSheet", "SimulationResult", "SpinnerArmsUnfinished",
    "LoggedPlay", "SeenReplay", "SeenRound", "seen_config",
    "Standing", "Tile", "TileNotInBoneyard", "TileNotInHand", "TileNotInSet", "TurnError", "Violation",
    "audit_layout", "check_deal_possible", "doubles", "dumps_record", "full_set", "hand_score",
    "layout_from_board", "layout_from_round", "load_record", "make_deal", "max_players", "random_game", "random_round", "random_step",
    "curved", "rank_players", "round_scores", "save_record", "set_pip_total", "simulate", "table_hand_size",
    "tile_count", "tile_score",
]
