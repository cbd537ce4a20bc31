"""Golden AGENTS.md files for the fixture source: nesting, empty subtrees, links, parts, segment deltas.

Regenerate the golden files with `UPDATE_GOLDEN=1 uv run pytest tests/compile` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.compile.steps import SegmentJob, Settings, segment_files
from agent_constitution.compile.document import _shift_headings
from agent_constitution.errors import UserError
from tests.compile.support import make_repo, resolve_into_cache, write_fixture_source, RULES

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"differs from golden/{name}"


@pytest.fixture
def repo(tmp_path):
    root = make_repo(tmp_path / "repo")
    resolve_into_cache(root)
    return root


def compile_both(repo: Path, settings: Settings) -> None:
    segment_files(repo, repo / "cache", SegmentJob(".", None, ("svc",)), settings, locked=False)
    segment_files(repo, repo / "cache", SegmentJob("svc", ".", ()), settings, locked=False)


def test_root_and_segment_delta(repo):
    compile_both(repo, Settings())
    root = (repo / "AGENTS.md").read_text(encoding="utf-8")
    check_golden("root.AGENTS.md", root)
    check_golden("svc.AGENTS.md", (repo / "svc" / "AGENTS.md").read_text(encoding="utf-8"))
    # The git domain has no rule at the root: its subtree writes nothing.
    assert "ac-git" not in root
    # A requires edge into another subtree (ci → python) is a link to the rule's heading.
    assert "Requires: [ac:3](#ac-3)" in root
    # A selected rule is a link, an unselected one its plain label; a provision its label.
    assert "See [ac:6](#ac-6) and ac:7." in root and "(Art. I §1(1))" in root


def test_split_into_parts(repo):
    compile_both(repo, Settings(max_tokens=120))
    check_golden("split.AGENTS.md", (repo / "AGENTS.md").read_text(encoding="utf-8"))
    check_golden("split.AGENTS.python.md", (repo / "AGENTS.python.md").read_text(encoding="utf-8"))
    check_golden("split.AGENTS.ci.md", (repo / "AGENTS.ci.md").read_text(encoding="utf-8"))
    # A link across parts names the part file.
    assert "[ac:3](AGENTS.python.md#ac-3)" in (repo / "AGENTS.ci.md").read_text(encoding="utf-8")
    # Back under the budget, the parts are removed again.
    compile_both(repo, Settings())
    assert not (repo / "AGENTS.python.md").exists() and not (repo / "AGENTS.ci.md").exists()


def test_unknown_provision_names_the_rule(tmp_path):
    rules = dict(RULES)
    rules[8] = {"parent": "python", "text": "See {@nowhere}."}
    root = make_repo(tmp_path / "repo")
    write_fixture_source(root / "src", rules=rules)
    resolve_into_cache(root)
    with pytest.raises(UserError) as caught:
        segment_files(root, root / "cache", SegmentJob(".", None, ()), Settings(), locked=False)
    assert "8.toml" in str(caught.value) and "{@nowhere}" in str(caught.value)


def test_headings_inside_code_fences_stay():
    text = "# Title\n\n```\n# not a heading\n```\n\n###### deepest"
    assert _shift_headings(text, 1) == "## Title\n\n```\n# not a heading\n```\n\n###### deepest"


def test_a_new_source_tree_rebuilds_only_the_segments_whose_files_changed(repo, tmp_path):
    """A new commit of a git source is a new tree in the user cache, and the lock records the digests
    of its rules there: compare those, not folders."""
    import json
    import shutil

    from tests.compile.steps import segment_fresh
    from agent_constitution.compile.inputs import resolved_path
    from agent_constitution.ruleset.source import rule_file_digest

    jobs = [SegmentJob(".", None, ("svc",)), SegmentJob("svc", ".", ())]
    values = {job.path: segment_files(repo, repo / "cache", job, Settings(), locked=False).values() for job in jobs}
    assert all(segment_fresh(repo, repo / "cache", job, values[job.path]) for job in jobs)
    moved = tmp_path / "next-commit"
    shutil.copytree(repo / "src", moved)
    rule = moved / "rules" / "7.toml"  # shown in svc only
    rule.write_text(rule.read_text().replace("Text of rule 7.", "Text of rule 7, next commit."))
    for job in jobs:
        path = resolved_path(repo / "cache", job.path)
        data = json.loads(path.read_text())
        data["sources"]["ac"]["root"] = str(moved)
        data["constitution"]["root"] = str(moved / "constitution" / "2026-12")
        for entry in data["rules"]:  # as the lock records the rules of the new tree
            python = (entry["check"] or {}).get("python")
            entry["digest"] = rule_file_digest(moved / "rules" / f"{entry['id']}.toml",
                                               None if python is None else moved / "rules" / "checks" / f"{python}.py")
        path.write_text(json.dumps(data))
    assert segment_fresh(repo, repo / "cache", jobs[0], values["."])
    assert not segment_fresh(repo, repo / "cache", jobs[1], values["svc"])


def test_the_agent_edition_comes_from_generated_when_the_source_has_it(repo):
    generated = repo / "src" / "constitution" / "2026-12" / "generated"
    generated.mkdir()
    (generated / "constitution.en.agent.md").write_text("<!-- banner -->\n# Published agent edition\n\nAs committed.\n")
    (generated / "constitution.zh.agent.md").write_text("# 发布的 agent 版\n")
    resolve_into_cache(repo)  # as the lock stage does when the source's files change
    segment_files(repo, repo / "cache", SegmentJob(".", None, ()), Settings(), locked=False)
    text = (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert "## Published agent edition\n\nAs committed.\n" in text and "<!-- banner -->" not in text


def test_files_are_written_in_the_constitutions_first_language(tmp_path):
    root = make_repo(tmp_path / "repo")
    index = root / "src" / "constitution" / "2026-12" / "index.toml"
    index.write_text(index.read_text().replace('languages = ["en", "zh"]', 'languages = ["zh", "en"]'))
    resolve_into_cache(root)
    segment_files(root, root / "cache", SegmentJob(".", None, ("svc",)), Settings(), locked=False)
    text = (root / "AGENTS.md").read_text(encoding="utf-8")
    assert "宪法：src，2026-12 版，修订号 0.2。" in text
    assert "(第一条第一款第一项)" in text and "依赖：[ac:3](#ac-3)" in text  # labelled in Chinese


def test_a_nested_segment_with_nothing_of_its_own_gets_no_files(tmp_path):
    """Was a file saying "no rule applies here beyond those above": the files above already cover
    it, so it gets no AGENTS.md (nor shim), and the root's index does not name it."""
    from tests.compile.steps import claude_shim

    root = make_repo(tmp_path / "repo")
    manifest = root / "rules.toml"
    manifest.write_text(manifest.read_text().split("[[segment]]")[0] + '[[segment]]\npath = "svc"\n')
    resolve_into_cache(root)
    (root / "svc" / "AGENTS.md").write_text("# svc\n")  # hand-written: stays as it is
    step = segment_files(root, root / "cache", SegmentJob("svc", ".", ()), Settings(), locked=False)
    assert step.written == () and (root / "svc" / "AGENTS.md").read_text() == "# svc\n"
    assert claude_shim(root, "svc", Settings(), locked=False).written == ()
    assert not (root / "svc" / "CLAUDE.md").exists()
    segment_files(root, root / "cache", SegmentJob(".", None, ("svc",)), Settings(), locked=False)
    assert "svc/AGENTS.md" not in (root / "AGENTS.md").read_text(encoding="utf-8")


def test_a_reference_into_another_source_uses_that_sources_name_in_the_lock(tmp_path):
    """`{@rule:base:1}` in source ac names the source ac calls `base`; this manifest calls it `shared`."""
    import tomlkit

    rules = dict(RULES)
    rules[8] = {"parent": "python", "requires": ["base:1"], "text": "Follow {@rule:base:1} and {@rule:base:2}."}
    root = make_repo(tmp_path / "repo")
    write_fixture_source(root / "src", rules=rules)
    config = root / "src" / "rules" / "source.toml"
    config.write_text(config.read_text() + '\n[sources.base]\nurl = "../shared"\n')
    shared = root / "shared" / "rules"
    shared.mkdir(parents=True)
    shared_config = {"name": "shared", "languages": ["en"], "domains": {"style": {"title": {"en": "Style"}}}}
    (shared / "source.toml").write_text(tomlkit.dumps(shared_config))
    for rule_id in (1, 2):
        (shared / f"{rule_id}.toml").write_text(tomlkit.dumps({
            "id": rule_id, "revision": 1, "status": "active", "parent": "style",
            "title": {"en": f"Shared rule {rule_id}"}, "text": {"en": f"Shared text {rule_id}."},
        }))
    manifest = root / "rules.toml"
    manifest.write_text(manifest.read_text().replace('ac = { path = "src" }', 'ac = { path = "src" }\nshared = { path = "shared" }'))
    resolve_into_cache(root)
    segment_files(root, root / "cache", SegmentJob(".", None, ()), Settings(), locked=False)
    text = (root / "AGENTS.md").read_text(encoding="utf-8")
    # shared:1 is selected (required by ac:8): a link; shared:2 is not: its plain label.
    assert "Follow [shared:1](#shared-1) and shared:2." in text
    assert "Requires: [shared:1](#shared-1)" in text and '<a id="shared-1"></a>shared:1 Shared rule 1' in text
