"""The columns of a comparison: scenarios, each a base scenario file and the keys it sets.

By default (issue 19, item 5) every Daniel & Kojo cell with HTime <= 5 s (the cells and
overrides of ``vho reproduce daniel-kojo``, imported from it) and the thesis's five
cases (``vho reproduce thesis``'s). A user names scenario files instead (``--scenario FILE``,
repeatable; ``daniel-kojo`` and ``thesis`` name the two built-in sets).

A scenario's *direction* says which oracle measures it (the digest §4 point 4): slow -> fast
against the system-oracle (the old link's queue must move too), fast -> slow against the
sender-oracle. It is the first handover's, by the two links' rates.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _native, files
from ..errors import ScenarioError, VhoError
from ..reproduce import daniel_kojo, thesis
from ..runner import identity
from ..sweep import units
from ..sweep.spec import NO_RECORDING, toml_literal

#: Issue 19, item 5: "at least every Daniel & Kojo cell with HTime <= 5 s".
DK_MAX_HTIME_S = 5.0

SLOW_FAST = "slow-fast"
FAST_SLOW = "fast-slow"
#: No handover, or two links of one rate: measured against the sender-oracle.
NO_DIRECTION = "none"

#: The names of the built-in sets for ``--scenario``.
BUILT_IN = ("daniel-kojo", "thesis")


@dataclass(frozen=True)
class Base:
    """A base scenario file: its label (path), text, and the overrides every run of it gets."""

    name: str
    label: str
    text: str
    fixed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """A column of the comparison: a name, its base, the keys it sets and its direction."""

    name: str
    base: Base
    keys: dict[str, Any] = field(hash=False)
    direction: str
    #: Where it comes from, for the report ("Daniel & Kojo Table 3", a file).
    source: str = ""


def _dk_name(c: daniel_kojo.Cell) -> str:
    size = (
        f"{c.size_bytes // daniel_kojo.MB}MB"
        if c.size_bytes >= daniel_kojo.MB
        else (f"{c.size_bytes // 1000}KB")
    )
    return f"dk-{c.direction}-{size}-{c.model}-h{c.htime_s:g}"


def daniel_kojo_scenarios() -> list[Scenario]:
    """Every cell of Tables 3-6 with HTime <= 5 s, as ``vho reproduce daniel-kojo`` runs it
    (its study file, its per-cell keys, its reading of HTime)."""
    path = daniel_kojo.study_path()
    base = Base("daniel-kojo", str(path), path.read_text(encoding="utf-8"))
    out = []
    for c in daniel_kojo.study_cells(quick=False):
        if c.htime_s > DK_MAX_HTIME_S:
            continue
        direction = SLOW_FAST if c.direction == "gprs-wlan" else FAST_SLOW
        src = f"Daniel & Kojo Table {c.table} (paper: {c.paper_s:g} s)"
        out.append(Scenario(_dk_name(c), base, daniel_kojo.overrides(c), direction, src))
    return out


def _key_value(override: str) -> tuple[str, Any]:
    """``key=TOML value`` (as a study writes its cases' overrides) as (key, value)."""
    key, _, value = override.partition("=")
    return key, tomllib.loads(f"v = {value}")["v"]


def thesis_scenarios() -> list[Scenario]:
    """The thesis's five cases (``vho reproduce thesis``'s CASES): four downloads, one upload."""
    path = thesis.study_path()
    base = Base("thesis", str(path), path.read_text(encoding="utf-8"))
    return [
        Scenario(
            f"thesis-{c.name}",
            base,
            dict(_key_value(o) for o in c.overrides),
            c.direction,
            f"thesis {c.title}",
        )
        # The five cases the thesis draws (§7.1.3's other window sizes have no figure).
        for c in thesis.CASES
        if c.figures
    ]


def file_scenario(path: Path, fixed: tuple[str, ...]) -> Scenario:
    """A scenario file as one column: checked (with ``fixed``), one flow, its direction."""
    text = files.read_text(path, "scenario file", ScenarioError)
    name_keys = tuple(identity(path, text))
    base = Base(path.stem, str(path), text, name_keys)
    resolved = tomllib.loads(
        _native.resolve_scenario(str(path), text, [*name_keys, *fixed, *NO_RECORDING])
    )
    flows = resolved.get("flow", [])
    if len(flows) != 1:
        raise VhoError(
            f"{path}: vho compare measures one flow; expected a scenario with one [[flow]], "
            f"found {len(flows)}"
        )
    return Scenario(path.stem, base, {}, direction_of(resolved), str(path))


def direction_of(resolved: dict[str, Any]) -> str:
    """The first handover's direction by the rates of its two links (the faster direction of
    each, as the flush-on-handover remedy compares them)."""
    hs = resolved.get("handover", [])
    if not hs:
        return NO_DIRECTION
    links = {link["name"]: link for link in resolved.get("link", [])}

    def rate(name: str) -> float:
        link = links.get(name, {})
        qs = [units.quantity(link.get(d, {}).get("rate")) for d in ("forward", "reverse")]
        return max((q[0] for q in qs if q is not None), default=0.0)

    a, b = rate(hs[0]["from"]), rate(hs[0]["to"])
    return SLOW_FAST if b > a else FAST_SLOW if b < a else NO_DIRECTION


def select(given: list[str], fixed: tuple[str, ...]) -> list[Scenario]:
    """The scenarios of ``--scenario`` arguments (the default sets when none), in order; a
    name given twice is refused."""
    out: list[Scenario] = []
    for g in given or list(BUILT_IN):
        if g == "daniel-kojo":
            out += daniel_kojo_scenarios()
        elif g == "thesis":
            out += thesis_scenarios()
        else:
            out.append(file_scenario(Path(g), fixed))
    seen: set[str] = set()
    for s in out:
        if s.name in seen:
            raise VhoError(f"--scenario: {s.name!r} given twice (a scenario's name is its file's)")
        seen.add(s.name)
    return out


def check(s: Scenario, overrides: list[str]) -> None:
    """The simulator's own checks of one run's overrides; a refusal names the scenario."""
    try:
        _native.check_scenario(s.base.label, s.base.text, overrides)
    except ScenarioError as e:
        raise ScenarioError(f"scenario {s.name}: {e}") from None


def keys_text(keys: dict[str, Any]) -> str:
    """The keys a scenario sets, as ``--set`` would take them (for the report)."""
    return " ".join(f"{k}={toml_literal(v)}" for k, v in keys.items()) or "-"
