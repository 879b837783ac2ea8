"""The oracle's LLM path run over the labelled benchmark, with a scripted model on real HTTP.

The scripted model is plausible, not clever: pass 1 lists the labelled claim texts; pass 2 calls
the tool that computes each of the case's references (``call_kpi``/``call_decision``/
``call_core_node`` with the reference's params, ``execute_sql`` for reference SQL, and
``execute_python`` in the sandbox for values the benchmark states), then submits for every claim
the verdict the returned values support (judged by the deterministic comparison), citing the
evidence ids of those calls. So this proves the plumbing — contract merge, tool loop, real tool
log, evidence, counts — not a model's quality. On purpose it drops one claim in some cases and
fabricates one verification in others; every claim must still get a verdict, and the drops and
fabrications counted must equal the ones injected.

    .venv/bin/python bench/oracle_accuracy_llm.py [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.oracle_accuracy import CASES, demo_warehouse, reference_value
from eval_pipeline.core.claims.extract import extract_claims
from eval_pipeline.core.llm.client import JudgeClient
from eval_pipeline.core.llm.settings import LLMSettings
from eval_pipeline.core.models import (
    ChatPayload,
    ClaimContract,
    GoldenCase,
    Reference,
    ReferenceValue,
    Verdict,
)
from eval_pipeline.core.oracle import verify_claims
from eval_pipeline.core.oracle.llm_verifier import (
    DROPPED,
    UNSUPPORTED,
    llm_claim_contract,
    llm_verify,
)
from eval_pipeline_tests.scripted_openai import (
    RecordedRequest,
    Reply,
    ScriptedOpenAI,
    content,
    tool_calls,
)

KEY = "sk-bench-scripted"
DROP_EVERY = (10, 3)  # case index % 10 == 3: the model never rules on its last claim
FABRICATE_EVERY = (10, 7)  # case index % 10 == 7: it calls its first claim supported, citing T999
_TOOLS = {"kpi": "call_kpi", "decision": "call_decision", "core_node": "call_core_node"}


@dataclass
class _Current:
    """What the scripted model knows about the case it is answering."""

    question: str
    answer: str
    texts: list[str]
    references: list[ReferenceValue]
    stated: list[bool]
    drop: bool
    fabricate: bool
    contract: ClaimContract | None = None


def _call(rv: ReferenceValue, stated: bool) -> tuple[str, dict[str, Any]]:
    """The tool call that computes one reference."""
    ref = rv.reference
    if stated:
        return "execute_python", {"code": "result = inputs['value']", "inputs": {"value": rv.value}}
    if ref.kind == "sql":
        return "execute_sql", {"sql": ref.target}
    return _TOOLS[ref.kind], {"name": ref.target, "params": ref.params}


def _returned(rv: ReferenceValue, result: dict[str, Any]) -> ReferenceValue:
    """The reference with the value the tool returned in place of the one computed here."""
    if "rows" in result:
        rows, columns = result["rows"], result["columns"]
        if len(rows) == 1 and len(columns) == 1:
            return rv.model_copy(update={"shape": "scalar", "value": rows[0][0]})
        return rv.model_copy(update={"shape": "table", "value": {"columns": columns, "rows": rows}})
    if "result" in result:
        return rv.model_copy(update={"value": result["result"]})
    return rv.model_copy(update={"shape": result["shape"], "value": result["value"]})


def _tool_results(request: RecordedRequest) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in request.messages if m["role"] == "tool"]


class ScriptedVerifier:
    """The scripted model's policy (see the module docstring), one case at a time."""

    def __init__(self) -> None:
        self.current: _Current | None = None

    def reply(self, request: RecordedRequest) -> Reply:
        case = self.current
        assert case is not None
        if "response_format" in request.body:
            claims = [
                {
                    "id": f"C{i}",
                    "text": text,
                    "kind": "numeric" if any(ch.isdigit() for ch in text) else "other",
                    "value": None,
                    "unit": None,
                    "entity": None,
                }
                for i, text in enumerate(case.texts, start=1)
            ]
            return content(json.dumps({"claims": claims}))
        called = any(m.get("tool_calls") for m in request.messages)
        submitted = '"claim_id"' in request.text
        if not called and case.references:
            return tool_calls(
                [_call(rv, s) for rv, s in zip(case.references, case.stated, strict=True)]
            )
        if submitted:
            return content("Every claim has its verdict.")
        return tool_calls(self._verdicts(case, _tool_results(request)))

    def _verdicts(
        self, case: _Current, results: list[dict[str, Any]]
    ) -> list[tuple[str, dict[str, Any]]]:
        assert case.contract is not None
        usable = [
            (rv, r) for rv, r in zip(case.references, results, strict=True) if "error" not in r
        ]
        returned = [_returned(rv, r) for rv, r in usable]
        cited = [str(r["evidence_id"]) for _, r in usable]
        verdicts = verify_claims(
            case.contract, returned, answer=case.answer, question=case.question
        )
        calls = []
        for i, v in enumerate(verdicts):
            if case.drop and i == len(verdicts) - 1:
                continue
            label, evidence = v.verdict, cited
            if case.fabricate and i == 0:
                label, evidence = "supported", ["T999"]
            reason = f"tool results say: {v.reason}"
            args = {
                "claim_id": v.claim_id,
                "verdict": label,
                "reason": reason,
                "evidence": evidence,
            }
            calls.append(("submit_verdict", args))
        return calls


@dataclass
class Totals:
    cases: int = 0
    claims: int = 0
    verdicts: int = 0
    dropped: int = 0
    fabricated: int = 0
    injected_drops: int = 0
    injected_fabrications: int = 0
    agree: int = 0
    labelled: int = 0
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [
            f"{self.cases} cases, {self.claims} claims, {self.verdicts} verdicts returned",
            f"drops: injected {self.injected_drops}, counted {self.dropped}",
            f"fabrications: injected {self.injected_fabrications}, caught {self.fabricated}",
            f"labelled claims whose verdict matches the label: {self.agree}/{self.labelled}"
            " (injected claims excluded)",
            *self.problems,
            f"llm-path: claims={self.claims} verdicts={self.verdicts} "
            f"dropped={self.dropped} fabricated_caught={self.fabricated}",
        ]

    @property
    def consistent(self) -> bool:
        return (
            self.claims == self.verdicts
            and self.dropped == self.injected_drops
            and self.fabricated == self.injected_fabrications
            and not self.problems
        )


def _check(case_id: str, contract: ClaimContract, verdicts: list[Verdict]) -> list[str]:
    problems = []
    if [v.claim_id for v in verdicts] != [c.id for c in contract.claims]:
        problems.append(f"[{case_id}] verdicts do not follow the contract's claims")
    for v in verdicts:
        if v.verdict in {"supported", "contradicted"} and not v.evidence:
            problems.append(f"[{case_id}] {v.claim_id} is {v.verdict} without evidence")
    return problems


def evaluate(cases_path: Path = CASES, limit: int | None = None) -> Totals:
    """Run every labelled case (or the first ``limit``) through both LLM passes."""
    cases = json.loads(cases_path.read_text())[:limit]
    totals = Totals()
    policy = ScriptedVerifier()
    with (
        demo_warehouse() as (runtime, db),
        ScriptedOpenAI(api_key=KEY, default=policy.reply) as server,
    ):
        client = JudgeClient(LLMSettings(base_url=server.base_url, api_key=KEY, model="scripted"))
        for index, raw in enumerate(cases):
            references = [reference_value(item, runtime, db) for item in raw["references"]]
            case = GoldenCase(
                id=raw["id"],
                question=raw["question"],
                reference=[
                    Reference.model_validate(item["reference"]) for item in raw["references"]
                ],
            )
            texts = [text for text, _ in raw["expected"]]
            current = _Current(
                question=raw["question"],
                answer=raw["answer"],
                texts=texts,
                references=references,
                stated=["shape" in item for item in raw["references"]],
                drop=index % DROP_EVERY[0] == DROP_EVERY[1],
                fabricate=index % FABRICATE_EVERY[0] == FABRICATE_EVERY[1],
            )
            policy.current = current
            deterministic = extract_claims(case.id, case.question, raw["answer"])
            contract = llm_claim_contract(client, case, raw["answer"], deterministic)
            current.contract = contract
            payload = ChatPayload(case_id=case.id, question=case.question, answer=raw["answer"])
            verdicts, agent = llm_verify(client, case, payload, contract, runtime, db)
            totals.cases += 1
            totals.claims += len(contract.claims)
            totals.verdicts += len(verdicts)
            totals.dropped += len(agent.dropped)
            totals.fabricated += len(agent.fabricated)
            if contract.claims:
                totals.injected_drops += current.drop
                totals.injected_fabrications += current.fabricate
            totals.problems += _check(case.id, contract, verdicts)
            by_text = {c.text: v for c, v in zip(contract.claims, verdicts, strict=True)}
            for text, label in raw["expected"]:
                got = by_text.get(text)
                injected = got is not None and (
                    got.reason == DROPPED or got.reason.startswith(UNSUPPORTED)
                )
                if got is not None and not injected:
                    totals.labelled += 1
                    totals.agree += got.verdict == label
                    if got.verdict != label:
                        got_text = f"got {got.verdict} ({got.reason})"
                        totals.problems.append(f"{case.id} {text!r}: labelled {label}, {got_text}")
        client.close()
    return totals


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N cases")
    result = evaluate(limit=parser.parse_args().limit)
    print("\n".join(result.lines()))
    sys.exit(0 if result.consistent else 1)
