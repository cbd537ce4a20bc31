"""Rule 39 (trial): Run the checks after the last edit.

A command after the last edit that runs a known test runner or check passes the session. One that
runs the project's own entry points without naming a known runner (`make`, `just`, `npm run lint`,
`uv run task`, `./scripts/ci.sh`) may or may not run the checks: undecidable. Neither: a violation.
"""

from agent_constitution.checks.api import EDIT, SHELL, Finding, Record, Undecidable

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
# The project's own entry points: what they run the record does not show.
TASK_RUNNERS = {"make", "just", "task", "invoke", "rake"}
SCRIPT_RUNNERS = {"npm", "pnpm", "yarn", "bun", "uv", "poetry", "hatch", "pdm"}


def check(record: Record) -> list[Finding]:
    last_edit = None  # the last edit call
    checked, maybe = False, None
    for call in record.tool_calls():
        if call.tool == EDIT:
            last_edit, checked, maybe = call, False, None
        elif call.tool == SHELL:
            command = str(call.input.get("command", ""))
            checked = checked or _runs_checks(command)
            maybe = maybe or (command.strip() if _may_run_checks(command) else None)
    if last_edit is None or checked:
        return []
    if maybe:
        raise Undecidable(f"after the last edit the session ran {maybe!r}, which may run the checks")
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


def _may_run_checks(command: str) -> bool:
    for words in simple_commands(command):
        program = words[0].rsplit("/", 1)[-1]
        if program in TASK_RUNNERS or words[0].startswith("./"):
            return True
        if program in ("sh", "bash") and any(word.endswith(".sh") for word in words[1:]):
            return True
        if program in SCRIPT_RUNNERS and "run" in words[1:2]:
            return True
    return False
