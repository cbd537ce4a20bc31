"""Hook configuration: merged into the files a repository already has, never clobbering them.

- `.claude/settings.json`: a `Stop` hook running the fast, change-scoped checks
  (`python -m agent_constitution.checks.stop`: the rules that judge the worktree's change or the
  session record), and, when the repository has a covenant config (`polydeukes.config.yaml`,
  `.yml` or `.json`), the covenant judge's `PreToolUse` hook (`pdks hook claude-code`).
- The other agent hosts' settings files (`hosts.HOSTS`: Codex, Grok, Gemini CLI, Cursor,
  Copilot, Cline, Windsurf), for the hosts among the repository's agents: the change-scoped checks
  under the host's stop-like event (`stop_hooks`) and, with a covenant config, the judge's
  pre-tool hook (`pdks hook <host>`) under each event the host has one for (`hosts.judge_hooks`).
  The commands come from `launcher` (independent of the agent's PATH, failing closed) and are
  merged by `settings_file`, which `pdks init` uses too.
- `.pre-commit-config.yaml`, only when the repository uses pre-commit: a `repo: local` entry with
  our hooks, recognised by their ids: at the `pre-commit` stage `doit check change=staged` (the
  repository's rules and the rules that judge the change being committed) and, with a covenant
  config, `pdks covenant check --diff --staged`; at the `commit-msg` stage `doit check
  change=staged message=FILE` (the rules that judge commit messages, given the message file git
  passes to that hook). `doit check` is run as `agent-constitution check` (`git_command`).
- `lefthook.yml` (or `.lefthook.yml`, `lefthook.yaml`), only when the repository uses lefthook: the
  same commands under `pre-commit.commands` and `commit-msg.commands`.
- Neither: compile prints how to wire one, once; with `[compile] git-hook = "plain"` it writes
  plain `.git/hooks/pre-commit` and `.git/hooks/commit-msg` instead (never over a hook it did not
  write).

The YAML files are edited as text (`yaml_edit`): bytes outside our entries stay as they were.
Each writer validates what it emits: the settings parse as JSON and their `hooks` match the shape
Claude Code reads (`SettingsHooks`); the pre-commit file goes through `pre-commit validate-config`
when pre-commit is installed and compile changed it (the tests always run it).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from agent_constitution.compile import yaml_edit
from agent_constitution.compile.layout import PLAIN_HOOK, PRE_COMMIT, SETTINGS, agent_hook_files, has_covenant
from agent_constitution.errors import UserError
from agent_constitution.fsio import write_atomic, write_if_changed
from agent_constitution.hosts import AGENTS, judge_hooks, launcher, settings_file
from agent_constitution.hosts.agents import skill_folders
from agent_constitution.readers import parse_json, read_text
from agent_constitution.wiring import spoken

CHECK_ID = "agent-constitution-check"
MESSAGE_ID = "agent-constitution-message"
COVENANT_ID = "agent-constitution-covenant"
OUR_IDS = (CHECK_ID, MESSAGE_ID, COVENANT_ID)
# The git hooks our commands run at (pre-commit's stage names; lefthook's hook names).
PRE_COMMIT_STAGE, COMMIT_MSG_STAGE = "pre-commit", "commit-msg"
STAGED_CHECK = "check change=staged"
PLAIN_BANNER = "# written by agent-constitution compile ([compile] git-hook = \"plain\")"  # what marks it ours
PLAIN_REMOVED = "; `doit clean` removes it"  # in the words of the repository's command (`wiring.spoken`)
CLAUDE_EVENTS = {
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied",
    "UserPromptSubmit", "Notification", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "SessionStart", "SessionEnd", "Setup", "PreCompact", "PostCompact", "InstructionsLoaded",
    "CwdChanged", "FileChanged", "ConfigChange", "TaskCreated", "WorktreeCreate", "DirectoryAdded",
    "Elicitation", "ElicitationResult", "MessageDisplay",
}
# The Stop hook of older versions ran the whole `doit check`; still ours, replaced on compile.
_OLD_STOP = ("doit check", "uv run doit check", 'cd "$CLAUDE_PROJECT_DIR" && doit check',
             'cd "$CLAUDE_PROJECT_DIR" && uv run doit check')
WIRING_HINT = (
    "note: this repository uses no git hook runner compile knows (pre-commit, lefthook, husky, "
    "simple-git-hooks), so no git hook runs the checks; "
    "add them to your hook runner ({commands}), or set [compile] git-hook = \"plain\" in rules.toml "
    "to have compile write .git/hooks/pre-commit"
)


def git_command(root: Path, tool: str, args: str) -> str:
    """A command for a git hook (pre-commit runs it without a shell, lefthook with one), in the
    launcher's form: through uv in a uv project that holds this package, else by name where PATH
    finds this installation's programs, else by absolute path. `doit` is run as `agent-constitution`
    in every form, which runs the same tasks in a repository without a dodo.py or a `[tool.doit]`
    loader (a plain `doit` there finds no tasks and fails every commit). A git hook fails closed by
    itself: any non-zero status, a missing program included, stops the commit."""
    how = launcher.form(root)
    tool = launcher.PACKAGE if tool == "doit" else tool
    if how == launcher.UV:
        return f"uv run {tool} {args}"
    return f"{tool if how == launcher.NAME else shlex.quote(launcher.program_path(tool))} {args}"


# --- Claude Code settings ------------------------------------------------------------------------


class _Handler(BaseModel):
    # Newer Claude Code versions add fields (`args`, `if`, `async`, …): kept, not judged.
    model_config = ConfigDict(extra="allow")
    type: Literal["command", "http", "prompt", "agent", "mcp_tool"]
    command: StrictStr | None = None
    timeout: StrictInt | float | None = None


class _Group(BaseModel):
    model_config = ConfigDict(extra="allow")
    matcher: StrictStr | None = None
    hooks: list[_Handler]


class SettingsHooks(BaseModel):
    """The `hooks` object of a Claude Code settings file: event → matcher groups → handlers."""

    model_config = ConfigDict(extra="forbid")
    hooks: dict[str, list[_Group]] = {}


def validate_settings(path: Path) -> dict[str, Any]:
    """Parse `path` as JSON, check its `hooks` against the shape Claude Code reads, and return it."""
    data, _ = settings_file.read(path)
    try:
        SettingsHooks.model_validate({"hooks": data.get("hooks", {})})
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]
        field = ".".join(str(part) for part in ("hooks", *problem["loc"][1:]))
        raise UserError(problem["msg"], file=path, field=field) from None
    unknown = sorted(set(data.get("hooks", {})) - CLAUDE_EVENTS)
    if unknown:
        raise UserError(f"unknown hook event {unknown[0]!r}", file=path, field=f"hooks.{unknown[0]}")
    return data


def _runs_stop(command: str) -> bool:
    # A Stop hook of the user's that runs `doit check` is their choice of Stop check: it stays, alone.
    return launcher.runs_stop_check(command) or command.endswith("doit check")


def _stop_ours(command: str) -> bool:
    return command in _OLD_STOP or launcher.generated(launcher.stop_hook(), command)


def _covenant_ours(command: str) -> bool:
    return launcher.generated(launcher.covenant_hook("claude-code"), command)


def stop_command(root: Path, missing: str = "warn") -> str:
    """`missing`: `[compile] stop-missing-tool`, as the resolution holds it (`Settings`)."""
    return launcher.command(root, launcher.stop_hook(missing=missing))


def covenant_command(root: Path) -> str:
    return launcher.command(root, launcher.covenant_hook("claude-code"))


def write_claude_settings(root: Path, missing: str = "warn") -> bool:
    """Merge our hooks into .claude/settings.json; returns whether the file changed."""
    path = root / SETTINGS
    if path.exists():
        validate_settings(path)
    changed = settings_file.merge_hook(
        path, "Stop", {"type": "command", "command": stop_command(root, missing)}, matcher=None,
        runs=_runs_stop, ours=_stop_ours,
    )
    if has_covenant(root):
        changed = judge_hooks.merge_hook_settings(path, "claude-code", covenant_command(root)) or changed
    else:
        changed = settings_file.remove_hooks(path, _covenant_ours) or changed
    validate_settings(path)
    return changed


def write_host_hooks(root: Path, hosts: list[str], missing: str = "warn") -> list[str]:
    """Wire the judge into every host of `hosts` (Claude Code included); the files that changed."""
    changed = [SETTINGS] if "claude-code" in hosts and write_claude_settings(root, missing) else []
    return changed + [name for name in agent_hook_files(root, hosts) if judge_hooks.write_host_hook(root, name, missing)]


def remove_claude_settings(root: Path) -> bool:
    """Take our hooks out of .claude/settings.json; delete it when nothing else is left."""
    return settings_file.remove_hooks(
        root / SETTINGS, lambda command: _stop_ours(command) or _covenant_ours(command)
    )


# --- git hooks -----------------------------------------------------------------------------------


def message_check(root: Path, message_file: str) -> str:
    """The commit-msg command, `message_file` being how the hook runner names the message file."""
    return git_command(root, "doit", f"{STAGED_CHECK} message={message_file}")


def pre_commit_hooks(root: Path) -> list[dict[str, Any]]:
    hooks = [
        {
            "id": CHECK_ID,
            "name": "agent-constitution: the rules' checks",
            "entry": git_command(root, "doit", STAGED_CHECK),
            "language": "system",
            "pass_filenames": False,
            "always_run": True,
            "stages": [PRE_COMMIT_STAGE],
        },
        {
            # pre-commit appends the message file's name to the entry (pass_filenames at commit-msg);
            # doit takes it only as `message=FILE`, so a shell puts it there.
            "id": MESSAGE_ID,
            "name": "agent-constitution: the commit message rules",
            "entry": "sh -c " + shlex.quote(message_check(root, '"$1"')) + " --",
            "language": "system",
            "pass_filenames": True,
            "always_run": True,
            "stages": [COMMIT_MSG_STAGE],
        },
    ]
    if has_covenant(root):
        hooks.append(
            {
                "id": COVENANT_ID,
                "name": "covenant judge: the staged change set",
                "entry": git_command(root, "pdks", "covenant check --diff --staged"),
                "language": "system",
                "pass_filenames": False,
                "always_run": True,
                "stages": [PRE_COMMIT_STAGE],
            }
        )
    return hooks


def _read(path: Path) -> tuple[str, Any]:
    text = read_text(path)
    return text, yaml_edit.load(text, path)


def _repos(data: Any, path: Path) -> Any:
    if not isinstance(data, dict) or not isinstance(data.get("repos", []), list):
        raise UserError("expected a mapping with a `repos` list", file=path, field="repos")
    return data.get("repos")


def _local_with_ours(repos: list) -> int | None:
    return next((i for i, repo in enumerate(repos) if isinstance(repo, dict) and repo.get("repo") == "local"
                 and any(isinstance(h, dict) and h.get("id") in OUR_IDS for h in repo.get("hooks") or [])), None)


def merge_pre_commit(text: str, wanted: list[dict[str, Any]], path: Path) -> str:
    """`text` with our hooks as `wanted` says; every other byte kept."""
    data = yaml_edit.load(text, path)
    if data is None:
        return text + ("" if text.endswith("\n") or not text else "\n") + yaml_edit.render(
            {"repos": [{"repo": "local", "hooks": wanted}]}, 0, sequence=4, offset=2)
    repos = _repos(data, path)
    lines = yaml_edit.lines_of(text)
    index = None if repos is None else _local_with_ours(repos)
    if index is None:
        return _add_local(text, lines, data, repos, wanted)
    local = repos[index]
    hooks = local["hooks"]
    if not yaml_edit.block_list(hooks):
        raise UserError("our hooks are in a flow list ([...]) compile cannot edit in place", file=path,
                        field=f"repos.{index}.hooks", fix="write that `hooks:` list in block style (one `- id:` per line)")
    key_column = local.lc.key("hooks")[1]
    offset, sequence = yaml_edit.list_style(lines, hooks, key_column)
    present = {h.get("id"): i for i, h in enumerate(hooks) if isinstance(h, dict) and h.get("id") in OUR_IDS}
    splices: list[tuple[int, int, str]] = []
    for hook in wanted:
        i = present.get(hook["id"])
        if i is None:
            continue
        current = hooks[i]
        if dict(current) == hook:
            continue
        if set(current) == set(hook) and all(
            current[key] == value or yaml_edit.set_value(lines, current, key, value) for key, value in hook.items()
        ):
            continue
        start, end = yaml_edit.item_lines(lines, hooks, i)
        splices.append((start, end, yaml_edit.render([hook], key_column + offset, sequence=sequence - offset)))
    for hook_id, i in present.items():
        if hook_id not in {hook["id"] for hook in wanted}:
            start, end = yaml_edit.item_lines(lines, hooks, i)
            splices.append((start, end, ""))
    missing = [hook for hook in wanted if hook["id"] not in present]
    if missing:
        _, end = yaml_edit.item_lines(lines, hooks, max(present.values()))
        splices.append((end, end, yaml_edit.render(missing, key_column + offset, sequence=sequence - offset)))
    for start, end, replacement in sorted(splices, reverse=True):
        lines[start:end] = yaml_edit.lines_of(replacement)
    return "".join(lines)


def _add_local(text: str, lines: list[str], data: Any, repos: Any, wanted: list[dict[str, Any]]) -> str:
    entry = {"repo": "local", "hooks": wanted}
    if repos is not None and yaml_edit.block_list(repos):
        key_column = data.lc.key("repos")[1]
        offset, sequence = yaml_edit.list_style(lines, repos, key_column)
        _, end = yaml_edit.item_lines(lines, repos, len(repos) - 1)
        # Rendered under its key so that the nested `hooks:` list takes the file's list style too.
        block = "".join(yaml_edit.lines_of(yaml_edit.render(
            {"repos": [entry]}, key_column, sequence=sequence, offset=offset))[1:])
        if end == len(lines) and lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines[end:end] = yaml_edit.lines_of(block)
        return "".join(lines)
    # No block list to splice into (no `repos`, or `repos: []`): the file is written by the round-trip
    # dumper, which keeps its comments and keys but lays the list out in block style.
    import io

    from ruamel.yaml import YAML

    if repos is None:
        data["repos"] = [entry]
    else:
        repos.append(entry)
        repos.fa.set_block_style()
    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def write_pre_commit(root: Path, generated: str | None = None) -> bool:
    """Merge our `repo: local` hooks into an existing .pre-commit-config.yaml, list every git hook
    they run at in its `default_install_hook_types`, and, given `generated` (`generated_pattern`),
    keep the repository's other hooks off the files compile writes (`with_exclude`)."""
    path = root / PRE_COMMIT
    if not path.exists():
        return False
    text = read_text(path)  # merge_pre_commit parses it (and refuses it when it is not YAML)
    wanted = pre_commit_hooks(root)
    merged = merge_pre_commit(text, wanted, path)
    merged = with_install_types(merged, list(dict.fromkeys(hook["stages"][0] for hook in wanted)), path)
    if generated is not None:
        merged = with_exclude(merged, generated, path)
    changed = write_if_changed(path, merged)
    if changed:
        # What compile left byte for byte as it was needs no new verdict: it was validated when
        # written, and `check` (which merges to compare) then skips pre-commit's own start-up,
        # 0.35 s CPU per run on a clone of astral-sh/ruff (pre-commit 4, load 6).
        validate_pre_commit(path)
    return changed


EXCLUDE = "exclude"
EXCLUDE_MARK = "  # agent-constitution compile: the files it writes, which the other hooks must leave as written"
EXCLUDE_NOTE = ("note: {file} has its own top-level `exclude`, so its hooks also run on the files compile writes; "
                "a hook that rewrites them (codespell --write-changes, a formatter) makes the next check find them "
                "edited by hand: add `{pattern}` to it as another alternative")


def generated_pattern(agents: tuple[str, ...], segments: tuple[str, ...]) -> str:
    """pre-commit's `exclude` for the files compile writes for `agents` in `segments`: every segment's
    AGENTS.md, its part files (`AGENTS.<part>.md`) and the agents' shims, and the folders of the
    agents' skills and path-scoped rule files. The repository's own hooks then leave them as compile
    wrote them: codespell's `--write-changes` or a markdown formatter rewriting a rule's text would
    otherwise make every later check refuse the file as edited by hand. A regular expression of
    Python's `re`, written with `re.escape`, as pre-commit reads it."""
    hosts = [AGENTS[name] for name in agents if name in AGENTS]
    names = ["AGENTS(\\.[^/]+)?\\.md", *sorted({re.escape(host.shim) for host in hosts if host.shim})]
    folders = sorted({*skill_folders(tuple(host.name for host in hosts)),
                      *(host.scoped.folder for host in hosts if host.scoped)})
    nested = sorted(re.escape(segment + "/") for segment in segments if segment != ".")
    where = f"({'|'.join(nested)})?" if nested else ""
    pattern = f"^{where}({'|'.join(names)})$"
    if folders:
        pattern += f"|^({'|'.join(re.escape(folder) for folder in folders)})/"
    return pattern


def with_exclude(text: str, pattern: str, path: Path) -> str:
    """`text` whose top-level `exclude` is `pattern`, in a line compile marks as its own (written
    before `repos:`, or where its earlier line was). A top-level `exclude` of the repository's own is
    left as it is (`exclude_note` says what to add to it). Every other byte is kept."""
    data = yaml_edit.load(text, path)
    if not isinstance(data, dict):
        return text
    lines = yaml_edit.lines_of(text)
    quoted = pattern.replace("'", "''")  # YAML's single-quoted scalar: only the quote is escaped
    line = f"{EXCLUDE}: '{quoted}'{EXCLUDE_MARK}\n"
    if EXCLUDE in data:
        if not _our_exclude(lines, data):
            return text
        start, end = yaml_edit.key_lines(lines, data, EXCLUDE)
        lines[start:end] = [line]
    elif "repos" in data:
        start, _ = yaml_edit.key_lines(lines, data, "repos")
        lines[start:start] = [line]
    else:
        return text
    return "".join(lines)


def exclude_note(root: Path, pattern: str) -> str | None:
    """What to add to a repository's own top-level `exclude`, or None when compile writes it."""
    path = root / PRE_COMMIT
    if not path.exists():
        return None
    text, data = _read(path)
    if not isinstance(data, dict) or EXCLUDE not in data:
        return None

    if _our_exclude(yaml_edit.lines_of(text), data):
        return None
    return EXCLUDE_NOTE.format(file=PRE_COMMIT, pattern=pattern)


def _our_exclude(lines: list[str], data: Any) -> bool:
    """Whether the top-level `exclude` is the one line compile writes (its mark says so)."""
    start, end = yaml_edit.key_lines(lines, data, EXCLUDE)
    return end - start == 1 and lines[start].rstrip("\n").endswith(EXCLUDE_MARK)


INSTALL_TYPES = "default_install_hook_types"
INSTALL_MARK = "  # agent-constitution compile: its hooks run at these stages"
DEFAULT_STAGES = "default_stages"
STAGES_MARK = "  # agent-constitution compile: hooks without `stages` run where they ran before"
# pre-commit's stages in its own order (pre_commit/clientlib.py: HOOK_TYPES, then `manual`). A hook
# without `stages` runs at every installed hook type, so installing commit-msg for our message check
# would run each of the repository's hooks a second time at every commit.
PRE_COMMIT_STAGES = ("commit-msg", "post-checkout", "post-commit", "post-merge", "post-rewrite", "pre-commit",
                     "pre-merge-commit", "pre-push", "pre-rebase", "prepare-commit-msg", "manual")
INSTALL_NOTE = ("note: {file} now installs the {types} hook{s} too ({key}); run `pre-commit install` once more "
                "in each clone that installed the hooks before")


def with_install_types(text: str, wanted: list[str], path: Path) -> str:
    """`text` whose `default_install_hook_types` holds every hook type of `wanted`. pre-commit
    installs only the `pre-commit` hook unless this key (or `pre-commit install -t`) names more, so
    without it our commit-msg hook is never installed. A key already there keeps its types and
    order, ours added after; without one, the key is written before `repos:` with pre-commit's
    default (`pre-commit`) first. When that adds a type and the file has no `default_stages`, one is
    written with every stage but the added ones, so that hooks without `stages` keep running only
    where they ran before. Every other byte is kept."""
    data = yaml_edit.load(text, path)
    if not isinstance(data, dict):
        return text
    current = data.get(INSTALL_TYPES)
    if current is not None and not (isinstance(current, list) and all(isinstance(t, str) for t in current)):
        raise UserError("expected a list of hook types", file=path, field=INSTALL_TYPES,
                        fix="write it as a list, e.g. [pre-commit, commit-msg]")
    have = list(current) if current is not None else []
    types = list(dict.fromkeys([*(have or [PRE_COMMIT_STAGE]), *wanted]))
    if current is not None and types == have:
        return text
    added = [t for t in types if t not in (have or [PRE_COMMIT_STAGE])]
    new = [f"{INSTALL_TYPES}: [{', '.join(types)}]{INSTALL_MARK}\n"]
    if added and DEFAULT_STAGES not in data:
        stages = [stage for stage in PRE_COMMIT_STAGES if stage not in added]
        new.append(f"{DEFAULT_STAGES}: [{', '.join(stages)}]{STAGES_MARK}\n")
    lines = yaml_edit.lines_of(text)
    if current is not None:
        start, end = yaml_edit.key_lines(lines, data, INSTALL_TYPES)
        lines[start:end] = new
    elif "repos" in data:
        start, _ = yaml_edit.key_lines(lines, data, "repos")
        lines[start:start] = new
    else:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines.extend(new)
    return "".join(lines)


def install_types_note(before: bytes | None, after: bytes | None) -> str | None:
    """What to run after compile changed `default_install_hook_types`, or None."""
    from ruamel.yaml import YAML

    def types(data: bytes | None) -> list[str]:
        try:
            loaded = YAML(typ="safe").load(data.decode("utf-8")) if data else None
        except Exception:  # an unreadable old file: every type counts as new
            return []
        found = loaded.get(INSTALL_TYPES) if isinstance(loaded, dict) else None
        return list(found) if isinstance(found, list) else [PRE_COMMIT_STAGE]

    added = [t for t in types(after) if t not in types(before)]
    if not added:
        return None
    return INSTALL_NOTE.format(file=PRE_COMMIT, types=", ".join(added), s="s" if len(added) > 1 else "",
                               key=INSTALL_TYPES)


def remove_pre_commit(root: Path) -> bool:
    path = root / PRE_COMMIT
    if not path.exists():
        return False
    text, data = _read(path)
    repos = _repos(data, path)
    index = None if repos is None else _local_with_ours(repos)
    if index is None:
        return False
    lines = yaml_edit.lines_of(text)
    hooks = repos[index]["hooks"]
    # The install types and default stages lines compile wrote (their marks say so) go with our
    # hooks; a user's stay.
    marked = [i for i, line in enumerate(lines)
              if (line.startswith(INSTALL_TYPES + ":") and line.rstrip("\n").endswith(INSTALL_MARK))
              or (line.startswith(DEFAULT_STAGES + ":") and line.rstrip("\n").endswith(STAGES_MARK))
              or (line.startswith(EXCLUDE + ":") and line.rstrip("\n").endswith(EXCLUDE_MARK))]
    if all(isinstance(h, dict) and h.get("id") in OUR_IDS for h in hooks):
        start, end = yaml_edit.item_lines(lines, repos, index)
        del lines[start:end]
        if len(repos) == 1:
            row = data.lc.key("repos")[0]
            lines[row] = lines[row].rstrip("\n").rstrip() + " []\n"
    else:
        for i in sorted((i for i, h in enumerate(hooks) if isinstance(h, dict) and h.get("id") in OUR_IDS),
                        reverse=True):
            start, end = yaml_edit.item_lines(lines, hooks, i)
            del lines[start:end]
    for i in reversed(marked):
        del lines[i]
    write_atomic(path, "".join(lines))
    return True


def validate_pre_commit(path: Path) -> None:
    """Run pre-commit's own validator on the file when pre-commit is installed."""
    tool = shutil.which("pre-commit")
    if tool is None:
        return
    result = subprocess.run([tool, "validate-config", "--", str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        raise UserError(f"pre-commit rejects the file:\n{result.stdout}{result.stderr}".rstrip(), file=path)


def lefthook_commands(root: Path) -> dict[str, dict[str, str]]:
    """Our lefthook commands per git hook: the pre-commit hooks' entries, the message file as `{1}`."""
    wanted: dict[str, dict[str, str]] = {}
    for hook in pre_commit_hooks(root):
        run = message_check(root, "{1}") if hook["id"] == MESSAGE_ID else hook["entry"]
        wanted.setdefault(hook["stages"][0], {})[hook["id"]] = run
    return wanted


def merge_lefthook(text: str, wanted: dict[str, str], path: Path, hook_name: str = PRE_COMMIT_STAGE) -> str:
    """`text` with `<hook_name>.commands.<id>.run` as `wanted` says; every other byte kept."""
    data = yaml_edit.load(text, path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise UserError("expected a mapping", file=path)
    lines = yaml_edit.lines_of(text)
    block = {name: {"run": run} for name, run in wanted.items()}
    hook = data.get(hook_name)
    if hook is None:
        tail = "" if text.endswith("\n") or not text else "\n"
        return text + tail + yaml_edit.render({hook_name: {"commands": block}}, 0)
    commands = hook.get("commands") if isinstance(hook, dict) else None
    if not yaml_edit.block_map(hook) or (commands is not None and not yaml_edit.block_map(commands)):
        raise UserError(f"expected `{hook_name}.commands` to be a block mapping", file=path,
                        field=f"{hook_name}.commands", fix="write it in block style (one `name:` per line)")
    if commands is None:
        column = hook.lc.key(next(iter(hook)))[1]
        _, end = yaml_edit.key_lines(lines, hook, list(hook)[-1])
        lines[end:end] = yaml_edit.lines_of(yaml_edit.render({"commands": block}, column))
        return "".join(lines)
    column = commands.lc.key(next(iter(commands)))[1]
    step = yaml_edit.mapping_step(commands, column)
    splices: list[tuple[int, int, str]] = []
    for name, run in wanted.items():
        current = commands.get(name)
        if current is None:
            continue
        if isinstance(current, dict) and set(current) == {"run"} and (
            current["run"] == run or yaml_edit.set_value(lines, current, "run", run)
        ):
            continue
        start, end = yaml_edit.key_lines(lines, commands, name)
        splices.append((start, end, yaml_edit.render({name: {"run": run}}, column, mapping=step)))
    for name in OUR_IDS:
        if name in commands and name not in wanted:
            start, end = yaml_edit.key_lines(lines, commands, name)
            splices.append((start, end, ""))
    missing = {name: {"run": run} for name, run in wanted.items() if name not in commands}
    if missing:
        _, end = yaml_edit.key_lines(lines, commands, list(commands)[-1])
        splices.append((end, end, yaml_edit.render(missing, column, mapping=step)))
    for start, end, replacement in sorted(splices, reverse=True):
        lines[start:end] = yaml_edit.lines_of(replacement)
    return "".join(lines)


def write_lefthook(path: Path, root: Path) -> bool:
    """Merge our commands into the `pre-commit` and `commit-msg` hooks of an existing lefthook file."""
    text = read_text(path)
    for hook_name, wanted in lefthook_commands(root).items():
        text = merge_lefthook(text, wanted, path, hook_name)
    return write_if_changed(path, text)


def remove_lefthook(path: Path) -> bool:
    removed = False
    for hook_name in (COMMIT_MSG_STAGE, PRE_COMMIT_STAGE):
        removed = _remove_lefthook_commands(path, hook_name) or removed
    return removed


def _remove_lefthook_commands(path: Path, hook_name: str) -> bool:
    text, data = _read(path)
    hook = data.get(hook_name) if isinstance(data, dict) else None
    commands = hook.get("commands", {}) if isinstance(hook, dict) else {}
    if not isinstance(commands, dict) or not any(name in commands for name in OUR_IDS):
        return False
    lines = yaml_edit.lines_of(text)
    if all(name in OUR_IDS for name in commands):
        start, end = yaml_edit.key_lines(lines, hook if len(hook) > 1 else data, "commands" if len(hook) > 1 else hook_name)
        del lines[start:end]
    else:
        for name in sorted((n for n in OUR_IDS if n in commands), key=lambda n: -commands.lc.key(n)[0]):
            start, end = yaml_edit.key_lines(lines, commands, name)
            del lines[start:end]
    write_atomic(path, "".join(lines))
    return True


# --- husky and simple-git-hooks ------------------------------------------------------------------

HUSKY_BEGIN = "# >>> agent-constitution (written by compile: edit only outside these markers)"
HUSKY_END = "# <<< agent-constitution"


def husky_block(root: Path, stage: str) -> str:
    """Our lines of a husky script: husky runs `.husky/<hook>` with sh, the message file as `$1`."""
    body = "\n".join(f"{run} || exit 1" for run in plain_commands(root)[stage])
    return f"{HUSKY_BEGIN}\n{body}\n{HUSKY_END}\n"


def write_husky(root: Path, name: str) -> bool:
    """Merge our block into the husky script `name` (`.husky/pre-commit`), creating the script
    when the repository has none for that hook; the rest of a script is kept as it was."""
    path = root / name
    block = husky_block(root, Path(name).name)
    text = read_text(path) if path.is_file() else ""
    if HUSKY_BEGIN in text and HUSKY_END in text:
        start = text.index(HUSKY_BEGIN)
        end = text.index(HUSKY_END, start) + len(HUSKY_END)
        end += 1 if text[end:end + 1] == "\n" else 0
        text = text[:start] + block + text[end:]
    else:
        text = text + ("" if text.endswith("\n") or not text else "\n") + block
    changed = write_if_changed(path, text)
    path.chmod(path.stat().st_mode | 0o111)
    return changed


def remove_husky(root: Path, name: str) -> bool:
    path = root / name
    if not path.is_file():
        return False
    text = read_text(path)
    if HUSKY_BEGIN not in text or HUSKY_END not in text:
        return False
    start = text.index(HUSKY_BEGIN)
    end = text.index(HUSKY_END, start) + len(HUSKY_END)
    end += 1 if text[end:end + 1] == "\n" else 0
    rest = text[:start] + text[end:]
    if rest.strip():
        write_atomic(path, rest)
    else:
        path.unlink()
    return True


SIMPLE_KEY = "simple-git-hooks"


def _simple_config(path: Path) -> tuple[Any, dict, int | str | None]:
    """(the file's JSON, its simple-git-hooks table, its indent) for `.simple-git-hooks.json`,
    `simple-git-hooks.json` or package.json."""
    text = read_text(path)
    data = parse_json(text, path)
    table = data.get(SIMPLE_KEY) if path.name == "package.json" and isinstance(data, dict) else data
    if not isinstance(table, dict) or not all(isinstance(value, str) for value in table.values()
                                              if not isinstance(value, (bool, list, dict))):
        raise UserError("expected a table of git hook names to commands", file=path,
                        field=SIMPLE_KEY if path.name == "package.json" else None)
    match = re.search(r"\n([ \t]+)\S", text)
    indent = None if match is None else (len(match[1]) if " " in match[1] else match[1])
    return data, table, indent


def _ours(command: str) -> bool:
    return STAGED_CHECK in command and (launcher.PACKAGE in command or "doit" in command)


def merge_simple_command(current: str | None, ours: list[str]) -> str:
    """A simple-git-hooks command (one shell line) with our commands after the user's, joined by
    `&&`: simple-git-hooks writes the line into `.git/hooks/<hook>`, the message file as `$1`."""
    parts = [part.strip() for part in (current or "").split("&&") if part.strip() and not _ours(part)]
    return " && ".join([*parts, *ours])


def write_simple_git_hooks(root: Path, name: str) -> bool:
    """Merge our commands into the repository's simple-git-hooks configuration."""
    import json

    path = root / name
    data, table, indent = _simple_config(path)
    for stage, commands in plain_commands(root).items():
        table[stage] = merge_simple_command(table.get(stage), commands)
    return write_if_changed(path, json.dumps(data, indent=indent if indent is not None else 2,
                                             ensure_ascii=False) + "\n")


def remove_simple_git_hooks(root: Path, name: str) -> bool:
    import json

    path = root / name
    if not path.is_file():
        return False
    data, table, indent = _simple_config(path)
    changed = False
    for stage in (PRE_COMMIT_STAGE, COMMIT_MSG_STAGE):
        value = table.get(stage)
        if isinstance(value, str) and any(_ours(part) for part in value.split("&&")):
            rest = merge_simple_command(value, [])
            if rest:
                table[stage] = rest
            else:
                del table[stage]
            changed = True
    if changed:
        write_atomic(path, json.dumps(data, indent=indent if indent is not None else 2, ensure_ascii=False) + "\n")
    return changed


# --- no hook runner: a hint, or a plain git hook on request ----------------------------------------


def wiring_hint(root: Path) -> str:
    commands = [f"{stage}: `{run}`" for stage, wanted in plain_commands(root).items() for run in wanted]
    return WIRING_HINT.format(commands="; ".join(commands))


def plain_commands(root: Path) -> dict[str, list[str]]:
    """Our commands per git hook, for a shell script git runs (the message file is its `$1`)."""
    return {stage: [run.replace("{1}", '"$1"') for run in wanted.values()]
            for stage, wanted in lefthook_commands(root).items()}


def plain_hook_text(root: Path, name: str = PLAIN_HOOK) -> str:
    """The hook script: quiet when the commit passes, as pre-commit is (a passing commit printed the
    check's four summary lines every time), and on a failure the whole output of the command that
    failed, then exit 1. The output is held in a variable, not a file: nothing to clean up."""
    stage = Path(name).name
    body = "\n".join(f"out=$({run} 2>&1) || {{ printf '%s\\n' \"$out\"; exit 1; }}"
                     for run in plain_commands(root)[stage])
    return f"#!/bin/sh\n{PLAIN_BANNER}{spoken(PLAIN_REMOVED, root)}\n{body}\n"


def write_plain_hook(root: Path, name: str = PLAIN_HOOK) -> bool:
    """A git hook (`.git/hooks/pre-commit` or `commit-msg`) running our checks; never over a hook
    compile did not write."""
    path = root / name
    if not (root / ".git").is_dir():
        raise UserError("[compile] git-hook = \"plain\" needs a git repository with a .git folder",
                        file=root / "rules.toml", field="compile.git-hook",
                        fix="run compile in the repository's main worktree, or remove the setting")
    if path.exists() and PLAIN_BANNER not in path.read_text(encoding="utf-8", errors="replace"):
        raise UserError("a pre-commit hook compile did not write is already installed", file=path,
                        field="compile.git-hook",
                        fix=f"add {', '.join(plain_commands(root)[path.name])} to it yourself, "
                            "or remove it and compile again")
    changed = write_if_changed(path, plain_hook_text(root, name))
    path.chmod(0o755)
    return changed


def remove_plain_hook(root: Path, name: str = PLAIN_HOOK) -> bool:
    path = root / name
    if path.exists() and PLAIN_BANNER in path.read_text(encoding="utf-8", errors="replace"):
        path.unlink()
        return True
    return False
