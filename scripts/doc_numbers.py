"""Numbers the docs quote, each computed by the run that shows it.

In a Markdown file a computed number is written ``<!--n:NAME-->VALUE<!--/n-->`` (the comments do
not show when the file is rendered). Each NAME belongs to a *source* below: a function that makes
one run (or a few) and returns the values of its names as the text the docs print. So a doc that
disagrees with the code fails a test (``tests/test_doc_numbers.py`` runs ``--check`` on the
README), and after a change of behaviour ``--write`` puts the new values in.

    python3 scripts/doc_numbers.py --check README.md     # exit 1 and a line per stale number
    python3 scripts/doc_numbers.py --write README.md     # rewrite them

A source is named by the prefix of its names (``cottingham.t_n`` is the ``cottingham``
source's ``t_n``). Keep sources quick: the check runs in CI.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = re.compile(r"<!--n:([a-z0-9_.-]+)-->(.*?)<!--/n-->", re.S)


def _s(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


@cache
def cottingham() -> dict[str, str]:
    """The bundled Cottingham & Vidales example (WLAN lost at 30 s, Mobile IPv6 to GPRS): its
    handover's steps from `summary.json` and `vho analyze` of the mobile's capture."""
    import vho

    scenario = ROOT / "scenarios" / "examples" / "cottingham-wlan-gprs.toml"
    with tempfile.TemporaryDirectory() as tmp:
        r = vho.run(scenario, out_dir=Path(tmp) / "run")
        h = r.summary["handovers"][0]["mipv6"]
        f = r.summary["flows"][0]
        a = vho.analyze(Path(tmp) / "run" / "mn.pcap", ta_mean="after-handover")
        (e,) = a.metrics["flows"]
        found = a.metrics["handover"]
    return {
        "t_n": _s(h["t_n_s"]),
        "t_d": _s(h["t_d_s"]),
        "t_c": _s(h["t_c_s"]),
        "t_r": _s(h["t_r_s"]),
        "bu_sent": _s(h["bu_sent_s"]),
        "ba": _s(h["ba_s"]),
        "bu_cn_sent": _s(h["bu_cn_sent_s"]),
        "first_ro": _s(h["first_route_optimised_s"]),
        "timeouts": str(f["timeouts"]),
        "found_at": _s(found["at_s"]),
        "t_a": _s(e["adaptation_time_s"]),
    }


SOURCES: dict[str, Callable[[], dict[str, str]]] = {"cottingham": cottingham}


def value(name: str) -> str:
    source, _, key = name.partition(".")
    if source not in SOURCES:
        raise KeyError(f"no source {source!r} for {name!r} (sources: {', '.join(SOURCES)})")
    values = SOURCES[source]()
    if key not in values:
        raise KeyError(f"source {source!r} has no {key!r} (it has: {', '.join(values)})")
    return values[key]


def stale(text: str) -> list[tuple[str, str, str]]:
    """(name, written, computed) of every number in ``text`` that differs from its source."""
    out = []
    for m in MARK.finditer(text):
        v = value(m.group(1))
        if m.group(2) != v:
            out.append((m.group(1), m.group(2), v))
    return out


def rewrite(text: str) -> str:
    return MARK.sub(lambda m: f"<!--n:{m.group(1)}-->{value(m.group(1))}<!--/n-->", text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="fail on a stale number")
    g.add_argument("--write", action="store_true", help="rewrite the numbers")
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    bad = 0
    for path in args.files:
        text = path.read_text()
        if args.write:
            new = rewrite(text)
            if new != text:
                path.write_text(new)
                print(f"{path}: rewritten")
            continue
        for name, written, computed in stale(text):
            print(f"{path}: {name}: the doc says {written!r}, the code gives {computed!r}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
