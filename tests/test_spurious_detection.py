"""Spurious-timeout detection on whole runs (issue 19): F-RTO (RFC 5682), Eifel (RFC 3522)
and D-SACK (RFC 3708) find the timeouts a handover to a slow link makes, and none of the
genuine ones random loss makes. The simulator's ground truth (`spurious_timeouts`) is the
referee; the sender's own belief is `spurious_timeouts_detected`."""

from __future__ import annotations

from pathlib import Path

import vho

ROOT = Path(__file__).resolve().parent.parent
THESIS = ROOT / "scenarios/examples/thesis-wavelan-gsm.toml"
LOSSY = ROOT / "benches/scenarios/lossy-link.toml"
ALL = 'flow.0.tcp.spurious_detection=["frto", "eifel", "dsack"]'


def _flow(scenario: Path, *sets: str, seed: int | None = None) -> dict:
    r = vho.run(scenario, seed=seed, overrides=["flow.0.tcp.dsack=true", *sets])
    (f,) = r.flows
    return f


def _thesis(tcp: str) -> vho.RunResult:
    """The thesis example with its flow's `tcp` table replaced."""
    old = 'tcp = { profile = "linux-2.0", mss = 1420, receive_window = "16 KiB" }'
    text = THESIS.read_text()
    assert old in text
    return vho.run(text.replace(old, f"tcp = {{ {tcp} }}"))


def test_after_wavelan_to_gsm_every_spurious_timeout_is_found_and_the_window_not_resent() -> None:
    # The thesis's case (§7.1.2) with its Linux 2.0.36: the RTO at the switch is the 200 ms
    # floor, and it expires over GSM again and again although nothing is lost.
    base = vho.run(THESIS)
    (off,) = base.flows
    series = base.tcp["flow0"]
    at = base.summary["handovers"][0]["at_s"]
    assert series[series.t_s <= at].rto_s.iloc[-1] == 0.2
    assert off["spurious_timeouts"] >= 3 and off["spurious_timeouts_detected"] == 0
    assert off["spurious_retransmissions"] == off["retransmissions"]
    # Today's linux profile (F-RTO, Eifel-style and D-SACK undo) finds every one and resumes
    # with new data instead of resending the window. Its tail loss probes (RFC 8985 §7) resend
    # one segment each when the 16 KiB receive window holds new data back (§7.3: "the
    # highest-sequence segment sent"): over GSM's 700 ms they too are spurious, but they are
    # single probes, not the window.
    (on,) = _thesis('profile = "linux", mss = 1420, receive_window = "16 KiB"').flows
    assert on["spurious_timeouts_detected"] == on["spurious_timeouts"] >= 1
    assert (on["retransmissions"] - on["tlp_retransmissions"]) * 5 <= off["retransmissions"]
    assert on["tlp_retransmissions"] >= 1
    assert on["transfer_time_s"] < 0.75 * off["transfer_time_s"]
    # F-RTO alone works for Linux 2.0 too (no SACK, no timestamps), where its window lets
    # it send new data (RFC 5682 step 2(b)); it never calls a genuine timeout spurious.
    (frto,) = _thesis(
        'profile = "linux-2.0", mss = 1420, receive_window = "16 KiB", '
        'spurious_detection = ["frto"]'
    ).flows
    assert 1 <= frto["spurious_timeouts_detected"] <= frto["spurious_timeouts"]
    assert frto["retransmissions"] < off["retransmissions"]


def test_random_loss_makes_no_false_verdict() -> None:
    # 3 % loss on GPRS, no handover: the timeouts are genuine, and the detectors (F-RTO, Eifel,
    # D-SACK, Linux's undo) must call none of them spurious (RFC 5682 §1, RFC 3522 §1: a false
    # verdict restores a window on a path that is losing). An F-RTO that measured step 3's SACK
    # blocks against SND.MAX instead of RecoveryPoint called two genuine timeouts of seed 1
    # spurious. Loss detection by duplicate ACKs and SACK, so that timeouts happen: with RACK the
    # linux profile takes one in six seeds (seed 6, spurious and undetectable: its fast
    # retransmission waits in the GPRS queue past the RTO; F-RTO does not start during fast
    # recovery, RFC 5682 §3.1 step 1, and the ACK Eifel reads acknowledges everything, RFC 3522
    # §3.3's ambiguity).
    timeouts = 0
    for seed in range(1, 11):
        f = _flow(
            LOSSY,
            'flow.0.tcp.profile="linux"',
            'flow.0.tcp.loss_detection="rfc6675"',
            "access.link.down.loss=0.03",
            ALL,
            seed=seed,
        )
        assert f["completed"]
        assert f["spurious_timeouts_detected"] == f["spurious_timeouts"], seed
        timeouts += f["timeouts"]
    # 11 over these seeds, so the verdicts are not vacuous (seeds 1-6 gave 7 before the linux
    # profile kept a segment whose resend is in flight out of a new recovery, issue 33 defect
    # 9, and 4 after: fewer resends, fewer timeouts).
    assert timeouts >= 8
    for seed in range(1, 7):
        f = _flow(LOSSY, 'flow.0.tcp.profile="linux"', "access.link.down.loss=0.03", ALL, seed=seed)
        assert f["completed"]
        assert f["spurious_timeouts_detected"] <= f["spurious_timeouts"], seed
