"""The action abstraction of the betting solver: which bets a player may make, in one place.

Real Mus lets a player bet or raise any number of stones; the solver plays a small
menu of them (docs/rules.md, "Betting"):

* opening a lance (no bet yet): ``paso``, ``envido N`` for each N of ``opening``, and
  ``órdago``;
* facing a bet: ``no quiero``, ``quiero``, a raise ``+N`` for each N of ``raises`` (while
  fewer than ``max_raises`` raises have been made in the lance), and ``órdago``;
* facing an órdago: ``no quiero`` or ``quiero`` only.

Change the defaults here (or pass another :class:`Abstraction`) and every tree, solve,
cache key and shipped file follows: the abstraction is part of each strategy's key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from musstats.base.errors import MusError

__all__ = ["Abstraction", "DEFAULT_ABSTRACTION"]


@dataclass(frozen=True)
class Abstraction:
    """Bets the solver considers.

    ``opening``: stakes of a first bet (``envido 2`` is the plain envido); ``raises``:
    stones added by a raise (``+2``: "dos más"); ``max_raises``: raises allowed in one
    lance after the first bet; ``ordago``: whether órdago is available (always, until one
    is answered).
    """

    opening: tuple[int, ...] = (2, 5)
    raises: tuple[int, ...] = (2,)
    max_raises: int = 1
    ordago: bool = True

    def __post_init__(self) -> None:
        op = tuple(int(x) for x in self.opening)
        ra = tuple(int(x) for x in self.raises)
        if not op or any(x < 2 for x in op) or len(set(op)) != len(op):
            raise MusError(f"opening bets must be distinct whole numbers of at least 2 stones, got {self.opening!r}")
        if any(x < 2 for x in ra) or len(set(ra)) != len(ra):
            raise MusError(f"raises must be distinct whole numbers of at least 2 stones, got {self.raises!r}")
        if not 0 <= int(self.max_raises) <= 4:
            raise MusError(f"max_raises must be a whole number from 0 to 4, got {self.max_raises!r}")
        object.__setattr__(self, "opening", tuple(sorted(op)))
        object.__setattr__(self, "raises", tuple(sorted(ra)))
        object.__setattr__(self, "max_raises", int(self.max_raises))
        object.__setattr__(self, "ordago", bool(self.ordago))

    def describe(self) -> dict:
        """JSON-friendly."""
        d = asdict(self)
        d["opening"] = list(self.opening)
        d["raises"] = list(self.raises)
        return d

    @property
    def tag(self) -> str:
        """Short text for file names and cache keys, e.g. ``o2-5_r2_m1_O``."""
        return (f"o{'-'.join(map(str, self.opening))}_r{'-'.join(map(str, self.raises)) or 'none'}"
                f"_m{self.max_raises}{'_O' if self.ordago else ''}")


#: the abstraction of the shipped strategies
DEFAULT_ABSTRACTION = Abstraction()
