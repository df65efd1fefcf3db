"""What one run of the thesis study measures (003_c2115c75cc9a1c40.txt, Chapter 7), in the
worker, from the run's `vho run` output: the summary, the sender's series and the captures at
the CH and the MH (:func:`measure_run`, the study's :class:`vho.sweep.spec.Measure`). Every
phenomenon the thesis measured is measured here the way it measured it (the reading:
docs/design/issue-19-sources.md §1); the baseline's runs also get Linux 2.0's RTO replayed from
the CH's capture (:func:`linux20_replay`), written beside them as ``linux20_replay.csv``.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ... import capture, files
from ...errors import VhoError
from .paper import POST_HANDOVER_BYTES, PPP_BYTES_PER_S, STEADY_INTERVAL_AFTER_SWITCH

#: Beside each baseline run's output: Linux 2.0's RTO replayed on its packets.
REPLAY = "linux20_replay.csv"


# --- reading a run ------------------------------------------------------------------------


@dataclass
class Trace:
    """One run as the measurements read it: the summary's flow and handover, the sender's
    series, the flow at the CH (data sent, ACKs received) and at the MH (data received, ACKs
    sent), and the GSM link's one-way delay."""

    flow: dict
    at: float
    series: pd.DataFrame
    queues: pd.DataFrame | None
    data: pd.DataFrame
    acks: pd.DataFrame
    received: pd.DataFrame
    mh_acks: pd.DataFrame
    mss: int
    gsm_delay_s: float
    #: How long after the switch the MH kept sending over the old link (``uplink_delay``).
    uplink_delay_s: float
    #: The data sender: "ch" (a download) or "mh" (an upload, §7.1.4).
    sender: str = "ch"

    @property
    def gsm_queue_at(self) -> str:
        """The node whose GSM queue the data waits in: the HA's, or the MH's own."""
        return "ha" if self.sender == "ch" else "mh"


def read_trace(out: Path, mss: int) -> Trace:
    """A run's output directory (``vho run``'s) as a :class:`Trace`."""
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    (flow,) = summary["flows"]
    resolved = tomllib.loads((out / "scenario.resolved.toml").read_text(encoding="utf-8"))
    (gsm,) = [link for link in resolved["link"] if link["name"] == "gsm"]
    series = pd.read_parquet(out / "series_tcp.parquet")
    qpath = out / "series_queues.parquet"
    # The sender's capture holds the data sent and the ACKs received; the receiver's, the
    # data received and the ACKs sent (an upload, §7.1.4, has the MH sending).
    sender, receiver = ("mh", "ch") if flow["from"] == "mh" else ("ch", "mh")
    data, acks = capture.sequence(capture.read_tcp(out / f"{sender}.pcap"))
    received, mh_acks = capture.sequence(capture.read_tcp(out / f"{receiver}.pcap"))
    acks["cum"] = acks["ack"].cummax()
    return Trace(
        flow=flow,
        at=summary["handovers"][0]["at_s"],
        series=series,
        queues=pd.read_parquet(qpath) if qpath.exists() else None,
        data=data,
        acks=acks,
        received=received,
        mh_acks=mh_acks,
        mss=mss,
        gsm_delay_s=_seconds(gsm["forward"]["delay"]),
        uplink_delay_s=_seconds(resolved["handover"][0].get("uplink_delay", "0 s")),
        sender=sender,
    )


_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def _seconds(text: str) -> float:
    """A resolved scenario's time ("262 ms") in seconds."""
    value, unit = text.split()
    return float(value) * _UNITS[unit]


def transits(tr: Trace) -> pd.DataFrame:
    """Every data segment the CH sent (``t_s``, ``seq``, ``len``, ``retransmission``) with
    when that copy reached the MH (``arrived_s``: the first arrival of its ``seq`` at or after
    the send; the network loses nothing here) and whether it crossed GSM (``over_gsm``: it
    took longer than GSM's one-way delay, which nothing on WaveLAN and Ethernet takes here:
    WaveLAN's 20-packet queue drains in 0.12 s)."""
    sent = tr.data.reset_index(drop=True)
    got = tr.received[["t_s", "seq"]].rename(columns={"t_s": "arrived_s"})
    m = pd.merge_asof(
        sent.assign(order=range(len(sent))).sort_values("t_s"),
        got.sort_values("arrived_s"),
        left_on="t_s",
        right_on="arrived_s",
        by="seq",
        direction="forward",
    ).sort_values("order")
    m["over_gsm"] = (m["arrived_s"] - m["t_s"]) > tr.gsm_delay_s
    return m.drop(columns="order").reset_index(drop=True)


def ack_arrival(tr: Trace, sent_after: float) -> float:
    """When the first ACK the MH sent at or after ``sent_after`` reached the CH. The network
    is lossless and each direction's packets keep their order across the switch (WaveLAN's
    are the faster), so the k-th ACK the MH sent is the k-th the CH received; those the MH
    sent last may still be on their way when the run stops (a slow window's transfer is not
    over by then), but the CH never holds more than the MH sent."""
    if len(tr.mh_acks) < len(tr.acks):
        raise VhoError(
            f"thesis: the MH sent {len(tr.mh_acks)} ACKs and the CH received {len(tr.acks)}"
        )
    k = int(np.searchsorted(tr.mh_acks["t_s"].to_numpy(), sent_after, side="left"))
    return float(tr.acks["t_s"].iloc[k]) if k < len(tr.acks) else float("nan")


def _at(df: pd.DataFrame, col: str, t: float) -> float:
    """The value of a step series ``df[col]`` at time ``t`` (its last row at or before)."""
    before = df[df["t_s"] <= t]
    return float(before[col].iloc[-1]) if len(before) else float("nan")


def _acked_by(tr: Trace, byte: float) -> float:
    """When the CH first held a cumulative ACK at or above ``byte`` (NaN: never)."""
    hit = tr.acks[tr.acks["cum"] >= byte]
    return float(hit["t_s"].iloc[0]) if len(hit) else float("nan")


def timer_sends(tr: Trace) -> pd.DataFrame:
    """Retransmissions the timer sent: at an instant when no ACK reached the CH (every other
    send is clocked by an ACK at the same instant). Their number is the run's timeouts and its
    tail loss probes that resent a segment (the `linux` profile's, RFC 8985 §7)."""
    ack_times = set(tr.acks["t_s"])
    d = tr.data
    return d[d["retransmission"] & ~d["t_s"].isin(ack_times)]


def segment_waits(tr: Trace, lo: float, hi: float) -> pd.DataFrame:
    """Each segment first sent in (lo, hi]: when, its ``seq``, how long until an ACK covered
    it (``wait_s``) and whether it was ever resent (``resent``; a Karn-valid RTT otherwise)."""
    d = tr.data
    new = d[~d["retransmission"] & (d["t_s"] > lo) & (d["t_s"] <= hi)]
    cum = tr.acks["cum"].to_numpy()
    t_ack = tr.acks["t_s"].to_numpy()
    idx = np.searchsorted(cum, (new["seq"] + new["len"]).to_numpy(), side="left")
    covered = np.where(idx < len(cum), t_ack[np.minimum(idx, len(cum) - 1)], np.nan)
    resent = set(d.loc[d["retransmission"], "seq"])
    return pd.DataFrame(
        {
            "t_s": new["t_s"].to_numpy(),
            "seq": new["seq"].to_numpy(),
            "wait_s": covered - new["t_s"].to_numpy(),
            "resent": new["seq"].isin(resent).to_numpy(),
        }
    )


# --- Linux 2.0's estimator, fed as Linux 2.0 feeds it -------------------------------------

#: Linux 2.0: HZ = 100 (10 ms jiffies), the RTO clamped to [HZ/5, 120*HZ] (tcp_input.c).
HZ = 100


def linux20_replay(tr: Trace) -> pd.DataFrame:
    """Linux 2.0.36's RTO as its ``tcp_ack`` computes it, replayed from the CH's capture: a
    sample for *every* segment an ACK frees, from that segment's latest transmission, none
    while the sender is retransmitting after a timeout (``if (sk->retransmits) flag |= 2; ...
    if (!(flag&2)) tcp_rtt_estimator(sk,skb)``, ``retransmits`` cleared only when the
    retransmission queue empties; net/ipv4/tcp_input.c). vho's `linux-2.0` profile samples
    the same way (``tcp.rtt_sampling = "every-freed-segment"``), so this is a check of vho's
    model against its own capture: where no timer would fire differently, the two agree. The
    baseline makes no fast retransmit in this study (the report's tables), so every resend
    here is a timeout's. The arithmetic is ``tcp_rtt_estimator``'s (as vho's
    crates/vho-sim/src/tcp/rtt.rs, ``sample_linux20``), with the congestion window from vho's
    series.

    Returns one row per sample: ``t_s``, ``rto_s``, ``srtt_s``, ``sample_s``.
    """
    d = tr.data.sort_values("t_s")
    sends = list(zip(d["t_s"], d["seq"], d["seq"] + d["len"], d["retransmission"], strict=True))
    cwnd_t, cwnd = tr.series["t_s"].to_numpy(), tr.series["cwnd"].to_numpy()
    queue: list[list[float]] = []  # [start, end, last sent], in sequence order
    rows, una, rtt, mdev, retransmitting, k = [], 0, None, 0, False, 0
    for t, ack in tr.acks[["t_s", "ack"]].to_numpy():
        # What the CH sent at the instant of an ACK is that ACK's consequence: after it.
        while k < len(sends) and sends[k][0] < t:
            sent, seq, end, resent = sends[k]
            k += 1
            if resent:
                # A timeout resends the oldest segment outstanding; its go-back-N follows
                # while the flag holds. A resend of data already acknowledged raises nothing.
                retransmitting |= bool(queue) and queue[0][0] == seq
                for e in queue:
                    if e[0] < end and seq < e[1]:
                        e[2] = sent
            elif not queue or seq >= queue[-1][1]:
                queue.append([seq, end, sent])
        if ack <= una:
            continue
        una = ack
        flag = False
        while queue and queue[0][1] <= ack:
            _, _, sent = queue.pop(0)
            flag |= retransmitting
            if not queue:
                retransmitting = False
            if flag:
                continue
            m = max(int(t * HZ) - int(sent * HZ), 1)
            if rtt is None:
                rtt, mdev = m << 3, m << 1
            else:
                err = m - (rtt >> 3)
                rtt += err
                mdev += abs(err) - (mdev >> 2)
            j = max(int(np.searchsorted(cwnd_t, t, side="right")) - 1, 0)
            segs = int(cwnd[j]) // tr.mss
            r = (rtt >> 3) + mdev
            r += (r >> 2) + (r >> min(max(segs - 1, 0), 63))
            r = min(max(r, HZ // 5), 120 * HZ)
            rows.append((t, r / HZ, (rtt >> 3) / HZ, m / HZ))
    return pd.DataFrame(rows, columns=["t_s", "rto_s", "srtt_s", "sample_s"])


# --- the measurements ---------------------------------------------------------------------


def measure(tr: Trace, direction: str, replay: pd.DataFrame | None = None) -> dict[str, float]:
    """Every quantity of the report for one run (see :func:`measure_fast_slow` and
    :func:`measure_slow_fast`), the run's ground truth from ``summary.json``, and with
    ``replay`` (:func:`linux20_replay`'s) the same RTO quantities of Linux 2.0's sampling."""
    f = tr.flow
    m: dict[str, float] = {
        "at_s": tr.at,
        "timeouts": f["timeouts"],
        "timeouts_in_capture": len(timer_sends(tr)),
        "tlp_retransmissions": f.get("tlp_retransmissions", 0),
        "spurious_timeouts": f["spurious_timeouts"],
        "spurious_timeouts_detected": f["spurious_timeouts_detected"],
        "retransmissions": f["retransmissions"],
        "spurious_retransmissions": f["spurious_retransmissions"],
        "fast_retransmits": f["fast_retransmits"],
        "out_of_order_deliveries": f["out_of_order_deliveries"],
        "gsm_delay_s": tr.gsm_delay_s,
    }
    more = measure_fast_slow(tr) if direction == "fast-slow" else measure_slow_fast(tr)
    m.update(more)
    if replay is not None:
        m.update(replayed(tr, replay, direction, m))
    return m


def measure_fast_slow(tr: Trace) -> dict[str, float]:
    """§7.1.2-7.1.3, over the thesis's post-handover bytes (``POST_HANDOVER_BYTES``): from the
    switch ``at`` to ``end``, when the CH holds their ACK."""
    at, s = tr.at, tr.series
    una0 = _at(tr.acks, "cum", at)
    end = _acked_by(tr, una0 + POST_HANDOVER_BYTES)
    if np.isnan(end):
        raise VhoError(
            f"thesis: the transfer ended before {POST_HANDOVER_BYTES} B were acknowledged after "
            "the switch; the study's flow.size is too small"
        )
    timers = timer_sends(tr)
    timers = timers[(timers["t_s"] > at) & (timers["t_s"] <= end)]
    lo, hi = (at + x for x in STEADY_INTERVAL_AFTER_SWITCH)
    span = s[(s["t_s"] > at) & (s["t_s"] <= end)]
    return {
        "rto_at_switch_s": _at(s, "rto_s", at),
        "srtt_at_switch_s": _at(s, "srtt_s", at),
        **_first_segment(tr, timers),
        **_resends(tr, una0, end),
        "timeouts_after": len(timers),
        **_stall(tr, end),
        "srtt_peak_s": float(span["srtt_s"].max()),
        "rto_peak_s": float(span["rto_s"].max()),
        "rto_at_end_s": _at(s, "rto_s", end),
        "cwnd_at_end_segments": _at(s, "cwnd", end) / tr.mss,
        "gsm_queue_at_end": _gsm_queue(tr, end),
        "gsm_queue_peak": _gsm_queue_peak(tr, at, end),
        "end_s": end,
        "time_to_deliver_s": end - at,
        "time_over_theoretical_s": end - at - POST_HANDOVER_BYTES / PPP_BYTES_PER_S,
        "throughput_after_Bps": POST_HANDOVER_BYTES / (end - at),
        "steady_throughput_Bps": (_at(tr.acks, "cum", hi) - _at(tr.acks, "cum", lo)) / (hi - lo),
    }


def _first_segment(tr: Trace, timers: pd.DataFrame) -> dict[str, float]:
    """§7.1.2 l.1627-1628, "a timeout of the first segment occurs three times": the timer's
    expiries while the first segment to cross GSM awaits its ACK (the ACK the MH sent on
    receiving it), whichever segment each resends; and what the first expiry resent."""
    at = tr.at
    tx = transits(tr)
    gsm = tx[tx["over_gsm"] & (tx["arrived_s"] > at)].sort_values("t_s").iloc[0]
    acked = ack_arrival(tr, float(gsm["arrived_s"]))
    early = timers[timers["t_s"] <= acked]
    out = {
        "first_segment_timeouts": len(early),
        "first_segment_own_timeouts": int((early["seq"] == gsm["seq"]).sum()),
        "first_segment_was_resend": float(bool(gsm["retransmission"])),
        "first_segment_rtt_s": acked - float(gsm["t_s"]),
        # The MH's ACKs take GSM from the switch on: when the first of them reached the CH.
        "first_ack_over_gsm_s": ack_arrival(tr, at + tr.uplink_delay_s) - at,
        "uplink_delay_s": tr.uplink_delay_s,
    }
    # §7.1.4 l.1746-1747: "The data bytes 1460-2919 are sent three times": the segment after
    # the first over GSM, every transmission of it after the switch.
    d = tr.data
    nxt = d[(d["t_s"] > at) & (d["seq"] > gsm["seq"])]["seq"]
    if len(nxt):
        out["second_segment_sends"] = int(((d["seq"] == nxt.min()) & (d["t_s"] > at)).sum())
    if len(timers):
        t1 = timers.iloc[0]
        orig = tx[(tx["seq"] == t1["seq"]) & ~tx["retransmission"]]
        out["first_timeout_s"] = float(t1["t_s"]) - at
        out["first_timeout_original_over_wavelan"] = float(not orig["over_gsm"].iloc[0])
    return out


def _resends(tr: Trace, una0: float, end: float) -> dict[str, float]:
    """§7.1.2 l.1629-1645: the window in flight at the switch, how much of it was resent, the
    resends and the duplicate ACKs (an ACK equal to the one before it) after the switch."""
    at, d = tr.at, tr.data
    before = d[d["t_s"] <= at]
    nxt0 = float((before["seq"] + before["len"]).max())
    resent = d[d["retransmission"] & (d["t_s"] > at) & (d["t_s"] <= end)]
    of_window = resent[(resent["seq"] >= una0) & (resent["seq"] < nxt0)]
    acks = tr.acks[(tr.acks["t_s"] > at) & (tr.acks["t_s"] <= end)]
    prev = np.r_[_at(tr.acks, "ack", at), acks["ack"].to_numpy()[:-1]]
    return {
        "window_segments": round((nxt0 - una0) / tr.mss),
        "window_resent": int(of_window["seq"].nunique()),
        # l.1631-1632: "retransmit those segments in the interval 6-22 seconds".
        "window_first_resend_s": float(of_window["t_s"].min()) - at if len(of_window) else np.nan,
        "window_last_resend_s": float(of_window["t_s"].max()) - at if len(of_window) else np.nan,
        "retransmissions_after": len(resent),
        "duplicate_acks": int((acks["ack"].to_numpy() == prev).sum()),
    }


def _stall(tr: Trace, end: float) -> dict[str, float]:
    """§7.1.2 l.1639-1667: the longest time without new data after the switch (between first
    transmissions, the switch counting as one), the longest a new segment waited for its ACK,
    and Karn-valid RTTs (segments never resent) after that time and at the end."""
    at, d = tr.at, tr.data
    new = d[~d["retransmission"] & (d["t_s"] > at) & (d["t_s"] <= end)]
    sends = np.r_[at, new["t_s"].to_numpy()]
    gaps = np.diff(sends)
    g = int(gaps.argmax())
    waits = segment_waits(tr, at, end)
    karn = waits[~waits["resent"] & (waits["t_s"] + waits["wait_s"] <= end)]
    after = karn[karn["t_s"] >= sends[g + 1]]
    return {
        "no_new_data_s": float(gaps[g]),
        "no_new_data_from_s": float(sends[g]),
        "recovery_s": float(sends[g + 1]) - at,
        "longest_wait_s": float(waits["wait_s"].max()),
        "longest_wait_sent_s": float(waits.loc[waits["wait_s"].idxmax(), "t_s"]),
        "rtt_after_recovery_s": float(after["wait_s"].iloc[0]) if len(after) else np.nan,
        "rtt_at_end_s": float(karn["wait_s"].iloc[-1]) if len(karn) else np.nan,
    }


def _gsm_queue(tr: Trace, t: float) -> float:
    """Packets waiting in the sender side's GSM queue at ``t`` (the HA's, or the MH's)."""
    if tr.queues is None:
        return float("nan")
    q = tr.queues
    return _at(q[(q["link"] == "gsm") & (q["from"] == tr.gsm_queue_at)], "packets", t)


def _gsm_queue_peak(tr: Trace, lo: float, hi: float) -> float:
    """The most packets waiting in the sender side's GSM queue in (lo, hi]."""
    if tr.queues is None:
        return float("nan")
    q = tr.queues
    at = tr.gsm_queue_at
    q = q[(q["link"] == "gsm") & (q["from"] == at) & (q["t_s"] > lo) & (q["t_s"] <= hi)]
    return float(q["packets"].max())


def measure_slow_fast(tr: Trace) -> dict[str, float]:
    """§7.2.2: what the HA's PPP queue holds at the switch, how long it takes to drain, and
    the RTO before and after the RTT fell (:func:`rto_around_fall`)."""
    at, d, s = tr.at, tr.data, tr.series
    before = d[d["t_s"] <= at]
    nxt0 = float((before["seq"] + before["len"]).max())
    una0 = _at(tr.acks, "cum", at)
    tx = transits(tr)
    late = tx[tx["over_gsm"] & (tx["t_s"] <= at) & (tx["arrived_s"] > at)]
    drained = _acked_by(tr, nxt0)
    after = s[s["t_s"] > at]
    return {
        "rto_at_switch_s": _at(s, "rto_s", at),
        "srtt_at_switch_s": _at(s, "srtt_s", at),
        "window_segments": round((nxt0 - una0) / tr.mss),
        "old_link_segments": len(late),
        "drain_s": drained - at,
        "rto_peak_s": float(after["rto_s"].max()),
        "rto_peak_after_switch_s": float(after.loc[after["rto_s"].idxmax(), "t_s"]) - at,
        **rto_around_fall(s, drained),
    }


def rto_around_fall(rto: pd.DataFrame, fell: float, prefix: str = "") -> dict[str, float]:
    """The RTO (``t_s``, ``rto_s``) around ``fell``, when the CH held the ACK of all it had
    sent over GSM: from then on its RTT samples are WaveLAN's ("The segments start to go over
    the WaveLAN after approximately 86 seconds and the round-trip time decreases
    significantly. However, the RTO value increases", l.1894-1895). Before the fall, the first
    value after it, the peak from it on, the last (settled) value, the peak over the settled
    value, and how many updates the RTO takes from its peak to within 10 % of settled."""
    before = _at(rto, "rto_s", fell - 1e-9)
    after = rto[rto["t_s"] >= fell]
    settled = float(rto["rto_s"].iloc[-1])
    peak_at = after["rto_s"].idxmax()
    tail = after.loc[peak_at:, "rto_s"]
    changes = tail.ne(tail.shift())
    reached = int((tail <= settled * 1.1).to_numpy().argmax())
    return {
        f"{prefix}rto_before_fall_s": before,
        f"{prefix}rto_first_after_fall_s": float(after["rto_s"].iloc[0]),
        f"{prefix}rto_peak_after_fall_s": float(after["rto_s"].max()),
        f"{prefix}rto_settled_s": settled,
        f"{prefix}rto_peak_over_settled": float(after["rto_s"].max()) / settled,
        f"{prefix}rto_updates_to_settle": int(changes.iloc[: reached + 1].sum()) - 1,
    }


def replayed(tr: Trace, rp: pd.DataFrame, direction: str, m: dict[str, float]) -> dict:
    """The RTO Linux 2.0 would have shown on the same packets (:func:`linux20_replay`)."""
    if direction == "fast-slow":
        return {"replay_rto_at_end_s": _at(rp, "rto_s", m["end_s"])}
    return {
        "replay_rto_at_switch_s": _at(rp, "rto_s", tr.at),
        **rto_around_fall(rp, tr.at + m["drain_s"], prefix="replay_"),
        "replay_exact": float(_no_timer_would_fire(tr, rp)),
    }


#: Linux 2.0's RTO before its first sample, TCP_TIMEOUT_INIT = 3*HZ.
INITIAL_RTO_S = 3.0


def _no_timer_would_fire(tr: Trace, rp: pd.DataFrame) -> bool:
    """Whether the replayed RTO would have left these packets as they are: 2.0's ``tcp_ack``
    restarts the timer at every ACK with the RTO then in force, so no gap between ACKs (while
    data was outstanding) may reach it."""
    t = tr.acks["t_s"].to_numpy()
    rto = np.array([_at(rp, "rto_s", x) for x in t[:-1]])
    rto = np.where(np.isnan(rto), INITIAL_RTO_S, rto)
    return bool((np.diff(t) < rto).all())


# --- the worker's entry -------------------------------------------------------------------


def measure_run(run_dir: Path, result: Any, params: dict[str, Any]) -> dict[str, float]:
    """The study's measure function (:class:`vho.sweep.spec.Measure`): every quantity of one
    run, from its output directory; ``params``: the case's ``direction`` and ``mss``, and
    ``replay`` (the thesis's TCP: Linux 2.0's RTO replayed, written beside the run)."""
    tr = read_trace(run_dir, int(params["mss"]))
    rp = None
    if params.get("replay"):
        rp = linux20_replay(tr)
        files.write_table(rp, run_dir / REPLAY)
    return measure(tr, str(params["direction"]), rp)
