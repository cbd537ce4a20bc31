"""init's selection always compiles within every enabled agent's limits (issue 26, parts 1-3).

Five repository shapes built in a temporary folder (a pnpm TypeScript workspace, a cargo
workspace, a Go module, a Python repository of eight packages under `libs/`, and a Python + GitHub
Actions + Claude Code repository), each with a hand-written AGENTS.md of 0, 10 and 30 KB: init
(its source read from this checkout) then compile succeed with no warning, the compiled region is
at most 12 KiB and what it holds names every rule in force with its requirement sentence.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.commands import starter
from agent_constitution.commands.project_section import MAX_FILE, section
from agent_constitution.compile import region
from agent_constitution.ruleset.source import load_source
from tests.sources.conftest import commit_files, git

PROJECT = Path(__file__).resolve().parents[2]
SOURCE = load_source(PROJECT)
COMPACT = 12 * 1024

PACKAGE = {"name": "@acme/core", "version": "1.0.0", "scripts": {"build": "tsc -b", "test": "vitest run", "lint": "eslint ."}}
SHAPES: dict[str, dict[str, str]] = {
    "pnpm-workspace": {
        "package.json": json.dumps({"name": "acme", "private": True, "scripts": {"lint": "eslint .", "test": "pnpm -r test"}}),
        "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
        "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
        "lefthook.yml": "pre-commit:\n  commands:\n    lint:\n      run: pnpm lint\n",
        "tsconfig.json": "{}\n",
        **{f"packages/{name}/package.json": json.dumps({**PACKAGE, "name": f"@acme/{name}"}) for name in ("core", "web")},
        **{f"packages/{name}/tsconfig.json": "{}\n" for name in ("core", "web")},
        "packages/core/src/index.test.ts": "test('x', () => {})\n",
    },
    "cargo-workspace": {
        "Cargo.toml": '[workspace]\nmembers = ["crates/a", "crates/b"]\n',
        "Cargo.lock": "version = 4\n",
        **{f"crates/{n}/Cargo.toml": f'[package]\nname = "{n}"\nversion = "0.1.0"\nedition = "2021"\n' for n in "ab"},
        **{f"crates/{n}/src/lib.rs": "pub fn f() {}\n" for n in "ab"},
        "crates/a/tests/it.rs": "#[test]\nfn t() {}\n",
    },
    "go-module": {
        "go.mod": "module example.test/hello\n\ngo 1.22\n",
        "main.go": "package main\n\nfunc main() {}\n",
        "main_test.go": 'package main\n\nimport "testing"\n\nfunc TestX(t *testing.T) {}\n',
    },
    "python-libs": {
        "README.md": "# libs\n",
        **{f"libs/l{i}/pyproject.toml": f'[project]\nname = "l{i}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
           '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' for i in range(8)},
        **{f"libs/l{i}/tests/test_l{i}.py": "def test_x():\n    pass\n" for i in range(8)},
    },
    "python-ci-claude": {
        "pyproject.toml": '[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndescription = "An app."\n'
                          '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n[tool.ruff]\nline-length = 100\n',
        "uv.lock": 'version = 1\nrequires-python = ">=3.11"\n',
        "tests/test_app.py": "def test_x():\n    pass\n",
        ".github/workflows/ci.yml": "name: ci\non: [push, pull_request]\njobs:\n  t:\n    runs-on: ubuntu-latest\n"
                                    "    steps:\n      - run: uv sync --locked\n      - run: uv run pytest\n",
        ".claude/settings.json": "{}\n",
        "Makefile": "test:\n\tuv run pytest\nlint:\n\tuv run ruff check .\n",
    },
}


def handwritten(kilobytes: int) -> str:
    line = "The service answers requests for the billing team; read docs/ before changing the schema.\n"
    return "# Project\n\n" + line * (kilobytes * 1024 // len(line))


def build(folder: Path, files: dict[str, str], own_kb: int) -> Path:
    folder.mkdir(parents=True)
    git(folder, "init", "-q")
    if own_kb:
        files = {**files, "AGENTS.md": handwritten(own_kb)}
    commit_files(folder, files, "start")
    return folder


@pytest.fixture
def from_this_checkout(monkeypatch):
    """init's source read from this working tree, as the shapes tests do (no fetch)."""
    monkeypatch.setattr(starter, "starter_source", lambda url, pin, root: SOURCE)
    monkeypatch.setattr(starter, "pin_of", lambda: ("rev", "0" * 40))
    # init locks what it wrote (tested in test_init.py against a git URL); here the pinned commit is
    # a placeholder, so the lock is left to the compile that follows, as for a manifest already there.
    monkeypatch.setattr(starter, "lock_manifest", lambda root, written: starter.Step("rules.lock", "left to compile"))


def use_checkout(repo: Path) -> None:
    manifest = repo / "rules.toml"
    text = re.sub(r'^ac = \{ url = .*$', f'ac = {{ path = "{PROJECT}", trust = true }}', manifest.read_text(), flags=re.M)
    manifest.write_text(text)


def run(repo: Path, verb: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    done = subprocess.run([sys.executable, "-m", "agent_constitution.cli", verb], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)
    if check:
        assert done.returncode == 0, f"{verb}:\n{done.stdout}\n{done.stderr}"
    return done


def region_of(repo: Path) -> str:
    return region.Region.parse((repo / "AGENTS.md").read_text(), repo / "AGENTS.md").inside or ""


@pytest.mark.slow
@pytest.mark.parametrize("own_kb", [0, 10, 30])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_init_then_compile_fits_every_agent(shape, own_kb, tmp_path, from_this_checkout):
    repo = build(tmp_path / shape, SHAPES[shape], own_kb)
    steps = starter.init_project(repo)
    use_checkout(repo)
    manifest = tomllib.loads((repo / "rules.toml").read_text())
    assert "ac:ci-hardening" not in manifest["rules"]  # opt-in
    done = run(repo, "compile")
    assert "warning:" not in done.stdout + done.stderr, done.stdout
    inside = region_of(repo)
    assert len(inside.encode("utf-8")) <= COMPACT
    total = (repo / "AGENTS.md").stat().st_size
    assert total <= 32 * 1024  # what Codex loads of the chain
    # Every rule in force keeps its id and requirement sentence in what agents load by themselves.
    held = set(re.findall(r'<a id="ac-(\d+)"></a>ac:', "".join(p.read_text() for p in repo.glob("AGENTS.*.md"))))
    for rule in held:
        assert re.search(rf"^- ac:{rule}\b", inside, re.M) or f'<a id="ac-{rule}"></a>' in inside, rule
    assert re.search(r"^Constitution: .*, edition 2026-10, revision 0\.3", inside, re.M)
    if own_kb == 0:
        assert "written" in [s.done for s in steps if s.path == "AGENTS.md"]
        assert (repo / "AGENTS.md").read_text().startswith("# ")
    else:
        assert (repo / "AGENTS.md").read_text().startswith(handwritten(own_kb))  # never overwritten
    left = [line for line in (repo / "rules.toml").read_text().splitlines() if line.strip().startswith('# "ac:')]
    print(f"\n{shape} own {own_kb} KB: region {len(inside.encode())} bytes, {total} bytes loaded;"
          f" packages {manifest['rules']}; left out {len(left)}")


def test_over_the_limit_a_user_wrote_warns_per_agent_and_fails_only_when_asked(tmp_path):
    """A hand-picked selection with a 30 KB AGENTS.md compiles with warnings naming the agents, the
    contributors and the lines to change; `over-limit = "error"` makes it fail, and then neither
    compile nor check writes the refused AGENTS.md."""
    repo = build(tmp_path / "repo", SHAPES["python-ci-claude"], 30)
    packages = ", ".join(f'"ac:{p}"' for p in ("instructions", "git", "security", "session", "python", "ci", "tests"))
    base = (f'rules = [{packages}]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\nrevision = "0.3"\n\n'
            f'[sources]\nac = {{ path = "{PROJECT}", trust = true }}\n\n[choices]\n'
            '"ac:python-package-manager" = "ac:17"\n"ac:ci-service" = "ac:28"\n')
    (repo / "rules.toml").write_text(base)
    done = run(repo, "compile")
    out = done.stdout + done.stderr  # the reporter writes warnings to stderr
    assert "warning: AGENTS.md: its compiled region is" in out and "agents-md" in out
    assert "largest: hand-written text" in out and "the constitution" in out and "packages ac:" in out
    assert re.search(r'fix: (add "ac:\d+".* to `exclude`|take "ac:[\w-]+".* out of `rules`) in rules.toml', out)
    assert re.search(r"warning: AGENTS.md: the agents that read AGENTS.md root→leaf \(agents-md\) load at most 32768 bytes .* among it the rules ac:\d+", out)
    before = (repo / "AGENTS.md").read_text()
    (repo / "rules.toml").write_text(base.replace("[choices]", '[compile]\nover-limit = "error"\n\n[choices]'))
    refused = run(repo, "compile", check=False)
    assert refused.returncode != 0 and "over-limit" in refused.stderr + refused.stdout
    assert (repo / "AGENTS.md").read_text() == before  # put back as it was
    git(repo, "checkout", "--", "AGENTS.md")
    own = (repo / "AGENTS.md").read_text()
    run(repo, "check", check=False)
    assert (repo / "AGENTS.md").read_text() == own  # check writes nothing compile refused


def test_over_limit_is_validated(tmp_path):
    repo = build(tmp_path / "repo", SHAPES["go-module"], 0)
    (repo / "rules.toml").write_text(
        f'rules = ["ac:git"]\n\n[constitution]\nsource = "ac"\nedition = "2026-10"\nrevision = "0.3"\n\n'
        f'[sources]\nac = {{ path = "{PROJECT}", trust = true }}\n\n[compile]\nover-limit = "fatal"\n')
    done = run(repo, "compile", check=False)
    assert done.returncode != 0 and "over-limit" in done.stderr


def test_the_starter_leaves_out_what_does_not_fit_with_the_line_to_add_it_back(tmp_path, from_this_checkout):
    repo = build(tmp_path / "repo", SHAPES["python-ci-claude"], 30)
    steps = starter.init_project(repo)
    text = (repo / "rules.toml").read_text()
    manifest = tomllib.loads(text)
    left = re.findall(r'^    # "(ac:[\w-]+)",  # (\d+) more bytes', text, re.M)
    assert left and all(package not in manifest["rules"] for package, _ in left)
    assert any("left out to fit" in step.done for step in steps)
    assert '# "ac:ci-hardening",  # opt-in' in text
    # Uncommenting a line is valid TOML that selects the package.
    back = text.replace(f'    # "{left[0][0]}",', f'    "{left[0][0]}",')
    assert left[0][0] in tomllib.loads(back)["rules"]


def test_ci_hardening_is_never_selected():
    from agent_constitution.commands.shape import Shape

    shape = Shape({"ci": ".github/workflows/ci.yml"}, {"GitHub Actions": ".github/workflows/ci.yml"})
    chosen = starter.choose(shape, SOURCE)
    assert "ci-hardening" not in chosen.packages and chosen.opt_in == ("ci-hardening",)


# --- the project section (part 3) ----------------------------------------------------------------


@pytest.mark.parametrize("shape, expected", [
    ("pnpm-workspace", ["`packages/core/` (TypeScript `@acme/core`): build `pnpm run build`, test `pnpm run test`",
                        "- Test: `pnpm run test`", "- Lint: `pnpm run lint`", "TypeScript"]),
    ("cargo-workspace", ["- Test: `cargo test --workspace`", "`crates/a/` (Rust `a`)", "Tests: `crates/a/tests/it.rs`"]),
    ("go-module", ["# example.test/hello", "- Test: `go test ./...`", "- Lint: `go vet ./...`"]),
    ("python-libs", [*(f"`libs/l{i}/` (Python `l{i}`): test `python -m pytest`" for i in range(8))]),
    ("python-ci-claude", ["# app", "An app.", "- Test: `uv run pytest`, `make test`", "`uv run ruff check .`",
                          "- CI (`.github/workflows/ci.yml`) runs: `uv sync --locked`, `uv run pytest`"]),
])
def test_the_project_section_names_what_it_detects(shape, expected, tmp_path):
    repo = build(tmp_path / shape, SHAPES[shape], 0)
    text = section(repo).text
    for line in expected:
        assert line in text, text


def test_a_tests_folder_alone_is_no_evidence_of_tests(tmp_path):
    from agent_constitution.commands.shape import detect

    repo = build(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "a"\n', "tests/data/sample.json": "{}\n"}, 0)
    assert "tests" not in detect(repo).packages and "Tests:" not in section(repo).text
    commit_files(repo, {"tests/test_a.py": "def test_a():\n    pass\n"}, "a test")
    assert "tests" in detect(repo).packages and "Tests: `tests/test_a.py`" in section(repo).text


def test_hostile_files_are_skipped_with_a_note(tmp_path):
    repo = build(tmp_path / "repo", {
        "package.json": "{not json", "pyproject.toml": "[project\nname=", "go.mod": "module x\n",
        ".github/workflows/ci.yml": "jobs: [unclosed\n", "Cargo.toml": "x" * (MAX_FILE + 1),
    }, 0)
    found = section(repo)
    notes = "\n".join(found.notes)
    assert "package.json: not valid JSON" in notes and "pyproject.toml: not valid TOML" in notes
    assert "ci.yml: not valid YAML" in notes and f"Cargo.toml: larger than {MAX_FILE} bytes" in notes
    assert "`go vet ./...`" in found.text


def test_init_never_overwrites_agents_md(tmp_path, from_this_checkout):
    repo = build(tmp_path / "repo", SHAPES["go-module"], 0)
    (repo / "AGENTS.md").write_text("mine\n")
    steps = starter.init_project(repo)
    assert (repo / "AGENTS.md").read_text() == "mine\n"
    assert not [step for step in steps if step.path == "AGENTS.md"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(package=st.binary(max_size=300), pyproject=st.binary(max_size=300), makefile=st.binary(max_size=200))
def test_any_bytes_give_a_section(tmp_path_factory, package, pyproject, makefile):
    repo = tmp_path_factory.mktemp("hostile")
    for name, data in (("package.json", package), ("pyproject.toml", pyproject), ("Makefile", makefile)):
        (repo / name).write_bytes(data)
    text = section(repo).text
    assert text.startswith("# ") and "rules.toml" in text


@pytest.mark.slow
def test_a_hand_written_claude_md_is_kept_and_the_starter_compiles(tmp_path, from_this_checkout):
    """A 10 KB CLAUDE.md of the repository's own (Claude Code documents no byte limit: it is not
    counted against one) stays as written, and init then compile succeed within 12 KiB."""
    files = {**SHAPES["python-ci-claude"], "CLAUDE.md": handwritten(10)}
    repo = build(tmp_path / "repo", files, 0)
    starter.init_project(repo)
    use_checkout(repo)
    run(repo, "compile")
    assert (repo / "CLAUDE.md").read_text().startswith(handwritten(10))
    assert len(region_of(repo).encode("utf-8")) <= COMPACT
