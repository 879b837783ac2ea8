"""The redactor: known secrets, their pieces and credential shapes out of text, before any cut."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from pydantic import SecretStr

from eval_pipeline.core.models import ChatPayload
from eval_pipeline.core.redaction import (
    PIECE_CHARS,
    Redactor,
    marker,
    redacted_names,
    secrets_of,
)
from eval_pipeline.settings import Settings

SECRET = "pw-7f3kQ9zXb2LmW4tRv8"
TOKEN = "tok_4Jd8sK2mQ7xZ9pL3vB6nW1rT5yH0cF"


def pieces(secret: str) -> list[str]:
    return [secret[i : i + PIECE_CHARS] for i in range(len(secret) - PIECE_CHARS + 1)]


def leaks(text: str, *secrets: str) -> list[str]:
    return [p for s in secrets for p in pieces(s) if p in text]


@pytest.fixture
def redactor() -> Redactor:
    return Redactor({"chatbot_password": SECRET, "chatbot_token": SecretStr(TOKEN)})


@pytest.mark.parametrize("limit", [200, 300])
def test_an_excerpt_cut_anywhere_across_a_secret_leaks_no_piece(
    redactor: Redactor, limit: int
) -> None:
    for offset in range(limit - len(SECRET) - 2, limit + 3):
        body = "e" * offset + SECRET + " and " + TOKEN + " trailing text"
        excerpt = redactor.excerpt(body, limit)
        assert len(excerpt) <= limit + 1
        assert leaks(excerpt, SECRET, TOKEN) == [], offset
        assert "[redacted:" not in excerpt or excerpt.count("[") == excerpt.count("]")


def test_pieces_cut_by_someone_else_are_redacted(redactor: Redactor) -> None:
    head, tail = SECRET[:11], SECRET[9:]
    text = f"server said: {head}… and earlier …{tail} then {TOKEN[3:20]}"
    out = redactor.text(text)
    assert leaks(out, SECRET, TOKEN) == []
    assert out.count(marker("chatbot_password")) == 2
    assert marker("chatbot_token") in out


def test_a_piece_that_is_a_plain_word_is_left_alone() -> None:
    redactor = Redactor({"chatbot_password": "demo-password"})
    assert redactor.text("reset the password of the site") == "reset the password of the site"
    assert redactor.text("login demo-password ok") == "login [redacted:chatbot_password] ok"
    assert redactor.text("cut at demo-passw") == "cut at [redacted:chatbot_password]"


def test_spellings_in_urls_and_json_are_redacted() -> None:
    secret = 'p@ss:w/rd"x9'
    redactor = Redactor({"database_url_password": secret})
    url = f"postgresql://reader:{quote(secret, safe='')}@db:5432/wh"
    assert secret not in redactor.text(url) and quote(secret, safe="") not in redactor.text(url)
    as_json = json.dumps({"error": f"bad {secret}"})
    assert redactor.text(as_json) == json.dumps({"error": "bad [redacted:database_url_password]"})


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Authorization: Bearer abc123def456ghi789jkl", "bearer_token"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.Qm9ndXNTaWduYXR1cmU", "jwt"),
        ("postgresql+psycopg2://app:Hunter2Hunter2@db/wh", "url_password"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "private_key"),
        ("key sk-proj-abcdefghijklmnopqrstuvwx12", "api_key"),
        ("AKIAABCDEFGHIJKLMNOP", "api_key"),
        ("DB_PASSWORD=s3cr3t-Value!", "secret_assignment"),
        ('{"api_key": "live_9f8e7d6c"}', "secret_assignment"),
    ],
)
def test_credential_shapes_are_redacted_without_knowing_them(text: str, name: str) -> None:
    out = Redactor().text(text)
    assert redacted_names(out) == [name]
    secretish = text.split(":")[-1].split("=")[-1].strip(' "}')
    assert len(secretish) < PIECE_CHARS or secretish not in out


@pytest.mark.parametrize(
    "text",
    [
        "Revenue rose 12.5% to $1,234,567.89 in 2026-02; 3 of 4 regions grew.",
        "Bearer bonds made up 12 percent of the portfolio.",
        "The secret: consistent onboarding and a password reset flow.",
        "See https://example.com:8443/report?id=42 for the dashboard.",
        "risk-adjusted returns over the quarter; skipped 4 sites",
        "**Total:** ***1,204*** units",
    ],
)
def test_ordinary_answers_are_unchanged(text: str) -> None:
    assert Redactor({"chatbot_password": "demo-password"}).text(text) == text


def test_secrets_of_settings_are_every_secret_field_and_url_password() -> None:
    settings = Settings(
        chatbot_password=SecretStr(SECRET),
        llm_api_key=SecretStr("sk-test-0123456789abcdef"),
        database_url="postgresql+psycopg2://reader:warehouse-pw-1@db/wh",
        results_url="postgresql+psycopg2://eval:results-pw-2@db/results",
        chatbot_url="https://bot:bot-basic-pw-3@bot.example",
    )
    assert secrets_of(settings) == {
        "chatbot_password": SECRET,
        "llm_api_key": "sk-test-0123456789abcdef",
        "database_url_password": "warehouse-pw-1",
        "results_url_password": "results-pw-2",
        "chatbot_url_password": "bot-basic-pw-3",
    }


def test_short_values_are_not_redacted_and_tokens_join_later(redactor: Redactor) -> None:
    redactor.add("short", "abc")
    assert redactor.text("abc abc") == "abc abc"
    redactor.add("chatbot_token", "late-token-123456")
    assert redactor.text("got late-token-123456") == "got [redacted:chatbot_token]"


def test_models_and_json_values_are_redacted_keys_included(redactor: Redactor) -> None:
    payload = ChatPayload(
        case_id="C1",
        question="q",
        answer=f"your token is {TOKEN}",
        errors=[f"HTTP 400: {SECRET}"],
    )
    clean = redactor.model(payload)
    assert TOKEN not in clean.model_dump_json() and SECRET not in clean.model_dump_json()
    assert clean.answer == "your token is [redacted:chatbot_token]"
    untouched = ChatPayload(case_id="C2", question="q", answer="fine")
    assert redactor.model(untouched) is untouched
    assert redactor.value({SECRET: [TOKEN, 1.5, None]}) == {
        "[redacted:chatbot_password]": ["[redacted:chatbot_token]", 1.5, None]
    }


def test_the_quick_test_over_a_whole_record_misses_no_piece(redactor: Redactor) -> None:
    """``value`` first searches the record's JSON once; every 8-character piece still trips it."""
    for start in range(len(SECRET) - PIECE_CHARS + 1):
        piece = SECRET[start : start + PIECE_CHARS]
        record = {"errors": [f"HTTP 400: …{piece}"], "n": 1}
        assert redactor.may_hold(json.dumps(record))
        assert leaks(json.dumps(redactor.value(record)), SECRET) == [], piece
    clean = {"answer": "Revenue was $1.2M.", "tokens_per_s": 3.5, "passed": True}
    assert not redactor.may_hold(json.dumps(clean)) and redactor.value(clean) is clean
