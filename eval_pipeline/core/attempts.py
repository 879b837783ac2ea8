"""Every evaluation of a run key is an attempt; at most one runs at a time per run key.

The results store keeps every summary a run key was given, but not the attempts that stopped
before one: the chatbot unreachable, a failure, an interrupt. ``run_attempts`` records each with
its status and the chatbot it asked, so ``history`` shows them all and says which is current (the
attempt whose summary is the newest), and a later attempt against another chatbot is caught.

``run_locks`` holds one row per run key being evaluated, taken before the first chatbot call, so
a second evaluation of the same key is refused instead of asking every case again; a row whose
holder died is taken over. Plain rows in the results store work the same on SQLite and
PostgreSQL, across processes and machines.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import sqlalchemy as sa

from eval_pipeline.core.results_store import engine_with_tables

AttemptStatus = Literal["running", "completed", "unreachable", "stopped", "interrupted"]

_METADATA = sa.MetaData()
RUN_ATTEMPTS = sa.Table(
    "run_attempts",
    _METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_key", sa.String(255), nullable=False),
    sa.Column("started_at", sa.String(32), nullable=False),
    sa.Column("finished_at", sa.String(32), nullable=False, server_default=""),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("chatbot", sa.Text, nullable=False),
    sa.Column("chatbot_id", sa.String(64), nullable=False),
    sa.Column("records_before", sa.Integer, nullable=False),
    sa.Column("summary_id", sa.Integer, nullable=True),
    sa.Column("message", sa.Text, nullable=False, server_default=""),
    sa.Index("ix_run_attempts_key", "run_key", "id"),
)
RUN_LOCKS = sa.Table(
    "run_locks",
    _METADATA,
    sa.Column("run_key", sa.String(255), primary_key=True),
    sa.Column("holder", sa.String(64), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("host", sa.String(255), nullable=False),
    sa.Column("acquired_at", sa.String(32), nullable=False),
    sa.Column("heartbeat_at", sa.String(32), nullable=False),
)

# The exception types of a chatbot call that never reached the chatbot, as the adapters write
# them ("…: ConnectionError: …", "chatbot raised ConnectionError: …"); an error that names one
# inside another ("stream broken: ProtocolError: (… ConnectionResetError(104 …") got through.
_CONNECT_FAILURE = re.compile(
    r"(?:^|[:\s])(?:ConnectionError|ConnectTimeout|ConnectionRefusedError|ConnectionResetError"
    r"|NewConnectionError|NameResolutionError|ProxyError|SSLError)(?::|$)"
)


def failed_to_connect(errors: Sequence[str]) -> bool:
    """Whether a chatbot call's errors say it never reached the chatbot."""
    return bool(errors) and any(_CONNECT_FAILURE.search(e) for e in errors)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def chatbot_id(identity: str) -> str:
    """What tells two chatbot targets apart, stored as a digest (a URL may carry a token)."""
    return hashlib.sha256(identity.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Attempt:
    id: int
    run_key: str
    started_at: str
    finished_at: str
    status: AttemptStatus
    chatbot: str
    """The chatbot asked, as shown to people: transport and URL without credentials."""
    chatbot_id: str
    records_before: int
    """The results store's last record id when it started: its own records come after."""
    summary_id: int | None
    """The ``eval_run`` record it wrote, when it completed."""
    message: str


@dataclass(frozen=True)
class LockHolder:
    holder: str
    pid: int
    host: str
    acquired_at: str
    heartbeat_at: str


class RunLedger:
    """The ``run_attempts`` and ``run_locks`` tables of one results store."""

    def __init__(self, url: str) -> None:
        self.engine = engine_with_tables(url, _METADATA)

    def start(self, run_key: str, chatbot: str, identity: str, records_before: int) -> Attempt:
        """A new attempt of ``run_key``, whose lock the caller holds: an earlier attempt still
        ``running`` was killed before it could finish (nobody else holds the key), and is
        recorded as ``interrupted``."""
        attempt = Attempt(
            id=0,
            run_key=run_key,
            started_at=now_iso(),
            finished_at="",
            status="running",
            chatbot=chatbot,
            chatbot_id=chatbot_id(identity),
            records_before=records_before,
            summary_id=None,
            message="",
        )
        values = {k: v for k, v in dataclasses.asdict(attempt).items() if k != "id"}
        with self.engine.begin() as conn:
            conn.execute(
                RUN_ATTEMPTS.update()
                .where(RUN_ATTEMPTS.c.run_key == run_key, RUN_ATTEMPTS.c.status == "running")
                .values(status="interrupted", finished_at=attempt.started_at)
            )
            key = conn.execute(RUN_ATTEMPTS.insert().values(**values)).inserted_primary_key
        assert key is not None
        return dataclasses.replace(attempt, id=int(key[0]))

    def finish(
        self,
        attempt: Attempt,
        status: AttemptStatus,
        *,
        summary_id: int | None = None,
        message: str = "",
    ) -> None:
        values = {"status": status, "finished_at": now_iso(), "summary_id": summary_id}
        with self.engine.begin() as conn:
            conn.execute(
                RUN_ATTEMPTS.update()
                .where(RUN_ATTEMPTS.c.id == attempt.id)
                .values(**values, message=message[:2000])
            )

    def attempts(self, run_keys: Iterable[str] | None = None) -> list[Attempt]:
        """Every attempt (of ``run_keys``), oldest first."""
        query = sa.select(RUN_ATTEMPTS).order_by(RUN_ATTEMPTS.c.id)
        if run_keys is not None:
            query = query.where(RUN_ATTEMPTS.c.run_key.in_(sorted(set(run_keys))))
        with self.engine.connect() as conn:
            return [Attempt(**row._mapping) for row in conn.execute(query)]

    def last_completed(self, run_key: str) -> Attempt | None:
        """The attempt whose summary a run key shows, when an attempt wrote it."""
        done = [a for a in self.attempts([run_key]) if a.status == "completed"]
        return done[-1] if done else None

    def try_lock(
        self, run_key: str, me: LockHolder, stale: Callable[[LockHolder], bool]
    ) -> LockHolder | None:
        """Take ``run_key``'s lock for ``me``; returns the live holder instead when another has it.

        A holder ``stale`` says is gone loses the lock. Two takers racing insert the same
        primary key: one commits, the other sees the winner on its next look.
        """
        for _ in range(3):
            other = self.lock_holder(run_key)
            if other is not None:
                if not stale(other):
                    return other
                with self.engine.begin() as conn:
                    conn.execute(
                        RUN_LOCKS.delete().where(
                            RUN_LOCKS.c.run_key == run_key, RUN_LOCKS.c.holder == other.holder
                        )
                    )
            try:
                with self.engine.begin() as conn:
                    conn.execute(RUN_LOCKS.insert().values(run_key=run_key, **vars(me)))
                return None
            except sa.exc.IntegrityError:
                continue
        return self.lock_holder(run_key) or me

    def lock_holder(self, run_key: str) -> LockHolder | None:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(RUN_LOCKS).where(RUN_LOCKS.c.run_key == run_key)).first()
        if row is None:
            return None
        return LockHolder(**{k: v for k, v in row._mapping.items() if k != "run_key"})

    def beat(self, run_key: str, holder: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                RUN_LOCKS.update()
                .where(RUN_LOCKS.c.run_key == run_key, RUN_LOCKS.c.holder == holder)
                .values(heartbeat_at=now_iso())
            )

    def unlock(self, run_key: str, holder: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                RUN_LOCKS.delete().where(
                    RUN_LOCKS.c.run_key == run_key, RUN_LOCKS.c.holder == holder
                )
            )
