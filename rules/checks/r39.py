"""Rule 39 (trial): Run the checks after the last edit."""

from agent_constitution.checks.api import EDIT, SHELL, Finding, Record

from ._helpers import simple_commands

RULE = 39
SUPERSEDED = False

# A command runs tests or checks when one of its words is a test runner, or it starts with one of these.
RUNNERS = {"pytest", "py.test", "tox", "nox"}
STARTS = {
    ("doit", "check"),
    ("make", "test"),
    ("make", "check"),
    ("npm", "test"),
    ("pnpm", "test"),
    ("yarn", "test"),
    ("cargo", "test"),
    ("cargo", "check"),
    ("go", "test"),
    ("just", "test"),
    ("just", "check"),
    ("pre-commit", "run"),
    ("ruff", "check"),
    ("mvn", "test"),
    ("gradle", "test"),
}


def check(record: Record) -> list[Finding]:
    last_edit = None  # the last edit call
    checked = False
    for call in record.tool_calls():
        if call.tool == EDIT:
            last_edit, checked = call, False
        elif call.tool == SHELL:
            checked = checked or _runs_checks(str(call.input.get("command", "")))
    if last_edit is None or checked:
        return []
    return [Finding("no tests or checks ran after the last file edit", path=str(record.path), line=last_edit.line)]


def _runs_checks(command: str) -> bool:
    for words in simple_commands(command):
        if RUNNERS & {word.rsplit("/", 1)[-1] for word in words}:
            return True
        programs = [word for word in words if not word.startswith("-")]
        for index in range(len(programs) - 1):  # `uv run doit check`, `npx --yes npm test`
            if (programs[index].rsplit("/", 1)[-1], programs[index + 1]) in STARTS:
                return True
    return False
