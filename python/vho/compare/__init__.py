"""`vho compare`: remedies (and combinations) x scenarios -> transfer time, spurious
retransmissions and timeouts, t_a, and the distance to the oracle, with 95 % CIs over
replications, on the sweep engine (issue 19, item 5).

- :mod:`.variants`: the rows, sets of remedies (the default set argued there);
- :mod:`.scenarios`: the columns, Daniel & Kojo's cells and the thesis's cases by default;
- :mod:`.run`: the sweeps (one per base scenario file, common seeds) and the output directory;
- :mod:`.stats`: means, CIs and the paired ratios;
- :mod:`.report`: ``compare.md`` and the figure.

>>> from vho import compare
>>> plan = compare.plan(replications=4)  # doctest: +SKIP
>>> table, report = compare.compare(plan, "out/compare")  # doctest: +SKIP
"""

from __future__ import annotations

from ..errors import VhoError
from .run import REPLICATIONS, Plan, compare
from .scenarios import Scenario, mptcp_hosts, select
from .stats import GOAL, METRICS
from .variants import (
    DEFAULT_VARIANTS,
    MPTCP_VARIANTS,
    SENDER_ORACLE,
    SYSTEM_ORACLE,
    Variant,
    available,
    known_remedies,
    parse,
)


def plan(
    *,
    variants: list[str] | None = None,
    scenarios: list[str] | None = None,
    fixed: tuple[str, ...] = (),
    reference: str | None = None,
    system_reference: str | None = None,
    replications: int = REPLICATIONS,
    seed: int = 1,
) -> Plan:
    """A comparison as the command line describes it: ``variants`` as ``--variant`` texts
    (default: :data:`DEFAULT_VARIANTS` that this vho can run), ``scenarios`` as ``--scenario``
    (default: Daniel & Kojo and the thesis), ``reference`` / ``system_reference`` the oracles
    (defaults ``oracle`` / ``oracle-system``; a ``reference`` alone measures every scenario).
    Checked; nothing runs."""
    if replications < 1:
        raise VhoError(f"--replications: expected an integer >= 1, got {replications}")
    not_built: tuple[Variant, ...] = ()
    if variants:
        chosen = [parse(t) for t in variants]
    else:
        ok, missing = available(DEFAULT_VARIANTS)
        chosen, not_built = ok, tuple(missing)
    sender = _reference(reference, SENDER_ORACLE, "--reference")
    if system_reference is None and reference is not None:
        # One reference given: every scenario measured against it.
        system = sender
    else:
        system = _reference(system_reference, SYSTEM_ORACLE, "--system-reference")
    rows: list[Variant] = []
    for x in [parse("plain"), *chosen, sender, system]:
        if x not in rows:
            rows.append(x)
    chosen_scenarios = select(list(scenarios or []), fixed)
    ifaces, skipped = mptcp_hosts(chosen_scenarios, tuple(fixed), rows)
    return Plan(
        scenarios=chosen_scenarios,
        variants=rows,
        sender=sender,
        system=system,
        replications=replications,
        seed=seed,
        fixed=tuple(fixed),
        not_built=not_built,
        ifaces=ifaces,
        skipped=skipped,
    )


def _reference(given: str | None, default: Variant, flag: str) -> Variant:
    if given is not None:
        return parse(given, flag)
    missing = [r for r in default.remedies if r not in known_remedies()]
    if missing:
        raise VhoError(
            f"{flag}: the default reference, remedy {missing[0]!r} (the oracle, issue 19 item "
            f"3), is not in this vho yet; give {flag} VARIANT (a remedy set, or plain)"
        )
    return default


__all__ = [
    "DEFAULT_VARIANTS",
    "GOAL",
    "METRICS",
    "MPTCP_VARIANTS",
    "REPLICATIONS",
    "Plan",
    "Scenario",
    "Variant",
    "compare",
    "plan",
]
