"""The placeholders of interop/gateways.json: `{port}`, `{upstream}`, `{upstream_root}` (filled at launch, from
callproof's own), `{venv}`, `{root}`, `{files}` and `{config}`. Only these exact names are replaced; every other
brace is left as it is, so a JSON or YAML config template needs no escaping."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["PLACEHOLDERS", "fill"]

#: The placeholder names, in the order the docs name them.
PLACEHOLDERS: tuple[str, ...] = ("port", "upstream", "upstream_root", "venv", "root", "files", "config")
_FIELD = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


def fill(template: str, values: Mapping[str, str]) -> str:
    """`template` with each placeholder that `values` has replaced; the others are kept as written."""
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), template)
