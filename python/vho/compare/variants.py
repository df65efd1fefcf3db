"""The rows of a comparison: a *variant* is a set of remedies switched on for the scenario's
flow (``[[flow]] remedies = [...]``, the list ``vho schema`` prints under "Remedies"); the
empty set is the scenario's own TCP, the issue's "plain SACK TCP" baseline. Two variants are
not TCP: ``mptcp`` and ``mptcp-backup`` run the scenario's flow as Multipath TCP (issue 39
item 5; below, :data:`MPTCP_VARIANTS`).

The default set is each remedy alone (but ``no-restore``, a response that needs a detector)
and the combinations the sources argue for, each argued below. A combination naming a remedy
this vho does not have yet is left out of a default run and named in the report, so the set
grows as remedies land; a variant the user gives with an unknown remedy is refused.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from .. import _native
from ..errors import VhoError

#: The label of the empty set of remedies: the scenario's TCP as configured.
PLAIN = "plain"


#: The MPTCP variants' names, by the path manager's flag on the cellular interface.
MPTCP_NAMES = {"subflow": "mptcp", "backup": "mptcp-backup"}


@dataclass(frozen=True)
class Interfaces:
    """The mobile's interfaces as an MPTCP variant needs them: their names (access links), the
    initial one, and the cellular one (the slowest link; the one ``mptcp-backup`` backs up)."""

    names: tuple[str, ...]
    initial: str
    cellular: str


@dataclass(frozen=True)
class Variant:
    """A set of remedies, in the order given (the core applies them in its own fixed order,
    so the order changes nothing but the label); or, with ``mptcp`` set, the flow as a
    Multipath TCP connection (no remedies: the resolver refuses them on an MPTCP flow)."""

    remedies: tuple[str, ...]
    #: "" (TCP), or the path manager's flag on the cellular interface: "subflow" (every
    #: interface a subflow, as ``vho emulate --multipath``) or "backup".
    mptcp: str = ""

    @property
    def name(self) -> str:
        """``plain``, the remedies joined by ``+`` (``frto+no-restore``), or ``mptcp`` /
        ``mptcp-backup``."""
        if self.mptcp:
            return MPTCP_NAMES[self.mptcp]
        return "+".join(self.remedies) if self.remedies else PLAIN

    def override(self, ifaces: Interfaces | None = None, flow: int = 0) -> dict[str, Any]:
        """The scenario keys and values that make ``flow`` this variant: its remedies; for an
        MPTCP variant the kind and (``mptcp-backup``) the path manager's endpoints, from the
        mobile's ``ifaces`` (needed then)."""
        keys: dict[str, Any] = {f"flow.{flow}.remedies": list(self.remedies)}
        if not self.mptcp:
            return keys
        keys[f"flow.{flow}.kind"] = "mptcp"
        if self.mptcp == "backup":
            if ifaces is None:
                raise VhoError(f"variant {self.name}: the mobile's interfaces are needed")
            keys[f"flow.{flow}.mptcp.endpoints"] = backup_endpoints(ifaces)
        return keys


def backup_endpoints(ifaces: Interfaces) -> dict[str, list[str]]:
    """``mptcp-backup``'s endpoints (ip-mptcp(8)): a ``subflow`` endpoint on every interface but
    the initial one, the cellular one's ``backup`` too; the initial subflow runs over the
    initial interface whatever its flags, a backup when that is the cellular one (RFC 8684
    §3.1 / §3.2's B bit; the scheduler uses a backup only when no other subflow is active,
    ``mptcp_subflow_get_send``)."""
    out: dict[str, list[str]] = {}
    for n in ifaces.names:
        flags = [] if n == ifaces.initial else ["subflow"]
        if n == ifaces.cellular:
            flags.append("backup")
        if flags:
            out[n] = flags
    return out


def v(*remedies: str) -> Variant:
    return Variant(tuple(remedies))


#: Multipath TCP (issue 39 item 5) as contenders: the scenario's flow (its bytes, direction,
#: subflows running its own TCP) as an MPTCP connection over the mobile's interfaces, through
#: the same handover. ``mptcp``: every interface a subflow (the path manager's default, what
#: ``vho emulate --multipath`` configures): both paths carry data until the handover takes one
#: away. ``mptcp-backup``: the cellular (slowest) interface a backup endpoint, used only when
#: no other subflow is active: the handover's "use the cellular link only when WLAN is gone".
MPTCP = Variant((), "subflow")
MPTCP_BACKUP = Variant((), "backup")
MPTCP_VARIANTS: tuple[Variant, ...] = (MPTCP, MPTCP_BACKUP)

#: The baseline every gain is measured from.
BASELINE = v()

#: Each remedy alone, then the combinations worth comparing (the reason beside each).
#: ``no-restore`` alone is left out: it only changes the response of a detector, and the
#: default scenarios' profiles (ns2, linux-2.0) run none, so alone it is the plain row again.
#: Chen et al.'s ``probe``, ``ihn``, ``ehn``, ``fra``, ``err`` are left out too: a notification
#: without a response (or the reverse) changes nothing, and they are compared in their study.
DEFAULT_VARIANTS: tuple[Variant, ...] = (
    BASELINE,
    v("frto"),
    v("eifel"),
    v("dsack-undo"),
    v("rto-reset"),
    v("new-path"),
    v("rtt-injection"),
    v("fast-rto-decrease"),
    v("flush-on-handover"),
    # Planned remedies of issue 19, by the names: left out until they exist.
    v("red"),
    v("cwnd-clamp"),
    v("link-flow-control"),
    v("adaptive-dupthresh"),
    # Daniel & Kojo §8 (l.246): detect the spurious timeout (F-RTO, which needs neither SACK
    # nor timestamps) but do not restore the old path's cwnd and ssthresh.
    v("frto", "no-restore"),
    # The detectors today's Linux runs (tcp_frto = 2; undo by timestamps and D-SACK: the
    # `linux` profile's spurious_detection), on the scenario's own TCP, with Linux's undo...
    v("frto", "eifel", "dsack-undo"),
    # ... and with Daniel & Kojo's response instead of the undo.
    v("frto", "eifel", "dsack-undo", "no-restore"),
    # Thesis §8.1 (l.2060-2062): rto-reset keeps the timer from firing as the RTT grows;
    # F-RTO catches the timeouts it leaves (a reset RTO still fires on a GSM round trip).
    v("rto-reset", "frto"),
    # The thesis's own pairing (§8.1 l.2062-2064): the old link's queue moved at the
    # handover, the RTO reset with it.
    v("flush-on-handover", "rto-reset"),
    # Both troubles of the slow -> fast run (§7.2.2-7.2.3): the queue draining over the old
    # link, the RTO climbing after the RTT fell.
    v("flush-on-handover", "fast-rto-decrease"),
    # The digest (docs/design/issue-19-sources.md §2, new-path): a new connection on the new
    # path needs the reordering of slow -> fast tolerated, else it halves ssthresh.
    v("new-path", "adaptive-dupthresh"),
    # new-path with the detector D&K pair it with: a fresh start on the new path, and a
    # spurious timeout of old-path segments not answered by go-back-N.
    v("new-path", "frto"),
    # Cottingham & Vidales §7: the guessed RTT injected before the switch (no spurious
    # timeout on the first slow RTT), F-RTO behind it for the first visit (no guess yet).
    v("rtt-injection", "frto"),
    # Every mechanism the thesis proposes that acts on a different trouble, with D&K's
    # detection and response: the candidate for "one combination for every scenario".
    v("rto-reset", "fast-rto-decrease", "flush-on-handover", "frto", "no-restore"),
    *MPTCP_VARIANTS,
)

#: The issue's oracle (item 3) and its system variant (the digest §4 point 4): the sender-
#: oracle is the reference of a fast -> slow handover, the system-oracle of slow -> fast.
SENDER_ORACLE = v("oracle")
SYSTEM_ORACLE = v("oracle-system")

_ROW = re.compile(r"^\| `([a-z0-9-]+)` \|", re.MULTILINE)


@functools.cache
def known_remedies() -> tuple[str, ...]:
    """The remedies this vho has: the "Remedies" table of the scenario reference (the core
    writes it from its list, so it is the core's list)."""
    ref = _native.scenario_reference()
    start = ref.find("\n## Remedies")
    if start < 0:
        return ()
    end = ref.find("\n## ", start + 1)
    return tuple(_ROW.findall(ref[start : end if end > 0 else None]))


def parse(text: str, what: str = "--variant") -> Variant:
    """A variant as the command line gives it: ``plain`` (or empty), or remedy names separated
    by commas (or ``+``): ``frto,no-restore``. Unknown or repeated names are refused."""
    t = text.strip()
    if t in ("", PLAIN):
        return BASELINE
    for x in MPTCP_VARIANTS:
        if t == x.name:
            return x
    names = [n.strip() for n in re.split(r"[,+]", t)]
    known = known_remedies()
    for n in names:
        if n not in known:
            raise VhoError(
                f"{what} {text}: no remedy {n!r} in this vho; expected {PLAIN!r}, "
                f"{' or '.join(repr(x.name) for x in MPTCP_VARIANTS)}, or remedies among "
                f"{', '.join(known)}, separated by commas"
            )
    if len(set(names)) != len(names):
        raise VhoError(f"{what} {text}: a remedy named twice")
    # In the core's order (the order it applies them in), so that one set has one name.
    return Variant(tuple(n for n in known if n in names))


def available(variants: tuple[Variant, ...]) -> tuple[list[Variant], list[Variant]]:
    """The variants whose every remedy this vho has, and the others (for the report)."""
    known = set(known_remedies())
    ok = [
        x if x.mptcp else parse(",".join(x.remedies)) for x in variants if set(x.remedies) <= known
    ]
    return ok, [x for x in variants if not set(x.remedies) <= known]
