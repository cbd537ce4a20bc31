"""A host added as one record, its adapter module and its loader model is compiled, wired, judged and
pruned.

The fake host lives in a temporary registry (`hosts.registered`): no other file of the package
names it, so every stage that serves it reads the host table.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from doit.cmd_base import ModuleTaskLoader
from doit.doit_cmd import DoitMain

from agent_constitution import hosts
from agent_constitution.checks import stop
from agent_constitution.covenant import adapters, cli
from agent_constitution.hosts import Host, Stop
from agent_constitution.hosts.loaders import LOADERS, codex
from agent_constitution.loader import namespace
from agent_constitution.project import Project
from tests.compile.support import make_repo

FAKE = Host(
    "fake", shim="FAKE.md", skills=(".fake/skills",), markers=(".fake",),
    hook="fake", adapter="tests.hosts.fake_adapter", file=".fake/hooks.json", events=(("BeforeWrite", "write"),),
    grouped=False, handler={"timeoutSec": 30}, top={"version": 1}, stop=Stop("AfterTurn", handler={}),
)
CONFIG = """\
languages:
  ts: { productionGlob: 'src/**', testCmd: 'run {scope}' }
protectedPaths: ['gate']
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)
    made = make_repo(tmp_path / "repo")
    (made / ".fake").mkdir()
    (made / ".fake" / "settings.txt").write_text("the fake agent's own file\n")  # its marker: the agent is used
    (made / "gate").mkdir()
    (made / "polydeukes.config.yaml").write_text(CONFIG)
    monkeypatch.chdir(made)
    # Its loader model (what compile's read-back proves it loads): AGENTS.md root→cwd, as the
    # AGENTS.md readers load it.
    monkeypatch.setitem(LOADERS, "fake", codex.agents_md)
    with hosts.registered(FAKE):
        yield made


def _compile(repo: Path, capfd) -> str:
    capfd.readouterr()
    code = DoitMain(ModuleTaskLoader(namespace(Project(repo)))).run(["compile"])
    out, err = capfd.readouterr()
    assert code == 0, out + err
    return out


def _hook(payload: dict, monkeypatch: pytest.MonkeyPatch, capfd) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))
    capfd.readouterr()
    status = adapters.main(["fake"])
    return status, capfd.readouterr().err


def test_a_registered_host_is_compiled_wired_judged_and_pruned(repo: Path, capfd, monkeypatch):
    assert "fake" in hosts.names() and hosts.HOSTS["fake"] is FAKE
    out = _compile(repo, capfd)

    # Compiled: the agent's own file name imports AGENTS.md, in every segment.
    assert (repo / "FAKE.md").read_text().splitlines()[-1] == "@AGENTS.md" and (repo / "svc" / "FAKE.md").is_file(), out

    # Wired: the judge under its pre-tool event, the change-scoped checks under its stop event.
    wired = json.loads((repo / ".fake" / "hooks.json").read_text())
    assert wired["version"] == 1 and set(wired["hooks"]) == {"BeforeWrite", "AfterTurn"}
    judge, = wired["hooks"]["BeforeWrite"]
    assert "hook fake" in judge["command"] and judge["timeoutSec"] == 30
    assert "stop fake" in wired["hooks"]["AfterTurn"][0]["command"]  # by module or by its script

    # Judged: its adapter translates the payload, the judge blocks a write to a protected path.
    assert "fake" in cli.usage().split("pdks hook ")[1].split("|") and adapters.usage().endswith("|fake")
    status, said = _hook({"tool": "write", "path": "gate/x.txt", "content": "x\n"}, monkeypatch, capfd)
    assert status == 2 and "gate" in said
    status, said = _hook({"tool": "write", "path": "src/a.ts", "content": "a\n"}, monkeypatch, capfd)
    assert status == 0, said
    status, said = _hook({"not": "a payload"}, monkeypatch, capfd)
    assert status == 2 and "adapter-fake failed before spawn:" in said

    # Its stop event is answered the table's way (here: outside a repository with a manifest).
    assert stop.main(json.dumps({"cwd": str(repo.parent)}), ["fake"]) == 0

    # Pruned: the agent dropped from the manifest, its shims and the hooks compile wrote go (the
    # judge's too, since compile added it: `hosts.judges`), and so does the file they were alone in.
    manifest = repo / "rules.toml"
    manifest.write_text(manifest.read_text() + '\n[compile]\nagents = ["agents-md", "claude-code"]\n')
    _compile(repo, capfd)
    assert not (repo / "FAKE.md").exists() and not (repo / "svc" / "FAKE.md").exists()
    assert not (repo / ".fake" / "hooks.json").exists()


def test_the_registry_is_temporary():
    assert "fake" not in hosts.AGENTS and "fake" not in hosts.HOSTS
    with hosts.registered(FAKE):
        assert hosts.AGENTS["fake"] is FAKE and list(hosts.HOSTS)[-1] == "fake" and "FAKE.md" in hosts.shims()
        with pytest.raises(ValueError, match="already registered"), hosts.registered(FAKE):
            pass
    assert "fake" not in hosts.AGENTS and "fake" not in hosts.HOSTS and "FAKE.md" not in hosts.shims()
