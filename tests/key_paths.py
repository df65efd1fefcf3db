"""The key paths of a JSON document, as the output reference names them
(`flows[].mptcp.subflows[].id`): shared by the tests that hold outputs to their reference."""

from __future__ import annotations


def add_paths(d: object, pre: str, into: set[str]) -> None:
    """Adds to ``into`` every leaf's path under ``pre`` (a list's items as ``[]``)."""
    if isinstance(d, dict):
        for k, v in d.items():
            add_paths(v, f"{pre}.{k}" if pre else k, into)
    elif isinstance(d, list):
        for x in d:
            add_paths(x, pre + "[]", into)
    else:
        into.add(pre)
