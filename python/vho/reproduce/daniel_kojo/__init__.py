"""Daniel & Kojo (2005), ``001_b31677fe21b9faf1.txt``: TCP across WLAN-GPRS handovers in ns-2,
reproduced by `vho reproduce daniel-kojo` in the shape of every study
(:mod:`vho.reproduce.study`): ``paper.py`` (Tables 3-6 and the text's numbers as data),
``design.py`` (the cells, the figures' cases, the open values' alternatives), ``measure.py``
(the figures' runs, in the worker), ``report.py`` (reads the runs).
"""

from __future__ import annotations

from ..study import Study
from . import report
from .design import (
    COLUMNS,
    OPEN_VALUES,
    QUICK_REPLICATIONS,
    REPLICATIONS,
    SENSITIVITY_REPLICATIONS,
    STUDY,
    TOLERANCE,
    Cell,
    agreement,
    make_sweep,
    ns2_tcl_args,
    overrides,
    per_cell,
    run_sweep,
    study_cells,
    study_path,
)
from .design import design as _design
from .paper import KB, MB, NUMBERS

REPRODUCTION = Study(
    name="daniel-kojo",
    title="Daniel & Kojo (2005) reproduced by vho",
    paper=NUMBERS,
    design=_design,
    evidence=report.evidence,
    body=report.body,
    package="daniel_kojo",
    why=report.why,
)

__all__ = [
    "COLUMNS",
    "KB",
    "MB",
    "NUMBERS",
    "OPEN_VALUES",
    "QUICK_REPLICATIONS",
    "REPLICATIONS",
    "REPRODUCTION",
    "SENSITIVITY_REPLICATIONS",
    "STUDY",
    "TOLERANCE",
    "Cell",
    "agreement",
    "make_sweep",
    "ns2_tcl_args",
    "overrides",
    "per_cell",
    "run_sweep",
    "study_cells",
    "study_path",
]
