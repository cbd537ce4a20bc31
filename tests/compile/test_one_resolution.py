"""One `doit compile` resolves once and parses each rule file once, in the lock stage (the compile
tasks read the resolution and parse none); an edit reruns only what it touches."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
from doit.cmd_base import ModuleTaskLoader
from doit.doit_cmd import DoitMain

from agent_constitution.loader import namespace
from agent_constitution.project import Project
from agent_constitution.ruleset import lock, source
from tests.compile.support import make_repo
from tests.compile.test_doit import doit


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)
    made = make_repo(tmp_path / "repo")
    monkeypatch.chdir(made)
    return made


def _compile(repo: Path, capfd) -> str:
    capfd.readouterr()
    code = DoitMain(ModuleTaskLoader(namespace(Project(repo)))).run(["compile"])
    out = capfd.readouterr().out
    assert code == 0, out
    return out


def _counting(monkeypatch) -> tuple[list, collections.Counter]:
    resolved, parsed = [], collections.Counter()
    real_resolve, real_parse = lock.resolve, source.parse

    def counting_resolve(*args, **kwargs):
        resolved.append(args[0])
        return real_resolve(*args, **kwargs)

    def counting_parse(model, data, file):  # every rule file's table is validated here, parsed or kept
        if model is source.Rule:
            parsed[Path(file).name] += 1
        return real_parse(model, data, file)

    monkeypatch.setattr(lock, "resolve", counting_resolve)
    monkeypatch.setattr(source, "parse", counting_parse)
    return resolved, parsed


def test_one_compile_resolves_once_and_parses_each_rule_file_once(repo, capfd, monkeypatch):
    resolved, parsed = _counting(monkeypatch)
    out = _compile(repo, capfd)
    assert "created AGENTS.md" in out and "created svc/AGENTS.md" in out
    rule_files = sorted(path.name for path in (repo / "src" / "rules").glob("[0-9]*.toml"))
    assert resolved == [repo] and sorted(parsed) == rule_files and set(parsed.values()) == {1}


def test_the_compile_tasks_load_no_source(repo, capfd, monkeypatch):
    """Every rule source is loaded (`load_source`, memoized or not) inside the lock stage; the
    compile tasks render from the resolution alone."""
    loads, stage = collections.Counter(), []
    real_sync, real_signature = lock.sync_lock, source._signature

    def counting_sync(*args, **kwargs):
        stage.append("lock")
        try:
            return real_sync(*args, **kwargs)
        finally:
            stage.pop()

    def counting_signature(root):  # the first step of every `load_source` call
        loads["lock stage" if stage else "elsewhere"] += 1
        return real_signature(root)

    monkeypatch.setattr(lock, "sync_lock", counting_sync)
    monkeypatch.setattr(source, "_signature", counting_signature)
    out = _compile(repo, capfd)
    assert "created AGENTS.md" in out and "created svc/AGENTS.md" in out
    assert loads["lock stage"] > 0 and loads["elsewhere"] == 0


def test_a_one_rule_edit_reruns_only_the_segment_tasks_that_enable_it(repo):
    doit(repo, "compile")
    documents = {path.name: path.read_bytes() for path in (repo / "cache" / "resolved").glob("*.json")}
    lock_before = (repo / "rules.lock").read_text().splitlines()
    rule = repo / "src" / "rules" / "7.toml"  # rule 7 is shown in svc only
    rule.write_text(rule.read_text().replace("Text of rule 7.", "Text of rule 7, reworded."))
    done = doit(repo, "compile")
    lock_after = (repo / "rules.lock").read_text().splitlines()
    assert [new for old, new in zip(lock_before, lock_after) if old != new] == [
        line for line in lock_after if line.startswith('"ac:7" = {')
    ]
    changed = {path.name for path in (repo / "cache" / "resolved").glob("*.json") if documents.get(path.name) != path.read_bytes()}
    assert changed == {"svc.json"}  # the index is rewritten with the same bytes
    executed = {line[3:] for line in done.stdout.splitlines() if line.startswith(".  ")}
    assert {"lock", "resolution:svc", "agents:svc/AGENTS.md"} <= executed
    assert not executed & {"resolution:.", "verify", "fetch:ac", "agents:AGENTS.md"}
    assert "Text of rule 7, reworded." in (repo / "svc" / "AGENTS.md").read_text()
