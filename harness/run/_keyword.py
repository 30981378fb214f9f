"""Which cases a pytest `-k` expression selects, decided from the case ids before anything is started, so that an
expression matching nothing is one line at once instead of an IUT launched for nothing (`callproof run`).

pytest's rules: the expression is identifiers joined by `and`, `or`, `not` and parentheses; an identifier matches a
case when it is a substring, in any case, of one of the case's names. In the bundled suite those are the test
`test_conformance[<case id>]`, its module `test_conformance.py` and its mark `xdist_group`; pytest adds the folders
between its rootdir and the installed suite, which depend on where callproof is installed: an expression naming
any of those folders is left to pytest (`None`). An expression outside the grammar is a `ValueError`, as pytest
would refuse it."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

__all__ = ["closest_cases", "keyword_selects"]

#: pytest's `-k` identifier characters (_pytest/mark/expression.py).
_TOKEN = re.compile(r"\s*(\(|\)|(?:\w|:|\+|-|\.|\[|\]|\\|/)+)")
#: The names every case of the bundled suite has besides `test_conformance[<id>]`.
_COMMON = ("test_conformance.py", "xdist_group")


class _Unreadable(ValueError):
    """The expression is not in pytest's `-k` grammar."""


def _tokens(expression: str) -> list[str]:
    tokens: list[str] = []
    at = 0
    while at < len(expression):
        found = _TOKEN.match(expression, at)
        if found is None:
            rest = expression[at:]
            if rest.strip():
                column = at + len(rest) - len(rest.lstrip()) + 1
                raise _Unreadable(f"unexpected {rest.strip()[0]!r} at column {column}")
            break
        tokens.append(found.group(1))
        at = found.end()
    return tokens


def _compile(expression: str) -> tuple[Callable[[Callable[[str], bool]], bool], list[str]]:
    """The expression as a function of a matcher, and its identifiers. Raises `_Unreadable`."""
    tokens = _tokens(expression)
    names: list[str] = []
    at = 0

    def peek() -> str | None:
        return tokens[at] if at < len(tokens) else None

    def take() -> str:
        nonlocal at
        if at >= len(tokens):
            raise _Unreadable("it ends where a name or a parenthesis is expected")
        at += 1
        return tokens[at - 1]

    Node = Callable[[Callable[[str], bool]], bool]

    def either() -> Node:
        parts = [both()]
        while peek() == "or":
            take()
            parts.append(both())
        return lambda match: any(p(match) for p in parts)

    def both() -> Node:
        parts = [negated()]
        while peek() == "and":
            take()
            parts.append(negated())
        return lambda match: all(p(match) for p in parts)

    def negated() -> Node:
        token = take()
        if token == "not":
            inner = negated()
            return lambda match: not inner(match)
        if token == "(":
            inner = either()
            if peek() != ")":
                raise _Unreadable("a parenthesis is not closed")
            take()
            return inner
        if token in (")", "and", "or"):
            raise _Unreadable(f"{token!r} where a name is expected")
        names.append(token)
        return lambda match: match(token)

    if not tokens:
        return (lambda match: True), names
    tree = either()
    if at != len(tokens):
        raise _Unreadable(f"{tokens[at]!r} where and, or or the end is expected")
    return tree, names


def _folders(rootdir: Path, suite: Path) -> list[str]:
    """The folder names pytest may add to every case's names: those from `rootdir` down to the suite."""
    try:
        return [part.lower() for part in suite.resolve().relative_to(rootdir.resolve()).parts]
    except ValueError:
        return [suite.name.lower()]


def keyword_selects(expression: str, case_ids: Sequence[str], rootdir: Path, suite: Path) -> list[str] | None:
    """The ids among `case_ids` that `pytest -k expression` selects in the bundled suite (installed in the folder
    `suite`, run with `rootdir`), or None when only pytest can tell. Raises `ValueError` saying why the expression
    is not one."""
    tree, names = _compile(expression)
    folders = _folders(rootdir, suite)
    if any(name.lower() in folder for name in names for folder in folders):
        return None

    def selected(case_id: str) -> bool:
        own = (f"test_conformance[{case_id}]".lower(), *_COMMON)
        return tree(lambda name: any(name.lower() in n for n in own))

    return [case_id for case_id in case_ids if selected(case_id)]


def closest_cases(expression: str, case_ids: Iterable[str], n: int = 3) -> list[str]:
    """The case ids, scenario ids or rule groups nearest to the expression's words, for a did-you-mean."""
    ids = list(case_ids)
    choices = sorted({*ids, *(part for i in ids for part in i.split("::"))})
    try:
        words = _compile(expression)[1]
    except _Unreadable:
        words = [expression]
    near = [difflib.get_close_matches(word, choices, n=n, cutoff=0.6) for word in words]
    found: list[str] = []
    for rank in range(n):  # each word's nearest first, then the runners-up
        found += [m[rank] for m in near if rank < len(m) and m[rank] not in found]
    return found[:n]
