"""From vho-trace's per-conversation analysis to ``metrics.json``: one entry per flow, told
from the side of the data it carried.

A conversation's *sender* is the side that sent more data (by sequence span); its counts are
read where Wireshark flags them: retransmissions and out-of-order on the sender's segments,
duplicate ACKs, zero windows and SACK blocks on the receiver's. ``wireshark`` holds both
directions' ``tcp.analysis`` counts added, comparable with ``tshark -Y FILTER`` over the same
conversation.

``retransmissions`` is the count the capture point makes unambiguous, and
``retransmissions_by`` says which it is: at the sender's capture every data segment sent
again (any byte below the highest sent before: the capture sees the sender's own order, so
nothing else can put a segment there) and every SYN or FIN sent again,
``segments-sent-again``; elsewhere Wireshark's ``tcp.analysis.retransmission`` count,
``wireshark``, since at a receiver a late original and a resend look alike. Wireshark's
labels stay beside it as ``wireshark_retransmissions`` and ``wireshark_out_of_order``, equal
to tshark's: at a sender Wireshark calls a resend sent within 3 ms of the segment before it
"out of order", so its retransmission count there can be lower than the resends, and lower
than the spurious ones among them.
"""

from __future__ import annotations

from typing import Any

from .flowspec import FlowSpec

# What a flow's entry takes from the sender's direction under the same name.
_FROM_SENDER = (
    "retransmissions",
    "fast_retransmissions",
    "out_of_order",
    "longest_stall_s",
    "goodput_bps",
    "acked_bytes",
    "path_changes",
    "first_after_handover_s",
    "adaptation_time_s",
)

#: The entry's timing summaries (``samples``, ``min_s``, ``mean_s``, ``max_s``, or None where
#: not measured): the RTT, or at a receiver-side capture the ACK delay, from data/ACK pairs
#: and from timestamps.
DELAYS = ("rtt", "rtt_timestamps", "ack_delay", "ack_delay_timestamps")


def _endpoint(d: dict[str, Any]) -> dict[str, Any]:
    return {"addr": d["addr"], "port": d["port"]}


def _spurious(snd: dict[str, Any]) -> dict[str, Any]:
    """vho's spurious-retransmission count with the evidence it rests on (vho-trace's
    ``spurious`` module), and Wireshark's own heuristic beside it."""
    s = snd["spurious"]
    return {
        "spurious_retransmissions": s["count"],
        "spurious_evidence": s["evidence"],
        "spurious_by": {
            "receiver_capture": s["by_receiver_capture"],
            "dsack": s["by_dsack"],
            "timestamps": s["by_timestamps"],
        },
        "capture_point": s["capture_point"],
        "wireshark_spurious_retransmissions": snd["spurious_retransmissions"],
    }


def sides(flow: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(sender, receiver) directions of a conversation: the sender sent more data."""
    c, s = flow["client"], flow["server"]
    return (c, s) if c["unique_bytes"] >= s["unique_bytes"] else (s, c)


#: The spans of t_a's mean (``--ta-mean``), the default first: vho-trace's ``TaMean``.
TA_MEANS = ("whole-connection", "after-handover")


def flow_entry(flow: dict[str, Any], ta_mean: str | None = None) -> dict[str, Any]:
    """The ``metrics.json`` entry of one conversation. With ``ta_mean`` given (the span of
    t_a's mean, see :data:`TA_MEANS`; ``adaptation_time_s`` is vho-trace's against it), the
    entry names it and holds t_a and the mean of both spans."""
    snd, rcv = sides(flow)
    # Goodput over no time (one packet, or a capture whose clock stepped back) is undefined,
    # not 0 b/s.
    defined = flow["duration_s"] > 0
    e: dict[str, Any] = {
        "index": flow["index"],
        "id": f"{snd['addr']}:{snd['port']} -> {rcv['addr']}:{rcv['port']}",
        "sender": _endpoint(snd),
        "receiver": _endpoint(rcv),
        "first_s": flow["first_s"],
        "duration_s": flow["duration_s"],
        "packets": flow["packets"],
        "data_segments": snd["data_segments"],
        "bytes": snd["unique_bytes"],
        "bytes_sent": snd["bytes"],
    }
    e.update({k: snd[k] for k in _FROM_SENDER})
    if ta_mean is not None:
        by = snd["adaptation_by_mean"]
        e["ta_mean"] = ta_mean
        e["adaptation_time_by_mean"] = {
            "whole-connection": by["whole_connection"],
            "after-handover": by["after_handover"],
        }
    if not defined:
        e["goodput_bps"] = None
    e.update(_spurious(snd))
    e["wireshark_retransmissions"] = snd["retransmissions"]
    e["wireshark_out_of_order"] = snd["out_of_order"]
    if e["capture_point"]["point"] == "sender":
        resent = snd["spurious"]["retransmitted_segments"] + snd["control_segments_resent"]
        e["retransmissions"] = resent
        e["retransmissions_by"] = "segments-sent-again"
    else:
        e["retransmissions_by"] = "wireshark"
    # At a receiver-side capture a segment's arrival to the ACK that covers it is the
    # receiver's ACK delay (delayed ACKs, RFC 5681 §4.2; longer for data held behind a hole),
    # not a round trip: it is reported under that name, and the RTT as not measured.
    here = e["capture_point"]["point"] == "receiver"
    e.update(
        {
            "duplicate_acks": rcv["duplicate_acks"],
            "lost_segments": snd["lost_segment"],
            "zero_windows": rcv["zero_window"],
            "sack_blocks": rcv["sack_blocks"],
            "dsack_blocks": rcv["dsack_blocks"],
            "rtt": None if here else snd["rtt"],
            "rtt_timestamps": None if here else snd["rtt_ts"],
            "ack_delay": snd["rtt"] if here else None,
            "ack_delay_timestamps": snd["rtt_ts"] if here else None,
            "handshake_rtt_s": flow["handshake_rtt_s"],
            "syn_seen": flow["syn_seen"],
            "fin_seen": flow["fin_seen"],
            "rst_seen": flow["rst_seen"],
            "wireshark": flow["total"],
        }
    )
    if rcv["data_segments"]:
        e["reverse"] = {
            "bytes": rcv["unique_bytes"],
            "goodput_bps": rcv["goodput_bps"] if defined else None,
            "retransmissions": rcv["retransmissions"],
            "duplicate_acks": snd["duplicate_acks"],
        }
    return e


def select_one(flow: dict[str, Any], spec: FlowSpec) -> bool:
    """Whether ``spec`` selects the conversation ``flow``."""
    a = (flow["client"]["addr"], flow["client"]["port"])
    b = (flow["server"]["addr"], flow["server"]["port"])
    return spec.matches(flow["index"], a, b)


def select(raw: dict[str, Any], spec: FlowSpec | None) -> list[dict[str, Any]]:
    """The conversations of ``raw`` that ``spec`` selects (all without one)."""
    flows = raw["flows"]
    if spec is None:
        return flows
    out = []
    for f in flows:
        a = (f["client"]["addr"], f["client"]["port"])
        b = (f["server"]["addr"], f["server"]["port"])
        if spec.matches(f["index"], a, b):
            out.append(f)
    return out


def handover(entries: list[dict[str, Any]], given_s: float | None) -> dict[str, Any]:
    """The capture's handover: the given instant, or the first change of path found in the
    flow that carried the most data, with its evidence."""
    if given_s is not None:
        return {"at_s": given_s, "source": "given"}
    for e in sorted(entries, key=lambda e: (-e["bytes"], e["index"])):
        if e["path_changes"]:
            c = e["path_changes"][0]
            return {
                "at_s": c["at_s"],
                "after_s": c["after_s"],
                "source": "detected",
                "signal": c["signal"],
                "evidence": c["evidence"],
                "flow": e["index"],
                # Every change found in that flow (a path there and back is two), each with
                # its own adaptation time.
                "all": [
                    {
                        k: x[k]
                        for k in ("at_s", "after_s", "signal", "evidence", "adaptation_time_s")
                    }
                    for x in e["path_changes"]
                ],
            }
    return {
        "at_s": None,
        "source": "none",
        "evidence": "no change of path (tunnel endpoint, hop count, RTT or data rate) found "
        "in the data of any flow",
    }
