"""The templates of a run: `--launch`, `--front-url` and `--ready-url` take the placeholders `{upstream}`,
`{upstream_root}` and `{port}`, filled with `str.format`, so `{{` and `}}` are a literal brace. One parser decides
which placeholders a template holds (`{{port}}` holds none), checks it before anything starts, and renders it:
the check and the run read a template the same way, and a `--launch` command is split (`shlex`) after rendering,
as the run splits it."""

from __future__ import annotations

import shlex
import string

__all__ = ["PLACEHOLDERS", "TemplateError", "launch_argv", "placeholders", "render", "template_problem"]

#: The placeholders every template may hold, in the order the messages name them.
PLACEHOLDERS: tuple[str, ...] = ("upstream", "upstream_root", "port")
#: What the check fills them with: values of the shape the run gives them.
_DUMMY: dict[str, str | int] = {"upstream": "http://127.0.0.1:1/v1", "upstream_root": "http://127.0.0.1:1", "port": 1}
_VALID = "the placeholders are {upstream}, {upstream_root} and {port}; write {{ and }} for a literal brace"


class TemplateError(ValueError):
    """A template that cannot be rendered; the message names the flag, the template and the fix."""


def placeholders(template: str, flag: str = "template") -> frozenset[str]:
    """The placeholders `template` holds (`{{` and `}}` are literal braces, not placeholders). Raises
    `TemplateError` on an unknown placeholder, a lone brace, or a placeholder with a conversion or format spec."""
    found: set[str] = set()
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise TemplateError(f"{flag} {template!r} is not a valid template ({exc}); {_VALID}") from None
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if field not in PLACEHOLDERS:
            shown = "{" + field + "}" if field else "{}"
            raise TemplateError(f"{flag} {template!r} has an unknown placeholder {shown}; {_VALID}")
        if spec or conversion:
            raise TemplateError(f"{flag} {template!r}: write {{{field}}} with nothing after the name; {_VALID}")
        found.add(field)
    return frozenset(found)


def render(template: str, flag: str = "template", **values: str | int) -> str:
    """`template` with its placeholders filled (each of `PLACEHOLDERS` must be in `values`). Raises
    `TemplateError` as `placeholders` does."""
    placeholders(template, flag)
    return template.format(**values)


def launch_argv(command: str, **values: str | int) -> list[str]:
    """The `--launch` command rendered, then split as a shell would (without running one). Raises `TemplateError`
    naming the fix: a bad placeholder, an unbalanced quote, an empty command."""
    rendered = render(command, "--launch", **values)
    try:
        argv = shlex.split(rendered)
    except ValueError as exc:
        raise TemplateError(f"--launch {command!r} is not a valid command ({exc}); close the quote, or quote a literal "
                            "quote character") from None
    if not argv:
        raise TemplateError("--launch is empty: give the gateway command, e.g. 'python gw.py --port {port}'")
    return argv


def template_problem(launch: str | None, front_url: str | None, ready_url: str | None) -> str | None:
    """Why one of the run's templates cannot be rendered, or None: each is rendered with dummy values, and the
    `--launch` command split, as the run will."""
    try:
        if launch is not None:
            launch_argv(launch, **_DUMMY)
        for flag, template in (("--front-url", front_url), ("--ready-url", ready_url)):
            if template is not None:
                render(template, flag, **_DUMMY)
    except TemplateError as exc:
        return str(exc)
    return None
