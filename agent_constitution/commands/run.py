"""The verbs that run doit tasks: `agent-constitution compile --locked` is `doit compile --locked`.

doit runs in-process with this project's loader (`DoitMain(Loader())`), in the repository's root and
with no doit configuration file read, so every repository gets the same tasks and settings whether
or not it uses doit itself. A verb that does not apply in the repository (`site` outside a rule
source, `upgrade` without a rules.toml) says why and exits 2 instead of running nothing. The
exit code says what kind of failure ended the run (`exit_code`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agent_constitution import console
from agent_constitution.commands.parser import Invocation, UsageError
from agent_constitution.tasks.verbs import PROG, VERBS, Verb
from agent_constitution.console import DEBUG, QUIET
from agent_constitution.errors import UserError
from agent_constitution.layout import CHECKS, MANIFEST, SOURCE_CONFIG
from agent_constitution.loader import Loader
from agent_constitution.policy.discover import settings as policy_settings
from agent_constitution.project import Project

__all__ = ["PROG", "VERBS", "Verb", "doit", "exit_code", "find_root", "run"]


def find_root(start: Path) -> Path:
    """The nearest folder at or above `start` holding a rules.toml or a rule source, without leaving the
    git repository `start` is in; `start` itself when there is none (like uv finds pyproject.toml)."""
    for folder in (start, *start.parents):
        if (folder / MANIFEST).is_file() or (folder / SOURCE_CONFIG).is_file():
            return folder
        if (folder / ".git").exists():
            break
    return start


def run(verb: Verb, invocation: Invocation, *, fixable_hint: bool = True) -> int:
    """Run a parsed task verb: doit's `run` of its task with its options and variables, quiet unless
    -v; the exit code is the kind of the worst failure (`exit_code`)."""
    root = find_root(Path.cwd().resolve())
    missing = verb.needs(root) if verb.needs else None
    if missing:
        raise UsageError(f"`{PROG} {invocation.asked or verb.name}` does not apply here: {missing[0]}", fix=missing[1])
    if verb.name == "check" and any(invocation.options.get(name) for name in ("fix", "diff")):
        from agent_constitution.commands.fix import run_fix  # lazy: --help loads no fixing machinery (checks.fixing)

        return run_fix(root, invocation, lambda: run(verb, _without_fix(invocation), fixable_hint=False))
    console.settings.failures.clear()
    if invocation.policy:
        policy_settings.given = invocation.policy
    status = doit(root, ["run", *_doit_arguments(verb, invocation)])
    code = exit_code(status, console.settings.failures)
    _after(root, verb, invocation, code, fixable_hint)
    return code


def _after(root: Path, verb: Verb, invocation: Invocation, code: int, fixable_hint: bool) -> None:
    """After the run: the report in the format asked for, and after a failing `check`, what `--fix` would mend."""
    if verb.output_formats and invocation.output_format != "full" and code in (0, 1):
        _print_report(root, invocation.output_format)
    if fixable_hint and verb.name == "check" and code == 1 and invocation.output_format == "full" \
            and invocation.verbosity > QUIET:
        from agent_constitution.commands.fix import print_fixable  # lazy: --help loads no fixing machinery (checks.fixing)

        print_fixable(root, unsafe=bool(invocation.options.get("unsafe_fixes")))


def _doit_arguments(verb: Verb, invocation: Invocation) -> list[str]:
    """What `doit run` is given: its flags, the verb's task (or one per SEGMENT / SOURCE word), the
    task's options and the variables."""
    task = verb.task or verb.name
    tasks = [f"{task}:{name}" for name in invocation.words] or [task]
    flags = ["--verbosity", "2"] if invocation.verbosity >= DEBUG else []
    if invocation.jobs:
        flags += ["-n", str(invocation.jobs)]
    variables = [f"{name}={value}" for name, value in invocation.variables.items()]
    return [*flags, *tasks, *_doit_options(verb, invocation), *variables]


def _doit_options(verb: Verb, invocation: Invocation) -> list[str]:
    """The verb's options as doit's command line has them (a flag alone, else the flag and its value)."""
    options = []
    for option in verb.options:
        if option.get("doit") is False:
            continue
        value = invocation.options.get(option["name"])
        if value is True:
            options.append(f"--{option['long']}")
        elif value not in (None, False):
            options += [f"--{option['long']}", str(value)]
    return options


def _without_fix(invocation: Invocation) -> Invocation:
    from dataclasses import replace

    return replace(invocation, options={key: value for key, value in invocation.options.items()
                                        if key not in ("fix", "diff")})


def exit_code(status: int, failures: list[tuple[str, str]]) -> int:
    """0 done; 1 findings (a violation, a file --locked would change); 2 bad input (a `UserError`) or a
    command line doit refused; 3 an exception in a task (doit's own status 2), a bug."""
    if status == 0:
        return 0
    kinds = {kind for _, kind in failures}
    if status == 2 or "error" in kinds:
        return 3
    if status == 3 or "input" in kinds:
        return 2
    return 1


def _print_report(root: Path, name: str) -> None:
    """The report of the run just done, in format `name` (checks/formats.py), on stdout; and under
    GitHub Actions, its Markdown summary appended to the job's summary file."""
    from agent_constitution.checks import formats  # lazy: --help loads no report formats (checks.formats, about 0.3 s of imports)

    folder = Project(root).cache / CHECKS
    try:
        report = (folder / "report.json").read_text(encoding="utf-8")
        sarif = (folder / "code-scanning.sarif").read_text(encoding="utf-8") if name == "sarif" else None
    except OSError as error:
        raise UserError(f"no report of this run to print ({error.strerror})", file=folder / "report.json",
                        fix="run the checks again (`agent-constitution check -v` shows what ran)") from None
    sys.stdout.write(formats.render(name, report, sarif))
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if name == "github" and summary_file:
        import json

        with open(summary_file, "a", encoding="utf-8") as summary:
            summary.write(formats.job_summary(json.loads(report)))


def doit(root: Path, args: list[str]) -> int:
    """Any doit command line (`doit list`, `doit -n 4 compile`) with this project's tasks, in `root`."""
    from doit.doit_cmd import DoitMain


    class Main(DoitMain):
        BIN_NAME = f"{PROG} doit"

    here = os.getcwd()
    os.chdir(root)
    try:
        return Main(Loader(), config_filenames=()).run(args)
    finally:
        os.chdir(here)
