"""The personal layer: [person] and [machine] of the user-level manifest, rendered into the
user-level AGENTS.md and refused in every repository's manifest."""

from __future__ import annotations

import pytest

from agent_constitution.compile.personal import render
from agent_constitution.compile.user import ENV, compile_user
from agent_constitution.errors import UserError
from agent_constitution.ruleset.models import Manifest, parse
from agent_constitution.ruleset.personal import Folders, Machine, Person
from agent_constitution.ruleset.resolve import resolve
from tests.compile.support import RULES, make_repo, write_fixture_source

USER_RULES = {**RULES, 9: {"parent": "git", "tier": "user", "title": "Answer in the principal's language"}}

PERSONAL = """
[person]
language = "zh-CN"
dictates = true

[machine]
credentials = ["the macOS keychain", "~/.config/gh/hosts.yml"]

[machine.folders]
repositories = "~/src"
worktrees = "~/src/.worktrees"
scratch = "/tmp/scratch"
"""

USER_MANIFEST = """\
rules = ["ac:9"]

[constitution]
source = "ac"
edition = "2026-12"
revision = "0.2"

[sources]
ac = {{ path = "{source}" }}
"""


def test_the_values_are_rendered_into_the_user_level_file(tmp_path, monkeypatch):
    source = write_fixture_source(tmp_path / "src", rules=USER_RULES)
    config = tmp_path / "config"
    config.mkdir()
    (config / "rules.toml").write_text(USER_MANIFEST.format(source=source) + PERSONAL)
    monkeypatch.setenv(ENV, str(config))
    compile_user(locked=False)
    text = (config / "AGENTS.md").read_text()
    assert "## The person and the machine" in text
    for line in (
        "- Reply in the language `zh-CN`.",
        "- The person dictates: read each message as a speech-to-text transcript.",
        "- Credentials live in: the macOS keychain; `~/.config/gh/hosts.yml`.",
        "- Repositories are cloned into `~/src`.",
        "- Extra git worktrees go in `~/src/.worktrees`.",
        "- Throwaway files go in `/tmp/scratch`.",
    ):
        assert line in text.splitlines(), line
    assert text.index("User-tier rules") < text.index("## The person and the machine") < text.index("## Rules")
    # A changed value is compiled again; none left, no section.
    (config / "rules.toml").write_text(USER_MANIFEST.format(source=source) + '[person]\nlanguage = "de"\n')
    compile_user(locked=False)
    text = (config / "AGENTS.md").read_text()
    assert "- Reply in the language `de`." in text and "dictates" not in text and "~/src" not in text
    (config / "rules.toml").write_text(USER_MANIFEST.format(source=source))
    compile_user(locked=False)
    assert "The person and the machine" not in (config / "AGENTS.md").read_text()


@pytest.mark.parametrize(("table", "message"), [
    ('[person]\nlanguage = "Chinese"\n', "person.language: expected a BCP 47 language tag such as en, zh or pt-BR (found 'Chinese')"),
    ('[person]\nvoice = true\n', "person.voice: unknown key"),
    ('[person]\ndictates = "yes"\n', "person.dictates: expected true or false"),
    ('[machine]\ncredentials = "~/.netrc"\n', "machine.credentials: expected an array"),
    ('[machine]\ncredentials = ["a `b`"]\n', "machine.credentials.0: expected text without backticks"),
    ('[machine]\ncredentials = ["<!-- agent-constitution:end -->"]\n', "expected text without backticks or HTML comment marks"),
    ('[machine.folders]\nrepositories = "src"\n', "machine.folders.repositories: expected an absolute folder or one under the home folder"),
    ('[machine.folders]\nhome = "~"\n', "machine.folders.home: unknown key"),
])
def test_the_tables_are_strict(table, message, tmp_path, monkeypatch):
    source = write_fixture_source(tmp_path / "src", rules=USER_RULES)
    config = tmp_path / "config"
    config.mkdir()
    (config / "rules.toml").write_text(USER_MANIFEST.format(source=source) + table)
    monkeypatch.setenv(ENV, str(config))
    with pytest.raises(UserError) as raised:
        compile_user(locked=False)
    assert message in str(raised.value) and "rules.toml" in str(raised.value)
    assert not (config / "AGENTS.md").exists() and not (config / "rules.lock").exists()


def test_a_repository_manifest_cannot_set_them(tmp_path):
    root = make_repo(tmp_path / "repo")
    write_fixture_source(root / "src", rules=USER_RULES)
    manifest = root / "rules.toml"
    original = manifest.read_text()
    manifest.write_text(original + '\n[machine.folders]\nscratch = "/tmp/me"\n')
    with pytest.raises(UserError) as raised:
        resolve(root)
    error = raised.value
    assert error.field == "machine" and "belongs in the user-level manifest" in error.message
    assert "user-level rules.toml" in error.fix


def test_a_base_manifest_cannot_set_them(tmp_path):
    root = make_repo(tmp_path / "repo")
    write_fixture_source(root / "src", rules=USER_RULES)
    (root / "base.toml").write_text('rules = ["ac:7"]\n\n[person]\ndictates = true\n')
    manifest = root / "rules.toml"
    manifest.write_text('extends = "base.toml"\n' + manifest.read_text())
    with pytest.raises(UserError) as raised:
        resolve(root)
    assert raised.value.field == "person" and "a base manifest cannot set [person] or [machine]" in raised.value.message


def test_rendering_in_each_language_and_nothing_when_unset():
    person = Person(language="en", dictates=True)
    machine = Machine(credentials=("pass",), folders=Folders(scratch="~/tmp"))
    zh = render(person, machine, "zh")
    assert zh.startswith("## 人与机器\n\n") and "- 用 `en` 这种语言回复。" in zh and "- 临时文件放在 `~/tmp`。" in zh
    assert "- 凭证存放在：pass。" in zh
    assert render(person, machine, "fr") == render(person, machine, "en")  # other languages: English
    assert render(Person(), Machine(), "en") == ""
    assert parse(Manifest, {"person": {"language": "pt-BR"}}, "rules.toml").person.language == "pt-BR"
