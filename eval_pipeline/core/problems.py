"""Input problems reported to users: every one of them at once, each pointing at file and place."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located by case id / function name rather than array index."""

    file: str
    location: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.location}" if self.location else self.file
        text = f"{where}: {self.message}"
        # printable whatever the input held: a lone surrogate would crash the print itself
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class InputError(Exception):
    """Inputs that cannot be used; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


SETTINGS = "settings"  # the "file" of a problem with an environment variable
COMMAND_LINE = "command line"  # … and of one with a command-line option


def first_line(exc: BaseException, secrets: Iterable[str | None] = ()) -> str:
    """An exception as one line, a driver's own message first, every known secret scrubbed."""
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


@contextmanager
def configured(
    variable: str, what: str, secrets: Iterable[str | None] = (), *, source: str = SETTINGS
) -> Iterator[None]:
    """Open what ``variable`` configures; any failure becomes one problem naming the variable
    (or the command-line option, with ``source=COMMAND_LINE``).

    Every resource a setting points at (a database, a folder, a module) is opened under this,
    before the first chatbot call, so a bad value ends the command in one line, never a traceback.
    """
    try:
        yield
    except InputError:
        raise
    except Exception as exc:
        message = f"{what}: {first_line(exc, secrets)}"
        raise InputError([Problem(source, variable, message)]) from None


def collected(*checks: Callable[[], object]) -> list[Problem]:
    """The problems of every check, each run even when an earlier one failed."""
    problems: list[Problem] = []
    for check in checks:
        try:
            check()
        except InputError as exc:
            problems += exc.problems
    return problems
