"""The output reference (`docs/output-reference.md`, issue 37 item 5) is held to the code: every
key `vho run` writes in `summary.json` for the bundled examples, every column of its Parquet
series and of a sweep's results, every key of `metrics.json` that `vho analyze` writes for
their captures, and the addresses and ports in those captures are documented; and the
document is what `python3 -m vho.outputs` prints."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pyarrow.parquet as pq
from key_paths import add_paths

import vho
from vho import outputs
from vho.capture import read_tcp

ROOT = Path(__file__).resolve().parent.parent


def test_every_key_of_the_examples_summaries_is_documented() -> None:
    seen: set[str] = set()
    for scenario in sorted((ROOT / "scenarios" / "examples").glob("*.toml")):
        r = vho.run(scenario, overrides=['run.stop="20 s"'])
        add_paths(r.summary, "", seen)
    # A probe's detections are documented as one entry (their fields listed in it).
    seen = {p for p in seen if not p.startswith("flows[].probe.detections[].")}
    missing = sorted(p for p in seen if not outputs.documented(p))
    assert not missing, missing
    assert len(seen) > 100


def test_the_reference_document_is_what_vho_outputs_prints() -> None:
    doc = (ROOT / "docs" / "output-reference.md").read_text()
    assert doc == outputs.markdown(), (
        "regenerate: python3 -m vho.outputs > docs/output-reference.md"
    )


def test_an_undocumented_key_is_caught() -> None:
    assert outputs.documented("flows[].retransmissions")
    assert outputs.documented("node_functions[].counters.advertisements")
    assert not outputs.documented("flows[].no_such_key")
    assert not outputs.documented("node_functions[].counters.no_such_counter")


def _example_runs(tmp: Path) -> list[tuple[str, Path, dict]]:
    out = []
    for scenario in sorted((ROOT / "scenarios" / "examples").glob("*.toml")):
        d = tmp / scenario.stem
        r = vho.run(scenario, out_dir=d, overrides=['run.stop="20 s"'])
        out.append((scenario.stem, d, r.summary))
    return out


def test_every_parquet_column_and_metrics_key_of_the_examples_is_documented(
    tmp_path: Path,
) -> None:
    columns: set[tuple[str, str]] = set()
    keys: set[str] = set()
    for _, d, _ in _example_runs(tmp_path):
        for p in d.glob("*.parquet"):
            columns |= {(p.name, c) for c in pq.read_schema(p).names}
        for cap in d.glob("*.pcap"):
            add_paths(vho.analyze(cap).metrics, "", keys)
            add_paths(vho.analyze(cap, ta_mean="after-handover").metrics, "", keys)
    assert {f for f, _ in columns} >= {"series_tcp.parquet", "series_tfrc.parquet"}
    missing = sorted(c for c in columns if not outputs.documented_column(*c))
    assert not missing, missing
    # A handover's list and a flow's path changes are documented with their fields.
    missing = sorted(k for k in keys if not outputs.documented_metric(k))
    assert not missing, missing
    assert len(keys) > 80


def test_every_column_of_a_sweeps_results_is_documented(tmp_path: Path) -> None:
    import pandas as pd

    sweep = tmp_path / "s.toml"
    sweep.write_text(
        f'[sweep]\nscenario = "{ROOT / "scenarios/examples/dk-fig1-wlan-gprs.toml"}"\n'
        "replications = 2\n"
        '[[axis]]\nkey = "handover.0.at"\nvalues = ["0.5 s", "1 s"]\n'
    )
    r = subprocess.run(
        [sys.executable, "-m", "vho.cli", "sweep", str(sweep), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    df = pd.read_parquet(tmp_path / "o" / "results")
    metrics = set(vho.run(ROOT / "scenarios/examples/dk-fig1-wlan-gprs.toml").flows[0])
    missing = [
        c for c in df.columns if outputs.sweep_column_pattern(c, ["handover.0.at"], metrics) is None
    ]
    assert not missing, missing
    assert outputs.sweep_column_pattern("no_such_column", [], metrics) is None


def _ipv6_ends(node: int, mobile: bool, ha: int, links: int, port: int) -> set[tuple[str, int]]:
    """Where a Mobile IPv6 run's node may appear: a fixed node at its address, a mobile at its
    home address or any care-of address."""
    if not mobile:
        return {(outputs.ipv6_address(node), port)}
    return {(outputs.ipv6_address(node, home_agent=ha), port)} | {
        (outputs.ipv6_address(node, link=k), port) for k in range(links)
    }


def test_the_captures_addresses_and_ports_are_the_documented_plan(tmp_path: Path) -> None:
    for name, d, summary in _example_runs(tmp_path):
        resolved = tomllib.loads((d / "scenario.resolved.toml").read_text())
        nodes = [n["name"] for n in resolved["node"]]
        links = [ln["name"] for ln in resolved["link"]]
        mip = "mipv6" in resolved
        if mip:
            ha = nodes.index(resolved["mipv6"]["home_agent"])
            m = resolved["mobile"]  # a table, or a list of them
            mobiles = {nodes.index(x["node"]) for x in (m if isinstance(m, list) else [m])}
        for cap in d.glob("*.pcap"):
            seen = read_tcp(cap)
            pairs = set(zip(seen["src"], seen["sport"], strict=True))
            at = nodes.index(cap.stem)
            for i, f in enumerate(summary["flows"]):
                if f.get("tfrc") is not None or f.get("cross") is not None:
                    continue
                sport, dport = outputs.tcp_ports(i)
                src, dst = nodes.index(f["from"]), nodes.index(f["to"])
                # Every capture on the path holds the data; the receiver's own, its ACKs too.
                ends = [(src, sport)] + ([(dst, dport)] if at == dst else [])
                for node, port in ends:
                    if mip:
                        want = _ipv6_ends(node, node in mobiles, ha, len(links), port)
                    else:
                        want = {(outputs.ipv4_address(node), port)}
                    assert pairs & want, (name, cap.name, f["name"], want, pairs)
    # The examples in the document are the plan's.
    doc = outputs.ADDRESSES
    assert "10.0.0.3" in doc and outputs.ipv4_address(2) == "10.0.0.3"
    assert "2001:db8:0:1::104" in doc and outputs.ipv6_address(4, home_agent=1) == (
        "2001:db8:0:1::104"
    )


def test_dir_vho_shows_the_public_api() -> None:
    names = dir(vho)
    for name in ("run", "RunResult", "analyze", "CaptureAnalysis", "resolved", "presets"):
        assert name in names, name
        assert name in vho.__all__, name
    assert set(vho.__all__) <= set(names)


def test_the_native_stub_declares_every_function_the_module_exports() -> None:
    import ast
    import inspect

    from vho import _native

    stub = ast.parse((ROOT / "python" / "vho" / "_native.pyi").read_text())
    declared = {n.name for n in stub.body if isinstance(n, ast.FunctionDef | ast.ClassDef)} | {
        n.target.id for n in stub.body if isinstance(n, ast.AnnAssign)
    }
    exported = {n for n in dir(_native) if not n.startswith("__")} | {"__version__"}
    assert declared == exported, (sorted(exported - declared), sorted(declared - exported))
    # And with the native functions' own parameter names.
    for node in stub.body:
        if isinstance(node, ast.FunctionDef):
            sig = inspect.signature(getattr(_native, node.name))
            assert [a.arg for a in node.args.args] == list(sig.parameters), node.name


def _ip_headers(cap: Path) -> list[bytes]:
    """The IP header bytes of every record of a classic pcap with link type RAW (vho's)."""
    import struct

    data = cap.read_bytes()
    assert struct.unpack_from("<I", data, 20)[0] == 101, "link type RAW"
    out, off = [], 24
    while off < len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        out.append(data[off + 16 : off + 16 + min(incl, 60)])
        off += 16 + incl
    return out


def _routers(resolved: dict) -> dict[tuple[str, str], int]:
    """Routers between every pair of nodes on a shortest path over the scenario's links."""
    names = [n["name"] for n in resolved["node"]]
    near: dict[str, set[str]] = {n: set() for n in names}
    for link in resolved["link"]:
        a, b = link["between"]
        near[a].add(b)
        near[b].add(a)
    out = {}
    for start in names:
        dist, todo = {start: 0}, [start]
        while todo:
            u = todo.pop(0)
            for v in sorted(near[u]):
                if v not in dist:
                    dist[v] = dist[u] + 1
                    todo.append(v)
        out.update({(start, v): max(d - 1, 0) for v, d in dist.items()})
    return out


def test_every_ipv4_ttl_in_a_capture_is_64_less_the_routers_passed(tmp_path: Path) -> None:
    # RFC 791 / RFC 8200 §3: each router that forwards a packet takes one off its TTL.
    checked = 0
    for name, d, _ in _example_runs(tmp_path):
        resolved = tomllib.loads((d / "scenario.resolved.toml").read_text())
        if "mipv6" in resolved:
            continue
        nodes = [n["name"] for n in resolved["node"]]
        routers = _routers(resolved)
        for cap in d.glob("*.pcap"):
            for ip in _ip_headers(cap):
                src = nodes[int.from_bytes(ip[12:16], "big") - (10 << 24) - 1]
                assert ip[8] == 64 - routers[(src, cap.stem)], (name, cap.name, src, ip[8])
                checked += 1
    assert checked > 1000
    # The common form: the mobile host's capture shows the correspondent's data one hop down.
    assert _routers({"node": [{"name": n} for n in "abc"], "link": [
        {"between": ["a", "b"]}, {"between": ["b", "c"]}
    ]})[("a", "c")] == 1  # fmt: skip


def test_dir_vho_holds_no_typing_helpers() -> None:
    assert not {"Any", "TYPE_CHECKING", "annotations"} & set(dir(vho))
