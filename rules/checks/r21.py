"""Rule 21: CI checks uv.lock before uv uses it.

What it decides, from the CI configuration as written (GitHub Actions and Forgejo Actions
workflows, `.gitlab-ci.yml`): for every job that works on this repository, the first uv command of
its scripts that reads or writes `uv.lock` (LOCK_COMMANDS) must check the lock (`--locked`,
`uv lock --check`, or `UV_LOCKED` set on the command, in the script, or in the workflow's, job's or
step's `env` / GitLab's `variables`). uv commands that never read the lock (`uv build`, `uv publish`,
`uv pip`, `uv tool`, `uv python`, `uvx`, ...) are skipped. A GitHub or Forgejo job that checks out
no copy of this repository (no checkout step, or only `actions/checkout` with another
`repository:`) is not judged, nor a step whose `working-directory` lies in another repository's
checkout. A configuration in which jobs read the lock but none checks it, or none uses uv at all,
is one finding. Since revision 5 a script of this repository that a step runs (`./ci.sh`,
`scripts/docs/build.sh`, `bash scripts/x.sh`, `. env.sh`) is read as part of the step, a few levels
deep (`_helpers.SCRIPT_DEPTH`), since its uv commands are the job's; what `make`, a task runner or an
action runs is not seen.
"""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import SCRIPT_DEPTH, called_script, commands_with_env, parse_yaml, workflow_files

RULE = 21
SUPERSEDED = False

GITLAB = ".gitlab-ci.yml"
GITLAB_KEYWORDS = {
    "default",
    "include",
    "stages",
    "variables",
    "workflow",
    "image",
    "services",
    "cache",
    "before_script",
    "after_script",
    "spec",
}
# The uv commands that lock, sync or read `uv.lock` (each locks again when the lock is stale,
# unless told `--locked`); every other uv command leaves the lock alone.
LOCK_COMMANDS = {"run", "sync", "lock", "export", "tree", "add", "remove"}
# uv options that take a separate value (`--group dev`): the value is not the command to run.
VALUED = {
    "--extra", "--group", "--only-group", "--no-group", "--with", "--with-editable", "--with-requirements",
    "--package", "--python", "-p", "--env-file", "--index", "--default-index", "--index-url", "-i",
    "--extra-index-url", "--find-links", "-f", "--index-strategy", "--keyring-provider", "--resolution",
    "--prerelease", "--exclude-newer", "--link-mode", "--config-setting", "-C", "--directory", "--project",
    "--config-file", "--cache-dir", "--color", "--allow-insecure-host", "--upgrade-package", "-P",
    "--reinstall-package", "--refresh-package", "--no-build-package", "--no-binary-package",
    "--no-build-isolation-package", "--python-platform", "--output-file", "-o", "--format", "--script",
}
FALSE = {"", "0", "false", "no", "off"}


def check(repo: Repository) -> list[Finding]:
    jobs = list(_jobs(repo))
    if not jobs:
        # No job to judge here is not a violation: CI may run on a service this check cannot read.
        raise Undecidable("no CI configuration this check reads (GitHub Actions, GitLab CI, Forgejo Actions)")
    findings = []
    checked = False
    for path, job, scripts in jobs:
        first = _first_lock_command(repo, scripts)
        if first is None:
            continue
        words, locked, script = first
        if locked:
            checked = True
        else:
            where = f" (in {script})" if script else ""
            findings.append(Finding(
                f"job {job!r} runs {' '.join(words)!r}{where} before checking uv.lock (`uv sync --locked`, "
                "`uv run --locked` or `uv lock --check` first)", path=path))
    if not checked and not findings:
        findings.append(Finding("no CI job checks uv.lock (`uv sync --locked`, `uv run --locked` or `uv lock --check`)",
                                path=jobs[0][0]))
    return findings


def _first_lock_command(repo: Repository, scripts: list[tuple[dict, str, str]]
                        ) -> tuple[list[str], bool, str | None] | None:
    """(the words, whether it checks the lock, the repository script it is in or None) of the first
    lock-reading uv command of a job's scripts, or None."""
    for env, script, folder in scripts:
        found = _first_in_script(repo, dict(env), script, folder, None, 0)
        if found is not None:
            return found
    return None


def _first_in_script(repo: Repository, exported: dict, script: str, folder: str, name: str | None, depth: int):
    for assigned, words in commands_with_env(script):
        if not words:
            continue  # a plain assignment is the shell's, not the environment uv gets
        if words[0] in ("export", "declare", "typeset", "local", "readonly"):
            exported.update(assigned)
            continue
        called = called_script(repo, words, folder) if depth < SCRIPT_DEPTH else None
        if called is not None:
            found = _first_in_script(repo, {**exported, **assigned}, repo.read_text(called), folder, called, depth + 1)
            if found is not None:
                return found
            continue
        if words[0] != "uv":
            continue
        command, options = _subcommand(words)
        if command not in LOCK_COMMANDS:
            continue
        locked = "--locked" in options or (command == "lock" and "--check" in options)
        setting = {**exported, **assigned}.get("UV_LOCKED")
        return words, locked or (setting is not None and str(setting).strip().lower() not in FALSE), name
    return None


def _subcommand(words: list[str]) -> tuple[str | None, set[str]]:
    """uv's subcommand and the options given to uv itself: before the subcommand and, for `uv run`,
    before the command it runs (`uv run --locked pytest`, not `uv run pytest --locked`)."""
    options: set[str] = set()
    command = None
    rest = iter(words[1:])
    for word in rest:
        if word == "--":
            break
        if word.startswith("-"):
            options.add(word.split("=", 1)[0])
            if word in VALUED:
                next(rest, None)
            continue
        if command is None:
            command = word
            continue
        if command == "run":
            break  # the command uv runs: what follows are its own arguments
    return command, options


def _jobs(repo: Repository):
    """(file, job name, [(environment, script)] in order) for every CI job that works on this repository."""
    for folder in (".github/workflows", ".forgejo/workflows"):
        for path in workflow_files(repo, folder):
            workflow = _load(repo, path)
            for name, job in (workflow.get("jobs") or {}).items():
                if not isinstance(job, dict):
                    continue
                scripts = _action_scripts(job, {**_env(workflow), **_env(job)})
                if scripts is not None:
                    yield path, name, scripts
    if repo.exists(GITLAB):
        config = _load(repo, GITLAB)
        default = config.get("default") if isinstance(config.get("default"), dict) else {}
        variables = {**_env(config, "variables")}
        for name, job in config.items():
            if name in GITLAB_KEYWORDS or name.startswith(".") or not isinstance(job, dict):
                continue
            before = job.get("before_script", default.get("before_script", config.get("before_script", [])))
            env = {**variables, **_env(job, "variables")}
            yield GITLAB, name, [(env, line, "") for line in _lines(before) + _lines(job.get("script", []))]


def _action_scripts(job: dict, env: dict) -> list[tuple[dict, str, str]] | None:
    """The `run` scripts of a GitHub or Forgejo job with their environment, or None for a job that
    checks out no copy of this repository (its uv commands work on another project, or none)."""
    steps = [step for step in job.get("steps") or [] if isinstance(step, dict)]
    ours, others = False, []
    for step in steps:
        uses = step.get("uses")
        if isinstance(uses, str) and uses.split("@", 1)[0].endswith("/checkout"):
            options = step.get("with") if isinstance(step.get("with"), dict) else {}
            repository = str(options.get("repository") or "")
            if not repository or "github.repository" in repository.replace(" ", ""):
                ours = True
            else:
                others.append(_folder(str(options.get("path") or ".")))
    if not ours:
        return None
    defaults = job.get("defaults") if isinstance(job.get("defaults"), dict) else {}
    run_defaults = defaults.get("run") if isinstance(defaults.get("run"), dict) else {}
    scripts = []
    for step in steps:
        if not isinstance(step.get("run"), str):
            continue
        folder = _folder(str(step.get("working-directory") or run_defaults.get("working-directory") or "."))
        if any(other != "" and (folder == other or folder.startswith(other + "/")) for other in others):
            continue  # it works in another repository's checkout
        scripts.append(({**env, **_env(step)}, step["run"], folder))
    return scripts


def _folder(path: str) -> str:
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    return "/".join(parts)


def _env(table: dict, key: str = "env") -> dict[str, str]:
    values = table.get(key)
    if not isinstance(values, dict):
        return {}
    # GitLab allows {value: ..., description: ...} for a variable.
    return {str(k): str(v.get("value", "") if isinstance(v, dict) else v) for k, v in values.items()}


def _load(repo: Repository, path: str) -> dict:
    data, error = parse_yaml(repo.read_text(path))
    if error:
        raise Undecidable(f"{path} is not valid YAML: {error}")
    return data if isinstance(data, dict) else {}


def _lines(script) -> list[str]:
    # GitLab scripts are a string or a list whose items may be nested lists.
    if isinstance(script, str):
        return [script]
    if isinstance(script, list):
        return [line for item in script for line in _lines(item)]
    return []
