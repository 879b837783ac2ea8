"""The help-desk demo world: a sales assistant's catalogue, discount policy and CRM fields.

A second kind of chatbot (the seed's "mesa de ayuda"), in Spanish: its prices are written
"1.234,56 €". The evaluator knows none of it; ``data/helpdesk/`` holds its BKG, golden intent
cases and rubric, and ``demo/helpdesk_bot.py`` its assistant.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd
import sqlalchemy as sa

PRODUCTS = (
    ("P1", "Patito Básico", "licencia", 349.90),
    ("P2", "Patito Pro 2026", "licencia", 1249.00),
    ("P3", "Paquete Premium", "paquete", 2890.50),
    ("P4", "Soporte Plus", "servicio", 99.00),
)
MAX_DISCOUNT_WITHOUT_APPROVAL = 10.0
CRM_FIELDS = ("nombre", "empresa", "tamano")
LOADED_AT = dt.datetime(2026, 11, 1, 6, 0, 0)


def generate() -> dict[str, pd.DataFrame]:
    """The catalogue, the commercial policy and the CRM's mandatory fields."""
    products = pd.DataFrame(PRODUCTS, columns=["producto_id", "nombre", "categoria", "precio_eur"])
    products["updated_at"] = LOADED_AT
    policies = pd.DataFrame(
        [
            (
                "descuento_max_sin_aprobacion",
                MAX_DISCOUNT_WITHOUT_APPROVAL,
                "Un descuento superior requiere la aprobación del gerente.",
            )
        ],
        columns=["clave", "valor", "descripcion"],
    )
    fields = pd.DataFrame([(f, True) for f in CRM_FIELDS], columns=["campo", "obligatorio"])
    return {"productos": products, "politicas": policies, "campos_crm": fields}


def load(url: str) -> None:
    """Replace the world's tables with the generated rows (SQLite or PostgreSQL)."""
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            for name, frame in generate().items():
                frame.to_sql(name, conn, if_exists="replace", index=False)
    finally:
        engine.dispose()


def price_text(value: float) -> str:
    """A price as the assistant writes it: ``1.234,56 €``."""
    whole, cents = f"{value:,.2f}".split(".")
    return f"{whole.replace(',', '.')},{cents} €"


TRAFFIC = (
    ("Hola, buenos días", "¿Cuánto cuesta el Paquete Premium?"),
    ("Hola", "¿Me dan un 25% de descuento en el Patito Pro 2026?"),
    ("Quiero registrar la oportunidad a nombre de Luis Mora de la empresa Datos SL",),
    ("¿Qué precio tiene el Soporte Plus?", "¿Y el Patito Básico?"),
    ("¿Me aplican un 8% de descuento?",),
    ("Quiero contratar el Patito Básico",),
)
"""Production conversations the demo sends its assistant after the golden run (each a thread
of user messages), so the evaluator has logged conversations to read back."""
