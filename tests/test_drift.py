"""`make drift`'s reading of a venv of the newest releases (tests/drift.py), offline: what moved against the lock, and
why a dependency's newest release could not be installed."""

from __future__ import annotations

from tests.drift import Release, blockers, held_back, moved

#: openai-agents caps websockets below its newest release, as openai-agents 0.24.0 does websockets 17.
INSTALLED = {
    "openai-agents": Release("0.24.0", ("websockets<17,>=15.0", "numpy>=2; extra == 'voice'")),
    "websockets": Release("16.1.1"),
    "langchain-core": Release("1.8.3", ("langchain-protocol>=0.0.20",)),
    "langchain-protocol": Release("0.0.20"),
    "starlette": Release("1.10.0"),
}


def test_a_dependency_capped_by_another_is_held_back_with_who_caps_it() -> None:
    newest = {"websockets": Release("17.4"), "starlette": Release("1.10.0")}
    assert held_back(newest, INSTALLED) == {"websockets": ["openai-agents 0.24.0 requires websockets<17,>=15.0"]}


def test_a_newest_release_whose_own_requirement_has_no_release_yet_says_so() -> None:
    newest = {"langchain-core": Release("1.8.4", ("langchain-protocol>=0.0.22",))}
    assert blockers(newest, INSTALLED) == {"langchain-protocol"}
    latest = {**newest, "langchain-protocol": Release("0.0.20")}
    assert held_back(newest, INSTALLED, latest) == {"langchain-core": [
        "langchain-core 1.8.4 requires langchain-protocol>=0.0.22, langchain-protocol 0.0.20 is installed and no "
        "release matches yet (the newest is 0.0.20)"]}


def test_a_requirement_behind_an_extra_nobody_asked_for_holds_nothing_back() -> None:
    installed = {**INSTALLED, "numpy": Release("1.26.0")}
    assert held_back({"numpy": Release("2.3.0")}, installed) == {
        "numpy": ["no installed requirement excludes it: pip's resolver chose an older release"]}


def test_moved_lists_what_differs_from_the_lock_new_and_gone_packages_included() -> None:
    locked = {"websockets": "16.1.1", "starlette": "1.9.0", "lazy-importer": "0.1.0"}
    assert moved(locked, INSTALLED) == [
        ("langchain-core", "-", "1.8.3"), ("langchain-protocol", "-", "0.0.20"), ("lazy-importer", "0.1.0", "-"),
        ("openai-agents", "-", "0.24.0"), ("starlette", "1.9.0", "1.10.0")]
