"""Trust escalation through a source's base manifest: `doit check` runs none of the code it names."""

from __future__ import annotations

from pathlib import Path

from .conftest import MANIFEST, PASSING, git, make_source, rule_toml, write
from .test_tasks import doit

RAN = '''\
from pathlib import Path

Path({marker!r}).write_text("ran")
RULE = 1


def check(repo):
    return []
'''


def test_a_base_inside_an_untrusted_source_cannot_trust_a_source(repo: Path, tmp_path: Path):
    corp = tmp_path / "corp"
    marker = tmp_path / "evil-ran"
    make_source(corp, {1: rule_toml(1)}, {})
    # The untrusted source publishes a base that declares a second source, trusts it and selects its rule.
    make_source(corp / "manifests" / "evil", {1: rule_toml(1, 'python = "r1"')}, {"r1": RAN.format(marker=str(marker))})
    write(corp, {"manifests/base.toml": 'rules = ["evil:demo"]\n[sources]\nevil = { path = "evil", trust = true }\n'})
    corp.mkdir(exist_ok=True)
    git(corp, "init", "-q")
    git(corp, "add", "-A")
    git(corp, "commit", "-qm", "corp")
    git(corp, "tag", "v1.0.0")
    make_source(repo, {1: rule_toml(1, 'python = "r1"')}, {"r1": PASSING.format(id=1)})
    manifest = MANIFEST.format(name="ac", spec='{ path = "." }')
    write(repo, {"rules.toml": f'extends = "corp:manifests/base.toml"\n{manifest}'
                 f'corp = {{ url = "{corp}", tag = "v1.0.0" }}\n'})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    run = doit(repo, "checks")
    assert "untrusted source: 'evil' is not trusted, so its check code does not run" in run.stdout, run.stdout + run.stderr
    assert not marker.exists()
    assert "1 passed" in run.stdout  # the repository's own source is trusted and its check ran
