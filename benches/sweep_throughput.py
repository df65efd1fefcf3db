"""Benchmark of `vho sweep`: runs per second with 1 and 2 local workers and on a 2-worker Dask
LocalCluster, and the engine's overhead per run against the simulation's own time.

    python3 benches/sweep_throughput.py [--runs N] [--long-runs M]

- *short runs*: the Fig. 1 case (200 KB, WLAN -> GPRS), about 1 ms each;
- *10 ms runs*: the 20 MB speed-benchmark cell at 45 MB (about 10 ms each on this machine),
  where the overhead is (workers x elapsed - sum of the runs' own wall time) / that sum; the
  runs' own time (``wall_s`` in each row) includes loading the scenario.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from vho import sweep

ROOT = Path(__file__).resolve().parent.parent


def sweep_file(d: Path, scenario: Path, runs: int, extra: str = "") -> Path:
    f = d / f"{scenario.stem}-{runs}.toml"
    f.write_text(
        f'[sweep]\nscenario = "{scenario}"\nreplications = {runs // 4}\n{extra}'
        '[[axis]]\nkey = "handover.0.window"\nvalues = ["0 s", "1 s", "2 s", "3 s"]\n',
        encoding="utf-8",
    )
    return f


def timed(s: sweep.Sweep, out: Path, **kw: object) -> tuple[float, float, int]:
    t0 = time.perf_counter()
    sweep.run(s, out, quiet=True, **kw)  # type: ignore[arg-type]
    elapsed = time.perf_counter() - t0
    df = sweep.results(out)
    assert df["error"].isna().all(), df["error"].dropna().head()
    return elapsed, float(df["wall_s"].sum()), len(df)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=8000)
    ap.add_argument("--long-runs", type=int, default=1000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        short = sweep.load(
            sweep_file(d, ROOT / "scenarios/examples/dk-fig1-wlan-gprs.toml", a.runs)
        )
        rates = {}
        for label, kw in (("1 worker", {"workers": 1}), ("2 workers", {"workers": 2})):
            el, own, n = timed(short, d / label.replace(" ", ""), **kw)
            rates[label] = n / el
            print(
                f"short runs, {label:>16}: {n} runs in {el:.2f} s = {n / el:,.0f} runs/s "
                f"(runs' own time {own / n * 1e3:.2f} ms each)"
            )
        from distributed import LocalCluster

        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as c:
            el, own, n = timed(short, d / "dask", scheduler=c.scheduler_address)
            rates["dask"] = n / el
            print(
                f"short runs, 2-worker LocalCluster: {n} runs in {el:.2f} s = {n / el:,.0f} runs/s"
            )
        print(
            f"ratio 2 workers / 1 worker: {rates['2 workers'] / rates['1 worker']:.2f} "
            "(target >= 1.8)"
        )
        scen = d / "long.toml"
        scen.write_text(
            (ROOT / "benches/scenarios/dk-wlan-gprs-20mb.toml")
            .read_text()
            .replace('size = "20 MB"', 'size = "45 MB"'),
            encoding="utf-8",
        )
        long = sweep.load(sweep_file(d, scen, a.long_runs))
        for workers in (1, 2):
            el, own, n = timed(long, d / f"long{workers}", workers=workers)
            over = (workers * el - own) / own
            print(
                f"10 ms runs, {workers} worker(s): {n} runs in {el:.2f} s, runs' own time "
                f"{own / n * 1e3:.2f} ms each, overhead {over * 100:.1f} % (target < 5 %)"
            )


if __name__ == "__main__":
    main()
