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

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _native, files
from ..errors import ScenarioError, VhoError
from ..reproduce import daniel_kojo, thesis
from ..reproduce.thesis.design import HEADERS, TUNNEL
from ..runner import identity
from ..sweep import units
from ..sweep.spec import NO_RECORDING, toml_literal
from .variants import Interfaces, Variant

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


def thesis_scenarios(fixed: tuple[str, ...] = ()) -> list[Scenario]:
    """The thesis's five cases (``vho reproduce thesis``'s CASES): four downloads, one upload,
    each with a stop it finishes by (:func:`finishing_stop`, of the flow as ``fixed``, the
    ``--set`` overrides, leaves it), unless ``fixed`` sets ``run.stop`` itself."""
    own_stop = any(o.partition("=")[0].strip() == "run.stop" for o in fixed)
    path = thesis.study_path()
    base = Base("thesis", str(path), path.read_text(encoding="utf-8"))
    out = []
    # The five cases the thesis draws (§7.1.3's other window sizes have no figure).
    for c in thesis.CASES:
        if not c.figures:
            continue
        keys = dict(_key_value(o) for o in c.overrides)
        if not own_stop:
            given = [*fixed, *NO_RECORDING, *_literal(keys)]
            resolved = tomllib.loads(_native.resolve_scenario(base.label, base.text, given))
            keys["run.stop"] = f"{finishing_stop(resolved):g} s"
        out.append(Scenario(f"thesis-{c.name}", base, keys, c.direction, f"thesis {c.title}"))
    return out


#: IPv4 and TCP headers (40 B) and the home agent's IP-in-IP header (20 B) on each segment.
SEGMENT_OVERHEAD = HEADERS + TUNNEL


def finishing_stop(resolved: dict[str, Any]) -> float:
    """A stop every replication of the scenario's flow finishes by, s: twice the time the whole
    flow takes on the slowest link, each segment with its headers, rounded up to 100 s.

    The thesis study's own stop (400 s) bounds the runs its report reads, which measure the
    bytes after the handover only; since its flow is 1400 KB (was 1100) the rest of the
    transfer on GSM (960 B/s) outlasts it, and a comparison of transfer times needs the
    transfer to end. A run ends when its flows do, so the stop costs nothing where they finish."""
    flow = resolved["flow"][0]
    size = units.quantity(flow["size"])
    if size is None:
        raise VhoError(f'flow.0.size: expected a size such as "1400 KB", got {flow["size"]!r}')
    mss = float(flow["tcp"]["mss"])
    slowest = min(r for r in (rate(resolved, x["name"]) for x in resolved["link"]) if r > 0)
    wire_bits = size[0] * 8 * (mss + SEGMENT_OVERHEAD) / mss
    return math.ceil(2 * wire_bits / slowest / 100) * 100


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
    a, b = rate(resolved, hs[0]["from"]), rate(resolved, hs[0]["to"])
    return SLOW_FAST if b > a else FAST_SLOW if b < a else NO_DIRECTION


def rate(resolved: dict[str, Any], name: str) -> float:
    """A link's rate, bit/s: the faster of its two directions (0 when it has none)."""
    link = next((x for x in resolved.get("link", []) if x["name"] == name), {})
    qs = [units.quantity(link.get(d, {}).get("rate")) for d in ("forward", "reverse")]
    return max((q[0] for q in qs if q is not None), default=0.0)


def interfaces_of(resolved: dict[str, Any]) -> Interfaces | str:
    """The interfaces of the mobile at one end of the resolved scenario's first flow, the
    slowest its cellular one; or why an MPTCP connection has no paths to choose between there
    (the resolver asks for a mobile at one end; one interface is one subflow)."""
    flow = resolved.get("flow", [{}])[0]
    ms = resolved.get("mobile", [])
    ms = [ms] if isinstance(ms, dict) else ms
    m = next((m for m in ms if m.get("node") in (flow.get("from"), flow.get("to"))), None)
    if m is None:
        return "no mobile host at either end of the flow (MPTCP's paths are a mobile's interfaces)"
    names = tuple(m.get("interfaces", ()))
    if len(names) < 2:
        return (
            f"the mobile {m.get('node')} has one interface ({', '.join(names) or 'none'}): an "
            "MPTCP connection over it is one subflow, no multipath to compare"
        )
    cellular = min(names, key=lambda n: rate(resolved, n))
    return Interfaces(names, m.get("start", names[0]), cellular)


def mptcp_hosts(
    scenarios: list[Scenario], fixed: tuple[str, ...], variants: list[Variant]
) -> tuple[dict[str, Interfaces], dict[tuple[str, str], str]]:
    """Per scenario, the mobile's interfaces; and each (scenario, MPTCP variant) the scenario
    cannot host, with why: one interface, or the resolver's refusal (an MPTCP flow with [mipv6]
    or [nemo], RFC 8684 needing an address per interface: scenario/resolve/mod.rs). A slow ->
    fast scenario hosts them: its faster interface is down until the handover brings it up
    (the simulator's `handover::appearing`)."""
    mp = [x for x in variants if x.mptcp]
    ifaces: dict[str, Interfaces] = {}
    skipped: dict[tuple[str, str], str] = {}
    if not mp:
        return ifaces, skipped
    for s in scenarios:
        plain = [*s.base.fixed, *fixed, *NO_RECORDING, *_literal(s.keys)]
        resolved = tomllib.loads(_native.resolve_scenario(s.base.label, s.base.text, plain))
        got = interfaces_of(resolved)
        if isinstance(got, str):
            skipped.update({(s.name, x.name): got for x in mp})
            continue
        ifaces[s.name] = got
        for x in mp:
            try:
                _native.check_scenario(
                    s.base.label, s.base.text, [*plain, *_literal(x.override(got))]
                )
            except ScenarioError as e:
                skipped[(s.name, x.name)] = f"refused by the simulator: {e}"
    return ifaces, skipped


def _literal(keys: dict[str, Any]) -> list[str]:
    return [f"{k}={toml_literal(v)}" for k, v in keys.items()]


def select(given: list[str], fixed: tuple[str, ...]) -> list[Scenario]:
    """The scenarios of ``--scenario`` arguments (the default sets when none), in order; a
    name given twice is refused."""
    out: list[Scenario] = []
    for g in given or list(BUILT_IN):
        if g == "daniel-kojo":
            out += daniel_kojo_scenarios()
        elif g == "thesis":
            out += thesis_scenarios(fixed)
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
