"""Operations shared by three or more checks of this source."""

from __future__ import annotations

import copy
import functools
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from io import StringIO

from agent_constitution.checks.api import (
    Repository,
    ToolUnavailable,
    Undecidable,
    inline_programs,
    tokenize_shell,
    tool_command,
)

def text_files(repo: Repository) -> Iterator[tuple[str, str]]:
    """(path, text) of every file of the repository that is UTF-8 text; binaries and files over
    4 MiB (data, not text an agent wrote: rule 12 reports them) are skipped. Every check of a run
    shares one read of each file (`Repository.text`)."""
    for path in repo.files:
        text = repo.text(path)
        if text is not None:
            yield path, text


def read_toml(repo: Repository, path: str) -> dict:
    """A TOML file of the repository; a file that does not parse makes the check undecidable."""
    try:
        return tomllib.loads(repo.read_text(path))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise Undecidable(f"{path} is not valid TOML: {error}") from None


def parse_yaml(text: str) -> tuple[object, str | None]:
    """(data, None) for YAML text that parses, (None, the parser's message) for text that does not.

    A stream of several documents (`---` between them) is read whole. GitLab CI's header form, a first
    document holding only `spec:` and the configuration after `---` (docs.gitlab.com/ci/yaml/#header-keywords,
    the form of every CI/CD component), is the configuration with its `spec` beside the other keywords.
    Any other stream of more than one document is an error: GitHub Actions, pre-commit, Dependabot and
    GitLab read a single document (an empty one, such as a leading `---`, does not count).
    """
    documents, error = _documents(text)
    if error is not None:
        return None, error
    documents = copy.deepcopy(documents)  # each caller's own: a check may change what it was given
    if len(documents) <= 1:
        return (documents[0] if documents else None), None
    header = documents[0]
    if len(documents) == 2 and isinstance(header, dict) and set(header) == {"spec"} and isinstance(documents[1], dict):
        return {"spec": header["spec"], **{key: value for key, value in documents[1].items() if key != "spec"}}, None
    return None, (f"the file holds {len(documents)} YAML documents; only GitLab CI's header form (a first document"
                  " holding only `spec:`) may have two")


@functools.lru_cache(maxsize=256)
def _documents(text: str) -> tuple[list, str | None]:
    """The YAML documents of `text`, parsed once per process: the workflow rules (ac:21, ac:28, ...)
    each read the same workflow files, and the pure-Python parser is most of their time."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return [data for data in YAML(typ="safe", pure=True).load_all(StringIO(text)) if data is not None], None
    except YAMLError as error:
        return [], " ".join(str(error).split())


def workflow_files(repo: Repository, folder: str) -> list[str]:
    """The workflow files of a GitHub or Forgejo Actions folder (`.github/workflows`)."""
    return sorted(repo.glob(f"{folder}/*.yml") + repo.glob(f"{folder}/*.yaml"))


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PREFIXES = {"env", "sudo", "command", "exec", "time"}
_DECLARATIONS = ("export", "declare", "typeset", "local", "readonly")
# The interpreters whose inline programs (`bash -c CODE`, `sh <<EOF`, `eval CODE`) are commands of
# the script too, read this many shells deep.
_NESTED_SHELLS = re.compile(r"(?:ba|z|da|k|mk|fi)?sh|eval")
NESTED_DEPTH = 3


def simple_commands(script: str) -> list[list[str]]:
    """The simple commands of a shell script, as words, split at newlines, `;`, `&&`, `||` and pipes.

    Leading variable assignments and `env`, `sudo`, `command`, `exec` and `time` prefixes are dropped,
    so the first word is the program. A substitution (`$(cat .python-version)`, `${X:-a b}`) is one
    word, as written; redirects, comments and heredoc bodies are not words (the bodies a shell reads,
    `bash <<EOF`, and `bash -c` programs are commands of their own).
    """
    return [words for _, words in commands_with_env(script) if words]


def commands_with_env(script: str) -> list[tuple[dict[str, str], list[str]]]:
    """(the variables a command sets for itself or exports, its words) for every simple command of a
    script, as `simple_commands` splits them: `A=1 git commit`, `env A=1 git commit` and `export A=1`
    all give A."""
    # Every record check of a run reads the same session's commands: each script is split once
    # (splitting was most of a Stop hook's time when shlex did it), and each caller gets its own copy.
    return [(dict(env), list(words)) for env, words in _split(script)]


@functools.lru_cache(maxsize=4096)
def _split(script: str, depth: int = 0) -> tuple[tuple[dict[str, str], tuple[str, ...]], ...]:
    read = tokenize_shell(script, comments=True)
    if read.unread and "\n" in script:
        # An unclosed quote reads to the end of the script (`echo don't` in one line of many):
        # each line is read alone then, so only that line's words are lost.
        return tuple(found for line in script.replace("\\\n", " ").splitlines() for found in _split(line, depth))
    found: list[tuple[dict[str, str], tuple[str, ...]]] = []
    groups = 0
    for command in read.commands:
        groups, words = _ungrouped([word.text for word in command.words], groups)
        found += _simple(command, words, depth)
    return tuple(found)


def _simple(command, words: list[str], depth: int) -> list[tuple[dict[str, str], tuple[str, ...]]]:
    """(its variables, its words) of one command of the shell reader, and of the commands of the
    program it hands a nested shell, NESTED_DEPTH shells deep (a heredoc per line nests without end)."""
    env: dict[str, str] = {}
    while words and (_ASSIGNMENT.match(words[0]) or words[0] in _PREFIXES):
        word = words.pop(0)
        if _ASSIGNMENT.match(word):
            env.update([word.split("=", 1)])
    if words and words[0] in _DECLARATIONS:
        env.update(arg.split("=", 1) for arg in words[1:] if _ASSIGNMENT.match(arg))
    found = [(env, tuple(words))] if words or env else []
    interpreter, programs = inline_programs(command)
    if depth < NESTED_DEPTH and _NESTED_SHELLS.fullmatch(interpreter):
        # `eval` runs its words joined by spaces; `sh -c` each program it is given.
        texts = [" ".join(word.text for word in programs)] if interpreter == "eval" else [word.text for word in programs]
        found += [nested for text in texts for nested in _split(text, depth + 1)]
    return found


def _ungrouped(words: list[str], groups: int) -> tuple[int, list[str]]:
    """The subshell groups still open after a command, and its words without the groups'
    parentheses (`(cd docs && make)`), which the shell reader leaves on a group's first and last
    words. Only as many `)` close groups as are open, so `echo ")"` keeps its word."""
    if words and words[0].startswith("("):
        groups += len(words[0]) - len(words[0].lstrip("("))
        words[0] = words[0].lstrip("(")
    if words and groups:
        last = words[-1]
        closing = min(groups, last.count(")") - last.count("("), len(last) - len(last.rstrip(")")))
        if closing > 0:
            words[-1] = last[:-closing]
            groups -= closing
    return groups, [word for word in words if word]


@dataclass(frozen=True)
class GitCall:
    """One `git` invocation: its global options (`-C dir`, `-c key=value`), subcommand and arguments."""

    options: tuple[str, ...]
    command: str
    args: tuple[str, ...]


def git_calls(script: str) -> Iterator[GitCall]:
    """Every git invocation of a shell script."""
    for words in simple_commands(script):
        if words[0] != "git":
            continue
        options: list[str] = []
        rest = words[1:]
        while rest and rest[0].startswith("-"):
            option = rest.pop(0)
            options.append(option)
            if option in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") and rest:
                options.append(rest.pop(0))
        if rest:
            yield GitCall(tuple(options), rest[0], tuple(rest[1:]))


# A word that stands for options the record does not show: `"$@"`, `$*`, `$GIT_FLAGS`, `${OPTS}`.
_VARIABLE_OPTIONS = re.compile(r"^\$\{?(?:@|\*|[A-Za-z_]*(?:FLAG|OPT|ARG)[A-Za-z_]*)\}?$", re.IGNORECASE)


def variable_options(args: tuple[str, ...] | list[str]) -> str | None:
    """The first argument that is a variable holding options (see `_VARIABLE_OPTIONS`), or None."""
    return next((arg for arg in args if _VARIABLE_OPTIONS.match(arg)), None)


def short_flags(args: tuple[str, ...] | list[str]) -> set[str]:
    """The letters of every short option cluster (`-fdx` gives f, d and x)."""
    return {letter for arg in args if arg.startswith("-") and not arg.startswith("--") for letter in arg[1:]}


def rule_files(repo: Repository) -> Iterator[tuple[str, dict]]:
    """(path, parsed table) of every rule file `rules/<id>.toml` of a rule source in the repository."""
    for path in repo.glob("rules/*.toml"):
        if re.fullmatch(r"rules/[0-9]+\.toml", path):
            yield path, read_toml(repo, path)


def principal_text(record) -> str:
    """What the principal wrote in a session record (every user message, joined), read from the record
    file, lowercased; tool results are not the principal's words and are left out. A record whose
    user messages cannot be read makes the check undecidable: whether the task named something is
    then unknown."""
    import json

    if record.unreadable is not None:
        raise Undecidable(record.unreadable)
    try:
        raw = record.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise Undecidable(f"cannot read the principal's messages in {record.path}: {error}") from None
    texts: list[str] = []
    if record.format == "gemini-cli":
        try:
            document = json.loads(raw)
        except ValueError:
            document = [json.loads(line) for line in raw.splitlines() if line.strip().startswith("{")]
        entries = document.get("messages", []) if isinstance(document, dict) else document
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and entry.get("type") == "user":
                texts.append(message_text(entry.get("content")))
            elif isinstance(entry, dict) and entry.get("role") == "user":
                texts += [part["text"] for part in entry.get("parts", []) if isinstance(part, dict)
                          and isinstance(part.get("text"), str)]
    else:
        for line in raw.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            payload = event.get("payload", event)
            if event.get("type") == "user" and isinstance(event.get("message"), dict):
                texts.append(message_text(event["message"].get("content")))  # Claude Code
            elif isinstance(payload, dict) and payload.get("type") == "message" and payload.get("role") == "user":
                texts.append(message_text(payload.get("content")))  # Codex
    # Codex hands the project's instructions and its environment to the model as user messages;
    # they are not what the principal asked.
    return "\n".join(text for text in texts if not text.lstrip().startswith(NOT_THE_PRINCIPAL)).lower()


NOT_THE_PRINCIPAL = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")


def message_text(content) -> str:
    """A message's words: its content when a string, else the text of its text blocks (a principal's
    `text`/`input_text`, an agent's `text`/`output_text`), never tool results."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(block.get("text", "") for block in content if isinstance(block, dict)
                         and block.get("type") in ("text", "input_text", "output_text")
                         and isinstance(block.get("text"), str))
    return ""


def run_tool(argv: list[str], cwd, timeout: float = 50) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of an external tool the check delegates to. The tool runs from PATH,
    or else at the version the rule pins in [check.install] through uv or npx (`tool_command`); a tool
    neither gives, that does not finish in `timeout` seconds or cannot start makes the check undecidable."""
    import subprocess

    try:
        command = tool_command(argv[0], timeout=timeout) + list(argv[1:])
    except ToolUnavailable as error:
        raise Undecidable(str(error)) from None
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Undecidable(f"timeout: {argv[0]} gave no answer within {timeout:g} s") from None
    except OSError as error:
        raise Undecidable(f"cannot start {argv[0]}: {error.strerror}") from None
    return done.returncode, done.stdout.decode("utf-8", errors="replace"), done.stderr.decode("utf-8", errors="replace")


GITLAB_CI = ".gitlab-ci.yml"
_GITLAB_KEYWORDS = {"default", "include", "stages", "variables", "workflow", "image", "services", "cache",
                    "before_script", "after_script", "spec"}


def ci_jobs(repo: Repository) -> Iterator[tuple[str, str, dict, list[str]]]:
    """(file, job name, the job's table, its shell scripts in order) for every job of the GitHub
    Actions, Forgejo Actions and GitLab CI configuration in the repository. A file that is not
    valid YAML makes the check undecidable."""
    for folder in (".github/workflows", ".forgejo/workflows"):
        for path in workflow_files(repo, folder):
            for name, job in (_yaml_table(repo, path).get("jobs") or {}).items():
                if not isinstance(job, dict):
                    continue
                steps = job.get("steps") if isinstance(job.get("steps"), list) else []
                scripts = [step["run"] for step in steps if isinstance(step, dict) and isinstance(step.get("run"), str)]
                yield path, str(name), job, scripts
    if repo.exists(GITLAB_CI):
        config = _yaml_table(repo, GITLAB_CI)
        default = config.get("default") if isinstance(config.get("default"), dict) else {}
        for name, job in config.items():
            if name in _GITLAB_KEYWORDS or str(name).startswith(".") or not isinstance(job, dict):
                continue
            before = job.get("before_script", default.get("before_script", config.get("before_script", [])))
            yield GITLAB_CI, str(name), job, _script_lines(before) + _script_lines(job.get("script", []))


def _yaml_table(repo: Repository, path: str) -> dict:
    data, error = parse_yaml(repo.read_text(path))
    if error:
        raise Undecidable(f"{path} is not valid YAML: {error}")
    return data if isinstance(data, dict) else {}


def _script_lines(script) -> list[str]:
    # GitLab scripts are a string or a list whose items may be nested lists.
    if isinstance(script, str):
        return [script]
    if isinstance(script, list):
        return [line for item in script for line in _script_lines(item)]
    return []


# A script of the repository that a CI step or a runner calls: `./ci.sh`, `scripts/check`, `bash x.sh`,
# `. env.sh`. Followed this deep (a script calling a script calling a script) and this many files per
# runner, so a loop of scripts or a tree of thousands cannot make a check slow.
SCRIPT_DEPTH = 3
SCRIPT_FILES = 20
_SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "source", "."}
_SCRIPT_WORD = re.compile(r"(?<![\w/.$-])(?:\./)?[A-Za-z0-9_][\w.-]*(?:/[\w.-]+)+|(?<![\w/.$-])\./[\w.-]+")


def called_script(repo: Repository, words: list[str], folder: str = "") -> str | None:
    """The repository path of the script that a simple command runs (`./ci.sh`, `scripts/check`,
    `bash scripts/x.sh`, `. ./env.sh`), relative to `folder` (a step's working directory), or None."""
    if not words:
        return None
    target = words[1] if words[0] in _SHELLS and len(words) > 1 and not words[1].startswith("-") else words[0]
    if words[0] not in _SHELLS and "/" not in target:
        return None  # a bare name is a program on PATH, not a file here
    path = _repository_path(folder, target)
    return path if path is not None and repo.exists(path) and repo.text(path) is not None else None


def _repository_path(folder: str, word: str) -> str | None:
    parts = [part for part in f"{folder}/{word}".split("/") if part not in ("", ".")]
    if ".." in parts or word.startswith("/"):
        return None
    return "/".join(parts) or None


def scripts_named_in(repo: Repository, text: str, seen: set[str] | None = None, depth: int = 0) -> list[str]:
    """The repository scripts (shebang or a shell extension) whose paths a runner file's text names,
    and the scripts those name in turn, up to SCRIPT_DEPTH levels and SCRIPT_FILES files."""
    seen = set() if seen is None else seen
    found = []
    for word in dict.fromkeys(_SCRIPT_WORD.findall(text)):
        path = _repository_path("", word)
        if path is None or path in seen or len(seen) >= SCRIPT_FILES or not repo.exists(path):
            continue
        body = repo.text(path)
        if body is None or not (body.startswith("#!") or path.endswith((".sh", ".bash", ".zsh"))):
            continue
        seen.add(path)
        found.append(path)
        if depth + 1 < SCRIPT_DEPTH:
            found += scripts_named_in(repo, body, seen, depth + 1)
    return found


# Files that run a project's checks: a tool is "wired" when one of them names it. The ones at the
# repository's root (pre-commit, CI) run for every folder of it, and a segment counts the runner
# files of the folders above it (its workspace's).
RUNNER_FILES = ("Makefile", "justfile", "Justfile", "tox.ini", "noxfile.py", "dodo.py", "Taskfile.yml", "lefthook.yml",
                "package.json")
ROOT_RUNNER_FILES = (".pre-commit-config.yaml", ".github/workflows/*.yml", ".github/workflows/*.yaml",
                     ".forgejo/workflows/*.yml", ".forgejo/workflows/*.yaml", ".gitlab-ci.yml")


def runners_naming(repo: Repository, pattern: str) -> list[str]:
    """The runner files (repository-relative) whose text matches the regular expression `pattern`, or
    that call a script of the repository (`scripts/check`, `./ci.sh`) whose text does: the view's
    own, then, in a segment, those of every folder above it (a workspace's root `package.json` or
    Makefile runs the linter over its packages) and the repository root's pre-commit and CI files."""
    regex = re.compile(pattern)
    whole = repo.repository
    places = [(repo, path) for glob in RUNNER_FILES + ROOT_RUNNER_FILES for path in repo.glob(glob)]
    if repo.folder:
        above = repo.enclosing(*RUNNER_FILES) + [path for glob in ROOT_RUNNER_FILES for path in whole.glob(glob)]
        places += [(whole, path) for path in dict.fromkeys(above)]
    found = []
    for tree, path in places:
        text = tree.read_text(path)
        if regex.search(text):
            found.append(path)
            continue
        # The runner may call a script of the repository that names the tool (`run: scripts/check`).
        called = next((script for script in scripts_named_in(tree, text) if regex.search(tree.read_text(script))), None)
        if called is not None:
            found.append(f"{path} (through {called})")
    return found


def package_json(repo: Repository, path: str) -> dict:
    """A `package.json` of the repository; one that is not a JSON object makes the check undecidable."""
    import json

    try:
        data = json.loads(repo.read_text(path))
    except (ValueError, UnicodeDecodeError) as error:
        raise Undecidable(f"{path} is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise Undecidable(f"{path} is not a JSON object")
    return data


JS_LOCKFILES = {"npm": ("package-lock.json", "npm-shrinkwrap.json"), "pnpm": ("pnpm-lock.yaml",),
                "yarn": ("yarn.lock",), "bun": ("bun.lock", "bun.lockb")}


def js_lockfile_problems(repo: Repository, manager: str, workspace_markers: tuple[str, ...] = ()) -> list:
    """Rules 84-86: every `package.json` of the folder (outside `node_modules`) has `manager`'s lockfile
    beside it or at the root of the workspace (a folder above holding the lockfile, or the repository's
    root when it has one of `workspace_markers`), and no other manager's lockfile lies beside it."""
    from agent_constitution.checks.api import Finding

    findings = []
    own = JS_LOCKFILES[manager]
    whole = repo.repository
    for path in repo.glob("**/package.json"):
        if "node_modules/" in path:
            continue
        package_json(repo, path)
        folder = path.rpartition("/")[0]
        prefix = folder + "/" if folder else ""
        parts = [part for part in f"{repo.folder}/{folder}".split("/") if part]
        above = ["/".join(parts[:depth]) + "/" if depth else "" for depth in range(len(parts))]
        locked = any(repo.exists(prefix + name) for name in own) or any(
            whole.exists(base + name) for base in above for name in own)
        if not locked and workspace_markers and any(whole.exists(marker) for marker in workspace_markers):
            locked = any(whole.exists(name) for name in own)
        if not locked:
            findings.append(Finding(f"no {' or '.join(own)} for this package.json: commit the lockfile {manager} writes",
                                    path=path))
        for other, names in JS_LOCKFILES.items():
            for name in names:
                if other != manager and repo.exists(prefix + name):
                    findings.append(Finding(f"{name} of {other} beside a project managed with {manager}: remove it",
                                            path=prefix + name))
    return findings


def ci_install_problems(repo: Repository, manager: str) -> list:
    """Rules 87-89: each CI install by `manager` that does not install exactly the lockfile: `npm
    install`/`npm i` (use `npm ci`), `pnpm install --no-frozen-lockfile` (a plain one is frozen in CI),
    `yarn`/`yarn install` without `--immutable` or `--frozen-lockfile`. An install that names packages
    (`npm i left-pad`, `pnpm i react@16`) adds them on purpose and is not judged. No CI configuration
    to read: undecidable."""
    from agent_constitution.checks.api import Finding

    jobs = list(ci_jobs(repo))
    if not jobs:
        raise Undecidable("no CI configuration this check reads (GitHub Actions, GitLab CI, Forgejo Actions)")
    findings = []
    for path, name, _, scripts in jobs:
        for script in scripts:
            for words in simple_commands(script):
                program = words[0].rsplit("/", 1)[-1]
                if program != manager:
                    continue
                plain = [word for word in words[1:] if not word.startswith("-")]
                loose = None
                if plain[:1] in (["install"], ["i"]) and plain[1:] and manager in ("npm", "pnpm"):
                    continue  # `pnpm i react@16` adds a named package on purpose: not the project's install
                if manager == "npm" and plain[:1] in (["install"], ["i"]):
                    loose = "npm install (use `npm ci`)"
                elif manager == "pnpm" and plain[:1] in (["install"], ["i"]) and (
                        "--no-frozen-lockfile" in words or "--frozen-lockfile=false" in words):
                    # A plain `pnpm install` is frozen where CI is set (pnpm.io/cli/install: "In a CI
                    # environment, installation fails if a lockfile is present but needs an update"),
                    # and every service these jobs run on sets it; only turning it off is loose.
                    loose = "pnpm install with the lockfile unfrozen"
                elif manager == "yarn" and (plain[:1] == ["install"] or not plain and not {"--version", "-v", "--help", "-h"}
                                             & set(words)) and not {"--immutable", "--frozen-lockfile"} & set(words):
                    loose = "yarn install without --immutable"
                if loose:
                    findings.append(Finding(f"job {name!r} runs {loose}: {' '.join(words)!r}", path=path))
    return findings
