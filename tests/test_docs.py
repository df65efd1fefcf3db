"""The documentation (issue 37 item 4): the site builds from `docs/` with `mkdocs build --strict`
(a broken link, a missing page or a Python API entry that no longer resolves fails it), and the
user docs (the README and every page outside `docs/design/`) read as a user's: no lab-notebook
references to work sessions or issues, no paths to files a user does not have, papers cited by
author, title and year (`docs/references.md`)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: What a user doc must not say: a work session ("stop 30", "since stop 31"), an issue of the
#: tracker ("issue 21 point 5"), a source file of the papers, a paper's line numbers ("l.106").
NOTEBOOK = re.compile(
    r"\b[Ss]tops? \d+|\b[Ii]ssues? \d+|shared/seeds|seeds?/00\d|\b0\d\d_[0-9a-f]{16}|"
    r"\bl\.\s?\d+|\bdigest\b"
)


def user_docs() -> list[Path]:
    docs = [p for p in (ROOT / "docs").rglob("*.md") if "design" not in p.parts]
    return [ROOT / "README.md", *sorted(docs)]


@pytest.mark.parametrize("path", user_docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_user_docs_read_as_a_users(path: Path) -> None:
    text = path.read_text()
    found = [
        f"{path.name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for m in NOTEBOOK.finditer(text)
    ]
    assert not found, found


def test_the_notebook_pattern_catches_what_it_should() -> None:
    for bad in (
        "since stop 31",
        "issue 21 point 5",
        "`../shared/seeds/001_b31677fe21b9faf1.txt`",
        "(l.106)",
        "digest §4.4",
    ):
        assert NOTEBOOK.search(bad), bad
    for good in ("a stop time", "RFC 6298 §5", "the issue's", "Table 1", "all 160 cells"):
        assert not NOTEBOOK.search(good), good


def test_the_readme_stays_short() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) < 200


def test_every_docs_page_is_in_the_site_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    missing = [p for p in pages if p not in nav]
    assert not missing, missing


def test_the_site_builds_strict(tmp_path: Path) -> None:
    # mkdocs and mkdocstrings come with the `test` extra (pyproject.toml).
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    api = (tmp_path / "site" / "python-api" / "index.html").read_text()
    for name in ("vho.run", "RunResult", "flows_frame", "vho.analyze", "CaptureAnalysis"):
        assert name in api, name


def test_the_python_api_page_names_every_public_name() -> None:
    import vho

    page = (ROOT / "docs" / "python-api.md").read_text()
    missing = [n for n in vho.__all__ if f"`vho.{n}" not in page and f"`{n}`" not in page]
    assert not missing, missing


def test_every_link_of_the_readme_leads_to_a_file() -> None:
    # The README is read on its own (a forge's page, a terminal): its links are paths.
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert links
    missing = [x for x in links if not x.startswith("http") and not (ROOT / x).exists()]
    assert not missing, missing
