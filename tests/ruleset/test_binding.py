"""The constitution binding: the pin is what the source publishes, upgrades keep it, `upgrade --constitution` moves it."""

import json
from pathlib import Path

import pytest

from agent_constitution.errors import UserError
from agent_constitution.ruleset.lock import read_lock, sync_lock
from agent_constitution.ruleset.rebind import apply_rebind, plan_rebind
from agent_constitution.ruleset.resolve import documents, resolve
from agent_constitution.ruleset.upgrade import apply_upgrade, plan_upgrade
from tests.ruleset.builders import commit_all, write_manifest, write_rule, write_source


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.delenv("CI", raising=False)


def publish(upstream: Path, revision: str, words: str) -> None:
    """Constitution edition 2026-10 at `revision`, with an agent edition saying `words`."""
    edition = upstream / "constitution" / "2026-10"
    (edition / "index.toml").write_text(f'status = "draft"\nedition = "2026-10"\nrevision = "{revision}"\n')
    (edition / "generated").mkdir(exist_ok=True)
    (edition / "generated" / "constitution.en.agent.md").write_text(f"# Constitution\n\n{words}\n")


def setup(tmp_path: Path, pin: str = "0.2") -> tuple[Path, Path, str]:
    upstream = tmp_path / "upstream"
    write_source(upstream, {7: {"parent": "git"}, 8: {"parent": "git"}}, revision="0.2")
    publish(upstream, "0.2", "Agents ask before acting.")
    first = commit_all(upstream, "first", tag="v1")
    repo = tmp_path / "repo"
    pinned = {"source": "ac", "edition": "2026-10", "revision": pin}
    write_manifest(repo, {"constitution": pinned, "sources": {"ac": {"url": str(upstream), "branch": "main"}}, "rules": ["ac:7"]})
    return upstream, repo, first


def amend(upstream: Path, **rule7) -> str:
    """Upstream amends the constitution to 0.3 and refines rule 7."""
    publish(upstream, "0.3", "Agents ask before acting, and say why.")
    write_rule(upstream, 7, parent="git", revision=2, **rule7)
    return commit_all(upstream, "amend to 0.3", tag="v2")


def test_a_pin_the_source_does_not_publish_fails(tmp_path):
    _, repo, first = setup(tmp_path, pin="0.7")
    with pytest.raises(UserError) as caught:
        sync_lock(repo)
    message = str(caught.value)
    assert "rules.toml: constitution.revision: rules.toml binds constitution revision 0.7 of edition 2026-10" in message
    assert f"but source ac at commit {first[:12]} publishes revision 0.2" in message
    assert not (repo / "rules.lock").exists()  # nothing half-written


def test_a_folder_source_is_checked_too(project):
    message = project.error(constitution={"source": "ac", "edition": "2026-10", "revision": "0.7"})
    assert "binds constitution revision 0.7" in message and "source ac (a folder) publishes revision 0.1" in message


def test_an_edition_without_a_revision_is_an_error(project):
    (project.root / "src" / "constitution" / "2026-10" / "index.toml").unlink()
    assert "source ac publishes constitution edition 2026-10 without a revision" in project.error(rules=[])


def test_lock_header_and_text_agree(tmp_path):
    _, repo, first = setup(tmp_path)
    resolution, _ = sync_lock(repo)
    locked = read_lock(repo).constitution
    assert (locked.source, locked.commit, locked.edition, locked.revision) == ("ac", first, "2026-10", "0.2")
    assert locked.digest == resolution.constitution.digest
    data = json.loads(documents(resolution)["."].to_json())["constitution"]
    assert (data["revision"], data["commit"]) == ("0.2", first)
    assert "Agents ask before acting." in (Path(data["root"]) / "generated" / "constitution.en.agent.md").read_text()


def test_upgrade_moves_rules_and_keeps_the_constitution(tmp_path):
    upstream, repo, first = setup(tmp_path)
    sync_lock(repo)
    second = amend(upstream)
    upgrade = plan_upgrade(repo)
    report = upgrade.report()
    assert "ac:7: revision 1 → 2" in report
    assert (
        f"constitution kept at revision 0.2 (commit {first[:12]}); source ac at {second[:12]} publishes revision 0.3:"
        " `doit upgrade --constitution` moves the binding" in report
    )
    apply_upgrade(repo, upgrade)
    lock = read_lock(repo)
    assert lock.source[0].commit == second and (lock.constitution.commit, lock.constitution.revision) == (first, "0.2")
    resolution, wrote = sync_lock(repo, locked=True)  # the lock upgrade wrote is the lock resolution gives
    assert not wrote and resolution.segment(".").rules[0].revision == 2
    text = (resolution.constitution.root / "generated" / "constitution.en.agent.md").read_text()
    assert "say why" not in text  # the 0.2 text, under the 0.2 header


def test_upgrade_constitution_diffs_the_agent_edition_and_moves_the_pin(tmp_path):
    upstream, repo, first = setup(tmp_path)
    sync_lock(repo)
    second = amend(upstream)
    apply_upgrade(repo, plan_upgrade(repo))
    rebind = plan_rebind(repo)
    report = rebind.report()
    assert f"constitution ac edition 2026-10: revision 0.2 → 0.3 ({first[:12]} → {second[:12]})" in report
    assert "-Agents ask before acting.\n+Agents ask before acting, and say why." in report
    assert "a/2026-10@0.2/constitution.en.agent.md" in report
    assert rebind.excluded == ()
    apply_rebind(repo, rebind)
    assert 'revision = "0.3"' in (repo / "rules.toml").read_text()
    lock = read_lock(repo).constitution
    assert (lock.commit, lock.revision) == (second, "0.3")
    assert sync_lock(repo, locked=True)[1] is False
    assert plan_rebind(repo).report().startswith("constitution: already bound to revision 0.3")


def test_upgrade_constitution_lists_every_rule_that_excludes_it_and_fails(tmp_path):
    upstream, repo, _ = setup(tmp_path)
    (repo / "rules.toml").write_text((repo / "rules.toml").read_text().replace('["ac:7"]', '["ac:7", "ac:8"]'))
    sync_lock(repo)
    write_rule(upstream, 8, parent="git", revision=2, constitution={"max": "0.2"})
    amend(upstream, constitution={"min": "0.1", "max": "0.2"})
    rebind = plan_rebind(repo)
    assert rebind.excluded == ("ac:7 admits >= 0.1, <= 0.2 (segment .)", "ac:8 admits <= 0.2 (segment .)")
    assert "enabled rules whose range excludes revision 0.3:\n  ac:7" in rebind.report()
    before = (repo / "rules.toml").read_text(), (repo / "rules.lock").read_text()
    with pytest.raises(UserError, match=r"2 enabled rule\(s\) exclude constitution revision 0.3: ac:7"):
        apply_rebind(repo, rebind)
    assert ((repo / "rules.toml").read_text(), (repo / "rules.lock").read_text()) == before


def test_upgrade_constitution_to_a_revision_the_source_does_not_publish(tmp_path):
    upstream, repo, _ = setup(tmp_path)
    sync_lock(repo)
    amend(upstream)
    with pytest.raises(UserError, match="publishes constitution revision 0.3 of edition 2026-10, not 0.4"):
        plan_rebind(repo, "0.4")
    assert plan_rebind(repo, "0.3").new.revision == "0.3"


def test_a_hand_edited_pin_is_refused_until_the_binding_moves(tmp_path):
    upstream, repo, _ = setup(tmp_path)
    sync_lock(repo)
    amend(upstream)
    (repo / "rules.toml").write_text((repo / "rules.toml").read_text().replace('"0.2"', '"0.3"'))
    with pytest.raises(UserError, match="binds constitution revision 0.3 of edition 2026-10, but source ac at commit"):
        resolve(repo, read_lock(repo))
    apply_rebind(repo, plan_rebind(repo))  # moves the source to the commit that publishes 0.3
    assert sync_lock(repo, locked=True)[0].constitution.revision == "0.3"


def test_inheritance_takes_the_newer_pin_and_names_the_rule_that_excludes_it(tmp_path):
    upstream, repo, _ = setup(tmp_path)
    amend(upstream, constitution={"max": "0.2"})
    base = {"constitution": {"source": "ac", "edition": "2026-10", "revision": "0.3"},
            "sources": {"ac": {"url": str(upstream), "branch": "main"}}}
    write_manifest(repo, base, "base.toml")
    (repo / "rules.toml").write_text('extends = "base.toml"\n' + (repo / "rules.toml").read_text())
    with pytest.raises(UserError) as caught:
        sync_lock(repo)
    message = str(caught.value)
    assert 'ac:7 "Rule 7" is compatible with constitution revisions <= 0.2, but the manifest binds revision 0.3' in message
    assert "(the newer of 0.2 in rules.toml and 0.3 in base.toml)" in message


def test_the_doit_commands(tmp_path):
    from tests.ruleset.test_tasks import doit

    upstream, repo, _ = setup(tmp_path)
    (repo / "dodo.py").write_text("from agent_constitution.loader import namespace\nglobals().update(namespace())\n")
    assert doit(repo, "lock").returncode == 0
    amend(upstream)
    done = doit(repo, "upgrade")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "constitution kept at revision 0.2" in done.stdout
    lock = doit(repo, "lock")
    assert "warning: constitution kept at revision 0.2" in lock.stderr
    wrong = doit(repo, "upgrade", "--constitution", "0.4")
    assert wrong.returncode != 0 and "publishes constitution revision 0.3 of edition 2026-10, not 0.4" in wrong.stderr
    stray = doit(repo, "upgrade", "0.3")
    assert stray.returncode != 0 and "a revision goes with --constitution" in stray.stderr
    moved = doit(repo, "upgrade", "--constitution", "0.3")
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert "+Agents ask before acting, and say why." in moved.stdout
    assert "bound to constitution revision 0.3" in moved.stdout
    assert doit(repo, "lock", "--locked").returncode == 0


def test_a_stale_lock_names_why_it_may_not_be_written(tmp_path, monkeypatch):
    _, repo, _ = setup(tmp_path)
    sync_lock(repo)
    (repo / "rules.toml").write_text((repo / "rules.toml").read_text().replace('["ac:7"]', '["ac:8"]'))
    with pytest.raises(UserError, match="needs to be updated, but resolving never writes it"):
        sync_lock(repo, locked=True, because="resolving never writes it (`doit lock` does)")
    monkeypatch.setenv("CI", "1")
    with pytest.raises(UserError, match="needs to be updated, but CI is set in the environment: rules.lock"):
        sync_lock(repo)
    with pytest.raises(UserError, match="needs to be updated, but --locked was given: rules.lock"):
        sync_lock(repo, locked=True)
