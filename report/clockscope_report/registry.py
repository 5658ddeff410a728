# SPDX-License-Identifier: MIT
"""Every part of a bundle the report reads, in the order their sections and charts appear
(part.py says what a part is).  A new part: its module, and one line here."""

from typing import Tuple

from . import bench, doctor, facts, ladder, profile, runtimes, warp
from .part import Part

PARTS: Tuple[Part, ...] = (
    bench.PART,
    doctor.PART,
    warp.PART,
    facts.PART,
    ladder.PART,
    runtimes.PART,
    profile.PART,
)

