"""`--policy` on the command line, and `check --locked` under a policy, through the real command."""

from __future__ import annotations

from agent_constitution import cli
from agent_constitution.commands.parser import parse
from agent_constitution.policy import discover as discovery
from agent_constitution.ruleset.lockfile import read_lock


def test_the_parser_takes_policy_and_check_locked():
    invocation = parse(["check", "--locked", "--policy", "/etc/org/policy.toml"])
    assert invocation.policy == "/etc/org/policy.toml" and invocation.variables == {"locked": "1"}
    assert parse(["compile", "--policy", "x.toml", "--locked"]).options == {"locked": True}


def test_lock_and_check_under_a_policy_given_on_the_command_line(org, monkeypatch, capsys):
    monkeypatch.delenv(discovery.ENV)
    org.policy('[require]\nrules = ["ac:9"]\n')
    org.manifest(rules=["ac:git"], exclude=["ac:9"])
    monkeypatch.chdir(org.repo)
    assert cli.main(["lock"]) == 0  # no policy given: the repository is its own
    assert cli.main(["lock", "--policy", str(org.policy_file)]) == 2
    err = capsys.readouterr().err
    assert "the organisation policy forbids this: segment . excludes ac:9" in err and "Traceback" not in err
    org.manifest(rules=["ac:git"])
    assert cli.main(["lock", "--policy", str(org.policy_file)]) == 0
    assert read_lock(org.repo).manifest.policy is not None
    monkeypatch.setattr(discovery.settings, "given", None)
    capsys.readouterr()
    assert cli.main(["check", "--locked", "rules=ac:9"]) == 2  # found while the tasks are made: an input error
    assert "rules.lock was made under the policy sha256:" in capsys.readouterr().err
