"""Variants that are the same runs, run once.

A remedy acts only through the settings it sets, and the resolved scenario shows them
(``crates/vho-sim/src/remedy/mod.rs``: "Applying a remedy sets the spec's settings for that
mechanism, so the resolved scenario shows what it did"; the core reads the list of names only
to apply them, ``scenario/resolve/``). So two variants of a scenario whose resolved scenarios
differ only in the ``remedies = [...]`` line are the same simulation, and with common seeds the
same runs (the invariant "same scenario + same seed = byte-identical summary"). Each such
variant is run once, under the first of them in variant order; its rows are copied to the
others, marked ``same_as``. Example: ``flush-on-handover`` on Daniel & Kojo's cells, whose
handovers (soft-reconfigure, hard) have no old link's queue to move, is plain TCP.

``tests/test_compare.py`` checks both halves: every remedy alone changes the resolved
scenario somewhere in the default set (a remedy acting invisibly would be folded wrongly),
and a folded pair run separately gives the same summary.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pandas as pd

from .. import _native
from ..errors import ScenarioError
from ..sweep.spec import NO_RECORDING, toml_literal

if TYPE_CHECKING:
    from .run import Plan

_REMEDIES_LINE = re.compile(r"^remedies = .*\n", re.MULTILINE)


def resolved_without_names(plan: Plan, base_label: str, text: str, overrides: list[str]) -> str:
    """The resolved scenario of one run, without the line naming its remedies."""
    fixed = [*plan.fixed, *NO_RECORDING]
    return _REMEDIES_LINE.sub("", _native.resolve_scenario(base_label, text, [*fixed, *overrides]))


def same_runs(plan: Plan) -> dict[tuple[str, str], str]:
    """(scenario, variant) -> the variant whose runs it shares (an earlier one), for every
    variant that shares them."""
    out: dict[tuple[str, str], str] = {}
    for base, scenarios in plan.bases():
        for s in scenarios:
            seen: dict[str, str] = {}
            for x in plan.variants:
                if (s.name, x.name) in plan.skipped:
                    continue
                keys = [f"{k}={toml_literal(v)}" for k, v in plan.keys_of(s, x).items()]
                ovr = [*base.fixed, *keys]
                try:
                    r = resolved_without_names(plan, base.label, base.text, ovr)
                except ScenarioError as e:
                    raise ScenarioError(f"scenario {s.name}, variant {x.name}: {e}") from None
                if r in seen:
                    out[(s.name, x.name)] = seen[r]
                else:
                    seen[r] = x.name
    return out


def expand(runs: pd.DataFrame, same: dict[tuple[str, str], str]) -> pd.DataFrame:
    """The runs with every folded variant's rows: copies of the rows it shares, with its name
    and ``same_as`` naming the variant run."""
    runs = runs.assign(same_as=None)
    if not same:
        return runs
    by = runs.groupby(["scenario", "variant"], sort=False)
    copies = [by.get_group((s, ran)).assign(variant=v, same_as=ran) for (s, v), ran in same.items()]
    return pd.concat([runs, *copies], ignore_index=True)
