"""Defaults of the transports' settings, importable without the transports (and their HTTP and
browser stacks), so the settings and ``--help`` stay light."""

from __future__ import annotations

from pathlib import Path

# tool-call arguments that hold the SQL a call ran, the first present one wins
SQL_ARGUMENTS: tuple[str, ...] = ("sql", "query")
# Debian's chromium: the browser channel never downloads one
CHROMIUM = Path("/usr/bin/chromium")
