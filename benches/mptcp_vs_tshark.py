"""`vho analyze`'s Multipath TCP analysis against tshark's MPTCP dissector (issue 39, item 4).

For each capture: tshark (`-o mptcp.analyze_mappings:TRUE -o
mptcp.intersubflows_retransmission:TRUE`; one pass, and two for `mptcp.reinjected_in`) gives
per frame its TCP conversation
(`tcp.stream`), its MPTCP connection (`mptcp.stream`), its DSN (`mptcp.dsn`, relative to the
IDSN), the frame of its mapping (`mptcp.related_mapping`), and the frames it reinjects or that
reinject it (`mptcp.reinjection_of`, `mptcp.reinjected_in`); vho's analysis gives the same per
data segment. Compared: the connections' subflows (token joins), the DSN of every data
segment, the mappings per subflow (segments grouped by tshark's related mapping, against
vho's), and the reinjection frames both ways.

Usage:
    python3 benches/mptcp_vs_tshark.py CAPTURE...          compare captures (needs tshark)
    python3 benches/mptcp_vs_tshark.py --emulate DIR       make WLAN->GPRS hard and soft
                                                           captures with `vho emulate
                                                           --multipath` (root) into DIR and
                                                           compare them
    python3 benches/mptcp_vs_tshark.py --tshark-csv CAPTURE OUT.csv
                                                           store tshark's fields (what the
                                                           CI test compares against)
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

#: tshark's per-frame fields, in this order.
FIELDS = (
    "frame.number",
    "tcp.stream",
    "mptcp.stream",
    "tcp.len",
    "mptcp.dsn",
    "mptcp.rawdsn64",
    "mptcp.related_mapping",
    "mptcp.reinjection_of",
    "mptcp.reinjected_in",
    "tcp.seq",
    "tcp.options.mptcp.rawdataseqno",
    "tcp.options.mptcp.subflowseqno",
    "tcp.options.mptcp.dseqn8.flag",
)
PREFS = (
    "tcp.analyze_sequence_numbers:TRUE",
    "mptcp.analyze_mptcp:TRUE",
    "mptcp.relative_sequence_numbers:TRUE",
    "mptcp.analyze_mappings:TRUE",
    "mptcp.intersubflows_retransmission:TRUE",
)


def _tshark(capture: Path, two_pass: bool) -> list[dict[str, str]]:
    cmd = ["tshark", "-r", str(capture), *(["-2"] if two_pass else [])]
    cmd += ["-T", "fields", "-E", "header=y"]
    cmd += ["-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for p in PREFS:
        cmd += ["-o", p]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return list(csv.DictReader(io.StringIO(out), delimiter="\t"))


def tshark_rows(capture: Path) -> list[dict[str, str]]:
    """tshark's fields for every frame of ``capture``: from one pass, as Wireshark shows a
    capture, but ``mptcp.reinjected_in`` and ``mptcp.related_mapping`` from two passes (``-2``:
    one pass cannot name a later frame, and names each frame its own mapping's; two name the
    last frame that carried the mapping). tshark 4.0.17's two passes get a joined subflow's
    DSNs wrong (its ``mptcp.rawdsn64`` is not what the frame's DSS option says, and no frame
    of it is a ``mptcp.reinjection_of``), so the rest is the first pass's."""
    one = _tshark(capture, two_pass=False)
    two = {r["frame.number"]: r for r in _tshark(capture, two_pass=True)}
    for r in one:
        for f in ("mptcp.reinjected_in", "mptcp.related_mapping"):
            r[f] = two.get(r["frame.number"], {}).get(f, "")
    return one


def write_csv(rows: list[dict[str, str]], path: Path) -> None:
    """tshark's rows as CSV, the MPTCP frames only (what the CI test reads)."""
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(FIELDS))
        w.writeheader()
        w.writerows(r for r in rows if r["mptcp.stream"] != "")


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _frames(text: str) -> set[int]:
    return {int(x) for x in text.split(",") if x}


def _first(text: str) -> str:
    return text.split(",")[0]


def field_dsns(rows: list[dict[str, str]]) -> dict[int, tuple[int, int, int, int]]:
    """Per data frame that carries an 8-octet DSS mapping, from tshark's own decoding of its
    options: (connection, subflow, DSN, length), the DSN being the mapping's
    (``tcp.options.mptcp.rawdataseqno``) plus the frame's offset into it (relative
    ``tcp.seq`` minus ``tcp.options.mptcp.subflowseqno``, RFC 8684 §3.3.1)."""
    out = {}
    for r in rows:
        if r["mptcp.stream"] == "" or int(r["tcp.len"] or 0) == 0:
            continue
        raw, ssn = r["tcp.options.mptcp.rawdataseqno"], r["tcp.options.mptcp.subflowseqno"]
        if not raw or not ssn or _first(r["tcp.options.mptcp.dseqn8.flag"]) not in ("1", "True"):
            continue
        dsn = int(_first(raw)) + int(r["tcp.seq"]) - int(_first(ssn))
        out[int(r["frame.number"])] = (
            int(r["mptcp.stream"]),
            int(r["tcp.stream"]),
            dsn % (1 << 64),
            int(r["tcp.len"]),
        )
    return out


def overlaps(frames: dict[int, tuple[int, int, int, int]]) -> tuple[set[int], set[int]]:
    """Frames whose DSN range overlaps an earlier frame's on another subflow of the same
    connection (reinjections), and the earlier frames so overlapped: the rule Wireshark's
    ``mptcp.reinjection_of`` / ``mptcp.reinjected_in`` state, over :func:`field_dsns`."""
    later, earlier = set(), set()
    items = sorted(frames.items())
    for i, (f, (c, s, lo, n)) in enumerate(items):
        for g, (c2, s2, lo2, n2) in items[:i]:
            if c2 == c and s2 != s and lo <= lo2 + n2 - 1 and lo2 <= lo + n - 1:
                later.add(f)
                earlier.add(g)
    return later, earlier


def tshark_figures(rows: list[dict[str, str]]) -> dict[str, Any]:
    """What tshark says, in the shape :func:`vho_figures` gives; ``dsn`` and the
    ``*_by_fields`` sets from tshark's decoding of each frame's options
    (:func:`field_dsns`), the others from its MPTCP analysis."""
    conns: dict[int, set[int]] = defaultdict(set)
    dsn: dict[int, int] = {}
    analysis_dsn: dict[int, int] = {}
    mapping_frame: dict[int, int] = {}
    mapping_groups: dict[int, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    reinjection, reinjected = set(), set()
    for r in rows:
        if r["mptcp.stream"] == "":
            continue
        frame, stream = int(r["frame.number"]), int(r["tcp.stream"])
        conns[int(r["mptcp.stream"])].add(stream)
        if int(r["tcp.len"] or 0) == 0:
            continue
        if r["mptcp.rawdsn64"]:
            analysis_dsn[frame] = int(_first(r["mptcp.rawdsn64"]))
        if r["mptcp.related_mapping"]:
            m = int(r["mptcp.related_mapping"].split(",")[0])
            mapping_groups[stream][m].add(frame)
            mapping_frame[frame] = m
        if _frames(r["mptcp.reinjection_of"]):
            reinjection.add(frame)
        if _frames(r["mptcp.reinjected_in"]):
            reinjected.add(frame)
    fields = field_dsns(rows)
    dsn = {f: v[2] for f, v in fields.items()}
    later, earlier = overlaps(fields)
    return {
        "connections": sorted(sorted(s) for s in conns.values()),
        "dsn": dsn,
        "analysis_dsn": analysis_dsn,
        "mapping_frame": mapping_frame,
        "mappings": {
            s: sorted(sorted(g) for g in groups.values()) for s, groups in mapping_groups.items()
        },
        "reinjections": reinjection,
        "reinjected_later": reinjected,
        "reinjections_by_fields": later,
        "reinjected_later_by_fields": earlier,
    }


def vho_figures(m: dict[str, Any]) -> dict[str, Any]:
    """The same from vho's MPTCP analysis (``CaptureAnalysis.mptcp``, or vho-trace's
    ``MptcpResult`` as JSON)."""
    seg = m["segments"]
    conns = [sorted(s["index"] for s in c["subflows"]) for c in m["connections"]]
    dsn, groups, mapping_frame = {}, defaultdict(lambda: defaultdict(set)), {}
    reinjection, reinjected = set(), set()
    for i, frame in enumerate(seg["frame"]):
        dsn[frame] = seg["dsn_raw"][i]
        groups[seg["subflow"][i]][seg["mapping_frame"][i]].add(frame)
        mapping_frame[frame] = seg["mapping_frame"][i]
        if seg["flags"][i] & 1:
            reinjection.add(frame)
        if seg["flags"][i] & 2:
            reinjected.add(frame)
    return {
        "connections": sorted(conns),
        "dsn": dsn,
        "mapping_frame": mapping_frame,
        "mappings": {s: sorted(sorted(g) for g in gs.values()) for s, gs in groups.items()},
        "reinjections": reinjection,
        "reinjected_later": reinjected,
    }


def compare(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """The figures side by side, and whether each agrees."""
    frames = sorted(set(ours["dsn"]) | set(theirs["dsn"]))
    dsn_equal = sum(ours["dsn"].get(f) == theirs["dsn"].get(f) for f in frames)
    analysed = theirs["analysis_dsn"]
    analysis_equal = sum(ours["dsn"].get(f) == v for f, v in analysed.items())
    n_maps = {s: len(g) for s, g in ours["mappings"].items()}
    t_maps = {s: len(g) for s, g in theirs["mappings"].items()}
    return {
        "connections": {"vho": ours["connections"], "tshark": theirs["connections"]},
        "subflows": {
            "vho": sum(len(c) for c in ours["connections"]),
            "tshark": sum(len(c) for c in theirs["connections"]),
        },
        "data_segments": {"vho": len(ours["dsn"]), "tshark": len(theirs["dsn"])},
        "dsn_equal": {"equal": dsn_equal, "of": len(frames)},
        "dsn_equal_to_mptcp_rawdsn64": {"equal": analysis_equal, "of": len(analysed)},
        "mappings_per_subflow": {"vho": n_maps, "tshark": t_maps},
        "mapping_groups_equal": ours["mappings"] == theirs["mappings"],
        "reinjections": {"vho": len(ours["reinjections"]), "tshark": len(theirs["reinjections"])},
        "reinjection_frames_equal": ours["reinjections"] == theirs["reinjections"],
        "reinjected_later": {
            "vho": len(ours["reinjected_later"]),
            "tshark": len(theirs["reinjected_later"]),
        },
        "reinjected_later_frames_equal": ours["reinjected_later"] == theirs["reinjected_later"],
        "reinjected_later_both": len(ours["reinjected_later"] & theirs["reinjected_later"]),
        "reinjections_by_fields": {
            "vho": len(ours["reinjections"]),
            "tshark_fields": len(theirs["reinjections_by_fields"]),
            "frames_equal": ours["reinjections"] == theirs["reinjections_by_fields"],
        },
        "reinjected_later_by_fields": {
            "vho": len(ours["reinjected_later"]),
            "tshark_fields": len(theirs["reinjected_later_by_fields"]),
            "frames_equal": ours["reinjected_later"] == theirs["reinjected_later_by_fields"],
        },
    }


def agrees(c: dict[str, Any]) -> bool:
    """Connections, every data segment's DSN (by tshark's analysis and by its decoded
    options), every segment's mapping, the reinjections (``mptcp.reinjection_of``, one pass)
    equal; every frame tshark's two passes say was reinjected later (``mptcp.reinjected_in``)
    is one vho says so too, and vho's are those tshark's decoded options give."""
    return (
        c["connections"]["vho"] == c["connections"]["tshark"]
        and c["dsn_equal"]["equal"] == c["dsn_equal"]["of"]
        and c["dsn_equal_to_mptcp_rawdsn64"]["equal"] == c["dsn_equal_to_mptcp_rawdsn64"]["of"]
        and c["mapping_groups_equal"]
        and c["reinjection_frames_equal"]
        and c["reinjections_by_fields"]["frames_equal"]
        and c["reinjected_later_by_fields"]["frames_equal"]
        and c["reinjected_later_both"] == c["reinjected_later"]["tshark"]
    )


def line(c: dict[str, Any]) -> str:
    """The figures in one line: vho's, then tshark's."""
    r, rl = c["reinjections_by_fields"], c["reinjected_later_by_fields"]
    return (
        f"subflows {c['subflows']['vho']}/{c['subflows']['tshark']}, data segments "
        f"{c['data_segments']['vho']}/{c['data_segments']['tshark']}, DSN equal "
        f"{c['dsn_equal']['equal']}/{c['dsn_equal']['of']} (mptcp.rawdsn64 "
        f"{c['dsn_equal_to_mptcp_rawdsn64']['equal']}/{c['dsn_equal_to_mptcp_rawdsn64']['of']}), "
        f"mappings {sum(c['mappings_per_subflow']['vho'].values())}/"
        f"{sum(c['mappings_per_subflow']['tshark'].values())} (groups equal "
        f"{c['mapping_groups_equal']}), reinjections {r['vho']}/{r['tshark_fields']} by "
        f"fields, {c['reinjections']['tshark']} by mptcp.reinjection_of; reinjected later "
        f"{rl['vho']}/{rl['tshark_fields']} by fields, mptcp.reinjected_in "
        f"{c['reinjected_later']['tshark']} (all {c['reinjected_later_both']} in vho's)"
    )


def vho_mptcp(capture: Path) -> dict[str, Any]:
    from vho.analysis import analyze

    m = analyze(capture).mptcp
    if m is None:
        raise SystemExit(f"{capture}: vho finds no MPTCP in it")
    return m


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("captures", nargs="*", type=Path)
    ap.add_argument("--emulate", type=Path, metavar="DIR")
    ap.add_argument("--tshark-csv", nargs=2, type=Path, metavar=("CAPTURE", "OUT"))
    ap.add_argument("--verbose", action="store_true", help="every figure, as JSON")
    args = ap.parse_args(argv)
    if args.tshark_csv:
        write_csv(tshark_rows(args.tshark_csv[0]), args.tshark_csv[1])
        return 0
    captures = list(args.captures)
    if args.emulate:
        captures += emulate_captures(args.emulate)
    ok = True
    for cap in captures:
        c = compare(vho_figures(vho_mptcp(cap)), tshark_figures(tshark_rows(cap)))
        ok &= agrees(c)
        print(f"{cap}: {'agrees' if agrees(c) else 'DIFFERS'}: {line(c)}")
        if args.verbose:
            print(json.dumps(c, indent=1, default=sorted))
    return 0 if ok else 1


def emulate_captures(out: Path, scenarios: dict[str, str] | None = None) -> list[Path]:
    """WLAN -> GPRS, hard and soft (``tests/mptcp_scenarios.py``, or ``scenarios``: name ->
    TOML), 300 KB over Multipath TCP through `vho emulate --multipath` (root): each run's
    captures at the mobile and the correspondent."""
    from vho.emulate import emulate

    if scenarios is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from mptcp_scenarios import SCENARIOS

        scenarios = SCENARIOS
    caps = []
    for name, text in scenarios.items():
        d = out / name
        emulate(text, out_dir=d, multipath=True, force=True)
        caps += [d / "mh.pcap", d / "ch.pcap"]
    return caps


if __name__ == "__main__":
    sys.exit(main())
