"""The fixes of this repository's rules: each on files of the field corpus (bench/field/corpus, the
bundles as cloned and, where the findings are seeded, with the seed patch applied), each asserting
that every byte outside the edited lines is unchanged, that the check then passes at that place
(fix, then check) and that a second fix changes nothing; a hypothesis property per fix where the
inputs can be generated. ac:31's tags are resolved from a `git daemon` on 127.0.0.1, never the network."""

from __future__ import annotations

import difflib
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.checks.api import Fix, Repository, Unfixed, insert_lines, line_ending
from agent_constitution.checks.scan import scan

from .subjects import REPO, check_module, repository

CORPUS = REPO / "bench" / "field" / "corpus"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
       "-c", "advice.detachedHead=false"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """`corpus(name, seeded=False)`: the field repository's working tree, cloned from its bundle once."""
    made: dict[tuple[str, bool], Path] = {}

    def clone(name: str, seeded: bool = False) -> Path:
        if (name, seeded) not in made:
            target = tmp_path_factory.mktemp(f"{name}-{'seeded' if seeded else 'plain'}") / name
            subprocess.run([*GIT, "clone", "-q", str(CORPUS / f"{name}.bundle"), str(target)], check=True,
                           capture_output=True)
            if seeded:
                subprocess.run([*GIT, "apply", str(CORPUS / f"{name}.seed.patch")], cwd=target, check=True,
                               capture_output=True)
            made[(name, seeded)] = target
        return made[(name, seeded)]

    return clone


def view_of(root: Path) -> Repository:
    return scan(root).view()


def mended(rule: int, root: Path, files: dict[str, str] | None = None) -> tuple[Repository, list, dict[str, str]]:
    """(the repository before, the fix's answers, path → text after) for the check's findings in `root`."""
    repo = repository(root, files) if files is not None else view_of(root)
    module = check_module(rule)
    findings = module.check(repo)
    assert findings, f"the fixture has no ac:{rule} finding"
    answers = module.fix(repo, findings)
    return repo, answers, {answer.path: answer.text for answer in answers if isinstance(answer, Fix)}


def checked_after(rule: int, root: Path, repo: Repository, after: dict[str, str], target: Path) -> list:
    """ac:`rule`'s findings in a copy of the repository with the fixed files written."""
    if target.exists():
        shutil.rmtree(target)
    files = {}
    for path in (*repo.files, *after):
        if path in after:
            files[path] = after[path]
        else:
            files[path] = (root / path).read_bytes()
    fixed = repository(target, files)
    return check_module(rule).check(fixed)


def assert_kept(before: str | None, after: str, allowed: set[int] | None = None) -> None:
    """Every line of `before` is in `after`, byte for byte and in order, except the 0-based lines of
    `allowed` (the lines a fix rewrites); whatever else differs is an inserted line. A last line
    without its line ending may gain one, when a line is added after it."""
    old = (before or "").splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    touched = _touched(old, new)
    if touched and old and not old[-1].endswith(("\n", "\r")):
        touched = _touched([*old[:-1], old[-1] + line_ending(after)], new)
    assert touched <= (allowed or set()), f"lines {sorted(touched)} of the file changed"


def _touched(old: list[str], new: list[str]) -> set[int]:
    return {row for tag, i1, i2, _, _ in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
            if tag in ("replace", "delete") for row in range(i1, i2)}


def inserted(before: str, after: str) -> list[str]:
    old, new = before.splitlines(), after.splitlines()
    return [line for tag, _, _, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
            if tag == "insert" for line in new[j1:j2]]


def assert_idempotent(rule: int, root: Path, repo: Repository, after: dict[str, str], target: Path) -> None:
    """The fixed repository has no finding of the rule, so a second `--fix` has nothing to do."""
    assert checked_after(rule, root, repo, after, target) == []


# --- ac:71 timeout-minutes (safe) -------------------------------------------------------------------------

def test_71_on_cobra_adds_one_line_per_job_and_passes(corpus, tmp_path):
    root = corpus("cobra")
    repo, answers, after = mended(71, root)
    assert set(after) == {".github/workflows/labeler.yml", ".github/workflows/test.yml"}
    for path, text in after.items():
        before = (root / path).read_text()
        assert_kept(before, text)
        assert {line.strip() for line in inserted(before, text)} == {"timeout-minutes: 360"}  # GitHub's default
    assert all(not answer.unsafe for answer in answers if isinstance(answer, Fix))
    assert_idempotent(71, root, repo, after, tmp_path / "after")


def test_71_takes_the_repositorys_own_value(tmp_path):
    files = {".github/workflows/a.yml": "on: push\njobs:\n  a:\n    runs-on: x\n    timeout-minutes: 15\n"
                                        "    steps: [{run: a}]\n  b:\n    runs-on: x\n    timeout-minutes: 15\n"
                                        "    steps: [{run: b}]\n",
             ".github/workflows/b.yml": "on: push\njobs:\n  c:\n    runs-on: x\n    # the steps\n    steps:\n"
                                        "      - run: c\n"}
    repo, _, after = mended(71, tmp_path / "before", files)
    assert after[".github/workflows/b.yml"] == ("on: push\njobs:\n  c:\n    runs-on: x\n    timeout-minutes: 15\n"
                                                "    # the steps\n    steps:\n      - run: c\n")


JOB_KEYS = st.lists(st.sampled_from(["runs-on: ubuntu-latest", "name: a job", "if: true", "env: {A: b}",
                                     "# a comment", "needs: [first]"]), max_size=4, unique=True)


@st.composite
def workflows(draw):
    indent = " " * draw(st.sampled_from([2, 4]))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ["# a workflow", "on: push", "", "jobs:"]
    for number in range(draw(st.integers(1, 5))):
        lines.append(f"{indent}job{number}:")
        for key in draw(JOB_KEYS):
            lines.append(f"{indent * 2}{key}")
        if draw(st.booleans()):
            lines.append(f"{indent * 2}timeout-minutes: {draw(st.integers(1, 90))}")
        if draw(st.booleans()):
            lines.append(f"{indent * 2}# steps follow")
        lines += [f"{indent * 2}steps:", f"{indent * 3}- run: echo {number}  # step"]
    text = ending.join(lines)
    return text + ending if draw(st.booleans()) else text


@SETTINGS
@given(text=workflows())
def test_71_property_fix_then_check(text, tmp_path_factory):
    root = tmp_path_factory.mktemp("w71")
    repo = repository(root, {".github/workflows/ci.yml": text})
    module = check_module(71)
    findings = module.check(repo)
    if not findings:
        return
    (fix,) = module.fix(repo, findings)
    assert_kept(text, fix.text)
    assert fix.text.count("\r\n") == (text.count("\r\n") + len(findings) if "\r\n" in text else 0)
    again = repository(tmp_path_factory.mktemp("w71after"), {".github/workflows/ci.yml": fix.text})
    assert module.check(again) == []
    assert module.fix(again, []) == []


# --- ac:32 permissions (unsafe) ---------------------------------------------------------------------------

def test_32_on_pinias_seeded_workflow(corpus, tmp_path):
    root = corpus("pinia", seeded=True)
    repo, answers, after = mended(32, root)
    # the seeded docs.yml and the three workflows pinia itself has without a permissions: block
    assert sorted(after) == [f".github/workflows/{name}.yml" for name in ("ci", "docs", "pkg.pr.new", "release-tag")]
    for path, text in after.items():
        before = (root / path).read_text()
        assert_kept(before, text)
        assert [line for line in inserted(before, text) if line] == ["permissions:", "  contents: read"]
        assert text.index("permissions:") < text.index("\njobs:")
    assert all(answer.unsafe for answer in answers if isinstance(answer, Fix))
    assert_idempotent(32, root, repo, after, tmp_path / "after")


def test_32_leaves_write_all_to_a_person(tmp_path):
    files = {".github/workflows/a.yml": "on: push\npermissions: write-all\njobs:\n  a:\n    steps: [{run: a}]\n"}
    _, answers, after = mended(32, tmp_path, files)
    assert after == {} and [type(answer) for answer in answers] == [Unfixed]


@SETTINGS
@given(text=workflows())
def test_32_property_fix_then_check(text, tmp_path_factory):
    root = tmp_path_factory.mktemp("w32")
    repo = repository(root, {".github/workflows/ci.yml": text})
    module = check_module(32)
    findings = module.check(repo)
    (fix,) = module.fix(repo, findings)
    assert_kept(text, fix.text)
    again = repository(tmp_path_factory.mktemp("w32after"), {".github/workflows/ci.yml": fix.text})
    assert module.check(again) == []


# --- ac:31 pin to the commit the tag names (unsafe), through git ls-remote --------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def git_server(tmp_path):
    """A `git daemon` on 127.0.0.1 serving actions/checkout (tags v4 and v4.2.2 on one commit,
    annotated v4.1.0 on an older one, a branch `main`), as GITHUB_SERVER_URL names it."""
    base = tmp_path / "served"
    work = tmp_path / "checkout-work"
    work.mkdir(parents=True)
    run = lambda *args, cwd=work: subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True,  # noqa: E731
                                                 text=True).stdout.strip()
    run("init", "-q")
    (work / "action.yml").write_text("name: checkout\n")
    run("add", "-A")
    run("commit", "-qm", "one")
    run("tag", "-a", "v4.1.0", "-m", "release 4.1.0")
    old = run("rev-parse", "HEAD")
    (work / "action.yml").write_text("name: checkout 2\n")
    run("commit", "-qam", "two")
    run("tag", "v4")
    run("tag", "v4.2.2")
    new = run("rev-parse", "HEAD")
    (base / "actions").mkdir(parents=True)
    run("clone", "-q", "--bare", str(work), str(base / "actions" / "checkout"), cwd=tmp_path)
    port = _free_port()
    daemon = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", f"--base-path={base}",
                               "--listen=127.0.0.1", f"--port={port}", str(base)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield {"url": f"git://127.0.0.1:{port}", "v4": new, "v4.1.0": old}
    finally:
        daemon.terminate()
        daemon.wait(10)


def test_31_pins_cobras_checkout_to_the_tags_commit(corpus, git_server, monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_SERVER_URL", git_server["url"])
    root = corpus("cobra")
    repo, answers, after = mended(31, root)
    text = after[".github/workflows/test.yml"]
    before = (root / ".github/workflows/test.yml").read_text()
    rows = {number for number, line in enumerate(before.splitlines()) if "actions/checkout@v4" in line}
    assert_kept(before, text, allowed=rows)
    assert text.count(f"actions/checkout@{git_server['v4']} # v4.2.2") == len(rows) == 4
    # The actions this server does not hold are left, each said once with the reason.
    unfixed = [answer.reason for answer in answers if isinstance(answer, Unfixed)]
    assert any("\n    actions/setup-go@v6: git ls-remote" in reason for reason in unfixed)
    assert sum(reason.count("actions/setup-go@") for reason in unfixed) == 1
    assert all(answer.unsafe for answer in answers if isinstance(answer, Fix))
    left = checked_after(31, root, repo, after, tmp_path / "after")
    assert not [finding for finding in left if "actions/checkout" in finding.reason]


def test_31_comments_a_pinned_sha_and_leaves_a_branch(git_server, monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_SERVER_URL", git_server["url"])
    text = ("on: push\njobs:\n  a:\n    steps:\n"
            f"      - uses: actions/checkout@{git_server['v4.1.0']}\n"
            f"      - uses: \"actions/checkout@{git_server['v4']}\"   # the checkout\n"
            "      - uses: actions/checkout@main\n      - uses: actions/checkout@v4.1.0\n")
    repo, answers, after = mended(31, tmp_path / "before", {".github/workflows/a.yml": text})
    fixed = after[".github/workflows/a.yml"].splitlines()
    assert fixed[4].endswith(f"actions/checkout@{git_server['v4.1.0']} # v4.1.0")
    assert fixed[5].endswith(f"actions/checkout@{git_server['v4']}\"   # v4.2.2 the checkout")
    assert fixed[6] == "      - uses: actions/checkout@main"
    assert fixed[7] == f"      - uses: actions/checkout@{git_server['v4.1.0']} # v4.1.0"  # the annotated tag's commit
    assert [answer.reason for answer in answers if isinstance(answer, Unfixed)] == [
        "actions/checkout@main: 'main' is a branch, not a release tag: pin a release of actions/checkout"]
    left = checked_after(31, tmp_path / "before", repo, after, tmp_path / "after")
    assert [finding.line for finding in left] == [7]
    assert_kept(text, after[".github/workflows/a.yml"], allowed={4, 5, 7})


def test_31_offline_says_why(monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_SERVER_URL", f"git://127.0.0.1:{_free_port()}")
    files = {".github/workflows/a.yml": "on: push\njobs:\n  a:\n    steps:\n      - uses: actions/checkout@v4\n"}
    _, answers, after = mended(31, tmp_path, files)
    assert after == {}
    (answer,) = answers
    assert isinstance(answer, Unfixed) and "git ls-remote git://127.0.0.1:" in answer.reason
    assert "offline, or no access" in " ".join(answer.reason.split())  # wrapped


def test_31_offline_notes_are_one_per_file_an_action_a_line(monkeypatch, tmp_path):
    monkeypatch.setenv("GITHUB_SERVER_URL", f"git://127.0.0.1:{_free_port()}")
    steps = "".join(f"      - uses: {action}\n" for action in (
        "actions/checkout@v4", "actions/setup-python@v5", "actions/checkout@v4.1.0", "astral-sh/setup-uv@v6"))
    _, answers, _ = mended(31, tmp_path, {".github/workflows/a.yml": f"on: push\njobs:\n  a:\n    steps:\n{steps}"})
    (answer,) = answers
    head, *lines = answer.reason.splitlines()
    assert head == "the tags of 3 action repositories could not be read, so these stay as written:"
    assert [line.split(":")[0].strip() for line in lines if not line.startswith("      ")] == [
        "actions/checkout@v4", "actions/setup-python@v5", "astral-sh/setup-uv@v6"]
    assert all(line.startswith("    ") and (len(line) <= 100 or " " not in line.strip()) for line in lines)


# --- ac:73 a Dependabot file (unsafe) ---------------------------------------------------------------------

def test_73_on_ripgrep_writes_dependabot_for_its_ecosystems(corpus, tmp_path):
    root = corpus("ripgrep")
    repo, answers, after = mended(73, root)
    text = after[".github/dependabot.yml"]
    assert "package-ecosystem: cargo\n    directory: \"/\"" in text   # a workspace: its members update with it
    assert "package-ecosystem: github-actions" in text
    assert all(answer.unsafe for answer in answers)
    assert_idempotent(73, root, repo, after, tmp_path / "after")


def test_73_without_a_manifest_says_why(tmp_path):
    _, answers, after = mended(73, tmp_path, {"README.md": "hello\n"})
    assert after == {} and isinstance(answers[0], Unfixed)


# --- ac:4 @AGENTS.md (safe) -------------------------------------------------------------------------------

@SETTINGS
@given(text=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=200))
def test_4_property_fix_then_check(text, tmp_path_factory):
    root = tmp_path_factory.mktemp("c4")
    repo = repository(root, {"AGENTS.md": "# rules\n", "CLAUDE.md": text})
    module = check_module(4)
    findings = module.check(repo)
    if not findings:
        return
    (fix,) = module.fix(repo, findings)
    assert not fix.unsafe and fix.text.endswith(text) and fix.text.startswith("@AGENTS.md")
    again = repository(tmp_path_factory.mktemp("c4after"), {"AGENTS.md": "# rules\n", "CLAUDE.md": fix.text})
    assert module.check(again) == []


def test_4_on_pinias_packages(corpus, tmp_path):
    root = corpus("pinia")
    files = {"AGENTS.md": "# pinia\n", "CLAUDE.md": (root / "README.md").read_text()}
    repo, _, after = mended(4, tmp_path / "before", files)
    assert after["CLAUDE.md"] == "@AGENTS.md\n\n" + files["CLAUDE.md"]
    assert_idempotent(4, tmp_path / "before", repo, after, tmp_path / "after")


# --- ac:12 and ac:13: a .gitattributes line (unsafe) ------------------------------------------------------

PATHS = st.lists(st.from_regex(r"[a-z][a-z0-9_.-]{0,8}(/[a-z][a-z0-9_.-]{0,8}){0,2}", fullmatch=True),
                 min_size=1, max_size=4, unique=True).filter(
    lambda paths: not any(a != b and (a.startswith(b + "/")) for a in paths for b in paths))


@SETTINGS
@given(paths=PATHS, attributes=st.sampled_from([None, "", "*.png binary\n", "# attributes\n*.sh text eol=lf"]))
def test_13_property_fix_then_check(paths, attributes, tmp_path_factory):
    root = tmp_path_factory.mktemp("g13")
    files = {path: "// @generated by a tool\nconst a = 1\n" for path in paths if path != ".gitattributes"}
    if attributes is not None:
        files[".gitattributes"] = attributes
    repo = repository(root, files)
    module = check_module(13)
    findings = module.check(repo)
    if not findings:
        return
    (fix,) = module.fix(repo, findings)
    assert fix.path == ".gitattributes" and fix.unsafe
    assert_kept(attributes, fix.text)
    again = repository(tmp_path_factory.mktemp("g13after"), {**files, ".gitattributes": fix.text})
    assert module.check(again) == []


def test_12_routes_a_large_file_through_lfs(tmp_path):
    files = {"data/big.bin": b"\1" * (1024 * 1024), ".gitattributes": "*.sh text\n"}
    repo, answers, after = mended(12, tmp_path / "before", files)
    assert after[".gitattributes"] == "*.sh text\n/data/big.bin filter=lfs diff=lfs merge=lfs -text\n"
    assert "git add --renormalize" in answers[0].note
    assert_idempotent(12, tmp_path / "before", repo, after, tmp_path / "after")


def test_insert_lines_keeps_every_byte():
    text = "a\r\nb\r\nc"
    assert insert_lines(text, [(1, "x"), (1, "y"), (3, "z")]) == "a\r\nx\r\ny\r\nb\r\nc\r\nz\r\n"
    assert insert_lines("", [(0, "x")]) == "x\n"


def test_the_catalogue_lists_every_fix_tier():
    import tomllib

    declared = {}
    for path in (REPO / "rules").glob("*.toml"):
        if path.stem.isdigit():
            fix = tomllib.loads(path.read_text(encoding="utf-8")).get("check", {}).get("fix")
            if fix:
                declared[int(path.stem)] = fix
    catalogue = (REPO / "docs" / "rule-catalogue.md").read_text(encoding="utf-8")
    table = catalogue.split("## Fixes", 1)[1].split("\n## ", 1)[0]
    rows = [row.split("|") for row in table.splitlines() if row.startswith("| ") and row[2].isdigit()]
    assert {int(cells[1]): cells[3].strip() for cells in rows} == declared
    for rule_id in declared:  # a declared tier has a fix to run
        assert callable(getattr(check_module(rule_id), "fix", None))


# --- ac:45 the rule's revision (safe, tomlkit) and ac:91 a debugger statement (safe) ------------------------

def test_45_raises_the_revision_and_keeps_the_rest_of_the_file(tmp_path):
    from .subjects import change

    rule = (REPO / "rules" / "71.toml").read_text(encoding="utf-8")   # a real rule file, comments and all
    before = rule.replace("revision = 3", "revision = 2") if "revision = 3" in rule else rule
    revision = int(before.split("revision = ", 1)[1].split("\n", 1)[0])
    subject = change(tmp_path, files={"rules/checks/r71.py": ("RULE = 71\n", "RULE = 71  # changed\n"),
                                      "rules/71.toml": (before, before.replace("[title]", "# note\n[title]"))})
    module = check_module(45)
    findings = module.check(subject)
    (fix,) = module.fix(subject, findings)
    edited = before.replace("[title]", "# note\n[title]")
    assert fix.text == edited.replace(f"revision = {revision}", f"revision = {revision + 1}", 1)
    assert_kept(edited, fix.text, allowed={1})
    fixed = change(tmp_path, files={"rules/checks/r71.py": ("RULE = 71\n", "RULE = 71  # changed\n"),
                                    "rules/71.toml": (before, fix.text)})
    assert module.check(fixed) == []


@SETTINGS
@given(lines=st.lists(st.sampled_from(["  debugger;", "debugger", "a(); debugger;", "{ debugger }", "b();",
                                       "if (x) debugger;", "// debugger"]), min_size=1, max_size=6))
def test_91_property_fix_then_check(lines, tmp_path_factory):
    from .subjects import change

    text = "\n".join(lines) + "\n"
    subject = change(tmp_path_factory.mktemp("d91"), files={"src/a.js": ("", text)})
    module = check_module(91)
    findings = module.check(subject)
    answers = module.fix(subject, findings)
    fixes = [answer for answer in answers if isinstance(answer, Fix)]
    left_alone = sum(isinstance(answer, Unfixed) for answer in answers)
    after = fixes[0].text if fixes else text
    again = module.check(change(tmp_path_factory.mktemp("d91after"), files={"src/a.js": ("", after)}))
    assert len(again) == left_alone   # only the statements that are an `if`'s body stay
    kept = iter(after.splitlines())   # every line without the statement is kept, in order
    assert all(any(line == other for other in kept) for line in text.splitlines() if "debugger" not in line)


def test_115_freezes_a_branch_rev_at_its_commit(git_server, tmp_path):
    url = f"{git_server['url']}/actions/checkout"
    text = (f"# hooks\nrepos:\n  - repo: {url}\n    rev: main   # moves\n    hooks:\n      - id: a\n"
            "  - repo: local\n    hooks:\n      - id: b\n")
    repo, answers, after = mended(115, tmp_path / "before", {".pre-commit-config.yaml": text})
    fixed = after[".pre-commit-config.yaml"]
    assert fixed.splitlines()[3] == f"    rev: {git_server['v4']}   # moves"
    assert_kept(text, fixed, allowed={3})
    assert all(answer.unsafe for answer in answers)
    assert_idempotent(115, tmp_path / "before", repo, after, tmp_path / "after")
    plain = text.replace("   # moves", "")
    _, _, after = mended(115, tmp_path / "plain", {".pre-commit-config.yaml": plain})
    assert after[".pre-commit-config.yaml"].splitlines()[3] == f"    rev: {git_server['v4']}  # frozen: v4.2.2"
