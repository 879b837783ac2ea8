"""Run the demo chatbot: in a background thread (demo command, test fixtures) or in the foreground.

Binding the socket ourselves lets ``port=0`` pick a free loopback port and report it before the
first request; waiting for ``/health`` means a returned handle is ready to serve.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import requests
import sqlalchemy as sa
import uvicorn
from starlette.applications import Starlette

from eval_pipeline.core.warehouse.db import redact_url
from eval_pipeline.demo.bot import intents
from eval_pipeline.demo.bot.auth import Credentials
from eval_pipeline.demo.bot.server import BotSettings, create_app

logger = logging.getLogger(__name__)

STARTUP_TIMEOUT_S = 15.0
SHUTDOWN_GRACE_S = 2


@dataclass
class BotHandle:
    """A running bot: where it listens and how to log in; stop it or use it as a context."""

    url: str
    username: str
    password: str = field(repr=False)
    api_key: str = field(repr=False)
    server: uvicorn.Server = field(repr=False)
    thread: threading.Thread = field(repr=False)
    on_stop: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def stop(self) -> None:
        """Ask uvicorn to exit, force it after the grace period, then release what it held."""
        self.server.should_exit = True
        self.thread.join(SHUTDOWN_GRACE_S + 5)
        if self.thread.is_alive():
            self.server.force_exit = True
            self.thread.join(5)
        while self.on_stop:
            self.on_stop.pop()()

    def __enter__(self) -> BotHandle:
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        self.stop()


def _config(app: Starlette, host: str, port: int) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        lifespan="off",
    )


def start_app(
    app: Starlette,
    credentials: Credentials,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    on_stop: list[Callable[[], None]] | None = None,
) -> BotHandle:
    """Serve ``app`` from a daemon thread and return once ``/health`` answers."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_port = sock.getsockname()[1]
    server = uvicorn.Server(_config(app, host, bound_port))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="demo-bot", daemon=True
    )
    thread.start()
    url = f"http://{f'[{host}]' if ':' in host else host}:{bound_port}"
    handle = BotHandle(
        url,
        credentials.username,
        credentials.password,
        credentials.api_key,
        server,
        thread,
        [*(on_stop or []), sock.close],
    )
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline and thread.is_alive():
        try:
            if requests.get(f"{url}/health", timeout=1).ok:
                return handle
        except requests.ConnectionError:
            pass
        time.sleep(0.05)
    handle.stop()
    raise RuntimeError(f"the demo bot did not start on {url}")


def _warehouse_engine(database_url: str) -> sa.Engine:
    if sa.make_url(database_url).get_backend_name() == "sqlite":
        return sa.create_engine(database_url, connect_args={"check_same_thread": False})
    return sa.create_engine(database_url, pool_pre_ping=True)


def warehouse_app(database_url: str, settings: BotSettings) -> tuple[Starlette, sa.Engine]:
    """The bot wired to its own text-to-SQL over the warehouse at ``database_url``."""
    engine = _warehouse_engine(database_url)
    app = create_app(
        lambda question: intents.plan_answer(question, engine),
        lambda: intents.sample_contact(engine),
        settings,
    )
    return app, engine


def bot_settings(
    *,
    fault_seed: int | None = None,
    fault_log: Path | None = None,
    ttft_s: float = 0.05,
    tokens_per_s: float = 200.0,
    stall_s: float = 15.0,
    username: str = "demo",
    password: str = "demo-password",
    api_key: str = "demo-api-key",
    answer_s: float | None = None,
) -> BotSettings:
    return BotSettings(
        credentials=Credentials(username=username, password=password, api_key=api_key),
        fault_seed=fault_seed,
        fault_log=fault_log,
        ttft_s=ttft_s,
        tokens_per_s=tokens_per_s,
        stall_s=stall_s,
        answer_s=answer_s,
    )


def start_bot(
    *, database_url: str, host: str = "127.0.0.1", port: int = 0, **options: Any
) -> BotHandle:
    """Start the warehouse-backed bot in a background thread (for the demo and test fixtures);
    ``options`` are ``bot_settings``'s."""
    settings = bot_settings(**options)
    app, engine = warehouse_app(database_url, settings)
    return start_app(app, settings.credentials, host=host, port=port, on_stop=[engine.dispose])


def serve_forever(
    *, database_url: str, host: str = "127.0.0.1", port: int = 8765, **options: Any
) -> None:
    """Serve the warehouse-backed bot in the foreground until interrupted (CLI ``bot``)."""
    settings = bot_settings(**options)
    app, engine = warehouse_app(database_url, settings)
    logger.warning(
        "demo bot on http://%s:%s (user %r) over %s",
        host,
        port,
        settings.credentials.username,
        redact_url(database_url),
    )
    try:
        config = _config(app, host, port)
        uvicorn.Server(config).run()
    finally:
        engine.dispose()
