# SPDX-License-Identifier: MIT
"""clockscope_report: reads clockscope bundles (clockscope collect) and plain --json
outputs of single commands, and reports what reading the time costs on each machine, side
by side, with the reason from each machine's own doctor (docs/report.md)."""

__version__ = "0.1.0"
