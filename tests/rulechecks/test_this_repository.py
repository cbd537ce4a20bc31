"""Every repository check that this repository's rules.toml selects passes on the repository itself, but
for the findings its `[[waive]]` entries accept (each with its reason, as `doit check` reports them)."""

from __future__ import annotations

import functools
import subprocess
import tomllib

import pytest

from agent_constitution.checks.api import Repository, match_files

from .subjects import REPO, check_module


def _selected_repository_checks() -> list[int]:
    manifest = tomllib.loads((REPO / "rules.toml").read_text(encoding="utf-8"))
    selected = []
    for ref in manifest["rules"]:
        name, _, node = ref.partition(":")
        assert name == "ac" and node.isdigit(), f"this test expects rule ids, not {ref!r}"
        rule = tomllib.loads((REPO / "rules" / f"{node}.toml").read_text(encoding="utf-8"))
        check = rule.get("check")
        if check and check.get("subject", "repository") == "repository" and "python" in check:
            selected.append(int(node))
    return selected


@functools.cache
def _scan() -> Repository:
    # The files a check run sees: tracked, plus untracked ones git does not ignore.
    listed = (
        subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode("utf-8")
        .split("\0")
    )
    return Repository(REPO, tuple(sorted(path for path in listed if path and (REPO / path).is_file())))


SELECTED = _selected_repository_checks()


def test_the_manifest_selects_repository_checks():
    assert len(SELECTED) >= 15


WAIVERS = tomllib.loads((REPO / "rules.toml").read_text(encoding="utf-8")).get("waive", [])


def _waived(rule_id: int, path: str | None) -> bool:
    return any(entry["rule"] == f"ac:{rule_id}" and path is not None
               and any(match_files((path,), glob) for glob in entry.get("paths", ["**/*"])) for entry in WAIVERS)


@pytest.mark.parametrize("rule_id", SELECTED)
def test_selected_check_passes_on_this_repository(rule_id: int):
    findings = [f for f in check_module(rule_id).check(_scan()) if not _waived(rule_id, f.path)]
    assert findings == [], "\n".join(f"{f.path}:{f.line}: {f.reason}" for f in findings)
