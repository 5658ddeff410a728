# SPDX-License-Identifier: MIT
"""`python3 -m clockscope_report`: the same as the clockscope-report command (cli.py)."""
import sys

from .cli import main

sys.exit(main())
