# SPDX-License-Identifier: MIT
"""The facts part (clockscope.facts/1): checked for its shape only; the doctor part carries
what the report shows of a machine's facts."""

from .checks import lst
from .model import Machine
from .part import Part


def read(doc: dict, m: Machine) -> None:
    lst(doc.get("facts"), "facts")


PART = Part("facts", 1, read)
