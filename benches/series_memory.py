"""Peak memory of `vho run` with series on, against the run's length (issue 40 item 14): one
TFRC flow over scenarios/examples/tfrc-lossy.toml, `record.series = true`, each stop time
in a process of its own under `/usr/bin/time -v` (its maximum resident set size).

    python3 benches/series_memory.py                       # 1,000 and 10,000 s
    python3 benches/series_memory.py --stops 1000 10000 100000 --queues false

Before the series spilled to disk (7d4ad72): 1,000 s 215,944 kB, 10,000 s 645,880 kB,
100,000 s 5,231,804 kB. After (series handed out 16 Ki rows at a time, Parquet written a row
group at a time): 210,436 kB, 322,588 kB and 330,856 kB.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "examples" / "tfrc-lossy.toml"


def peak_kb(stop_s: int, queues: bool) -> tuple[int, float]:
    """(maximum resident set size in kB, wall seconds) of one run."""
    with tempfile.TemporaryDirectory() as tmp:
        args = ["/usr/bin/time", "-v", sys.executable, "-m", "vho.cli", "run", str(SCENARIO)]
        args += ["--set", f'run.stop="{stop_s} s"', "--set", f"record.queues={str(queues).lower()}"]
        args += ["--out", str(Path(tmp) / "out")]
        p = subprocess.run(args, capture_output=True, text=True, check=True)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    wall = re.search(
        r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr
    )
    assert rss and wall, p.stderr
    h, m, s = wall.groups()
    return int(rss[1]), int(h or 0) * 3600 + int(m) * 60 + float(s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stops", type=int, nargs="+", default=[1000, 10000], help="seconds")
    ap.add_argument("--queues", choices=["true", "false"], default="true")
    a = ap.parse_args()
    for stop in a.stops:
        kb, wall = peak_kb(stop, a.queues == "true")
        print(f"run.stop {stop:>7} s: peak RSS {kb:>10,} kB, wall {wall:.1f} s", flush=True)


if __name__ == "__main__":
    main()
