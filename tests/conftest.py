"""Every test runs with the user cache in a temp folder unless it names its own: loading a rule
source keeps its parsed rule files there (`agent_constitution.sources.parsed`), and a test run must
not write into the developer's own cache."""

from __future__ import annotations

import pytest

from agent_constitution.sources.cache import ENV


@pytest.fixture(scope="session")
def _session_user_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("user-cache")


@pytest.fixture(autouse=True)
def _user_cache(monkeypatch, _session_user_cache):
    monkeypatch.setenv(ENV, str(_session_user_cache))


@pytest.fixture(autouse=True)
def _no_tool_fetch(monkeypatch):
    """No test downloads a check's external tool: a pinned tool missing from PATH stays missing (the
    tests of `agent_constitution.checks.tools` lift this with a fake `uv` / `npx` on PATH)."""
    from agent_constitution.checks.tools import NO_FETCH

    monkeypatch.setenv(NO_FETCH, "1")


@pytest.fixture(autouse=True)
def _not_in_ci(monkeypatch):
    """Every test starts outside CI, whatever runs the suite (.ci/run sets CI=true): `CI` makes a lock
    run a locked one, verifies locks against their remotes and keeps `doit review` from running, so a
    test that wants that behaviour sets the variable itself."""
    for name in ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
