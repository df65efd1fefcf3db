"""Each target's sensitivity to each open value, from the trials themselves: Optuna's PED-ANOVA
importance evaluator (Watanabe et al., "PED-ANOVA: Efficiently Quantifying Hyperparameter
Importance in Arbitrary Subspaces", IJCAI 2023; ``optuna.importance.PedAnovaImportanceEvaluator``).

Why this one: it needs no model fitted to the trials (fANOVA, Optuna's default, fits a random
forest with scikit-learn, and SALib's Sobol indices need their own sample design, runs the
search would not have made), it is deterministic, and it reads the trials the search already
ran. Its importance of value v for target y is the share of y's variation, among the trials
whose y is in the best quantile, that v's marginal explains; each row sums to 1. With one
open value the row is 1 by construction.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from .spec import Calibration

#: The loss's row in the table.
LOSS = "loss"


def table(cal: Calibration, study: Any) -> pd.DataFrame:
    """Rows: the loss and each target; columns: the open values; cells: importance (NaN
    where it cannot be told: fewer than two finished trials, a target that never varied)."""
    import optuna
    from optuna.importance import PedAnovaImportanceEvaluator, get_param_importances
    from optuna.trial import TrialState

    names = [o.name for o in cal.open]
    done = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    rows = []
    targets: list[tuple[str, Any]] = [(LOSS, None)]
    for t in cal.targets:
        targets.append((t.name, lambda tr, n=t.name: tr.user_attrs["z"].get(n, math.nan) ** 2))
    for label, fn in targets:
        vals = [fn(tr) if fn else tr.value for tr in done]
        row: dict[str, Any] = {"target": label}
        finite = [v for v in vals if v is not None and math.isfinite(v)]
        if len(done) < 2 or len(set(finite)) < 2 or len(finite) < len(vals):
            row.update(dict.fromkeys(names, math.nan))
        else:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    imp = get_param_importances(
                        study,
                        evaluator=PedAnovaImportanceEvaluator(),
                        target=fn,
                        normalize=True,
                    )
                row.update({n: float(imp.get(n, 0.0)) for n in names})
            except (ValueError, RuntimeError, ZeroDivisionError, optuna.exceptions.OptunaError):
                row.update(dict.fromkeys(names, math.nan))
        rows.append(row)
    return pd.DataFrame(rows, columns=["target", *names])


def figure(tab: pd.DataFrame, path: Path, title: str) -> list[Path]:
    """A heat map of the table (targets down, open values across), PNG and SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    data = tab.drop(columns=["target"]).to_numpy(dtype=float)
    cols = list(tab.columns[1:])
    fig, ax = plt.subplots(
        figsize=(max(4.0, 1.6 * len(cols) + 2.5), max(2.2, 0.45 * len(tab) + 1.4)),
        constrained_layout=True,
    )
    im = ax.imshow(np.nan_to_num(data, nan=0.0), vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=20, ha="right", fontsize="small")
    ax.set_yticks(range(len(tab)), list(tab["target"]), fontsize="small")
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            v = data[i, j]
            ax.text(j, i, "-" if not math.isfinite(v) else f"{v:.2f}", ha="center",
                    va="center", color="w" if not math.isfinite(v) or v < 0.6 else "k",
                    fontsize="small")  # fmt: skip
    fig.colorbar(im, ax=ax, label="importance (PED-ANOVA, each row sums to 1)")
    ax.set_title(title, fontsize="small")
    out = []
    for ext in ("png", "svg"):
        p = path.parent / f"{path.name}.{ext}"
        # No date in the SVG, so that the same calibration writes the same file.
        fig.savefig(p, dpi=120, metadata={"Date": None} if ext == "svg" else None)
        out.append(p)
    plt.close(fig)
    return out
