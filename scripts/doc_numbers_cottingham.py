"""The source of the Cottingham & Vidales pages' study figures (`docs/studies/cottingham.md`,
`docs/design/cottingham.md`), for `scripts/doc_numbers.py` (which names it and says it is
*full*): one `vho reproduce cottingham` at its defaults (seeds 1-200, about a minute on 2
cores), read from its `report.md`, `table.csv` and `runs.csv`. ``VHO_DOC_COTTINGHAM=DIR``
reads a run already made (at this commit) instead of making one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

_KEEP: list[tempfile.TemporaryDirectory[str]] = []


def _out() -> Path:
    if os.environ.get("VHO_DOC_COTTINGHAM"):
        return Path(os.environ["VHO_DOC_COTTINGHAM"])
    _KEEP.append(tempfile.TemporaryDirectory())
    out = Path(_KEEP[-1].name) / "cottingham"
    subprocess.run(
        [sys.executable, "-m", "vho.cli", "reproduce", "cottingham", "--quiet", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    return out


def _ms(x: float) -> str:
    return f"{x:,.0f}"


@cache
def cotstudy() -> dict[str, str]:
    """Table 1's means, σ's and shares per case, where T_n goes, and the verdicts of the
    paper's numbers and claims, from the study at its defaults."""
    import pandas as pd

    out = _out()
    report = (out / "report.md").read_text(encoding="utf-8")
    m = re.search(r"\*\*(\d+) of (\d+) paper numbers agree", report)
    if m is None:
        raise ValueError(f"{out / 'report.md'}: no agreement line")
    v: dict[str, str] = {"agree": f"{m.group(1)} of {m.group(2)}"}
    runs = pd.read_csv(out / "runs.csv")
    table = pd.read_csv(out / "table.csv").set_index("key")
    for case in ("wlan-gprs", "lan-gprs"):
        k = case.split("-")[0]
        r = runs[(runs["case"] == case) & (runs["variant"] == "base")]
        v[f"{k}_n"] = str(len(r))
        for col, name in (("t_n_s", "t_n"), ("t_a_s", "t_a")):
            v[f"{k}_{name}"] = _ms(r[col].mean() * 1e3)
            v[f"{k}_{name}_sd"] = _ms(r[col].std() * 1e3)
            sigma = table.loc[f"{case}.{name}.sigma"]
            v[f"{k}_{name}_sd_ratio"] = f"{float(sigma['diff']):.2f}"
            v[f"{k}_{name}_verdict"] = str(table.loc[f"{case}.{name}.mean", "verdict"])
        v[f"{k}_total"] = _ms((r["t_n_s"] + r["t_a_s"]).mean() * 1e3)
        v[f"{k}_share_t_a"] = f"{r['share_t_a'].mean() * 100:.1f}"
        for col in ("t_d_s", "t_r_s", "ba_to_ro_s", "tunnelled_before_ro_s"):
            v[f"{k}_{col.removesuffix('_s')}"] = f"{r[col].mean():.2f}"
    for claim in ("t_n_larger", "share_t_a_less", "ba_to_ro_longer", "t_a_similar"):
        v[claim] = str(table.loc[f"lan-gprs.{claim}", "verdict"])
    return v
