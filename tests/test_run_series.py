"""The series of `vho run --out` (issue 40 item 14): the core spills them into the staging
directory as the run goes and Parquet is written from the spill a row group at a time. What a
reader gets is what a run held in memory gives: the same frames, and up to a row group's rows
the same file bytes as ``DataFrame.to_parquet`` of them."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

import vho
from vho import runner

# Two TCP flows and a TFRC flow with TFRC Probe over a lossy bottleneck: every series kind,
# and a TCP file of two flows whose row groups can straddle them.
SCENARIO = """\
[run]
name = "series"
seed = 3
stop = "20 s"

[[node]]
name = "src"
kind = "host"
[[node]]
name = "r"
kind = "router"
[[node]]
name = "dst"
kind = "host"

[[link]]
name = "access"
between = ["src", "r"]
rate = "100 Mb/s"
delay = "10 ms"
queue = "100 packets"

[[link]]
name = "bottleneck"
between = ["r", "dst"]
rate = "2 Mb/s"
delay = "40 ms"
queue = "20 packets"
forward = { loss = 0.01, loss_at = "entry" }

[[flow]]
name = "a"
from = "src"
to = "dst"
size = "300 KB"

[[flow]]
name = "b"
from = "src"
to = "dst"
size = "200 KB"
start = "1 s"

[[flow]]
name = "t"
from = "src"
to = "dst"
kind = "tfrc"
remedies = ["ihn", "fra"]

[record]
series = true
"""


def _parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


def _tcp_file(held: vho.RunResult) -> pd.DataFrame:
    frames = [df.assign(flow=name) for name, df in held.tcp.items()]
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def held() -> vho.RunResult:
    return vho.run(SCENARIO)


def test_the_files_are_those_to_parquet_writes_of_the_frames_held_in_memory(
    tmp_path: Path, held: vho.RunResult
) -> None:
    # Up to ROW_GROUP_ROWS rows (every file here) a series file is byte for byte the
    # DataFrame.to_parquet of the frame a run without an output directory returns, as before
    # the rows were spilled.
    out = tmp_path / "run"
    vho.run(SCENARIO, out_dir=out)
    assert set(held.tcp) == {"a", "b"}
    assert (out / "series_tcp.parquet").read_bytes() == _parquet_bytes(_tcp_file(held))
    assert held.queues is not None and held.drops is not None and len(held.drops) > 0
    assert (out / "series_queues.parquet").read_bytes() == _parquet_bytes(held.queues)
    assert (out / "series_drops.parquet").read_bytes() == _parquet_bytes(held.drops)
    names = {p.name for p in out.iterdir()}
    assert {"series_tfrc.parquet", "series_probe.parquet"} <= names
    assert not [n for n in names if n.startswith(".series-")]


def test_row_groups_across_flows_keep_every_row_in_order(
    tmp_path: Path, held: vho.RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Row groups of 100 rows: flow a's last group goes on into flow b's rows; the frames read
    # back (RunResult reads a written run's series from its files) are those held in memory.
    import pyarrow.parquet as pq

    monkeypatch.setattr(runner, "ROW_GROUP_ROWS", 100)
    out = tmp_path / "run"
    r = vho.run(SCENARIO, out_dir=out)
    meta = pq.ParquetFile(out / "series_tcp.parquet").metadata
    assert meta.num_row_groups > 2
    assert {meta.row_group(i).num_rows for i in range(meta.num_row_groups - 1)} == {100}
    pd.testing.assert_frame_equal(pd.read_parquet(out / "series_tcp.parquet"), _tcp_file(held))
    assert list(r.tcp) == list(held.tcp)
    for name, df in held.tcp.items():
        pd.testing.assert_frame_equal(r.tcp[name], df)
    pd.testing.assert_frame_equal(r.queues, held.queues)
    pd.testing.assert_frame_equal(r.drops, held.drops)
    tfrc = pd.read_parquet(out / "series_tfrc.parquet")
    assert list(tfrc.columns) == ["t_s", "x_bps", "x_recv_bps", "p", "rtt_s", "flow"]
    assert set(tfrc["flow"]) == {"t"} and tfrc["t_s"].is_monotonic_increasing
    probe = pd.read_parquet(out / "series_probe.parquet")
    assert list(probe.columns) == ["t_s", "estimate_bps", "flow"]
    assert probe["estimate_bps"].dtype == "float64"


def test_a_written_run_reads_its_series_only_when_asked(tmp_path: Path) -> None:
    # The repr names the series without reading them; a series file removed before it is
    # asked for is not silently an empty series.
    r = vho.run(SCENARIO, out_dir=tmp_path / "run")
    assert "series: tcp, queues, throughput, drops" in repr(r)
    (tmp_path / "run" / "series_queues.parquet").unlink()
    with pytest.raises(FileNotFoundError):
        _ = r.queues


def test_a_string_column_is_the_one_a_list_gives() -> None:
    # runner._strings builds the link, node, flow and cause columns from codes without a
    # Python object per row; it must be the column a list of the values gave (missing: None,
    # a drop on no link), down to the Parquet bytes.
    import numpy as np

    values = ["wlan", None, "gprs"]
    codes = np.array([2, 0, 1, 1, 0], dtype="int64")
    want = pd.DataFrame({"link": [values[int(c)] for c in codes]})
    got = pd.DataFrame({"link": runner._strings(values, codes)})
    pd.testing.assert_frame_equal(got, want)
    assert _parquet_bytes(got) == _parquet_bytes(want)


def test_a_run_without_drops_writes_string_columns_for_them(tmp_path: Path) -> None:
    # An empty series_drops.parquet had its flow, link, from, to and cause as double (the
    # columns came from empty lists); they are strings as in any other run, so that a reader
    # concatenating runs gets one type.
    import pyarrow as pa
    import pyarrow.parquet as pq

    sets = ["link.1.forward.loss=0.0", 'link.1.queue="1000 packets"', 'run.stop="2 s"']
    vho.run(SCENARIO, out_dir=tmp_path / "run", overrides=sets)
    schema = pq.read_schema(tmp_path / "run" / "series_drops.parquet")
    assert pq.ParquetFile(tmp_path / "run" / "series_drops.parquet").metadata.num_rows == 0
    for name in ("flow", "link", "from", "to", "cause"):
        assert pa.types.is_large_string(schema.field(name).type) or pa.types.is_string(
            schema.field(name).type
        ), schema


def test_a_series_that_cannot_be_written_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    # A file size limit (as a full disk) stops the spill: the run is refused in one line that
    # names the output and the series, and neither the output nor its staging is left.
    import resource
    import signal
    import subprocess
    import sys

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    (tmp_path / "s.toml").write_text(SCENARIO)
    out = tmp_path / "out"
    args = [sys.executable, "-m", "vho.cli", "run", str(tmp_path / "s.toml"), "--out", str(out)]
    p = subprocess.run(
        [*args, "--set", 'run.stop="200 s"'], preexec_fn=limit, capture_output=True, text=True
    )
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith(f"{out}: cannot write the run's output: series queues: ")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.toml"]
