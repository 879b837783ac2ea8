"""What runs inside the sandbox process: the static policy, the confinement and the runner.

The parent starts this file as ``python -I -S -B sandbox_child.py CPU_S MEMORY_MB`` with the code
and its inputs as JSON on stdin, and reads one JSON envelope back from stdout. The child starts
without installed packages, so only the standard library may be imported here. The parent imports
``check_source`` from this module too: the policy is checked before a process is spent and again
inside the process, by the same code.

The walls, outermost first: an AST policy (allow-listed imports; no dunder, frame or
string-to-attribute access; no eval/exec/open/getattr...), curated builtins and module proxies that
hide sub-modules, then the process itself: unprivileged, rlimits on CPU, address space, processes,
file size and open files (three descriptors: no new file or socket can be opened).
"""

from __future__ import annotations

import ast
import io
import json
import math
import os
import resource
import sys
import types
from typing import Any

ALLOWED_MODULES: frozenset[str] = frozenset(
    {
        "bisect",
        "collections",
        "datetime",
        "decimal",
        "fractions",
        "functools",
        "heapq",
        "itertools",
        "json",
        "math",
        "operator",
        "re",
        "statistics",
    }
)
# Members that turn a string into attribute access, which the AST policy could not see.
_HIDDEN_MEMBERS: dict[str, frozenset[str]] = {
    "operator": frozenset({"attrgetter", "methodcaller"}),
}
FORBIDDEN_NAMES: frozenset[str] = frozenset(
    {
        "breakpoint",
        "compile",
        "delattr",
        "dir",
        "eval",
        "exec",
        "exit",
        "getattr",
        "globals",
        "hasattr",
        "help",
        "input",
        "locals",
        "memoryview",
        "object",
        "open",
        "quit",
        "setattr",
        "super",
        "type",
        "vars",
    }
)
# Non-dunder doors to frames, code objects and format-string attribute lookups.
FORBIDDEN_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "ag_await",
        "ag_code",
        "ag_frame",
        "attrgetter",
        "co_code",
        "co_consts",
        "cr_await",
        "cr_code",
        "cr_frame",
        "f_back",
        "f_builtins",
        "f_code",
        "f_globals",
        "f_locals",
        "format",
        "format_map",
        "gi_code",
        "gi_frame",
        "gi_yieldfrom",
        "methodcaller",
        "tb_frame",
        "tb_next",
    }
)
_FORBIDDEN_NODES: dict[type[ast.AST], str] = {
    ast.ClassDef: "class definitions are",
    ast.AsyncFunctionDef: "async functions are",
    ast.AsyncFor: "async for is",
    ast.AsyncWith: "async with is",
    ast.Await: "await is",
}
_SAFE_BUILTINS: tuple[str, ...] = (
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytes",
    "callable",
    "chr",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "hash",
    "hex",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "oct",
    "ord",
    "pow",
    "print",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "str",
    "sum",
    "tuple",
    "zip",
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "Exception",
    "ImportError",
    "IndexError",
    "KeyError",
    "LookupError",
    "NameError",
    "NotImplementedError",
    "OverflowError",
    "RecursionError",
    "RuntimeError",
    "StopIteration",
    "TypeError",
    "ValueError",
    "ZeroDivisionError",
)
MAX_CODE_CHARS = 50_000
MAX_RESULT_CHARS = 1_000_000
STDOUT_CAP = 10_000
MAX_ERROR_CHARS = 1_000
SOURCE_NAME = "<sandbox>"
_UNPRIVILEGED_ID = 65534  # "nobody": RLIMIT_NPROC does not bind root


def _attribute_problem(name: str) -> str | None:
    if name.startswith("_"):
        return f"access to the private attribute {name!r} is not allowed"
    if name in FORBIDDEN_ATTRIBUTES:
        return f"access to the attribute {name!r} is not allowed"
    return None


def _name_problem(name: str | None) -> str | None:
    if name is None:
        return None
    if name.startswith("__"):
        return f"the name {name!r} is not allowed"
    if name in FORBIDDEN_NAMES:
        return f"{name!r} is not allowed"
    return None


def _import_problems(node: ast.Import | ast.ImportFrom) -> list[str | None]:
    allowed = ", ".join(sorted(ALLOWED_MODULES))
    if isinstance(node, ast.Import):
        return [
            None
            if alias.name in ALLOWED_MODULES
            else f"import of {alias.name!r} is not allowed (allowed: {allowed})"
            for alias in node.names
        ] + [_name_problem(alias.asname) for alias in node.names]
    module = node.module or ""
    if node.level or module not in ALLOWED_MODULES:
        return [f"import from {'.' * node.level + module!r} is not allowed (allowed: {allowed})"]
    problems: list[str | None] = []
    for alias in node.names:
        if alias.name == "*":
            problems.append("star imports are not allowed")
        elif alias.name in _HIDDEN_MEMBERS.get(module, frozenset()):
            problems.append(f"{module}.{alias.name} is not allowed")
        else:
            problems.append(_attribute_problem(alias.name))
        problems.append(_name_problem(alias.asname))
    return problems


def _node_problems(node: ast.AST) -> list[str | None]:
    """Every policy breach of one node (None entries are fine)."""
    for kind, label in _FORBIDDEN_NODES.items():
        if isinstance(node, kind):
            return [f"{label} not allowed"]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return _import_problems(node)
    if isinstance(node, ast.Attribute):
        return [_attribute_problem(node.attr)]
    if isinstance(node, ast.MatchClass):  # ``case C(attr=x)`` reads attributes by name
        return [_attribute_problem(name) for name in node.kwd_attrs]
    if isinstance(node, ast.Name):
        return [_name_problem(node.id)]
    if isinstance(node, ast.FunctionDef | ast.MatchAs | ast.MatchStar | ast.ExceptHandler):
        return [_name_problem(node.name)]
    if isinstance(node, ast.arg | ast.keyword):
        return [_name_problem(node.arg)]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return [_name_problem(name) for name in node.names]
    if isinstance(node, ast.MatchMapping):
        return [_name_problem(node.rest)]
    return []


def parse_checked(code: str) -> tuple[ast.Module | None, list[str]]:
    """The parsed module and the policy breaches, each prefixed with its line number."""
    if len(code) > MAX_CODE_CHARS:
        return None, [f"the code is longer than {MAX_CODE_CHARS} characters"]
    try:
        tree = ast.parse(code, filename=SOURCE_NAME, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return None, [f"the code does not parse: {type(exc).__name__}: {exc}"]
    problems = []
    for node in ast.walk(tree):
        for problem in _node_problems(node):
            if problem is not None:
                problems.append(f"line {getattr(node, 'lineno', '?')}: {problem}")
    return tree, list(dict.fromkeys(problems))


def check_source(code: str) -> list[str]:
    """Policy breaches of ``code``; empty when it may run."""
    return parse_checked(code)[1]


def _module_proxy(module: types.ModuleType) -> types.ModuleType:
    """A stand-in exposing only public, non-module members, so ``statistics.sys`` does not exist."""
    proxy = types.ModuleType(module.__name__)
    hidden = _HIDDEN_MEMBERS.get(module.__name__, frozenset())
    for name, value in vars(module).items():
        if name.startswith("_") or name in hidden or isinstance(value, types.ModuleType):
            continue
        setattr(proxy, name, value)
    return proxy


def _safe_builtins(proxies: dict[str, types.ModuleType]) -> dict[str, Any]:
    import builtins

    def guarded_import(
        name: str,
        globals: Any = None,
        locals: Any = None,
        fromlist: Any = (),
        level: int = 0,
    ) -> types.ModuleType:
        if level or name not in proxies:
            raise ImportError(f"import of {name!r} is not allowed")
        return proxies[name]

    table: dict[str, Any] = {name: getattr(builtins, name) for name in _SAFE_BUILTINS}
    table["__import__"] = guarded_import
    return table


def confine(cpu_s: float, memory_mb: int) -> None:
    """Drop root, then cap CPU, address space, processes, file size and open descriptors.

    Call only after every module the child needs is imported: with three descriptors nothing
    can be opened any more, so neither a file, a socket nor a module file.
    """
    if os.getuid() == 0:
        os.setgroups([])
        os.setgid(_UNPRIVILEGED_ID)
        os.setuid(_UNPRIVILEGED_ID)
    cpu = max(1, math.ceil(cpu_s))
    memory = memory_mb * 1024 * 1024
    limits = {
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (memory, memory),
        resource.RLIMIT_NPROC: (0, 0),
        resource.RLIMIT_FSIZE: (0, 0),
        resource.RLIMIT_NOFILE: (3, 3),
    }
    for kind, value in limits.items():
        resource.setrlimit(kind, value)


class _CappedText(io.StringIO):
    """What ``print`` writes to: the first ``cap`` characters are kept, the rest is counted."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap
        self.dropped = 0

    def write(self, text: str) -> int:
        room = max(0, self.cap - self.tell())
        super().write(text[:room])
        self.dropped += max(0, len(text) - room)
        return len(text)

    def text(self) -> str:
        kept = self.getvalue()
        return kept + (f"\n... [{self.dropped} more characters dropped]" if self.dropped else "")


def _error_line(exc: BaseException) -> str:
    line = None
    trace = exc.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == SOURCE_NAME:
            line = trace.tb_lineno
        trace = trace.tb_next
    where = f" (line {line})" if line is not None else ""
    return f"{type(exc).__name__}: {str(exc)[:MAX_ERROR_CHARS]}{where}"


def _run(code: str, inputs: Any, proxies: dict[str, types.ModuleType]) -> dict[str, Any]:
    tree, problems = parse_checked(code)
    if tree is None or problems:
        return {"ok": False, "error": "refused: " + "; ".join(problems), "killed_by": "refused"}
    printed = _CappedText(STDOUT_CAP)
    namespace: dict[str, Any] = {"__builtins__": _safe_builtins(proxies), "inputs": inputs}
    sys.stdout = sys.stderr = printed
    try:
        exec(compile(tree, SOURCE_NAME, "exec"), namespace)
    except MemoryError:
        namespace.clear()
        return {"ok": False, "error": "MemoryError: memory limit", "killed_by": "memory"}
    except BaseException as exc:  # the code's own failure, reported rather than raised
        return {"ok": False, "stdout": printed.text(), "error": _error_line(exc)}
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    if "result" not in namespace:
        return {"ok": False, "stdout": printed.text(), "error": "the code did not assign `result`"}
    try:
        encoded = json.dumps(namespace["result"], allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        return {"ok": False, "stdout": printed.text(), "error": f"`result` is not JSON: {exc}"}
    if len(encoded) > MAX_RESULT_CHARS:
        return {"ok": False, "stdout": printed.text(), "error": "`result` is too large"}
    return {"ok": True, "result_json": encoded, "stdout": printed.text()}


def main() -> None:
    proxies = {name: _module_proxy(__import__(name)) for name in sorted(ALLOWED_MODULES)}
    out = sys.stdout.buffer
    confine(float(sys.argv[1]), int(sys.argv[2]))
    request = json.loads(sys.stdin.buffer.read())
    envelope = _run(request["code"], request.get("inputs", {}), proxies)
    out.write(json.dumps(envelope).encode())
    out.flush()


if __name__ == "__main__":
    main()
