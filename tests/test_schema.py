"""`vho schema`: the scenario reference, generated from the code (issue 18, item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vho.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIG1 = ROOT / "scenarios" / "examples" / "dk-fig1-wlan-gprs.toml"


def test_vho_schema_prints_the_reference_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert out == (ROOT / "docs" / "scenario-reference.md").read_text(encoding="utf-8")
    for key in ("`loss_at`", "`drop_packets`", "`timeout_ssthresh`", "`window`", "`series`"):
        assert key in out
    # The linux profile says what it is, with its values read from the profile.
    assert "CUBIC, SACK, Linux's RTO estimator" in out
    assert "rfc: 1460; linux: 1448; ns2: 1000" in out


def test_run_help_explains_the_handover_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for kind in ("soft:", "soft-reconfigure:", "soft-shrink:", "hard:"):
        assert kind in out


def test_presets_and_schema_name_every_tcp_profile_and_cc_the_code_has(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `vho presets` said "vho has no CUBIC yet" while `cc = "cubic"` loaded, and the schema's
    # profile list left out linux-2.0: both lists now come from what the loader accepts.
    import re

    assert main(["schema"]) == 0
    schema = capsys.readouterr().out
    profiles = re.search(r"\| `profile` \| one of ([^|]+) \|", schema).group(1).split(", ")
    ccs = re.search(r"\| `cc` \| one of ([^|]+) \|", schema).group(1).split(", ")
    assert "linux-2.0" in profiles and "cubic" in ccs
    assert main(["presets"]) == 0
    presets = capsys.readouterr().out
    assert "no CUBIC" not in presets
    for p in profiles:
        assert f"{p} (" in presets, p
    # Each loads.
    import vho

    for p in profiles:
        vho.resolved(FIG1, overrides=[f'flow.0.tcp.profile="{p}"'])
