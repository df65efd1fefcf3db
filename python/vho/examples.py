"""The example scenarios and sweeps shipped inside the package (``vho examples``), so that an
installed vho, with no source tree, has something to run: ``vho/data/examples`` and
``vho/data/sweeps`` and ``vho/data/calibrations`` (symbolic links to ``scenarios/`` in the
repository, copies in a wheel; a sweep or a calibration names its scenario as
``../examples/NAME.toml``, which holds in both layouts).
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from . import files
from .errors import VhoError

#: Titles longer than this are cut (one line of `vho examples`).
MAX_TITLE = 90

#: The package's folders of examples, each with the kind of file it holds.
FOLDERS = (("examples", "scenario"), ("sweeps", "sweep"), ("calibrations", "calibration"))


@dataclass(frozen=True)
class Example:
    """One shipped file: its name (the file name without ``.toml``), what it is, its title
    (the scenario's ``run.name``, or a sweep's first comment line) and where it is."""

    name: str
    kind: str
    title: str
    path: Path


def _root() -> Path:
    # A plain directory: the package holds a native module, so it is never run from a zip.
    return Path(str(resources.files("vho").joinpath("data")))


def _title(path: Path, kind: str) -> str:
    text = path.read_text(encoding="utf-8")
    if kind == "scenario":
        name = tomllib.loads(text).get("run", {}).get("name")
        if isinstance(name, str):
            return name
    # A sweep's title: the first sentence of its opening comment.
    lines = []
    for line in text.splitlines():
        if not line.startswith("#") or not line.strip("# "):
            break
        lines.append(line.strip("# ").rstrip())
    # A sentence ends at ". " not after an abbreviation ("Fig. 1", "e.g. ").
    first = re.split(r"(?<!Fig)(?<!e\.g)(?<!i\.e)\.\s", " ".join(lines))[0].rstrip(".")
    return first if len(first) <= MAX_TITLE else first[: MAX_TITLE - 3] + "..."


def bundled() -> list[Example]:
    """Every shipped example, scenarios first, each folder in name order."""
    out = []
    for folder, kind in FOLDERS:
        for p in sorted((_root() / folder).glob("*.toml")):
            out.append(Example(p.stem, kind, _title(p, kind), p))
    return out


def find(name: str) -> Example:
    """The example called ``name`` (with or without ``.toml``)."""
    stem = name.removesuffix(".toml")
    found = bundled()
    for e in found:
        if e.name == stem:
            return e
    names = ", ".join(e.name for e in found)
    raise VhoError(f"vho examples: no example {name!r}; expected one of {names}")


def text(name: str) -> str:
    """The TOML of the example called ``name``."""
    return find(name).path.read_text(encoding="utf-8")


def _already_there(target: Path, body: bytes) -> bool:
    """True if ``target`` is a regular file holding ``body``; False if nothing is there.
    Anything else is refused: a file that differs, or a symbolic link (dangling or not) at the
    file or its folder, which a copy would write through to wherever it points."""
    for p in (target.parent, target):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return False
        except OSError as e:
            raise files.output_error(p, e, "cannot read") from None
        if stat.S_ISLNK(st.st_mode):
            raise VhoError(
                f"vho examples --copy: {p}: is a symbolic link, which vho does not write "
                "through; expected a new or empty directory"
            )
    if stat.S_ISREG(st.st_mode):
        try:
            with open(target, "rb") as f:
                same = f.read(len(body) + 1) == body
        except OSError as e:
            raise files.output_error(target, e, "cannot read") from None
        if same:
            return True
    raise VhoError(
        f"vho examples --copy: {target}: exists and differs from the shipped example; "
        "expected a new or empty directory"
    )


def copy(dest: Path) -> list[Path]:
    """Writes every example into ``dest/examples`` and ``dest/sweeps`` (so that a sweep still
    finds its scenario); refuses to overwrite a file that differs, or to write through a
    symbolic link, before anything is written. Each file is written to a temporary name and
    renamed, so a failed copy (a full disk) leaves no partial file. Returns the files, those
    already there included."""
    todo = []
    for e in bundled():
        folder = next(f for f, k in FOLDERS if k == e.kind)
        target = dest / folder / e.path.name
        body = e.path.read_bytes()
        todo.append((target, body, _already_there(target, body)))
    written = []
    for target, body, there in todo:
        if not there:
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise files.output_error(target.parent, e) from None
            files.write_atomic(target, lambda p, body=body: p.write_bytes(body))
        written.append(target)
    return written
