def L(text, verdict, note="", ctx=None, chk=None):
    d = {"text": text, "verdict": verdict}
    if ctx:
        d["context"] = ctx
    if note:
        d["note"] = note
    if chk is not None:
        d["chk"] = chk
    return d


def N(text, note, ctx=None):
    return L(text, "not_a_claim", note, ctx)


def U(text, note, ctx=None):
    return L(text, "unverifiable", note, ctx)


def S(text, note, chk, ctx=None):
    return L(text, "supported", note, ctx, chk)


def C(text, note, chk, ctx=None):
    return L(text, "contradicted", note, ctx, chk)


def case(n, cats, q, refs, a, labels):
    return {"id": f"insurance-{n:03d}", "categories": cats, "question": q, "references": refs,
            "answer": a, "labels": labels}


def kpi(name, **params):
    return {"kpi": name, "params": params}


def kpil(name, label, **params):
    return {"kpi": name, "params": params, "label": label}


def sql(q, unit=None, column_units=None, label=None, **params):
    d = {"sql": q, "params": params}
    if unit:
        d["unit"] = unit
    if column_units:
        d["column_units"] = column_units
    if label:
        d["label"] = label
    return d
