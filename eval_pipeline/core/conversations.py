"""Logged production conversations as cases: read from a database, evaluated without re-asking.

A conversation source is any SQL database holding one row per message (``EVAL_CONVERSATIONS_URL``
with a table and column mapping, or a query returning the standard column names). Each
conversation becomes a case of the golden-case dimension, id ``conv.<conversation id>``: its
question is the latest user message that got an answer, its logged answer that answer (never
asked again), the earlier messages its context, and its references the BKG functions that need no
parameter, so the deterministic oracle can bind the answer's numbers to them.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from eval_pipeline.core.keys import LOGGED_CASE_PREFIX, is_valid_key
from eval_pipeline.core.models import (
    BKG,
    CONVERSATION_COLUMNS,
    FUNCTION_KINDS,
    LoggedAnswer,
    LoggedCase,
    Reference,
    ToolCall,
)
from eval_pipeline.core.warehouse.db import Database, to_python

CASE_PREFIX = LOGGED_CASE_PREFIX
CONVERSATION_TAG = "conversation"
"""The tag every case created from a logged conversation carries."""
COLUMNS = CONVERSATION_COLUMNS
REQUIRED_COLUMNS = COLUMNS[:4]
USER_ROLES = frozenset({"user", "human"})
ASSISTANT_ROLES = frozenset({"assistant", "ai", "bot"})
DAGSTER_PARTITION_LIMIT = 100_000
"""Partitions per asset Dagster's UI is tested to."""


def is_logged_key(case_id: str) -> bool:
    return case_id.startswith(CASE_PREFIX)


def case_id_of(conversation_id: str) -> str:
    return CASE_PREFIX + conversation_id


def conversation_id_of(case_id: str) -> str:
    return case_id[len(CASE_PREFIX) :]


def conversation_budget(retain_conversations: int, retain_runs: int, golden_cases: int) -> int:
    """Conversation case keys kept in Dagster: at most ``retain_conversations``, and never so
    many that runs × cases passes the partitions Dagster's UI is tested to."""
    room = DAGSTER_PARTITION_LIMIT // max(1, retain_runs) - golden_cases
    return max(0, min(retain_conversations, room))


def expired_conversations(case_keys: Sequence[str], keep: int) -> list[str]:
    """The oldest conversation keys beyond ``keep`` (the case dimension holds them in order)."""
    logged = [k for k in case_keys if is_logged_key(k)]
    return logged[: max(0, len(logged) - keep)]


@dataclass(frozen=True)
class Cursor:
    """How far a reader has come: the latest message time, then the conversation id."""

    at: str
    conversation_id: str

    def to_json(self) -> str:
        return json.dumps([self.at, self.conversation_id])

    @classmethod
    def from_json(cls, text: str | None) -> Cursor | None:
        if not text:
            return None
        at, conversation_id = json.loads(text)
        return cls(str(at), str(conversation_id))


@dataclass(frozen=True)
class Message:
    role: str
    content: str
    created_at: str
    intent: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class Conversation:
    id: str
    messages: tuple[Message, ...]

    @property
    def last_at(self) -> str:
        return max(m.created_at for m in self.messages)


@dataclass(frozen=True)
class ConversationSource:
    """Where logged conversations are: a database URL and either a query returning the standard
    columns (``conversation_id``, ``role``, ``content``, ``created_at``, optionally ``intent``
    and ``tool_calls``) or a table whose columns ``columns`` maps to them."""

    url: str
    table: str = "conversations"
    columns: Mapping[str, str] = field(default_factory=dict)
    query: str = ""

    def messages_sql(self, quote: Any, table_columns: Sequence[str] = ()) -> str:
        """The messages as one sub-query with the standard column names; an optional column is
        read when mapped or when the table has it."""
        if self.query:
            return self.query.strip().rstrip(";")
        names = {c: self.columns.get(c, c) for c in COLUMNS}
        present = {c.lower() for c in table_columns}
        optional = [c for c in COLUMNS[4:] if c in self.columns or names[c].lower() in present]
        select = ", ".join(f"{quote(names[c])} AS {c}" for c in (*REQUIRED_COLUMNS, *optional))
        return f"SELECT {select} FROM {quote(self.table)}"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text_time(value: Any) -> str:
    """A message time as the text a cursor keeps: ISO for datetimes, as stored otherwise."""
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return str(to_python(value))


class ConversationReader:
    """Reads conversations through the read-only database handle."""

    def __init__(self, source: ConversationSource) -> None:
        self.source = source
        self._db = Database(source.url, read_only=True)

    def close(self) -> None:
        self._db.close()

    @cached_property
    def _sql(self) -> str:
        table_columns = [] if self.source.query else self._db.columns(self.source.table)
        return self.source.messages_sql(_quote, table_columns)

    def _messages(self) -> str:
        return self._sql

    def newer_than(self, cursor: Cursor | None, limit: int) -> list[tuple[str, str]]:
        """(conversation id, latest message time) of at most ``limit`` conversations whose
        latest message comes after ``cursor``, oldest first."""
        where = ""
        binds: dict[str, Any] = {"n": int(limit)}
        if cursor is not None:
            where = "WHERE last_at > :at OR (last_at = :at AND cid > :cid)"
            binds |= {"at": cursor.at, "cid": cursor.conversation_id}
        sql = (
            f"SELECT cid, last_at FROM (SELECT CAST(conversation_id AS TEXT) AS cid, "
            f"MAX(created_at) AS last_at FROM ({self._messages()}) m GROUP BY conversation_id) c "
            f"{where} ORDER BY last_at, cid LIMIT :n"
        )
        frame = self._db.query(sql, **binds)
        return [(str(r.cid), _text_time(r.last_at)) for r in frame.itertuples()]

    def latest(self, limit: int) -> list[str]:
        """The ids of the ``limit`` conversations with the most recent messages, oldest first."""
        sql = (
            f"SELECT cid, last_at FROM (SELECT CAST(conversation_id AS TEXT) AS cid, "
            f"MAX(created_at) AS last_at FROM ({self._messages()}) m GROUP BY conversation_id) c "
            f"ORDER BY last_at DESC, cid DESC LIMIT :n"
        )
        frame = self._db.query(sql, n=int(limit))
        return [str(r.cid) for r in frame.itertuples()][::-1]

    def read(self, conversation_ids: Sequence[str]) -> dict[str, Conversation]:
        """The conversations with these ids (those still in the source), messages in order."""
        out: dict[str, Conversation] = {}
        ids = list(dict.fromkeys(conversation_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            binds = {f"id{i}": cid for i, cid in enumerate(chunk)}
            marks = ", ".join(f":{name}" for name in binds)
            sql = (
                f"SELECT * FROM ({self._messages()}) m "
                f"WHERE CAST(conversation_id AS TEXT) IN ({marks}) ORDER BY created_at"
            )
            frame = self._db.query(sql, **binds)
            grouped: dict[str, list[Message]] = {}
            for row in frame.to_dict("records"):
                grouped.setdefault(str(row["conversation_id"]), []).append(_message(row))
            out |= {cid: Conversation(cid, tuple(msgs)) for cid, msgs in grouped.items()}
        return out


def _tool_calls(raw: Any) -> tuple[ToolCall, ...]:
    """The logged tool calls; text that is not a JSON list of objects counts as none."""
    raw = to_python(raw)
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else []
        except ValueError:
            raw = []
    calls = [c for c in raw if isinstance(c, Mapping)] if isinstance(raw, list) else []
    return tuple(
        ToolCall(
            id=str(c.get("id", i)),
            name=str(c.get("name", "")),
            arguments=dict(c["arguments"]) if isinstance(c.get("arguments"), Mapping) else {},
        )
        for i, c in enumerate(calls)
    )


def _message(row: Mapping[str, Any]) -> Message:
    tool_calls = _tool_calls(row.get("tool_calls"))
    intent = row.get("intent")
    return Message(
        role=str(row["role"]).strip().lower(),
        content=str(row["content"] or ""),
        created_at=_text_time(row["created_at"]),
        intent=None if intent is None or to_python(intent) is None else str(intent),
        tool_calls=tool_calls,
    )


def parameter_free_references(bkg: BKG) -> list[Reference]:
    """Every BKG function callable without arguments: what a logged answer's numbers can be
    checked against when no golden case says which KPI the question is about."""
    out = []
    for kind, attribute in FUNCTION_KINDS.items():
        for fn in getattr(bkg, attribute):
            if all(not p.required or p.default is not None for p in fn.params):
                out.append(Reference(**{kind: fn.name}))
    return out


def as_case(conversation: Conversation, bkg: BKG) -> LoggedCase | None:
    """The case a conversation is evaluated as; None when no user message has an answer yet
    or its id cannot be a partition key."""
    if not is_valid_key(case_id_of(conversation.id)):
        return None
    messages = conversation.messages
    pair = next(
        (
            i
            for i in range(len(messages) - 1, 0, -1)
            if messages[i].role in ASSISTANT_ROLES and messages[i - 1].role in USER_ROLES
        ),
        None,
    )
    if pair is None:
        return None
    question, reply = messages[pair - 1], messages[pair]
    context = "\n".join(f"{m.role}: {m.content}" for m in messages[: pair - 1])
    return LoggedCase(
        id=case_id_of(conversation.id),
        question=question.content,
        context=context,
        reference=parameter_free_references(bkg),
        tags=[CONVERSATION_TAG],
        logged=LoggedAnswer(
            conversation_id=conversation.id,
            answer=reply.content,
            created_at=reply.created_at,
            intent=reply.intent or question.intent,
            tool_calls=list(reply.tool_calls),
        ),
    )
