"""The repository's own layer: the hand-written section init proposes for a new `AGENTS.md`.

`section(root) -> Section` reads the working tree's files (git's listing, as `shape.detect` does)
and writes what it finds for the user to confirm (seed 000: what the repository is, its languages,
its layout and its check commands), per package of a workspace:

- a package is a folder holding `pyproject.toml`, `package.json`, `Cargo.toml` or `go.mod`;
- its commands come from `package.json` scripts (run with the package manager its lockfile
  shows), `pyproject.toml` (`[tool.pytest…]`, `[tool.ruff]`, `[tool.mypy]`; uv or Poetry by their
  lockfiles), `Cargo.toml` and `go.mod` (the tools' own commands), and the root's `Makefile` /
  `justfile` targets and CI workflows' `run` steps;
- tests are named only from a real test file or test configuration.

Every file is hostile: one larger than `MAX_FILE` bytes, not UTF-8, or not valid JSON / TOML / YAML
is skipped with a note in the section, never an error. Only the first `MAX_PACKAGES` packages are
listed. init writes the section into `AGENTS.md` only when there is no `AGENTS.md` (it never
overwrites); compile then adds its region after it.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from agent_constitution.checks.scan import scan

MAX_FILE = 256 * 1024
MAX_PACKAGES = 24
MAX_CI_COMMANDS = 6
MANIFESTS = ("pyproject.toml", "package.json", "Cargo.toml", "go.mod")
_SKIP = ("node_modules/", "vendor/", "third_party/", ".venv/", "target/", "dist/", "build/")
_KINDS = {"build": ("build",), "test": ("test", "tests"), "lint": ("lint", "check", "typecheck", "type-check", "fmt:check")}
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*\.py|[^/]*_test\.(py|go)|[^/]*\.(test|spec)\.[cm]?[jt]sx?|conftest\.py|pytest\.ini"
                        r"|(jest|vitest|playwright)\.config\.[cm]?[jt]s|tests/[^/]*\.rs)$")


@dataclass
class Package:
    folder: str  # "." or a folder
    kinds: list[str] = field(default_factory=list)  # "Python", "TypeScript", ...
    name: str | None = None
    description: str | None = None
    commands: dict[str, list[str]] = field(default_factory=dict)  # build | test | lint → commands


@dataclass(frozen=True)
class Section:
    text: str
    notes: tuple[str, ...]  # files skipped, for init's output too


def section(root: Path) -> Section:
    files = [path for path in scan(root).files if not any(part in f"/{path}" for part in (f"/{s}" for s in _SKIP))]
    notes: list[str] = []
    reader = _Reader(root, notes)
    folders: dict[str, Package] = {}
    for path in files:
        pure = PurePosixPath(path)
        if pure.name in MANIFESTS:
            folder = str(pure.parent)
            folders.setdefault(folder, Package(folder))
    if "." not in folders:
        folders["."] = Package(".")
    ordered = sorted(folders.values(), key=lambda p: (p.folder != ".", p.folder))
    tests = [path for path in files if _TEST_FILE.search(path)]
    for package in ordered[: MAX_PACKAGES + 1]:
        _describe(package, reader, files, tests)
    _root_tools(ordered[0], reader, files)
    return Section(_text(root, ordered, files, tests, reader.ci, notes), tuple(notes))


class _Reader:
    def __init__(self, root: Path, notes: list[str]):
        self.root, self.notes, self.ci = root, notes, []

    def text(self, path: str) -> str | None:
        file = self.root / path
        try:
            if file.is_symlink() or not file.is_file():
                return None
            if file.stat().st_size > MAX_FILE:
                self.notes.append(f"{path}: larger than {MAX_FILE} bytes, not read")
                return None
            return file.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            self.notes.append(f"{path}: not UTF-8, not read")
        except OSError as error:
            self.notes.append(f"{path}: not readable ({error.strerror})")
        return None

    def toml(self, path: str) -> dict | None:
        text = self.text(path)
        if text is None:
            return None
        try:
            return tomllib.loads(text)
        except (ValueError, RecursionError) as error:  # TOMLDecodeError is one; a huge integer another
            self.notes.append(f"{path}: not valid TOML ({error}), skipped")
            return None

    def json(self, path: str) -> dict | None:
        text = self.text(path)
        if text is None:
            return None
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as error:
            self.notes.append(f"{path}: not valid JSON ({error}), skipped")
            return None
        if not isinstance(data, dict):
            self.notes.append(f"{path}: not a JSON object, skipped")
            return None
        return data


def _join(folder: str, name: str) -> str:
    return name if folder == "." else f"{folder}/{name}"


def _has(files: list[str], path: str) -> bool:
    return path in files


def _text_of(value) -> str | None:
    return value.strip()[:200] if isinstance(value, str) and value.strip() else None


def _add(package: Package, kind: str, command: str) -> None:
    package.commands.setdefault(kind, [])
    if command not in package.commands[kind]:
        package.commands[kind].append(command)


def _js_runner(files: list[str], folder: str) -> str:
    for candidate in (folder, "."):
        if _has(files, _join(candidate, "pnpm-lock.yaml")):
            return "pnpm"
        if _has(files, _join(candidate, "yarn.lock")):
            return "yarn"
        if _has(files, _join(candidate, "bun.lockb")) or _has(files, _join(candidate, "bun.lock")):
            return "bun"
    return "npm"


def _describe(package: Package, reader: _Reader, files: list[str], tests: list[str]) -> None:
    folder = package.folder
    inside = [t for t in tests if folder == "." or t.startswith(folder + "/")]
    for manifest, describe in _MANIFESTS:
        if _has(files, _join(folder, manifest)):
            describe(package, reader, files, inside)


def _named(package: Package, name, description=None) -> None:
    """The package's name and description, from the first manifest that gives them."""
    package.name = package.name or _text_of(name)
    package.description = package.description or _text_of(description)


def _table(data: dict, key: str) -> dict:
    return data.get(key) if isinstance(data.get(key), dict) else {}


def _python(package: Package, reader: _Reader, files: list[str], inside: list[str]) -> None:
    folder = package.folder
    data = reader.toml(_join(folder, "pyproject.toml")) or {}
    project, tool = _table(data, "project"), _table(data, "tool")
    package.kinds.append("Python")
    _named(package, project.get("name"), project.get("description"))
    run = _python_runner(files, folder, tool)
    if "pytest" in tool or any(t.endswith((".py", "pytest.ini")) for t in inside):
        _add(package, "test", f"{run}pytest")
    for linter, command in (("ruff", "ruff check ."), ("mypy", "mypy ."), ("pyright", "pyright")):
        if linter in tool:
            _add(package, "lint", _through(run, linter, command))
    if "build-system" in data:
        _add(package, "build", "uv build" if run == "uv run " else "poetry build" if run == "poetry run " else "python -m build")


def _through(run: str, linter: str, command: str) -> str:
    """A linter's command run the package's way (pyright is a program of its own, not a module)."""
    return f"{run}{command}" if run != "python -m " or linter != "pyright" else command


def _python_runner(files: list[str], folder: str, tool: dict) -> str:
    """How the package's Python tools run: `uv run `, `poetry run ` or `python -m `."""
    if _has(files, _join(folder, "uv.lock")) or _has(files, "uv.lock"):
        return "uv run "
    return "poetry run " if "poetry" in tool or _has(files, _join(folder, "poetry.lock")) else "python -m "


def _node(package: Package, reader: _Reader, files: list[str], inside: list[str]) -> None:
    folder = package.folder
    data = reader.json(_join(folder, "package.json")) or {}
    package.kinds.append("TypeScript" if _has(files, _join(folder, "tsconfig.json")) else "JavaScript")
    _named(package, data.get("name"), data.get("description"))
    scripts = _table(data, "scripts")
    runner = _js_runner(files, folder)
    for kind, names in _KINDS.items():
        for name in names:
            if isinstance(scripts.get(name), str):
                _add(package, kind, f"{runner} run {name}")


def _rust(package: Package, reader: _Reader, files: list[str], inside: list[str]) -> None:
    data = reader.toml(_join(package.folder, "Cargo.toml")) or {}
    crate = _table(data, "package")
    package.kinds.append("Rust")
    _named(package, crate.get("name"), crate.get("description"))
    every = " --workspace" if isinstance(data.get("workspace"), dict) else ""
    _add(package, "build", f"cargo build{every}")
    _add(package, "test", f"cargo test{every}")
    _add(package, "lint", f"cargo clippy{every}")


def _go(package: Package, reader: _Reader, files: list[str], inside: list[str]) -> None:
    text = reader.text(_join(package.folder, "go.mod")) or ""
    module = re.search(r"^module\s+(\S+)", text, re.M)
    package.kinds.append("Go")
    package.name = package.name or (module[1][:200] if module else None)
    _add(package, "build", "go build ./...")
    if any(t.endswith("_test.go") for t in inside):
        _add(package, "test", "go test ./...")
    _add(package, "lint", "go vet ./...")


# Each manifest a package folder may hold, and what it tells about the package, in this order.
_MANIFESTS = (("pyproject.toml", _python), ("package.json", _node), ("Cargo.toml", _rust), ("go.mod", _go))


def _root_tools(package: Package, reader: _Reader, files: list[str]) -> None:
    """The root's Makefile / justfile targets and the CI workflows' run steps."""
    for name, runner, pattern in (
        ("Makefile", "make", r"^([A-Za-z][\w.-]*)\s*:(?!=)"),
        ("justfile", "just", r"^@?([A-Za-z][\w-]*)(?:\s+[^:\n=]*)?:(?!=)"),
    ):
        text = reader.text(name) if _has(files, name) else None
        for target in re.findall(pattern, text or "", re.M):
            for kind, names in _KINDS.items():
                if target in names:
                    _add(package, kind, f"{runner} {target}")
    for path in files:
        if re.fullmatch(r"\.(github|forgejo)/workflows/[^/]+\.ya?ml|\.gitlab-ci\.yml", path):
            _ci_commands(reader, path)


def _ci_commands(reader: _Reader, path: str) -> None:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    text = reader.text(path)
    if text is None:
        return
    try:
        data = YAML(typ="safe", pure=True).load(text)
    except (YAMLError, RecursionError, ValueError) as error:
        reader.notes.append(f"{path}: not valid YAML ({str(error).splitlines()[0] if str(error) else 'error'}), skipped")
        return
    found: list[str] = []

    def walk(node, depth=0):
        if depth > 12 or len(found) >= MAX_CI_COMMANDS:
            return
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "run" and isinstance(value, str):
                    found.append(value.strip().splitlines()[0][:120] if value.strip() else "")
                elif key == "script" and isinstance(value, list):
                    found.extend(str(v).strip()[:120] for v in value if isinstance(v, str))
                else:
                    walk(value, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)

    walk(data)
    commands = [c for c in dict.fromkeys(found) if c][:MAX_CI_COMMANDS]
    if commands:
        reader.ci.append((path, commands))


def _text(root: Path, packages: list[Package], files: list[str], tests: list[str], ci, notes: list[str]) -> str:
    top = packages[0]
    name = top.name or root.name
    languages = list(dict.fromkeys(kind for package in packages for kind in package.kinds))
    lines = [
        f"# {name}",
        "",
        "<!-- Written by `agent-constitution init` from the files it found: confirm or correct it. This part is the"
        " repository's own; compile never changes it. -->",
        "",
        top.description or "(What this repository is, in a sentence.)",
        "",
    ]
    if languages:
        lines.append(f"- Languages: {', '.join(languages)}.")
    lines += _packages([package for package in packages if package.folder != "."])
    for kind in ("build", "test", "lint"):
        if top.commands.get(kind):
            lines.append(f"- {kind.capitalize()}: " + ", ".join(f"`{command}`" for command in top.commands[kind]))
    if tests:
        more = f" and {len(tests) - 1} more" if len(tests) > 1 else ""
        lines.append(f"- Tests: `{tests[0]}`{more}.")
    for path, commands in ci[:3]:
        lines.append(f"- CI (`{path}`) runs: " + ", ".join(f"`{command}`" for command in commands))
    lines.append("- The general rules come from `rules.toml` (pinned in `rules.lock`); `agent-constitution compile`"
                 " writes them below, between its markers.")
    for note in notes[:5]:
        lines.append(f"<!-- init: {note.replace('--', '- -')} -->")
    return "\n".join(lines) + "\n"


def _packages(nested: list[Package]) -> list[str]:
    """The "Packages:" list of the nested packages, each with its kinds, name and commands."""
    if not nested:
        return []
    lines = ["- Packages:"]
    for package in nested[:MAX_PACKAGES]:
        kinds = "/".join(package.kinds) or "?"
        named = f" `{package.name}`" if package.name else ""
        lines.append(f"  - `{package.folder}/` ({kinds}{named}){_commands_inline(package)}")
    if len(nested) > MAX_PACKAGES:
        lines.append(f"  - and {len(nested) - MAX_PACKAGES} more")
    return lines


def _commands_inline(package: Package) -> str:
    shown = [f"{kind} `{commands[0]}`" for kind in ("build", "test", "lint") if (commands := package.commands.get(kind))]
    return ": " + ", ".join(shown) if shown else ""
