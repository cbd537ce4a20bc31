"""`doit check message=PATH`: the commit message file is the staged change's message."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_constitution.checks.subjects import commit_message

from .conftest import git, make_source, rule_toml, write
from .test_tasks import doit, executed

SHORT_SUBJECT = '''\
from agent_constitution.checks.api import Finding

RULE = 9


def check(change):
    return [Finding(f"subject too long: {m.splitlines()[0]!r}") for m in change.messages
            if m and len(m.splitlines()[0]) > 20]
'''


@pytest.fixture
def project(repo: Path) -> Path:
    make_source(repo, {9: rule_toml(9, 'subject = "change"\npython = "r9"')}, {"r9": SHORT_SUBJECT})
    write(repo, {"a.txt": "1"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    return repo


def test_the_message_file_is_judged_as_the_staged_change_message(project: Path):
    write(project, {"b.txt": "2"})
    git(project, "add", "b.txt")
    message = project / ".git" / "COMMIT_EDITMSG"
    message.write_text("Add b, and also a great many other things\n\n# Please enter the commit message\n")
    run = doit(project, "checks", f"message={message}")
    assert run.returncode == 1 and "subject too long: 'Add b, and also a great many other things'" in run.stdout
    message.write_text("Add b\n")
    run = doit(project, "checks", f"message={message}")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "checks:ac:9" in executed(run)  # a new message is a new subject
    assert executed(doit(project, "checks", f"message={message}")) == set()


def test_the_compiled_commit_msg_hook_judges_the_message(project: Path):
    from agent_constitution.compile import hooks
    from agent_constitution.compile.layout import PLAIN_MESSAGE_HOOK

    hooks.write_plain_hook(project, PLAIN_MESSAGE_HOOK)
    # The hook runs the whole `check` group, whose constitution checks reject the fixture's placeholder
    # constitution: the hook here runs the group's `checks` family alone, the part under test.
    hook = project / PLAIN_MESSAGE_HOOK
    text = hook.read_text()
    assert "agent-constitution check change=staged message=" in text  # the name form: the tool is on PATH
    hook.write_text(text.replace("agent-constitution check ", "doit checks "))
    write(project, {"b.txt": "2"})
    git(project, "add", "b.txt")
    refused = subprocess.run(["git", "commit", "-qm", "Add b, and also a great many other things"], cwd=project,
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "subject too long" in refused.stdout + refused.stderr
    git(project, "commit", "-qm", "Add b")
    assert git(project, "log", "-1", "--format=%s").strip() == "Add b"


def test_an_unreadable_message_file_is_one_error(project: Path):
    run = doit(project, "checks", "message=nowhere")
    assert run.returncode != 0 and "message=nowhere: no such file; message= takes the path of a file" in run.stderr
    # The message's text given instead of its file is told apart from a file that cannot be read.
    run = doit(project, "checks", "message=Fix the parser")
    assert "message=Fix the parser: no such file" in run.stderr and "not the message's text" in run.stderr
    (project / "folder").mkdir()
    run = doit(project, "checks", "message=folder")
    assert run.returncode != 0 and "message=folder: cannot read the commit message file" in run.stderr


@pytest.mark.parametrize("text, message", [
    ("Fix it\n\nBecause.\n# comment\n", "Fix it\n\nBecause.\n"),
    ("Fix it\n# ------------------------ >8 ------------------------\ndiff --git a b\n", "Fix it\n"),
    ("# only comments\n\n", ""),
    ("Fix it   \n\n\n", "Fix it\n"),
])
def test_commit_message_cleanup(text, message):
    assert commit_message(text) == message
