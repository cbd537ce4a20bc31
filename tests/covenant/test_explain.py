"""`pdks explain`: both surfaces in upstream's layout, without a verdict (POLYDEUKES §8.1)."""

import pytest

from agent_constitution.covenant import cli
from agent_constitution.covenant.explain import render

STARTER = """\
languages:
  placeholder: { productionGlob: 'src/**', testCmd: 'echo "set a verification command for {scope}"' }
protectedPaths: ['.claude/hooks', '.claude/settings.json', '.grok/hooks']
witness: { token: 'pdks witness', ttlMinutes: 10 }
"""

STARTER_OUTPUT = """\
pdks explain — polydeukes.config.yaml

input: call IR (one call, stdin) · disciplines 0 · sessionDisciplines 0 · disciplines: advise unless enforce: block · meta: block
  registrations 3 · declare 0 · skip 1 · meta 2 · draft 0
  meta     self-mod          paths 5 (common; includes the config file itself)
  meta     transcript-mod    content predicate · conditional: session.evidencePath
  skip     shell-unjudgeable a shell command whose write target this layer cannot determine

input: --diff (change set, stdin) · disciplines 0 · changeSetDisciplines 0 · disciplines: advise unless enforce: block
  registrations 2 · declare 0 · skip 1 · meta 1 · draft 0
  meta     self-mod          paths 5 (common; includes the config file itself)
  skip     shell-unjudgeable a shell command whose write target this layer cannot determine

"""


def test_starter_config(tmp_path):
    (tmp_path / "polydeukes.config.yaml").write_text(STARTER)
    assert render(tmp_path) == STARTER_OUTPUT


ENTRIES = (
    STARTER
    + """\
disciplines:
  - id: benchmark-supports-performance-claim
    why: 'a performance claim must be supported by a fresh benchmark run during judgment.'
    draft: true
  - id: x
    declare:
      mechanism: added-only
      extract: {hits: [{op: source, of: target.path}, {op: sha256}]}
      relate: [{id: r, relation: {op: empty, of: hits}, message: m}]
sessionDisciplines:
  - id: dependency-needs-npm-view
    why: measured first
    enforce: block
    declare:
      mechanism: precedent
      scope: { source: target.path, include: ['^package\\.json$'] }
      sources: { session: { transcript: true } }
      supply: { session: pass }
      extract:
        npmView: [{ op: source, of: session }, { op: toolUses, names: [Bash] }]
      relate:
        - { id: npm-view, relation: { op: nonEmpty, of: npmView }, message: 'no npm view' }
changeSetDisciplines: []
"""
)


def test_entries_drafts_and_faults(tmp_path):
    (tmp_path / "polydeukes.config.yaml").write_text(ENTRIES)
    lines = render(tmp_path).splitlines()
    assert lines[2] == (
        "input: call IR (one call, stdin) · disciplines 1 · sessionDisciplines 1 · "
        "disciplines: advise unless enforce: block · meta: block"
    )
    assert lines[3] == "  registrations 5 · declare 1 · skip 2 · meta 2 · draft 1"
    width = len("benchmark-supports-performance-claim")
    assert lines[6].startswith(f"  skip     {'x':<{width}} x extract hits: 'sha256' is not a registered extract step")
    assert lines[7] == (
        f"  declare  {'dependency-needs-npm-view':<{width}} precedent · history · nonEmpty npm-view · scope target.path"
        " · include 1 · exclude 0 · sources 1 (sidecar 0, transcript 1) · valve — · why ✓ · enforce: block"
    )
    assert lines[9] == f"  draft    {'benchmark-supports-performance-claim'} unpromoted — no judgment"
    assert lines[11] == (
        "input: --diff (change set, stdin) · disciplines 1 · changeSetDisciplines 0 · "
        "disciplines: advise unless enforce: block"
    )
    assert lines[12] == "  registrations 3 · declare 0 · skip 2 · meta 1 · draft 1"


def test_failure_prints_nothing_on_stdout(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["explain"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"pdks explain: no Polydeukes config found in {tmp_path}")


def test_an_unforeseen_failure_prints_nothing_on_stdout(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)

    def crash(root):
        raise RuntimeError("boom")

    monkeypatch.setattr("agent_constitution.covenant.explain.render", crash)
    assert cli.main(["explain"]) == 2
    assert capsys.readouterr() == ("", "pdks explain: RuntimeError: boom\n")


@pytest.mark.parametrize("args", [["explain", "now"], [], ["covenant"]])
def test_usage(tmp_path, monkeypatch, capsys, args):
    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == 2
    assert capsys.readouterr().err.strip() == cli.usage()
