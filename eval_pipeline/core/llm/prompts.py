"""Versioned prompt files: one ``# System`` and one ``# User`` section each.

A prompt's version is its file stem plus a hash of its text, so an edited prompt invalidates the
judge cache and re-scores (or re-verifies) exactly what it affects, even without a rename.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from string import Template


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    system: Template
    user: Template


@cache
def load_prompt_file(stem: str, name: str) -> Prompt:
    text = (files("eval_pipeline") / "prompts" / f"{stem}.md").read_text(encoding="utf-8")
    match = re.fullmatch(r"\s*# System\n(.*)\n# User\n(.*)", text, re.DOTALL)
    if match is None:
        raise ValueError(f"prompt {stem}.md needs a '# System' and a '# User' section")
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return Prompt(
        name=name,
        version=f"{stem}+{digest}",
        system=Template(match.group(1).strip()),
        user=Template(match.group(2).strip()),
    )
