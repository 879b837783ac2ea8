"""A tiny stand-in for the BKG runtime, to print live values while writing answers."""
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))
import warehouse  # noqa: E402


class DB:
    dialect = "sqlite"

    def __init__(self, path):
        self.con = sqlite3.connect(path)

    def query(self, sql, **binds):
        return pd.read_sql_query(sql, self.con, params=binds)

    def scalar(self, sql, **binds):
        row = self.con.execute(sql, binds).fetchone()
        return None if row is None else row[0]


def runtime():
    tmp = tempfile.mkdtemp()
    path = f"{tmp}/w.db"
    warehouse.build(path)
    db = DB(path)
    bkg = json.loads((HERE / "bkg.json").read_text())
    ns = {}
    for kind in ("kpis", "decisions", "core_nodes"):
        for f in bkg.get(kind, []):
            exec(f["python_function"], ns)
    defaults = {f["name"]: {p["name"]: p["default"] for p in f.get("params", []) if "default" in p}
                for kind in ("kpis", "decisions", "core_nodes") for f in bkg.get(kind, [])}

    def ev(ref):
        params = dict(ref.get("params", {}))
        if "sql" in ref:
            df = db.query(ref["sql"], **params)
            if df.shape == (1, 1):
                return df.iat[0, 0]
            return df
        name = ref.get("kpi") or ref.get("decision") or ref.get("core_node")
        params = {**defaults[name], **params}
        return ns[name](db, **params)

    return db, ev


if __name__ == "__main__":
    db, ev = runtime()
    pd.set_option("display.width", 200, "display.max_rows", 100)
    for arg in sys.argv[1:]:
        ref = json.loads(arg)
        print(json.dumps(ref))
        print(ev(ref))
