"""Rule 14: Force-push only to your own branch, named explicitly."""

from agent_constitution.checks.api import Finding, Record

from ._helpers import git_calls, shell_commands, short_flags

RULE = 14
SUPERSEDED = False

SHARED = {"main", "master"}
# Options of `git push` that take the next word as their value.
VALUED = {"-o", "--push-option", "--repo", "--receive-pack", "--exec"}


def check(record: Record) -> list[Finding]:
    findings = []
    for line, command in shell_commands(record):
        for call in git_calls(command):
            if call.command == "push":
                problem = _problem(call.args)
                if problem:
                    findings.append(
                        Finding(f"{problem}: {command.strip()!r}", path=str(record.path), line=line)
                    )
    return findings


def _problem(args: tuple[str, ...]) -> str | None:
    positional, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in VALUED:
            skip = True
        elif not arg.startswith("-"):
            positional.append(arg)
    refspecs = positional[1:]
    forced = (
        "f" in short_flags(args)
        or any(arg == "--force" or arg.startswith("--force-with-lease") for arg in args)
        or any(spec.startswith("+") for spec in refspecs)
    )
    if not forced:
        return None
    if not refspecs or any(arg in ("--all", "--mirror", "--branches") for arg in args):
        return "force push without naming the branch"
    for spec in refspecs:
        target = spec.lstrip("+").rpartition(":")[2].removeprefix("refs/heads/")
        if target in SHARED or target == "HEAD":
            return f"force push to {target}"
    return None
