"""Files vho reads and writes, with the rules every command follows.

- Inputs (scenarios, sweep files, captures) must be regular files: a FIFO or a device is
  refused, never opened to block or to be read without end; text inputs are read with a bound.
- A path built from input (a node's name, a flow's) must stay inside its output directory.
- An output directory (`vho run`, `vho analyze`, `vho emulate`, `vho reproduce STUDY`) is
  written whole into a hidden sibling ``.vho-partial-<pid>@<host>-*`` and swapped in when
  complete, so nothing half-written looks complete and old files never sit beside new ones.
  It holds a mark, ``.vho-output``, naming the command that wrote it (``vho reproduce chen``):
  a non-empty directory that is not a previous output of the same command (that mark, and only
  names the command writes) is refused unless ``force``, so one command's output never replaces
  another's. Staging directories left by a killed process (its pid dead on this host) are
  removed by the next command writing beside them.
- Single files are written to a temporary name and renamed; a full disk or a read-only
  directory is an :class:`OutputError` (one line), not a traceback.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import re
import secrets
import shutil
import socket
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import OutputError, VhoError

if TYPE_CHECKING:
    import pandas as pd

#: The largest scenario or sweep file read (a TOML file of 1 MiB is already absurd; the bound
#: keeps `vho run /dev/zero`-style input from filling memory).
MAX_TEXT_BYTES = 1 << 20

PARTIAL = ".vho-partial-"
_PARTIAL_RE = re.compile(r"^\.vho-partial-(\d+)@(.+)-[^-]+$")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_regular(path: str | os.PathLike[str], what: str, error: type[VhoError]) -> None:
    """Refuses (``error``) anything but an existing regular file, without opening it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except OSError as e:
        raise error(f"{path}: cannot read the {what}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{path}: expected a {what} (a regular file), found {_kind(st.st_mode)}")


def read_text(
    path: str | os.PathLike[str],
    what: str,
    error: type[VhoError],
    limit: int = MAX_TEXT_BYTES,
) -> str:
    """A regular file's UTF-8 text, at most ``limit`` bytes; anything else is one ``error``."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except OSError as e:
        raise error(f"{path}: cannot read the {what}: {e.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise error(f"{path}: expected a {what} (a regular file), found {_kind(mode)}")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise error(f"{path}: cannot read the {what}: {e.strerror}") from None
    if len(data) > limit:
        raise error(f"{path}: the {what} is larger than {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: the {what} is not UTF-8 text (byte {e.start})") from None


def inside(root: Path, name: str, what: str, suffix: str = "") -> Path:
    """``root / (name + suffix)`` for a ``name`` that came from input, refused unless it is one
    plain file name that stays in ``root`` (no separator, not ``.`` or ``..``, no NUL)."""
    bad = (
        not name
        or name in (".", "..")
        or "/" in name
        or "\0" in name
        or (os.sep != "/" and os.sep in name)
        or (os.altsep is not None and os.altsep in name)
    )
    p = root / f"{name}{suffix}"
    if bad or p.resolve().parent != root.resolve():
        raise OutputError(
            f"{what} {name!r}: not a plain file name, would be written outside {root}"
        )
    return p


def output_error(path: Path, e: OSError, doing: str = "cannot write") -> OutputError:
    return OutputError(f"{path}: {doing}: {e.strerror or e}")


def write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """Calls ``write(tmp)`` for a new temporary file beside ``path`` (created exclusively, so
    never a link planted there), then renames it onto ``path``: ``path`` is either the old file
    or the whole new one, never a partial one, and a symbolic link at ``path`` is replaced, not
    written through. The temporary file is removed if anything fails or stops the write."""
    tmp = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        tmp = Path(name)
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 would become the file's mode
        os.close(fd)
        write(tmp)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise output_error(path, e) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))


# --- output directories ------------------------------------------------------------------


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(parent: Path) -> list[Path]:
    """Removes the staging directories in ``parent`` whose owning process (on this host) is
    dead; returns them."""
    host = socket.gethostname()
    removed = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for p in entries:
        m = _PARTIAL_RE.match(p.name)
        if m is None or m.group(2) != host or _pid_alive(int(m.group(1))):
            continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    return removed


#: Staging directories of this process, removed on SIGTERM/SIGINT (see :func:`remove_staged`).
_staged: set[Path] = set()


def remove_staged() -> None:
    """Removes this process's staging directories (called when it is told to stop)."""
    for p in list(_staged):
        shutil.rmtree(p, ignore_errors=True)
        _staged.discard(p)


#: The file in an output directory that names the command that wrote it (one line).
MARK = ".vho-output"


def _mark_of(out: Path) -> str | None:
    """The command named by ``out``'s mark, or None (no mark, or not a small regular file)."""
    try:
        fd = os.open(out / MARK, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = f.read(4096)
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None


def _is_output_of(out: Path, command: str, owned: Iterable[str]) -> bool:
    """A previous output of ``command``: its mark names ``command``, and every other name in it
    is one the command writes."""
    pats = [re.compile(p) for p in owned]
    names = [p.name for p in out.iterdir() if p.name != MARK]
    return _mark_of(out) == command and all(any(r.fullmatch(n) for r in pats) for n in names)


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two paths atomically (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError, TypeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    r = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if r == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def staged_output(out: Path, *, command: str, owned: Iterable[str], force: bool) -> Iterator[Path]:
    """A staging directory for ``out``; marked as ``command``'s (:data:`MARK`) and swapped in
    whole when the block ends without error, removed otherwise. Refuses, before anything is
    written, an ``out`` that is a file, or a non-empty directory other than a previous output
    of ``command`` (marked as its, every other name matching ``owned``) unless ``force``."""
    owned = list(owned)
    with contextlib.suppress(OSError):
        # Swapped in, it would leave the shell in a deleted directory; '.' cannot be renamed.
        if Path.cwd().is_relative_to(out.resolve()):
            raise OutputError(
                f"{out}: the current directory (or one above it), which cannot be replaced "
                "whole; choose another --out, below it"
            )
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    if out.is_dir():
        try:
            empty = not any(out.iterdir())
            ours = empty or _is_output_of(out, command, owned)
            other = None if ours else _mark_of(out)
        except OSError as e:
            raise output_error(out, e, "cannot read the output directory") from None
        if not ours and not force:
            whose = f" (an output of {other})" if other and other.startswith("vho ") else ""
            raise OutputError(
                f"{out}: not empty and not an output of {command}{whose}; choose another "
                "--out, or pass --force to replace it whole"
            )
    parent = out.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        clean_stale(parent)
    except OSError as e:
        raise output_error(out, e, "cannot create the output directory") from None
    prefix = f"{PARTIAL}{os.getpid()}@{socket.gethostname()}-"
    # Named and registered before it is made: a signal just after mkdir (between mkdtemp's
    # mkdir and the registration, once) left an empty staging directory that nothing removed
    # (issue 40: test_sigterm_during_a_run_leaves_no_staging_directory, 1 run in 25).
    stage = parent / f"{prefix}{secrets.token_hex(4)}"
    _staged.add(stage)
    first = stage
    try:
        try:
            # 0777 less the umask: it becomes the output. The name is this process's and 32
            # random bits: taken, it is refused (mkdtemp would try another).
            os.mkdir(stage, 0o777)
        except OSError as e:
            raise output_error(out, e, "cannot create the output directory") from None
        yield stage
        try:
            (stage / MARK).write_text(f"{command}\n", encoding="utf-8")
            if out.is_dir() and not any(out.iterdir()):
                out.rmdir()
            if out.exists():
                if not _exchange(stage, out):
                    old = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
                    os.replace(out, old / "old")
                    os.replace(stage, out)
                    stage = old
            else:
                os.replace(stage, out)
        except OSError as e:
            raise output_error(out, e, "cannot publish the output directory") from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        _staged.discard(first)


def write_table(df: pd.DataFrame, path: Path) -> None:
    """A table of a reproduction as CSV in fixed formats (6 decimals, LF line ends), so that the
    same seed gives a byte-identical file."""
    df.to_csv(path, index=False, float_format="%.6f", lineterminator="\n")
