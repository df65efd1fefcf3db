"""`vho reproduce STUDY`: each source study's numbers, side by side with the paper's.

Every study has one shape (:mod:`vho.reproduce.study`): a design run on the sweep engine, the
paper's numbers as data judged by one rule (:mod:`vho.reproduce.verdict`), and a report that
only reads the runs. :data:`STUDIES` maps the command's study names to them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from .study import Study

#: Study name -> the package holding its :class:`Study` (``REPRODUCTION``).
_PACKAGES = {
    "chen": "chen",
    "cottingham": "cottingham",
    "daniel-kojo": "daniel_kojo",
    "naoe": "naoe",
    "thesis": "thesis",
}


class _Studies(Mapping[str, Study]):
    """The studies by name, each imported when first asked for: `vho reproduce daniel-kojo`
    need not import the other four (their modules and what they import; issue 38)."""

    def __getitem__(self, name: str) -> Study:
        package = _PACKAGES[name]
        return importlib.import_module(f"{__name__}.{package}").REPRODUCTION

    def __iter__(self) -> Iterator[str]:
        return iter(_PACKAGES)

    def __len__(self) -> int:
        return len(_PACKAGES)


#: Study name -> its :class:`Study`, run by :func:`vho.reproduce.study.reproduce`.
STUDIES: Mapping[str, Study] = _Studies()

__all__ = ["STUDIES", "Study"]
