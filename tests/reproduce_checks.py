"""Checks every reproduction's tests share (issue 35 point 3): a report computed from its run
table, nothing typed in. :func:`numbers_that_stay` writes a study's report twice, from its runs
table and from the same table with every measurement moved (x -> 1.37 x + 0.73), and returns
the numbers of the report that did not move, line by line: each must be one the report may
state without the runs (the paper's, the design's, a reference such as "l.1626" or "§7.1.2").
"""

from __future__ import annotations

import difflib
import inspect
import re
import shutil
import zlib
from pathlib import Path

import pandas as pd

from vho.reproduce import study as st
from vho.reproduce import verdict as vd

#: The runs table's columns that are labels, not measurements.
LABELS = {"case", "variant", "replication", "seed", "point", "task", "draws", "error"}
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?: \d{3})*(?:\.\d+)?(?:e[+-]\d+)?")
#: A number that is a reference, not a result: a line, a section, a figure, a table, an RFC.
REFERENCE = re.compile(r"(l\.|§|Fig\. |Figs\. |Table |Tables |RFC |issue |seed |-)$")


def moved(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs table with every measurement moved: x -> k x + 0.73, k in [1.2, 1.8) drawn by
    the row (a hash of its point and replication), so that zeros, differences, ratios and
    spreads between points and replications move too."""
    out = runs.copy()
    cell = out["case"].astype(str) + "/" + out["variant"].astype(str) + "/"
    cell = cell + out["replication"].astype(str)
    k = 1.2 + 0.6 * (cell.map(lambda s: zlib.crc32(s.encode())) % 1000) / 1000
    for c in out.columns:
        if c in LABELS or not pd.api.types.is_numeric_dtype(out[c]):
            continue
        if pd.api.types.is_bool_dtype(out[c]):
            continue
        out[c] = out[c].astype(float) * k + 0.73
    return out


def report_text(study: st.Study, runs: pd.DataFrame, design: st.Design, out: Path) -> str:
    """The report a study writes for ``runs``, in ``out`` (the kept runs under ``out/runs``)."""
    (out / "figures").mkdir(parents=True, exist_ok=True)
    stamp = st.Stamp("0", "c", "h" * 64, "h" * 64, "vho reproduce", "d" * 32)
    verdicts = st.judge_all(study, runs, design)
    st.write_report(study, st.Context(out, runs, verdicts, design, stamp))
    return (out / "report.md").read_text(encoding="utf-8")


def _numbers(line: str) -> list[tuple[float, bool, str]]:
    """The numbers of a line, each with whether it is a reference (``l.1626``) and as
    printed."""
    found = []
    for m in NUMBER.finditer(line):
        text = m.group(0).replace(",", "").replace(" ", "")
        ref = bool(REFERENCE.search(line[max(0, m.start() - 6) : m.start()]))
        try:
            found.append((float(text), ref, text))
        except ValueError:
            continue
    return found


def _prose(text: str) -> list[str]:
    """The report's lines outside code blocks (the study file, shown whole, is the design)."""
    out, code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            code = not code
            continue
        if not code:
            out.append(line)
    return out


def static_numbers(*sources: str) -> set[float]:
    """Every number written in the given texts (the paper's module, the design's, the study
    file, the rule): the numbers a report may state without the runs."""
    found: set[float] = set()
    for s in sources:
        for m in NUMBER.finditer(s):
            try:
                found.add(round(float(m.group(0).replace(",", "").replace(" ", "")), 9))
            except ValueError:
                pass
    return found


def _constants(module: object) -> list[float]:
    """The numbers a module holds at its top level (in tuples, lists and dicts too)."""
    found: list[float] = []

    def walk(v: object, depth: int = 0) -> None:
        if depth > 3:
            return
        if isinstance(v, bool):
            return
        if isinstance(v, int | float):
            found.append(float(v))
        elif isinstance(v, str):  # a text built from constants (a design's DRAWS)
            found.extend(float(x) for x in static_numbers(v))
        elif isinstance(v, tuple | list):
            for x in v:
                walk(x, depth + 1)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x, depth + 1)

    for name, v in vars(module).items():
        if not name.startswith("__"):
            walk(v)
    return found


def _paper_numbers(study: st.Study) -> list[float]:
    """The paper's numbers and the ends of the intervals they stand for."""
    out: list[float] = []
    for n in study.paper:
        out += [n.value, n.sd, n.n, n.hi]
        if n.kind == "value":
            out += list(n.interval())
    return [x for x in out if isinstance(x, int | float) and x == x]


def _allowed(found: set[float], x: float, text: str) -> bool:
    """Whether ``x`` (as printed: ``text``) is one of ``found``, rounded as printed."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    tol = 0.5 * 10**-decimals + 1e-9
    if "e" in text:
        return False
    return any(abs(x - a) <= tol for a in found)


def numbers_that_stay(
    study: st.Study, out: Path, tmp: Path, *modules: object, extra: tuple[float, ...] = ()
) -> list[tuple[str, float]]:
    """The numbers of ``study``'s report (from ``out``, a quick output) that stay put when its
    runs move, and that no source states: ``modules``' text and top-level constants (the
    paper's, the design's), the paper's numbers and their intervals, the study file, the rule
    and the verdict code, the design's counts, and ``extra`` (what a test works out from the
    design's parameters): (line, number). Empty when the report follows its runs."""
    runs = pd.read_csv(out / "runs.csv")
    design = study.design(st.Options(quick=True))
    texts = []
    for name, r in (("a", runs), ("b", moved(runs))):
        d = tmp / name
        d.mkdir()
        shutil.copytree(out / "runs", d / "runs", symlinks=True)
        texts.append(_prose(report_text(study, r, design, d)))
    allowed = static_numbers(
        *(inspect.getsource(m) for m in modules),
        inspect.getsource(vd),
        inspect.getsource(st),
        design.path.read_text(encoding="utf-8"),
    )
    allowed |= {round(x, 9) for m in modules for x in _constants(m)}
    allowed |= {round(x, 9) for x in _paper_numbers(study)}
    measurable = sum(1 for n in study.paper if not n.unmeasurable)
    prefixes = [n.key.split(".")[0] for n in study.paper]
    allowed |= {float(prefixes.count(x)) for x in prefixes}  # the paper's numbers per case
    allowed |= {float(len(study.paper)), float(measurable), float(len(study.paper) - measurable)}
    allowed |= {float(len(runs)), float(len(design.points)), *extra}
    allowed |= {float(p.replications) for p in design.points}
    roles = [p.role for p in design.points]
    allowed |= {float(roles.count(r)) for r in set(roles)}
    # How many numbers are judged and not (quick mode runs some cells only), and how many
    # values each number's evidence has: counts of the design, not of the runs' values.
    _, judged, unmeasured = vd.tally(st.judge_all(study, runs, design))
    allowed |= {float(judged), float(unmeasured)}
    for ev in study.evidence(runs, design).values():
        allowed |= {float(len(ev.x)), float(len(ev.x) - 1)}
    # Degrees of freedom: a count less one.
    allowed |= {float(p.replications - 1) for p in design.points}
    allowed |= {float(n.n - 1) for n in study.paper if n.n}
    skeleton = [[NUMBER.sub("#", x) for x in t] for t in texts]
    stay = []
    sm = difflib.SequenceMatcher(a=skeleton[0], b=skeleton[1], autojunk=False)
    for block in sm.get_matching_blocks():
        for k in range(block.size):
            a = _numbers(texts[0][block.a + k])
            b = _numbers(texts[1][block.b + k])
            for (x, ref, t), (y, _, _) in zip(a, b, strict=False):
                if x == y and not ref and not _allowed(allowed, x, t):
                    stay.append((texts[0][block.a + k][:160], x))
    return stay
