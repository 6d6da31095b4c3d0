"""What every stage is given beside the candidates: the picture, the models, the configuration,
and the picture-wide facts the stages find (the backs, the set in play, work started for later)."""
from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..imageio import LoadedImage
from .candidates import Candidates
from .config import RecognizerConfig


@dataclass
class Context:
    """One picture's reading. `halves` is the half reader for this picture (the big sets' one for a
    declared big set), None where the model folder has none; `beside` runs a function on the
    recognizer's helper thread (see `Recognizer._beside`)."""

    img: LoadedImage
    set_max: int | None
    config: RecognizerConfig
    detector: Any
    pips: Any
    halves: Any
    beside: Callable[..., Future]
    tile_px: float | None = None
    colour_anchors: Sequence[tuple[int, Any]] = ()
    backs: Candidates = field(default_factory=Candidates.empty)
    """Boxes that are tiles' backs: those the detector called backs, then faces taken for backs."""
    dropped: Candidates = field(default_factory=Candidates.empty)
    """Boxes dropped as no tile of their own (their trace says by which stage)."""
    pending: dict[str, tuple[Future, list[int]]] = field(default_factory=dict)
    """Work a stage started for a later one to collect: name -> (future, the rows it is for)."""
    sure_colours: list = field(default_factory=list)
    """(value, colour) of the ends read sure (`Recognition.pip_colours`)."""
    set_in_play: int = 0
    """The set declared, or inferred from the sure readings."""
    highest_read: int = 0
    repeated: list[tuple[tuple[int, int], int]] = field(default_factory=list)
    """Tiles read more than once that no cheap second reading told apart: (key, times)."""

    def count_dots(self, view, bar) -> tuple[int, int]:
        """The dot detector's count on one view of a crop, given its divider."""
        return self.pips.read_crops([view], [bar])[0].pips
