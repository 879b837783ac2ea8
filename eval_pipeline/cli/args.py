"""Argument types the command-line modules share: argparse turns their errors into usage errors."""

from __future__ import annotations

import argparse


def at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
