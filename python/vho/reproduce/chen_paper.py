"""What Chen, Yang, Sun, Sanadidi & Gerla (``004_131556780010e7f2.txt``) report, as numbers:
the text of §5 gives three, the figures (6-9) none that the text carries. "l.N" is line N of
the paper's text file; each number is given as the text words it ("approximately", "about").

The paper has no replications, no confidence intervals and no table: each number is read
from one ns-2 run's figure.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaperNumber:
    """One number of the paper: its value, unit, the words it comes in, and its line."""

    value: float
    unit: str
    words: str
    line: int


#: IHN's detection lag behind EHN at the LOW-to-HIGH handoff, per protocol.
DETECTION_LAG: dict[str, PaperNumber] = {
    # l.151 (§5.1.1, Fig. 6): "there existed a lag of approximately 15 seconds between the
    # moment of handoff and its detection by IHN in TFRC Probe"; "TFRC Probe with EHN+FRA
    # entered slow start and increased the rate 15 seconds earlier".
    "tfrc": PaperNumber(
        15.0,
        "s",
        "a lag of approximately 15 seconds between the moment of handoff and its detection "
        "by IHN in TFRC Probe",
        151,
    ),
    # l.164 (§5.1.2, Fig. 7): "IHN lagged behind EHN by 5 seconds in this case".
    "tcp": PaperNumber(5.0, "s", "IHN lagged behind EHN by 5 seconds in this case", 164),
}

#: Packets lost during the HIGH-to-LOW handoff (TFRC Probe, Fig. 9), per variant. The text
#: (l.189) names EHN(a) twice: "TFRC Probe with EHN (a) lost about 400 packets, twice as many
#: as TFRC Probe with EHN(a)" - the second is EHN(b), whose 200 it has just given.
PACKETS_LOST: dict[str, PaperNumber] = {
    "original": PaperNumber(
        650.0,
        "packets",
        "The original TFRC Probe suffered the most packet losses with a number of 650",
        189,
    ),
    "ehn-a": PaperNumber(
        400.0, "packets", "Without ERR, TFRC Probe with EHN (a) lost about 400 packets", 189
    ),
    "ehn-b": PaperNumber(
        200.0,
        "packets",
        "TFRC Probe with EHN(b), namely ERR-equipped, had approximately 200 packets lost "
        "during the handoff",
        189,
    ),
}

#: The run: l.133 "During the 1200-second simulation, a vertical handoff event was generated
#: at the 600th second on the last hop".
STOP_S = 1200.0
HANDOFF_S = 600.0
