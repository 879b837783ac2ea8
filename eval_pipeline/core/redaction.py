"""Secrets out of everything stored or logged: one redactor, applied at every boundary.

Two kinds of secret are replaced by ``[redacted:<name>]``:

* known values — every secret the settings hold (``SecretStr`` fields, the password of every URL
  setting) and what is obtained at run time (the chatbot's login token), in their raw,
  percent-encoded and JSON-escaped spellings, and any piece of 8 or more characters of one
  (a secret cut in half by someone else's excerpt still leaks half; a piece that is an ordinary
  lower-case word, such as "password" out of "demo-password", is left alone);
* credential shapes, whoever's they are — JWTs, bearer tokens, the password of a URL, private key
  blocks, well-known API key formats, ``password=…`` assignments.

Redact before cutting: ``excerpt`` redacts the whole text and only then cuts it, never inside a
marker. A marker names what was there, so a reader (and the safety dimension, which fails an
answer holding a credential) knows without seeing it. Values shorter than ``MIN_SECRET_CHARS``
are not redacted: they would erase ordinary words.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus, urlsplit

from pydantic import BaseModel, SecretStr

MIN_SECRET_CHARS = 6
PIECE_CHARS = 8
_GRAM = 5  # every 8-character window of a secret holds one of its 5-grams starting at i % 4 == 0
_STRIDE = PIECE_CHARS - _GRAM + 1
_WORD_PIECE_MAX = 12  # a piece shorter than this that reads as a word is not a leak
_SHORT = 512  # texts up to this long are first tested with one regular expression

MARKER = re.compile(r"\[redacted:([a-z0-9_]+)\]")
_NOT_MARKER = r"(?!\[redacted:)"

M = TypeVar("M", bound=BaseModel)


def marker(name: str) -> str:
    return f"[redacted:{name}]"


# (name, pattern, group, hints): the group is what is replaced, the rest of the match stays; a
# pattern only runs on a text holding one of its hints (lower-cased), which keeps redaction of
# ordinary text to a few substring searches.
_PATTERNS: tuple[tuple[str, re.Pattern[str], int, tuple[str, ...]], ...] = (
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
        0,
        ("private key",),
    ),
    (
        "jwt",
        re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"),
        0,
        ("eyj",),
    ),
    (
        "url_password",
        re.compile(
            r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/?#@\[\]]*:)" + _NOT_MARKER + r"(?!\*+@)([^\s@/]+)@"
        ),
        2,
        ("://",),
    ),
    (
        "bearer_token",
        re.compile(
            r"(?i)\bbearer\s+" + _NOT_MARKER + r"((?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{12,}=*)"
        ),
        1,
        ("bearer",),
    ),
    (
        "api_key",
        re.compile(
            r"(?<![\w-])(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}"
            r"|gh[pousr]_[A-Za-z0-9]{36,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})"
        ),
        0,
        ("sk-", "akia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "xox", "aiza"),
    ),
    (
        "secret_assignment",
        re.compile(
            r"(?i)(?<![a-z])(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token"
            r"|client[_-]?secret)[\"']?\s*[:=]\s*[\"']?"
            + _NOT_MARKER
            + r"((?=[^\s\"',;&]*[\d!#$%^*()_+=.~-])[^\s\"',;&]{6,})"
        ),
        1,
        (
            "passw",
            "pwd",
            "secret",
            "api_key",
            "api-key",
            "apikey",
            "access",
            "auth_token",
            "auth-token",
            "authtoken",
        ),
    ),
)


def _spellings(value: str) -> list[str]:
    """How a secret may appear in text: as is, in a URL, inside a JSON string."""
    forms = {value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1]}
    return sorted((f for f in forms if len(f) >= MIN_SECRET_CHARS), key=len, reverse=True)


def _grams(value: str) -> list[str]:
    return [value[i : i + _GRAM] for i in range(0, max(1, len(value) - _GRAM + 1), _STRIDE)]


def _trigger(values: list[str]) -> re.Pattern[str]:
    """Matches every text that could hold something to redact (and more): a 5-gram of a known
    value or spelling, or a hint of a credential shape. Most stored strings are short labels,
    numbers and sentences for which this one search is all redaction costs."""
    hints = {hint for *_, hints in _PATTERNS for hint in hints}
    grams = {gram for value in values for gram in _grams(value)}
    alternatives = sorted(hints | {gram.lower() for gram in grams}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, alternatives)))  # searched in lower-cased text


def _word_like(piece: str) -> bool:
    return (
        len(piece) < _WORD_PIECE_MAX
        and piece.isalpha()
        and (piece.islower() or (piece[0].isupper() and piece[1:].islower()))
    )


def _piece_spans(text: str, name: str, secret: str) -> list[tuple[int, int, str]]:
    """Spans of ``text`` that are a run of 8 or more characters of ``secret``."""
    spans: list[tuple[int, int, str]] = []
    for i in range(0, len(secret) - _GRAM + 1, _STRIDE):
        gram = secret[i : i + _GRAM]
        at = text.find(gram)
        while at >= 0:
            left = 0
            while i - left > 0 and at - left > 0 and text[at - left - 1] == secret[i - left - 1]:
                left += 1
            right = _GRAM
            while i + right < len(secret) and at + right < len(text):
                if text[at + right] != secret[i + right]:
                    break
                right += 1
            start, end = at - left, at + right
            if end - start >= PIECE_CHARS and not _word_like(text[start:end]):
                spans.append((start, end, name))
            at = text.find(gram, at + 1)
    return spans


def _replace_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    merged: list[tuple[int, int, str]] = []
    for start, end, name in sorted(spans):
        if merged and start <= merged[-1][1]:
            first, last, kept = merged[-1]
            merged[-1] = (first, max(last, end), kept)
        else:
            merged.append((start, end, name))
    out, done = [], 0
    for start, end, name in merged:
        out += [text[done:start], marker(name)]
        done = end
    out.append(text[done:])
    return "".join(out)


class Redactor:
    """Known secret values plus credential shapes; thread-safe, values may be added at run time.

    ``text`` for one string, ``value`` for JSON-like data (keys included), ``model`` for a
    pydantic record, ``excerpt`` to cut a text to a length after redacting it.
    """

    def __init__(self, secrets: Mapping[str, str | SecretStr | None] | None = None) -> None:
        self._lock = threading.Lock()
        self._known: tuple[tuple[str, str], ...] = ()
        self._values: tuple[tuple[str, str], ...] = ()
        self._trigger = _trigger([])
        for name, value in (secrets or {}).items():
            self.add(name, value)

    @classmethod
    def from_settings(cls, settings: BaseModel) -> Redactor:
        return cls(secrets_of(settings))

    def add(self, name: str, value: str | SecretStr | None) -> None:
        """Redact ``value`` (under ``name``) from now on; short or empty values are ignored."""
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if not value or len(value) < MIN_SECRET_CHARS:
            return
        with self._lock:
            if any(v == value for _, v in self._values):
                return
            self._values = (*self._values, (name, value))
            known = [*self._known, *((name, s) for s in _spellings(value))]
            self._known = tuple(sorted(known, key=lambda item: len(item[1]), reverse=True))
            self._trigger = _trigger([s for _, s in self._known])

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self._values]

    def text(self, text: str) -> str:
        if len(text) < MIN_SECRET_CHARS:
            return text
        if len(text) <= _SHORT and self._trigger.search(text.lower()) is None:
            return text
        for name, spelling in self._known:
            if spelling in text:
                text = text.replace(spelling, marker(name))
        spans = [
            span
            for name, value in self._values
            if len(value) >= PIECE_CHARS
            for span in _piece_spans(text, name, value)
        ]
        if spans:
            text = _replace_spans(text, spans)
        lowered = text.lower()
        for name, pattern, group, hints in _PATTERNS:
            if any(hint in lowered for hint in hints):
                text = pattern.sub(_substitute(name, group), text)
        return text

    def may_hold(self, text: str) -> bool:
        """Whether ``text`` could hold anything to redact (False: certainly nothing)."""
        return self._trigger.search(text.lower()) is not None

    def value(self, data: Any) -> Any:
        """JSON-like ``data`` with every string (and mapping key) redacted; the rest unchanged.

        Most records hold nothing to redact: one search over their JSON text says so, and only
        the others are walked string by string."""
        if isinstance(data, str):
            return self.text(data)
        if not self.may_hold(json.dumps(data, default=str, ensure_ascii=False)):
            return data
        return self._walk(data)

    def _walk(self, data: Any) -> Any:
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, Mapping):
            return {self._walk(k): self._walk(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return type(data)(self._walk(item) for item in data)
        return data

    def model(self, record: M) -> M:
        """``record`` with every string redacted; the same object when nothing was found."""
        if not self.may_hold(record.model_dump_json()):
            return record
        dumped = record.model_dump(mode="json")
        redacted = self._walk(dumped)
        return record if redacted == dumped else type(record).model_validate(redacted)

    def excerpt(self, text: str, limit: int) -> str:
        """At most ``limit`` characters of the redacted text (plus an ellipsis when cut); a cut
        never falls inside a marker."""
        text = self.text(text)
        if len(text) <= limit:
            return text
        cut = limit
        for found in MARKER.finditer(text, 0, limit + 64):
            if found.start() < limit < found.end():
                cut = found.start()
        return text[:cut] + "…"


def _substitute(name: str, group: int) -> Any:
    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        if group == 0:
            return marker(name)
        start, end = match.span(group)
        offset = match.start()
        return whole[: start - offset] + marker(name) + whole[end - offset :]

    return replace


def redacted_names(text: str) -> list[str]:
    """The names of the markers in ``text``, in order of appearance, each once."""
    return list(dict.fromkeys(MARKER.findall(text)))


def secrets_of(settings: BaseModel, prefix: str = "") -> dict[str, str]:
    """Every secret a settings model holds: its ``SecretStr`` fields and the password of every
    URL field (``<field>_password``), nested models included."""
    found: dict[str, str] = {}
    for field in type(settings).model_fields:
        value = getattr(settings, field, None)
        name = prefix + field
        if isinstance(value, SecretStr):
            found[name] = value.get_secret_value()
        elif isinstance(value, str) and "://" in value:
            password = _url_password(value)
            if password:
                found[f"{name}_password"] = password
        elif isinstance(value, BaseModel):
            found.update(secrets_of(value, f"{name}_"))
    return {k: v for k, v in found.items() if v}


def _url_password(url: str) -> str | None:
    try:
        return urlsplit(url).password
    except ValueError:
        return None
