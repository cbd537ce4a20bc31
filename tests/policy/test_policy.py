"""The organisation policy tightens and nothing in a repository loosens it: every attempt fails
with the repository's line and the policy's file and line."""

from __future__ import annotations

import datetime
import subprocess

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from agent_constitution.errors import OutOfDate, UserError
from agent_constitution.policy import discover as discovery
from agent_constitution.policy.discover import Found, discover
from agent_constitution.policy.gate import check_gate, locked_policy
from agent_constitution.ruleset.lock import sync_lock
from agent_constitution.ruleset.lockfile import read_lock
from tests.ruleset.builders import commit_all, write_manifest, write_rule
from tests.sources import servers


def refused(org, **locked) -> str:
    with pytest.raises(UserError) as caught:
        sync_lock(org.repo, locked=locked.get("locked", False), policy=locked_policy)
    return str(caught.value)


def line_of(path, needle: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_without_a_policy_nothing_changes(org, monkeypatch):
    monkeypatch.delenv(discovery.ENV)
    org.manifest(rules=["ac:git"], exclude=["ac:9"])
    sync_lock(org.repo, locked=False, policy=locked_policy)
    assert read_lock(org.repo).manifest.policy is None
    assert "\npolicy = " not in (org.repo / "rules.lock").read_text()


def test_a_required_rule_cannot_be_excluded(org):
    org.policy('[require]\nrules = ["ac:9"]\n')
    manifest = org.manifest(rules=["ac:git"], exclude=["ac:9"])
    text = refused(org)
    assert text.startswith(f"error: rules.toml:{line_of(manifest, 'exclude')}: the organisation policy forbids this: segment . excludes ac:9")
    assert f"policy {org.policy_file}:5" in text
    assert "fix: remove 'ac:9' from `exclude`" in text


def test_a_required_rule_that_is_not_selected_fails_and_selecting_it_passes_and_records_the_digest(org):
    org.policy('[require]\nrules = ["ac:9"]\n')
    org.manifest(rules=["ac:7"])
    text = refused(org)
    assert "segment . does not enable ac:9" in text and 'add "ac:9" to `rules`' in text
    org.manifest(rules=["ac:7", "ac:9"])
    sync_lock(org.repo, locked=False, policy=locked_policy)
    assert read_lock(org.repo).manifest.policy == discover(org.repo).digest


def test_a_segment_cannot_exclude_a_required_package_rule(org):
    org.policy('[require]\nrules = ["ac:git"]\n')
    org.manifest(rules=["ac:git"], segment=[{"path": "web", "exclude": ["ac:8"]}])
    text = refused(org)
    assert "segment web excludes ac:8" in text and "the policy requires ac:git" in text
    assert text.startswith("error: rules.toml:")


def test_a_required_package_takes_the_repositorys_choice_in_a_group(org):
    org.policy('[require]\nrules = ["ac:python"]\n')
    org.manifest(rules=["ac:python"], choices={"ac:package-manager": "ac:3"})
    sync_lock(org.repo, locked=False, policy=locked_policy)
    org.manifest(rules=["ac:1"])
    assert "segment . does not enable ac:2" in refused(org)  # no alternative chosen: its first


def test_a_base_manifest_cannot_exclude_what_the_policy_requires(org):
    org.policy('[require]\nrules = ["ac:9"]\n')
    write_manifest(org.repo, {"sources": {"ac": {"url": str(org.source), "tag": "v1.0.0"}}, "exclude": ["ac:9"]},
                   "team/base.toml")
    org.manifest(extends="team/base.toml", rules=["ac:git"])
    text = refused(org)
    assert "excludes ac:9 (team/base.toml `exclude`: 'ac:9')" in text
    assert text.startswith("error: team/base.toml: ")


def test_a_required_source_the_repository_does_not_declare(org, tmp_path):
    other = tmp_path / "other-rules"
    from tests.ruleset.builders import write_source

    write_source(other, {1: {"parent": "git"}}, name="other")
    commit_all(other, "other", tag="v1.0.0")
    org.policy_file.parent.mkdir(parents=True, exist_ok=True)
    org.policy_file.write_text(f'[sources.sec]\nurl = "{other}"\n\n[require]\nrules = ["sec:1"]\n')
    org.manifest(rules=["ac:7"])
    text = refused(org)
    assert f"it requires sec:1 from {other}, a source rules.toml does not declare (policy {org.policy_file}:5)" in text


def test_a_minimum_revision(org):
    org.policy('[require]\nrevisions = { "ac:9" = 2 }\n')
    org.manifest(rules=["ac:9"])
    text = refused(org)
    assert "enables ac:9 at revision 1; the policy requires revision 2 or later" in text
    assert text.startswith("error: rules.toml:")  # the [sources.ac] line: the pin decides the revision
    write_rule(org.source, 9, parent="git", revision=2)
    commit_all(org.source, "rule 9 revision 2", tag="v1.1.0")
    org.manifest(rules=["ac:9"], sources={"ac": {"url": str(org.source), "tag": "v1.1.0"}})
    sync_lock(org.repo, locked=False, policy=locked_policy)


def test_sources_outside_the_allowed_patterns_and_trust_the_policy_withholds(org):
    org.policy('[allow]\nsources = ["github.com/acme/*"]\n')
    org.manifest(rules=["ac:9"])
    text = refused(org)
    assert f"source 'ac' ({org.source}) is not among the sources the policy allows" in text
    org.policy(f'[allow]\nsources = ["{org.source.parent}/*"]\ntrust = []\n')
    org.manifest(rules=["ac:9"], sources={"ac": {"url": str(org.source), "tag": "v1.0.0", "trust": True}})
    text = refused(org)
    assert "source 'ac' is trusted (`trust = true`), which the policy allows only for no source" in text
    assert "remove `trust = true`" in text
    org.manifest(rules=["ac:9"])
    sync_lock(org.repo, locked=False, policy=locked_policy)


def test_a_local_folder_source_when_the_policy_allows_git_sources_only(org):
    from tests.ruleset.builders import write_source

    write_source(org.repo / "src", {1: {"parent": "git"}}, name="mine")
    org.policy('[allow]\nfolders = false\n')
    org.manifest(rules=["ac:9", "mine:1"], sources={"ac": {"url": str(org.source), "tag": "v1.0.0"},
                                                   "mine": {"path": "src"}})
    assert "source 'mine' is a folder on this machine; the policy allows sources at git URLs only" in refused(org)


def test_waivers_of_forbidden_rules_and_beyond_the_cap(org):
    org.policy('[waivers]\nforbid = ["ac:git"]\nmax-days = 30\n')
    soon = datetime.date.today() + datetime.timedelta(days=10)
    org.manifest(rules=["ac:1", "ac:9"], choices={"ac:package-manager": "ac:2"},
                 waive=[{"rule": "ac:9", "reason": "legacy", "until": soon}])
    text = refused(org)
    assert "[[waive]] of ac:9 waives a rule the policy forbids waiving" in text
    org.manifest(rules=["ac:1", "ac:9"], choices={"ac:package-manager": "ac:2"},
                 waive=[{"rule": "ac:1", "reason": "legacy"}])
    assert "[[waive]] of ac:1 has no `until`; the policy allows at most 30 days" in refused(org)
    org.manifest(rules=["ac:1", "ac:9"], choices={"ac:package-manager": "ac:2"},
                 waive=[{"rule": "ac:1", "reason": "legacy", "until": soon}])
    sync_lock(org.repo, locked=False, policy=locked_policy)


def test_baseline_entries_of_forbidden_rules(org):
    org.policy('[waivers]\nbaseline = ["ac:9"]\n')
    org.manifest(rules=["ac:9"])
    (org.repo / "rules.baseline.toml").write_text(
        'version = 1\n\n[[finding]]\nrule = "ac:9"\npath = "a.txt"\nfingerprint = "0123456789abcdef0123"\nreason = "x"\n')
    text = refused(org)
    assert text.startswith("error: rules.baseline.toml:3: the organisation policy forbids this: a baseline entry")
    # The check stage holds the baseline to the policy too: it changes without a new lock.
    (org.repo / "rules.baseline.toml").unlink()
    sync_lock(org.repo, locked=False, policy=locked_policy)
    (org.repo / "rules.baseline.toml").write_text(
        'version = 1\n\n[[finding]]\nrule = "ac:9"\npath = "a.txt"\nfingerprint = "0123456789abcdef0123"\nreason = "x"\n')
    with pytest.raises(UserError, match="forbids baselining"):
        check_gate(org.repo)


def test_layers_intersect_and_a_later_one_cannot_grant(org, tmp_path, monkeypatch):
    managed = tmp_path / "etc-xdg" / "agent-constitution" / "policy.toml"
    managed.parent.mkdir(parents=True)
    managed.write_text(f'[sources.ac]\nurl = "{org.source}"\n\n[require]\nrules = ["ac:9"]\n')
    org.policy('[allow]\nsources = ["*"]\ntrust = ["*"]\n')  # the environment's layer allows everything
    given = tmp_path / "given.toml"
    given.write_text('[waivers]\nmax-days = 365\n')
    monkeypatch.setattr(discovery.settings, "given", str(given))
    found = discover(org.repo)
    assert [layer.origin for layer in found.layers] == ["managed", "environment", "--policy"]
    org.manifest(rules=["ac:git"], exclude=["ac:9"], sources={"ac": {"url": str(org.source), "tag": "v1.0.0", "trust": True}})
    assert f"policy {managed}:5" in refused(org)
    org.manifest(rules=["ac:git"], sources={"ac": {"url": str(org.source), "tag": "v1.0.0", "trust": True}})
    sync_lock(org.repo, locked=False, policy=locked_policy)
    digest = read_lock(org.repo).manifest.policy
    assert digest == found.digest and digest not in {layer.digest for layer in found.layers}


def test_a_policy_inside_the_repository_is_refused(org, monkeypatch):
    inside = org.repo / "policy.toml"
    inside.write_text("")
    monkeypatch.setenv(discovery.ENV, str(inside))
    org.manifest(rules=["ac:9"])
    assert "is a file of the repository it governs" in refused(org)


def test_unknown_keys_and_bad_references_in_the_policy(org):
    org.policy('[require]\nrule = ["ac:9"]\n')
    org.manifest(rules=["ac:9"])
    text = refused(org)
    assert f"error: {org.policy_file}: require.rule:" in text
    org.policy('[require]\nrules = ["corp:9"]\n')
    assert "'corp:9' does not start with a source name from the policy's [sources]" in refused(org)


def test_a_tampered_policy_no_longer_matches_the_lock(org, monkeypatch):
    org.policy('[require]\nrules = ["ac:9"]\n')
    org.manifest(rules=["ac:9"])
    sync_lock(org.repo, locked=False, policy=locked_policy)
    sync_lock(org.repo, locked=True, policy=locked_policy)  # the same policy: a locked run passes
    check_gate(org.repo)
    org.policy('[require]\nrules = ["ac:9"]\n# edited\n')
    with pytest.raises(OutOfDate) as caught:
        sync_lock(org.repo, locked=True, policy=locked_policy)
    assert "rules.lock was made under the policy sha256:" in str(caught.value)
    monkeypatch.setenv("CI", "1")
    with pytest.raises(OutOfDate, match="rules.lock was made under the policy sha256:.*but the policy in force is"):
        check_gate(org.repo)
    monkeypatch.delenv(discovery.ENV)
    with pytest.raises(OutOfDate, match="no policy is in force now"):
        check_gate(org.repo)


def test_a_policy_from_a_git_server_pinned_by_commit(org, tmp_path, monkeypatch):
    served = tmp_path / "served"
    policies = served / "org.github"
    policies.mkdir(parents=True)
    (policies / "agent-constitution").mkdir()
    (policies / "agent-constitution" / "policy.toml").write_text(
        f'[sources.ac]\nurl = "{org.source}"\n\n[require]\nrules = ["ac:9"]\n')
    commit = commit_all(policies, "policy")
    subprocess.run(["git", "clone", "-q", "--bare", str(policies), str(served / "org.github.git")], check=True)
    org.manifest(rules=["ac:git"], exclude=["ac:9"])
    with servers.git_daemon(served) as url:
        monkeypatch.setenv(discovery.ENV, f"{url}/org.github.git#{commit}")
        text = refused(org)
        assert f"policy {url}/org.github.git#{commit}:agent-constitution/policy.toml:5" in text
        monkeypatch.setenv(discovery.ENV, f"{url}/org.github.git#main")
        assert "names a git repository without a full commit" in refused(org)
    # The commit is in the user cache now: no server needed.
    monkeypatch.setenv(discovery.ENV, f"{url}/org.github.git#{commit}")
    org.manifest(rules=["ac:git"])
    sync_lock(org.repo, locked=False, policy=locked_policy)
    assert read_lock(org.repo).manifest.policy.startswith("sha256:")


_KEYS = st.sampled_from(["version", "sources", "require", "allow", "waivers", "rules", "max-days", "forbid",
                         "trust", "url", "folders", "revisions", "extra"])
_VALUES = st.recursive(
    st.one_of(st.integers(-3, 3), st.booleans(), st.text(max_size=6), st.sampled_from(["ac:9", "ac:git", "*"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=8,
)


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(_KEYS, _VALUES, max_size=4))
def test_any_policy_file_reads_or_fails_with_one_message(tmp_path, data):
    path = tmp_path / "policy.toml"
    path.write_text(tomlkit.dumps(data))
    try:
        found = discovery._read("--policy", str(path), None)
        from agent_constitution.policy.model import PolicyFile
        from agent_constitution.ruleset.models import parse
        from agent_constitution.readers import parse_toml

        parse(PolicyFile, parse_toml(found.text, found.shown), found.shown)
    except UserError as error:
        assert str(error).startswith(f"error: {path}")
    assert isinstance(Found().digest, type(None))
