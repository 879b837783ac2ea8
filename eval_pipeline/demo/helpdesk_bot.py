"""The help-desk demo assistant: a real HTTP JSON chatbot that logs every conversation.

``POST /chat`` with ``{"question", "context", "conversation_id"?}`` answers ``{"answer", "intent",
"tool_calls", "conversation_id"}``: it routes the question to an intent (catalogue, commercial
policy, sales process, CRM registration, mixed), answers in Spanish from the warehouse, and writes
both messages to the ``conversations`` table of its log database (``conversation_id``, ``role``,
``content``, ``intent``, ``tool_calls``, ``created_at``) — the production log the evaluator reads
back. Given a fault seed it injects a known mix of faults (a wrong price, a missing approval
warning, a registration without every field, a wrong route, an off-topic tone), each recorded to
a JSONL file the evaluator never reads and the tests do.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import json
import random
import re
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from eval_pipeline.demo.helpdesk import CRM_FIELDS, MAX_DISCOUNT_WITHOUT_APPROVAL, price_text

FAULT_RATES = {  # the chance that an eligible question gets the fault; rare chances first
    "incomplete_registration": 0.6,
    "missing_approval": 0.5,
    "wrong_price": 0.3,
    "wrong_route": 0.12,
    "off_topic_tone": 0.12,
}
FAULTS = tuple(FAULT_RATES)
SOURCE_CATALOGUE = "(fuente: catálogo oficial de precios 2026)"
SOURCE_POLICY = "(fuente: política comercial vigente)"
OFF_TOPIC = "¡Uf, qué pereza! Oye, ¿viste el partido de anoche? Mejor hablamos de fútbol, tío."
LOG_TABLE = sa.Table(
    "conversations",
    sa.MetaData(),
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("conversation_id", sa.String(64), nullable=False, index=True),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("intent", sa.String(64)),
    sa.Column("tool_calls", sa.Text),
    sa.Column("created_at", sa.DateTime, nullable=False),
)


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@dataclass
class Reply:
    answer: str
    intent: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    faults: list[tuple[str, str]] = field(default_factory=list)


class Assistant:
    """Routes and answers one question from the catalogue it read at start."""

    def __init__(self, warehouse_url: str, fault_seed: int | None = None) -> None:
        engine = sa.create_engine(warehouse_url)
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT nombre, precio_eur FROM productos")).all()
        engine.dispose()
        self.prices = {str(name): float(price) for name, price in rows}
        self.fault_seed = fault_seed

    # ------------------------------------------------------------------ routing

    def products_in(self, question: str) -> list[str]:
        plain = _plain(question)
        return [p for p in self.prices if _plain(p) in plain or _plain(p.split()[-1]) in plain]

    def route(self, question: str) -> str:
        q = _plain(question)
        asks_price = any(w in q for w in ("precio", "cuesta", "cuanto", "tienen la", "tienen el"))
        asks_discount = "descuento" in q
        if "registr" in q:
            return "accion_registro"
        if asks_price and asks_discount:
            return "mixta"
        if asks_discount:
            return "politicas_comerciales"
        if any(w in q for w in ("comprar", "contratar", "proceso", "licencias")):
            return "proceso_ventas"
        if asks_price or self.products_in(question):
            return "catalogo_precios"
        return "fuera_de_alcance"

    # ------------------------------------------------------------------ answers

    def _price_sentence(self, product: str, wrong: bool) -> str:
        price = self.prices[product] * (0.8 if wrong else 1.0)
        return f"{product} cuesta {price_text(price)} {SOURCE_CATALOGUE}."

    def _discount_sentence(self, question: str, drop_warning: bool) -> str:
        found = re.search(r"(\d+(?:[.,]\d+)?)\s*%", question)
        if found is None:
            return (
                f"Aplicamos descuentos de hasta el {MAX_DISCOUNT_WITHOUT_APPROVAL:.0f} % "
                f"directamente; por encima se necesita la aprobación del gerente {SOURCE_POLICY}."
            )
        pct = float(found.group(1).replace(",", "."))
        if pct <= MAX_DISCOUNT_WITHOUT_APPROVAL:
            return f"Podemos aplicar el {pct:.0f} % de descuento sin más trámites {SOURCE_POLICY}."
        if drop_warning:
            return f"¡Claro! Te aplicamos el {pct:.0f} % de descuento ahora mismo."
        return (
            f"Un descuento del {pct:.0f} % supera el {MAX_DISCOUNT_WITHOUT_APPROVAL:.0f} % "
            f"permitido: requiere la aprobación del gerente {SOURCE_POLICY}."
        )

    def _registration(self, question: str, incomplete: bool) -> tuple[str, list[dict[str, Any]]]:
        name = re.search(
            r"a nombre de ([A-ZÁÉÍÓÚÑ][\wáéíóúñ]+(?: [A-ZÁÉÍÓÚÑ][\wáéíóúñ]+)?)", question
        )
        company = re.search(r"empresa ([A-ZÁÉÍÓÚÑ][\w]*(?: [A-Z][A-Za-z]*)?)", question)
        size = re.search(r"(\d+)\s*empleados", question)
        values = {
            "nombre": name.group(1) if name else "",
            "empresa": company.group(1) if company else "",
            "tamano": size.group(1) if size else "",
        }
        missing = [f for f in CRM_FIELDS if not values[f]]
        if missing and not incomplete:
            needed = ", ".join("tamaño de la empresa" if f == "tamano" else f for f in missing)
            return f"Para registrar la oportunidad necesito también: {needed}. ¿Me lo indicas?", []
        call = {"name": "register_lead", "arguments": values}
        who = f"{values['nombre'] or 'el cliente'} ({values['empresa'] or 'sin empresa'})"
        return f"He registrado la oportunidad de {who} en el CRM.", [call]

    def answer(self, question: str, fault: str | None = None) -> Reply:
        intent = self.route(question)
        products = self.products_in(question)
        calls: list[dict[str, Any]] = []
        wrong_price = fault == "wrong_price"
        if intent == "catalogo_precios":
            chosen = products or list(self.prices)[:1]
            text = "Sí, lo tenemos en catálogo. " + " ".join(
                self._price_sentence(p, wrong_price and i == 0) for i, p in enumerate(chosen)
            )
        elif intent == "politicas_comerciales":
            text = self._discount_sentence(question, fault == "missing_approval")
        elif intent == "mixta":
            chosen = products or list(self.prices)[:1]
            text = " ".join(self._price_sentence(p, wrong_price) for p in chosen)
            text += " " + self._discount_sentence(question, fault == "missing_approval")
        elif intent == "proceso_ventas":
            text = (
                "El proceso es sencillo: eliges el producto, te enviamos la propuesta y, al "
                "firmarla, activamos las licencias."
            )
            if products:
                text += " " + self._price_sentence(products[0], wrong_price)
        elif intent == "accion_registro":
            text, calls = self._registration(question, fault == "incomplete_registration")
        else:
            text = "Solo puedo ayudarte con precios, descuentos, compras y registros de clientes."
        reported = intent
        if fault == "wrong_route":
            reported = "proceso_ventas" if intent != "proceso_ventas" else "catalogo_precios"
        if fault == "off_topic_tone":
            text = OFF_TOPIC
        return Reply(text, reported, calls)

    # ------------------------------------------------------------------ faults

    def eligible(self, fault: str, question: str) -> bool:
        intent = self.route(question)
        if fault == "wrong_price":
            return intent in ("catalogo_precios", "mixta") or (
                intent == "proceso_ventas" and bool(self.products_in(question))
            )
        if fault == "missing_approval":
            found = re.search(r"(\d+)\s*%", question)
            return intent in ("politicas_comerciales", "mixta") and bool(
                found and float(found.group(1)) > MAX_DISCOUNT_WITHOUT_APPROVAL
            )
        if fault == "incomplete_registration":
            return intent == "accion_registro" and "empleados" not in _plain(question)
        return intent != "fuera_de_alcance"

    def fault_for(self, question: str) -> str | None:
        """At most one fault per question, the same for the same seed and question."""
        if self.fault_seed is None:
            return None
        for fault, rate in FAULT_RATES.items():
            key = f"{self.fault_seed}:{fault}:{_plain(question).strip(' ?¿!.')}"
            draw = random.Random(hashlib.sha256(key.encode()).digest()).random()
            if draw < rate and self.eligible(fault, question):
                return fault
        return None


class HelpdeskBot:
    """The assistant behind ``POST /chat``, logging to ``log_url`` and faults to ``fault_log``."""

    def __init__(
        self,
        warehouse_url: str,
        log_url: str,
        *,
        fault_seed: int | None = None,
        fault_log: Path | None = None,
        clock: Any = None,
    ) -> None:
        self.assistant = Assistant(warehouse_url, fault_seed)
        self._log = sa.create_engine(log_url)
        LOG_TABLE.create(self._log, checkfirst=True)
        self.fault_log = fault_log
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._clock = clock or (lambda: dt.datetime.now(dt.UTC).replace(tzinfo=None))

    def chat(self, question: str, conversation_id: str | None = None) -> dict[str, Any]:
        fault = self.assistant.fault_for(question)
        reply = self.assistant.answer(question, fault)
        with self._lock:
            cid = conversation_id or f"{self._clock():%Y%m%d%H%M%S}-{next(self._ids):05d}"
            asked = self._clock()
            with self._log.begin() as conn:
                conn.execute(
                    LOG_TABLE.insert(),
                    [
                        {
                            "conversation_id": cid,
                            "role": "user",
                            "content": question,
                            "intent": None,  # every row names every column (one executemany)
                            "tool_calls": None,
                            "created_at": asked,
                        },
                        {
                            "conversation_id": cid,
                            "role": "assistant",
                            "content": reply.answer,
                            "intent": reply.intent,
                            "tool_calls": json.dumps(reply.tool_calls, ensure_ascii=False),
                            "created_at": asked + dt.timedelta(milliseconds=1),
                        },
                    ],
                )
            if fault and self.fault_log is not None:
                record = {"conversation_id": cid, "question": question, "fault": fault}
                with self.fault_log.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return {
            "answer": reply.answer,
            "intent": reply.intent,
            "tool_calls": reply.tool_calls,
            "conversation_id": cid,
        }

    def close(self) -> None:
        self._log.dispose()


class _Handler(BaseHTTPRequestHandler):
    bot: HelpdeskBot

    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/chat":
            self.send_error(404)
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            question = str(body["question"])
        except (ValueError, KeyError):
            self.send_error(400, "expected JSON with a question")
            return
        reply = self.bot.chat(question, body.get("conversation_id"))
        data = json.dumps(reply, ensure_ascii=False).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the evaluator's own output is what the demo shows."""


@dataclass(frozen=True)
class RunningBot:
    url: str
    bot: HelpdeskBot


@contextmanager
def serve(bot: HelpdeskBot, host: str = "127.0.0.1", port: int = 0) -> Iterator[RunningBot]:
    """Serve ``bot`` on a thread until the block ends."""
    handler = type("Handler", (_Handler,), {"bot": bot})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="helpdesk-bot")
    thread.start()
    try:
        yield RunningBot(f"http://{host}:{server.server_address[1]}", bot)
    finally:
        server.shutdown()
        server.server_close()
        bot.close()
