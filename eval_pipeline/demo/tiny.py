"""A second, unrelated domain (a neighbourhood bakery's orders) with its own answerer.

Tests evaluate it with the same evaluator as the main demo to show that nothing in the evaluator
knows either domain: only the BKG, the golden cases and the database URL change.
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd
import sqlalchemy as sa

PRODUCTS = (
    ("P1", "Sourdough loaf", "bread", 6.50, 40),
    ("P2", "Baguette", "bread", 3.20, 55),
    ("P3", "Croissant", "pastry", 2.40, 90),
    ("P4", "Cinnamon bun", "pastry", 3.10, 25),
    ("P5", "Carrot cake", "cake", 4.80, 8),
)
CHANNELS = ("counter", "online")
START = dt.date(2026, 1, 1)
DAYS = 90
N_ORDERS = 1200
LOADED_AT = dt.datetime(2026, 4, 1, 5, 0, 0)


def generate(seed: int = 11) -> dict[str, pd.DataFrame]:
    """Products and about a thousand orders over one quarter; the same seed gives the same rows."""
    rng = np.random.default_rng(seed)
    products = pd.DataFrame(
        PRODUCTS, columns=["product_id", "name", "category", "unit_price", "stock"]
    )
    products["updated_at"] = LOADED_AT
    weights = np.array([0.22, 0.25, 0.3, 0.15, 0.08])
    picks = rng.choice(len(PRODUCTS), size=N_ORDERS, p=weights)
    orders = pd.DataFrame(
        {
            "order_id": range(1, N_ORDERS + 1),
            "product_id": [PRODUCTS[i][0] for i in picks],
            "order_date": [
                START + dt.timedelta(days=int(d)) for d in rng.integers(0, DAYS, N_ORDERS)
            ],
            "quantity": rng.integers(1, 7, N_ORDERS),
            "channel": [CHANNELS[int(c)] for c in rng.random(N_ORDERS) < 0.37],
            "updated_at": LOADED_AT,
        }
    )
    return {"products": products, "orders": orders}


def load(url: str, seed: int = 11) -> None:
    """Replace both tables with the generated rows (SQLite or PostgreSQL)."""
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            for name, frame in generate(seed).items():
                frame.to_sql(name, conn, if_exists="replace", index=False)
    finally:
        engine.dispose()


def _scalar(engine: sa.Engine, sql: str, **params: object) -> float:
    with engine.connect() as conn:
        return float(conn.execute(sa.text(sql), params).scalar() or 0)


def _product(question: str) -> tuple[str, str] | None:
    lowered = question.lower()
    return next(((pid, name) for pid, name, *_ in PRODUCTS if name.lower() in lowered), None)


def answer(question: str, engine: sa.Engine) -> str:
    """A correct, number-bearing answer to each of the tiny golden questions (and paraphrases)."""
    q = question.lower()
    product = _product(question)
    if "restock" in q and product:
        pid, name = product
        stock = _scalar(engine, "SELECT stock FROM products WHERE product_id = :p", p=pid)
        daily = (
            _scalar(engine, "SELECT SUM(quantity) FROM orders WHERE product_id = :p", p=pid) / DAYS
        )
        verdict = "needs" if stock < 3 * daily else "does not need"
        return (
            f"{name} {verdict} a restock. Stock on hand: {stock:.0f}. "
            f"Average units sold per day: {daily:.2f}."
        )
    if "revenue" in q:
        month = re.search(r"\b(20\d\d-\d\d)\b", q)
        sql = "SELECT SUM(o.quantity * p.unit_price) FROM orders o JOIN products p"
        sql += " ON p.product_id = o.product_id"
        if month:
            start = dt.date.fromisoformat(month.group(1) + "-01")
            end = (start + dt.timedelta(days=32)).replace(day=1)
            value = _scalar(
                engine,
                sql + " WHERE o.order_date >= :start AND o.order_date < :end",
                start=start,
                end=end,
            )
            return f"Revenue in {month.group(1)} was ${value:,.2f}."
        return f"Total revenue was ${_scalar(engine, sql):,.2f}."
    if "online" in q:
        online = _scalar(engine, "SELECT SUM(quantity) FROM orders WHERE channel = 'online'")
        total = _scalar(engine, "SELECT SUM(quantity) FROM orders")
        return f"Online orders account for {100 * online / total:.2f}% of units sold."
    if product and ("how many" in q or "units" in q):
        pid, name = product
        units = _scalar(engine, "SELECT SUM(quantity) FROM orders WHERE product_id = :p", p=pid)
        return f"{units:,.0f} units of {name} were sold."
    return "I can't answer that from the available data."
