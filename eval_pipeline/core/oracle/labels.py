"""Where an answer names the references' labels: "Riverside Clinic", or "Riverside"; "Dr. Thomas
Reyes", or "Dr. Reyes", or "Reyes"; "Bayview Auto Plaza", or "Bayview".

Short forms are kept only when no other label shares them ("Bishop" names no one when the
references hold Gabriel and Jennifer Bishop), and never when they are a word every label of a
kind ends with ("Clinic").
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from eval_pipeline.core.claims.layout import Covered
from eval_pipeline.core.oracle.facts import key

_GENERIC_LAST_WORDS = frozenset({"rate", "ratio", "share", "level", "percentage", "count"})
_NOT_A_NAME = _GENERIC_LAST_WORDS | frozenset(
    {"total", "average", "overall", "other", "others", "group", "network", "company", "chain"}
    | {"day", "week", "month", "quarter", "year", "period", "season"}
)
"""Last words that after "the" name a figure or a period, not the one label ending on them."""
_TITLES = re.compile(r"^(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+", re.IGNORECASE)
_MIN_SHORT = 4
_CODE = re.compile(r"[A-Z]+\d+|\d+[A-Z]+")
"""A short form of letters and digits ("X2" of "X2 Express"), distinctive however short."""
_PERIOD_CODE = re.compile(r"[QH][1-4]|FY\d*|W\d+")
"""Codes that name periods ("Q1", "H2", "FY24"), never a row."""
_WORDY = re.compile(r"[^\W\d_].|.[^\W\d_]")  # a letter in two characters or more: "X5", "F-150"
_BUCKET = re.compile(r"\d[\d,.]*\s*(?:[-–]\s*\d[\d,.]*|\+)")  # a band: "1-50", "1000+"
_MODIFIED = r"[a-z]{3,}\b(?!-)"
"""The word after a label's hyphen in a compound before a noun ("High-severity claims"): it
still names the label; a longer hyphenated name ("Route 66-Plus", "X-1-B") does not."""
_HEAD_OF_NAME = re.compile(
    r"(?:The\s+)?(?P<own>[A-Z]\S*(?:\s+[A-Z0-9]\S*)*)(?P<place>\s+(?:at|of|on|in|by)\s+[A-Z0-9].*)?"
)
"""A name's own words, without the article it opens on or the place after a preposition it
ends on: "The Loft at Pier 7" is written "the Loft", "Hall 2 at Expo Centre" "Hall 2"."""
_PARTICIPLE = re.compile(r"(?P<stem>[a-z]{3,}?)(?:(?P<e>(?<=[sczgv])e)d|ed)")
"""A category named by a participle in lower case ("damaged", "delayed", "refused"): an answer
names it by its verb or noun too ("Damage claims", "delays", "refuses")."""
_KEY_VALUE = re.compile(r"\w+_\w+\s+\S+")  # "physician_id 2": a key column's value, not a name


def _forms(label: str) -> tuple[set[str], set[str]]:
    """(full forms, short forms) an answer may write one label in. Short forms exist only for
    names written in capitals ("Riverside Clinic", "Dr. Thomas Reyes")."""
    text = " ".join(label.replace("_", " ").split())
    full = {label.strip(), text}
    words = text.split()
    if len(words) >= 2 and words[-1].casefold() in _GENERIC_LAST_WORDS:
        full.add(" ".join(words[:-1]))
    base = _PARTICIPLE.fullmatch(text)
    if base is not None:  # "damaged" is written "damage claims", "delayed" "delays"
        stem = base.group("stem")
        stem = stem[:-1] if stem[-1] == stem[-2] and stem[-1] in "lpt" else stem  # "cancelled"
        full.add(stem + ("e" if base.group("e") else ""))
    short: set[str] = set()
    bare = _TITLES.sub("", text)
    title = text[: len(text) - len(bare)].strip()
    head = _HEAD_OF_NAME.fullmatch(bare)
    if head is not None and head.group("place") and not title:
        bare = head.group("own")  # "The Loft at Pier 7": its own words are "Loft"
        short.add(bare)
    bare_words = bare.split()
    if len(bare_words) >= 2 and all(w[:1].isupper() or w[:1].isdigit() for w in bare_words):
        short |= {bare_words[0], " ".join(bare_words[:2]), bare_words[-1]}
        last = bare_words[-1].lower()
        if last.isalpha() and last not in _NOT_A_NAME:  # "the shuttle": "University Shuttle"
            short.add(f"the {last}")
        if title:
            short |= {f"{title} {bare_words[-1]}", f"{title.rstrip('.')} {bare_words[-1]}"}
    return {f for f in full if f}, {f for f in short if f} - full


@dataclass(frozen=True)
class Form:
    key: str
    exact_case: bool


def label_forms(labels: Iterable[str]) -> dict[str, Form]:
    """Each written form → the label key it names; short forms are matched with their capitals
    and left out when ambiguous, generic or too short."""
    distinct = {  # a name with a number ("Model 3", "Pro 2") is one; a bare number or date is not
        key(label): label
        for label in labels
        if label
        and (_WORDY.search(label) or _BUCKET.fullmatch(label.strip()))
        and not _KEY_VALUE.fullmatch(label.strip())
    }
    full: dict[str, set[str]] = {}
    short: dict[str, set[str]] = {}
    for label_key, label in distinct.items():
        whole, parts = _forms(label)
        for form in whole:
            full.setdefault(form, set()).add(label_key)
        for form in parts:
            short.setdefault(form, set()).add(label_key)
    last_words = Counter(key(label).split()[-1] for label in distinct.values() if label.split())
    out = {form: Form(next(iter(owned)), False) for form, owned in full.items() if len(owned) == 1}
    taken = {key(f) for f in out}
    for form, owned in short.items():
        ambiguous = key(form) in taken or len(owned) != 1 or last_words.get(key(form), 0) >= 2
        coded = _CODE.fullmatch(form) is not None and _PERIOD_CODE.fullmatch(form) is None
        if not ambiguous and (len(form) >= _MIN_SHORT or coded) and not form.isdigit():
            out[form] = Form(next(iter(owned)), not form.startswith("the "))
    return out


@dataclass(frozen=True)
class LabelMention:
    start: int
    end: int
    key: str


@functools.lru_cache(maxsize=4096)
def _pattern(form: str, exact_case: bool) -> re.Pattern[str]:
    body = r"[\s-]+".join(re.escape(part) for part in form.split())
    body = body.replace(r"\.", r"\.?").replace(r"\-", "[-–—]")  # "3–6 km" for "3-6 km"
    acronym = form.isupper() and len(form) <= 3
    flags = 0 if acronym or exact_case else re.IGNORECASE
    # a label heads a compound before a noun ("High-severity claims", "low-priority tickets"),
    # but "North-east: 12" names no "North"; a category in lower case heads any compound
    after = (
        r"(?!\w|-(?-i:(?![a-z])))" if form.islower() else rf"(?!\w|-(?-i:(?!{_MODIFIED}\s+[a-z])))"
    )
    return re.compile(rf"(?<![\w-]){body}(?:e?s)?(?:['’]s)?{after}", flags)


def label_mentions(text: str, forms: dict[str, Form]) -> list[LabelMention]:
    """Non-overlapping mentions of labels in ``text``, longest forms first."""
    found = []
    for form, named in forms.items():
        for m in _pattern(form, named.exact_case).finditer(text):
            found.append((m.start(), m.end(), named.key))
    taken: list[LabelMention] = []
    covered = Covered(len(text))
    for start, end, label_key in sorted(found, key=lambda f: (f[0] - f[1], f[0])):
        if not covered.overlaps((start, end)):
            taken.append(LabelMention(start, end, label_key))
            covered.add((start, end))
    return sorted(taken, key=lambda m: m.start)
