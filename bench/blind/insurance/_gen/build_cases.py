"""Assembles ../cases.json from the parts and checks my own numeric labels against the
tolerance rule of BRIEF.md (my reading of it, written before any oracle run)."""
import json
import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

NUM = re.compile(r"(\d[\d,]*\.?\d*|\.\d+)\s*([kKMB](?![a-z]))?")


def parse(text):
    m = NUM.search(text)
    raw = m.group(1).replace(",", "").rstrip(".")
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    scale = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, None: 1}[m.group(2)]
    return float(raw), decimals, scale, raw


def interval(text, hedged):
    v, dec, scale, raw = parse(text)
    half = 0.5 * 10 ** (-dec)
    if hedged:
        if dec:
            unit = 10 ** (-dec)
        else:
            digits = raw.rstrip("0")
            unit = 10 ** (len(raw) - len(digits)) if digits else 1
        width = max(min(half + unit, 0.1 * v), half)
    else:
        width = half
    return (v - width) * scale, (v + width) * scale


def verify(case, problems):
    for lab in case["labels"]:
        chk = lab.pop("chk", None)
        if chk is None:
            if lab["verdict"] in ("supported", "contradicted"):
                problems.append(f"{case['id']}: {lab['text']!r} has no check")
            continue
        kind = chk[0]
        if kind in ("num", "hedge"):
            truth = chk[1]
            lo, hi = interval(lab["text"], kind == "hedge")
            ok = lo <= truth <= hi
        elif kind == "gt":
            ok = chk[1] > parse(lab["text"])[0] * parse(lab["text"])[2]
        elif kind == "lt":
            ok = chk[1] < parse(lab["text"])[0] * parse(lab["text"])[2]
        elif kind == "onein":  # ("onein", N written, whole/part)
            ok = round(chk[2]) == chk[1]
        elif kind == "xofy":  # ("xofy", X, Y * share)
            ok = round(chk[2]) == chk[1]
        elif kind == "rank":
            ok = bool(chk[1])
        else:
            raise ValueError(kind)
        want = lab["verdict"] == "supported"
        if lab["verdict"] not in ("supported", "contradicted"):
            problems.append(f"{case['id']}: {lab['text']!r} checked but {lab['verdict']}")
        elif ok != want:
            problems.append(f"{case['id']}: {lab['text']!r} labelled {lab['verdict']} but check says {'in' if ok else 'out of'} tolerance ({chk})")


def spans(case, problems):
    a = case["answer"]
    got = []
    for lab in case["labels"]:
        where = lab.get("context") or lab["text"]
        if a.count(where) != 1:
            problems.append(f"{case['id']}: {where!r} occurs {a.count(where)} times")
            continue
        if where.count(lab["text"]) != 1:
            problems.append(f"{case['id']}: {lab['text']!r} not once in its context")
            continue
        st = a.index(where) + where.index(lab["text"])
        got.append((st, st + len(lab["text"]), lab["text"]))
    got.sort()
    for x, y in zip(got, got[1:]):
        if y[0] < x[1]:
            problems.append(f"{case['id']}: overlap {x[2]!r} {y[2]!r}")
    for m in re.finditer(r"\d", a):
        if not any(s <= m.start() < e for s, e, _ in got):
            problems.append(f"{case['id']}: digit not labelled: ...{a[max(0, m.start()-20):m.start()+15]!r}")
            break


def apply_flip(cases, flip, problems):
    num, text, ctx, new, verdict = flip
    case = next(c for c in cases if c["id"] == f"insurance-{num:03d}")
    a = case["answer"]
    found = [lab for lab in case["labels"] if lab["text"] == text and lab.get("context") == ctx]
    if len(found) != 1:
        problems.append(f"flip {flip}: {len(found)} labels match")
        return
    lab = found[0]
    if ctx is None and a.count(text) != 1:
        problems.append(f"flip {flip}: text not unique in answer")
        return
    spans = {}
    for other in case["labels"]:
        where = other.get("context") or other["text"]
        if a.count(where) != 1:
            problems.append(f"flip {flip}: {where!r} not unique before the flip")
            return
        cs = a.index(where)
        spans[id(other)] = (cs, cs + len(where))
    where = lab.get("context") or lab["text"]
    st = a.index(where) + where.index(text)
    en = st + len(text)
    b = a[:st] + new + a[en:]
    delta = len(new) - len(text)
    for other in case["labels"]:
        if "context" not in other:
            continue
        cs, ce = spans[id(other)]
        if ce <= st:
            continue
        if cs >= en:
            cs, ce = cs + delta, ce + delta
        else:
            ce += delta
        other["context"] = b[cs:ce]
    case["answer"] = b
    lab["text"] = new
    lab["verdict"] = verdict
    if verdict == "contradicted":
        lab["note"] = lab.get("note", "") + f"; the answer states {new}, outside tolerance"
    else:
        lab["note"] = lab.get("note", "") + f"; stated {new}, within tolerance"


def main():
    cases = []
    for part in sorted(HERE.glob("part*.py")):
        ns = {}
        exec(part.read_text(), ns)
        cases += ns["CASES"]
    problems = []
    from flips import APPENDS, FLIPS
    for num, sentence, labs in APPENDS:
        case = next(c for c in cases if c["id"] == f"insurance-{num:03d}")
        if sentence in case["answer"]:
            problems.append(f"append {num}: already there")
        last = case["answer"].rstrip().splitlines()[-1]
        sep = "\n\n" if last.startswith(("|", "- ")) else " "
        case["answer"] = case["answer"].rstrip() + sep + sentence
        for lab in labs:
            if len(lab) == 4:  # (context, verdict, note, text inside the context)
                ctx, verdict, note, text = lab
                case["labels"].append({"text": text, "context": ctx, "verdict": verdict, "note": note})
            else:
                text, verdict, note = lab[:3]
                d = {"text": text, "verdict": verdict, "note": note}
                if len(lab) == 4:
                    d["context"] = lab[3]
                case["labels"].append(d)
    for flip in FLIPS:
        apply_flip(cases, flip, problems)
    for c in cases:
        verify(c, problems)
        spans(c, problems)
    print("\n".join(problems) or "self-check ok")
    (HERE.parent / "cases.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
