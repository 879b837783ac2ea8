"""Login → short-lived JWT, as the production chatbots the SSE adapter talks to do it, and an API
key for the OpenAI-format and JSON endpoints.

The demo bot holds one user; what matters is that the adapter must log in, send a bearer token and
cope with a 401, exactly as it would against a real deployment.
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass, field

import jwt

ALGORITHM = "HS256"


@dataclass(frozen=True)
class Credentials:
    username: str = "demo"
    password: str = field(default="demo-password", repr=False)
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)
    token_ttl_s: int = 3600
    api_key: str = field(default="demo-api-key", repr=False)

    def check(self, username: object, password: object) -> bool:
        """Constant-time comparison, so timing does not reveal how much of a guess was right."""
        if not isinstance(username, str) or not isinstance(password, str):
            return False
        user_ok = hmac.compare_digest(username.encode(), self.username.encode())
        password_ok = hmac.compare_digest(password.encode(), self.password.encode())
        return user_ok and password_ok

    def check_api_key(self, authorization: str | None) -> bool:
        """``Authorization: Bearer <api key>``, as the OpenAI-format and JSON endpoints take it."""
        scheme, _, key = (authorization or "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            key.strip().encode(), self.api_key.encode()
        )

    def issue(self, now: float | None = None) -> str:
        issued = int(time.time() if now is None else now)
        claims = {"sub": self.username, "iat": issued, "exp": issued + self.token_ttl_s}
        return jwt.encode(claims, self.secret, algorithm=ALGORITHM)

    def subject(self, authorization: str | None) -> str | None:
        """The user an ``Authorization: Bearer …`` header proves; None when missing/bad/expired."""
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        try:
            claims = jwt.decode(
                token.strip(), self.secret, algorithms=[ALGORITHM], options={"require": ["exp"]}
            )
        except jwt.PyJWTError:
            return None
        subject = claims.get("sub")
        return subject if subject == self.username else None
