"""The remedy figures the README quotes, on the thesis's links (the scenarios of
tests/test_remedies.py and the thesis example):

    python3 benches/thesis_remedies.py

GSM -> WaveLAN at 20 s (200 KB, Linux 2.0): t_a and transfer time without a remedy, with
flush-on-handover, with `flush = "discard"`, link-flow-control and cwnd-clamp; the RTO's fall
after its peak (1 MB) without and with fast-rto-decrease, with Linux 2.0's RTT sampling and
with one segment timed per round trip; WaveLAN -> GSM (the thesis example): spurious timeouts
without a remedy, with rto-reset at the instant and announced 1 s early, with frto, with both,
with cwnd-clamp, with link-flow-control and with red (its early drops on WaveLAN before the
switch and on GSM, the first GSM one's instant).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import vho

ROOT = Path(__file__).resolve().parent.parent
THESIS = ROOT / "scenarios/examples/thesis-wavelan-gsm.toml"


def _slow_to_fast() -> str:
    spec = importlib.util.spec_from_file_location("t", ROOT / "tests/test_remedies.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.SLOW_TO_FAST


def _flow(text: str | Path, *sets: str) -> dict:
    (f,) = vho.run(text, overrides=list(sets)).flows
    return f


def _rto_fall(text: str, remedies: str, *sets: str) -> tuple[float, float]:
    r = vho.run(text, overrides=[f"flow.0.remedies={remedies}", "record.series=true", *sets])
    t = r.tcp["flow0"]
    a = t[t.t_s > 20]
    peak = a.rto_s.idxmax()
    low = a[(a.index > peak) & (a.rto_s < 1.0)]
    return float(a.rto_s.max()), float(low.t_s.iloc[0] - a.t_s[peak])


def main() -> None:
    s2f = _slow_to_fast()
    print("GSM -> WaveLAN at 20 s, 200 KB, linux-2.0")
    for label, sets in (
        ("no remedy", []),
        ("flush-on-handover", ['flow.0.remedies=["flush-on-handover"]']),
        ('flush = "discard"', ['handover.0.flush="discard"']),
        ("link-flow-control", ['flow.0.remedies=["link-flow-control"]']),
        ("cwnd-clamp", ['flow.0.remedies=["cwnd-clamp"]']),
    ):
        f = _flow(s2f, *sets)
        ta = f["adaptation_time_s"]
        print(
            f"  {label:<20} t_a {'-' if ta is None else f'{ta:.2f} s':>7}  transfer "
            f"{f['transfer_time_s']:.1f} s  timeouts {f['timeouts']}  drops "
            f"{sum(d['packets'] for d in f['drops'])}"
        )
    big = s2f.replace('size = "200 KB"', 'size = "1 MB"')
    one = 'flow.0.tcp.rtt_sampling="one-per-rtt"'
    for sets in ((), (one,)):
        for remedies in ("[]", '["fast-rto-decrease"]'):
            peak, fall = _rto_fall(big, remedies, *sets)
            how = "one segment per RTT" if sets else "Linux 2.0's sampling"
            print(
                f"  1 MB {remedies:<24} {how:<22} RTO peak {peak:.1f} s, below 1 s "
                f"{fall:.2f} s later"
            )
    print("WaveLAN -> GSM (scenarios/examples/thesis-wavelan-gsm.toml)")
    for label, sets in (
        ("no remedy", []),
        ("rto-reset", ['flow.0.remedies=["rto-reset"]']),
        (
            "rto-reset, 1 s early",
            [
                'flow.0.remedies=["rto-reset"]',
                'handover.0.notify="before"',
                'handover.0.notify_offset="1 s"',
            ],
        ),
        ("frto", ['flow.0.remedies=["frto"]']),
        ("rto-reset + frto", ['flow.0.remedies=["rto-reset", "frto"]']),
        ("cwnd-clamp", ['flow.0.remedies=["cwnd-clamp"]']),
        ("link-flow-control", ['flow.0.remedies=["link-flow-control"]']),
        ("red", ['flow.0.remedies=["red"]']),
    ):
        f = _flow(THESIS, *sets)
        print(
            f"  {label:<20} spurious timeouts {f['spurious_timeouts']}, retransmissions "
            f"{f['retransmissions']}, transfer {f['transfer_time_s']:.1f} s"
        )
    r = vho.run(THESIS, overrides=['flow.0.remedies=["red"]', "record.series=true"])
    d = r.drops
    gsm = d[d.link == "gsm"]
    tcp = r.tcp["flow0"]
    print(
        f"  red: early drops {len(d[d.link == 'wavelan'])} on WaveLAN before the switch, "
        f"{len(gsm)} on GSM (the first {gsm.t_s.min() - 4.0:.0f} s after the switch); "
        f"SRTT peak {tcp.srtt_s.max():.1f} s"
    )


if __name__ == "__main__":
    main()
