"""GW-FAULT-005 (docs/spec/contracts.md §7.8.1): what a gateway answers never carries the credentials it sent its
upstream, nor the credentials its caller sent it. Some upstreams and proxies echo the request back in an error
body (the key in "Incorrect API key provided: sk-...", a dump of every header); a gateway that forwards that body
verbatim hands its own upstream key to every caller.

The secrets are read from what the judge holds: the mock's own error body (an `http_error` fault with
`echo_request` puts the request's URL and headers, as the mock received them, in `error.request`) and the run's
credential sent to the front (the run's own per-run key by default, or the `--header` values). A header or a URL's
query parameter counts as a credential when its name is a credential's (the standard auth headers and parameters, a
name ending in `-key`, `-token`, `-secret` as a whole word: harness/_credentials.py), and only its values that look
like secrets are searched: not a short value (it occurs by chance) nor a plain word (`x-portkey-provider: anthropic`
names a provider; docs/spec/verdicts.md §8). Messages never print a secret: they name the header and its length.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlsplit

from callproof.harness._credentials import credential_values
from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence

from ._findings import Findings

__all__ = ["Secret", "check_error_leaks", "echoed_secrets", "secrets_of_headers"]

#: A credential: where the judge saw it (e.g. "the `authorization` header the gateway sent upstream") and its value.
Secret = tuple[str, str]


def secrets_of_headers(headers: Mapping[str, str], where: str) -> list[Secret]:
    """The secret-looking credential values among `headers` (by name), each named `the `<name>` header <where>`."""
    return [(f"the `{name.lower()}` header {where}", v) for name, value in headers.items()
            for v in credential_values(name, value)]


def echoed_secrets(upstream_body: bytes) -> list[Secret]:
    """The credentials in the request the mock echoed in its error body (`error.request`: the URL and headers the
    gateway sent upstream); none when the body echoes nothing."""
    try:
        body = json.loads(upstream_body)
    except ValueError:
        return []
    error = body.get("error") if isinstance(body, dict) else None
    request = error.get("request") if isinstance(error, dict) else None
    if not isinstance(request, dict):
        return []
    headers = request.get("headers")
    found = secrets_of_headers({str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {},
                               "the gateway sent upstream")
    query = urlsplit(str(request.get("url", ""))).query
    found += [(f"the `{name}` query parameter of the upstream URL", v)
              for name, value in parse_qsl(query) for v in credential_values(name, value)]
    return found


def _path_of(value: JSONValue, secret: str, path: str = "$") -> str | None:
    """The JSON path of the first string in `value` holding `secret`, or None."""
    if isinstance(value, str):
        return path if secret in value else None
    if isinstance(value, dict):
        children = ((f"{path}.{key}", child) for key, child in value.items())
    elif isinstance(value, list):
        children = ((f"{path}[{index}]", child) for index, child in enumerate(value))
    else:
        return None
    return next((found for p, child in children if (found := _path_of(child, secret, p)) is not None), None)


def check_error_leaks(findings: Findings, front_body: bytes, front_json: JSONValue, upstream_body: bytes,
                      front_headers: Mapping[str, str]) -> None:
    """GW-FAULT-005: the front's answer (`front_body`, its JSON `front_json` when it is JSON) holds none of the
    credentials the upstream echoed (`upstream_body`, the mock's answer) nor those sent to the front
    (`front_headers`: the run's own key unless `--header` gave one). Not judged when no credential is known: nothing
    was sent that could leak."""
    named: dict[str, list[str]] = {}
    for where, value in (*echoed_secrets(upstream_body), *secrets_of_headers(front_headers, "the front was sent")):
        named.setdefault(value, []).append(where)  # a caller's key passed on is both sent and echoed
    secrets = {value: " and ".join(dict.fromkeys(named[value])) for value in sorted(named, key=len, reverse=True)}
    if not secrets:
        return
    findings.check("GW-FAULT-005")
    text = front_body.decode("utf-8", "replace")
    leaked = [(secret, where) for secret, where in secrets.items() if secret in text]
    if not leaked:
        return
    secret, where = leaked[0]
    shown = text
    for value, name in secrets.items():
        shown = shown.replace(value, f"[{len(value)} characters of {name}]")
    path = _path_of(front_json, secret) if front_json is not None else None
    findings.fail("GW-FAULT-005", f"the front's answer echoes {where} ({len(secret)} characters) at "
                  f"{path or 'its body'}: a gateway drops or redacts credentials and request headers from an "
                  "upstream's error text before passing it on",
                  Evidence(path=path or "the front's body", expected="no credential", actual=shown[:300]))
