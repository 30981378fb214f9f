"""Credentials on a request: which header and query parameter names carry one, and which of their values look like
secrets. One definition for the judge (GW-FAULT-005, docs/spec/contracts.md §7.8.1), the run's default front
credential and the bundled reference gateway, which redacts them from upstream errors (examples/gateway/).

A name is a credential's when it is one of the standard auth headers and parameters of the dialects
(`authorization`, `proxy-authorization`, `x-api-key`, `api-key`, `x-goog-api-key`, `cookie`, the `key` and `api_key`
query parameters) or ends in `key`, `token`, `secret` or `password` as a whole word (`-`/`_` before it:
`x-portkey-api-key`, `x-auth-token`, `access_token`). A word that merely contains one is not: a routing header such
as `x-portkey-provider` names a provider, not a secret (docs/spec/verdicts.md §8).

A value looks like a secret when it is at least `MIN_SECRET_LENGTH` characters, holds no whitespace and is not a
plain word of letters in one case (`anthropic`, `OPENAI`): keys mix cases, digits or punctuation
(`sk-...`, `AIza...`).
"""

from __future__ import annotations

import re

__all__ = ["CREDENTIAL_NAMES", "MIN_SECRET_LENGTH", "credential_values", "is_credential_name", "looks_secret"]

#: The standard auth headers and query parameters of the dialects and their common proxies.
CREDENTIAL_NAMES = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key",
                              "cookie", "key", "api_key", "apikey"})
#: A name ending in one of these words (after `-` or `_`, or alone) is a credential's.
_WORD = re.compile(r"(?:^|[-_])(?:key|token|secret|password)$")
#: Shorter values are not secrets worth searching for: they occur by chance.
MIN_SECRET_LENGTH = 8
#: A plain word of letters in one case (`anthropic`, `OPENAI`): a name, not a key.
_WORD_VALUE = re.compile(r"[a-z]+|[A-Z]+")


def is_credential_name(name: str) -> bool:
    """Whether a header or query parameter of this name carries a credential (case-insensitive)."""
    lowered = name.strip().lower()
    return lowered in CREDENTIAL_NAMES or _WORD.search(lowered) is not None


def looks_secret(value: str) -> bool:
    """Whether `value` looks like a secret: long enough, no whitespace, not a plain word."""
    return (len(value) >= MIN_SECRET_LENGTH and not any(c.isspace() for c in value)
            and _WORD_VALUE.fullmatch(value) is None)


def _candidates(name: str, value: str) -> list[str]:
    value = value.strip()
    if name.strip().lower() == "cookie":  # `a=1; b=2`: each cookie's value
        return [pair.partition("=")[2].strip() for pair in value.split(";")]
    scheme, _, token = value.partition(" ")
    if token and scheme.isalpha():  # `Bearer sk-...`, `Basic dXNl...`: the token
        return [token.strip()]
    return [value]


def credential_values(name: str, value: str) -> list[str]:
    """The secret-looking values a header or query parameter `name: value` carries: the value, or its token without
    the auth scheme (`Bearer sk-...` -> `sk-...`), or each cookie's value; none when `name` is no credential's."""
    if not is_credential_name(name):
        return []
    return [v for v in _candidates(name, value) if looks_secret(v)]
