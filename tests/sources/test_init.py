import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agent_constitution import cli
from agent_constitution.ruleset.models import Manifest, load
from agent_constitution.ruleset.resolve import resolve
from agent_constitution.commands import starter
from agent_constitution.commands.starter import (
    DODO,
    EDITION,
    REVISION,
    SOURCE_URL,
    STARTER_EXCLUDE,
    STARTER_PACKAGES,
    URL_VARIABLE,
    built_from,
    starter_manifest,
)

PROJECT = Path(__file__).resolve().parents[2]
HEAD = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def local_source(tmp_path_factory) -> tuple[str, Path]:
    """A bare clone of this checkout for init to read the starter source from, and a user cache."""
    base = tmp_path_factory.mktemp("starter-source")
    subprocess.run(["git", "clone", "-q", "--bare", str(PROJECT), str(base / "ac.git")], check=True)
    return (base / "ac.git").as_uri(), base / "user-cache"


@pytest.fixture(autouse=True)
def starter_from_local_source(local_source, monkeypatch) -> str:
    """init reads the pinned source; here from the local clone, never from GitHub."""
    url, cache = local_source
    monkeypatch.setenv(URL_VARIABLE, url)
    monkeypatch.setenv("AGENT_CONSTITUTION_CACHE", str(cache))
    return url


def run(root: Path, capsys, *flags: str) -> tuple[int, str, str]:
    code = cli.main(["init", str(root), *flags])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_init_in_an_empty_folder_writes_the_manifest_pinned_to_this_checkout(tmp_path: Path, capsys, starter_from_local_source):
    code, out, _ = run(tmp_path, capsys)
    assert code == 0
    assert "rules.toml: written" in out and "cache/.gitignore: written" in out
    manifest = load(Manifest, tmp_path / "rules.toml")
    assert manifest.constitution.edition == EDITION and manifest.constitution.revision == REVISION
    source = manifest.sources["ac"]
    # The test environment is an editable install of this checkout: the pin is its HEAD.
    assert (source.url, source.trust, source.rev, source.tag, source.branch) == (starter_from_local_source, True, HEAD, None, None)
    assert manifest.rules == tuple(f"ac:{package}" for package in STARTER_PACKAGES)
    assert manifest.exclude == tuple(f"ac:{rule}" for rule in STARTER_EXCLUDE)
    # No doit wiring unless asked for: the agent-constitution command runs the tasks itself.
    assert sorted(path.name for path in tmp_path.iterdir()) == ["AGENTS.md", "cache", "rules.toml"]


def test_init_with_doit_writes_a_dodo(tmp_path: Path, capsys):
    code, out, _ = run(tmp_path, capsys, "--doit")
    assert code == 0 and "dodo.py: written" in out
    assert (tmp_path / "dodo.py").read_text() == DODO
    assert len(DODO.splitlines()) == 3
    listed = subprocess.run([sys.executable, "-m", "doit", "list"], cwd=tmp_path, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert "compile" in listed.stdout


def test_init_never_overwrites(tmp_path: Path, capsys):
    files = {"rules.toml": "# mine\n", "dodo.py": "# my tasks\n", "cache/.gitignore": "x\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    code, out, _ = run(tmp_path, capsys, "--doit")
    assert code == 0
    for name, text in files.items():
        assert (tmp_path / name).read_text() == text
    assert (tmp_path / "pyproject.toml").read_text() == "[project]\nname = 'x'\n"
    assert "rules.toml: exists, left unchanged" in out
    assert "dodo.py: exists, left unchanged; add these lines" in out and "globals().update(namespace())" in out
    assert run(tmp_path, capsys, "--doit")[0] == 0


def test_init_appends_the_loader_to_pyproject(tmp_path: Path, capsys):
    original = '# my project\n[project]\nname = "x"  # keep\n\n[tool.ruff]\nline-length = 100\n'
    (tmp_path / "pyproject.toml").write_text(original)
    code, out, _ = run(tmp_path, capsys, "--doit")
    assert code == 0 and "[tool.doit] loader" in out
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(original)
    data = tomllib.loads(text)
    assert data["tool"] == {"ruff": {"line-length": 100}, "doit": {"loader": "agent-constitution"}}
    assert not (tmp_path / "dodo.py").exists()
    listed = subprocess.run([sys.executable, "-m", "doit", "list"], cwd=tmp_path, capture_output=True, text=True)
    assert listed.returncode == 0 and "compile" in listed.stdout, listed.stderr
    assert run(tmp_path, capsys, "--doit")[1].count("already uses the agent-constitution loader") == 1
    assert (tmp_path / "pyproject.toml").read_text() == text


def test_init_keeps_other_doit_settings(tmp_path: Path, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.doit]\nverbosity = 2\n')
    assert run(tmp_path, capsys, "--doit")[0] == 0
    assert tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["doit"] == {
        "verbosity": 2,
        "loader": "agent-constitution",
    }


def test_another_loader_is_an_error_and_nothing_is_written(tmp_path: Path, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.doit]\nloader = "other"\n')
    code, _, err = run(tmp_path, capsys, "--doit")
    assert code == 2  # an input error
    assert "tool.doit.loader: [tool.doit] loader is 'other'" in err and "fix:" in err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pyproject.toml"]


def test_invalid_pyproject_is_an_error(tmp_path: Path, capsys):
    (tmp_path / "pyproject.toml").write_text("[project\n")
    code, _, err = run(tmp_path, capsys, "--doit")
    assert code == 2  # an input error and "pyproject.toml:1: not valid TOML" in err and "Traceback" not in err


@pytest.mark.parametrize(("make", "expected"), [
    (lambda path: path.mkdir(), "pyproject.toml: is a folder, expected a file"),
    (lambda path: path.write_text("a = " + "[" * 3000 + "]" * 3000 + "\n"), "pyproject.toml: values are nested too deeply"),
    (lambda path: path.write_text("a = " + "1" * 5000 + "\n"), "pyproject.toml:1: an integer has more than 4,300 digits"),
    (lambda path: path.write_bytes(b"[project]\nname = '\xff'\n"), "pyproject.toml:2: not UTF-8 text"),
])
def test_a_hostile_pyproject_is_one_error(tmp_path: Path, capsys, make, expected):
    make(tmp_path / "pyproject.toml")
    code, _, err = run(tmp_path, capsys, "--doit")
    assert code == 2  # an input error and expected in err and "fix:" in err and "Traceback" not in err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pyproject.toml"]


def test_missing_folder_is_an_error(tmp_path: Path, capsys):
    code, _, err = run(tmp_path / "nowhere", capsys)
    assert code == 2  # an input error and "is not a folder" in err


def test_help_and_missing_command(capsys):
    assert cli.main(["init", "--help"]) == 0
    assert "left as they are" in capsys.readouterr().out
    assert cli.main([]) == 2
    assert "usage: agent-constitution" in capsys.readouterr().err
    assert cli.main(["init", "--bogus"]) == 2


def test_the_starter_url_is_this_projects_unless_pointed_elsewhere_for_tests(monkeypatch):
    monkeypatch.delenv(URL_VARIABLE)
    assert starter.starter_url() == SOURCE_URL == "https://github.com/Luolc/agent-constitution"
    monkeypatch.setenv(URL_VARIABLE, "file:///srv/rules.git")
    assert starter.starter_url() == "file:///srv/rules.git"


def test_a_source_that_cannot_be_fetched_writes_nothing(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setenv(URL_VARIABLE, (tmp_path / "nowhere.git").as_uri())
    (tmp_path / "repo").mkdir()
    code, _, err = run(tmp_path / "repo", capsys, "--doit")
    assert code == 2  # an input error and "error:" in err and "Traceback" not in err
    assert not any((tmp_path / "repo").iterdir())


class FakeDistribution:
    def __init__(self, direct_url: str | None):
        self.direct_url = direct_url

    def read_text(self, name):
        return self.direct_url if name == "direct_url.json" else None


def test_a_git_install_pins_the_commit_it_was_built_from(monkeypatch):
    commit = "0123456789abcdef0123456789abcdef01234567"
    direct = f'{{"url": "https://github.com/Luolc/agent-constitution", "vcs_info": {{"vcs": "git", "commit_id": "{commit}"}}}}'
    monkeypatch.setattr(starter, "distribution", lambda name: FakeDistribution(direct))
    assert built_from() == commit
    assert starter.starter_pin() == f'rev = "{commit}"'


def test_an_editable_install_pins_its_checkouts_head(monkeypatch):
    monkeypatch.setattr(starter, "distribution",
                        lambda name: FakeDistribution(f'{{"url": "{PROJECT.as_uri()}", "dir_info": {{"editable": true}}}}'))
    assert built_from() == HEAD


def test_a_wheel_pins_the_commit_it_carries_else_the_release_tag(monkeypatch, tmp_path: Path):
    package = tmp_path / "agent_constitution"
    package.mkdir()
    monkeypatch.setattr(starter, "distribution", lambda name: FakeDistribution(None))
    monkeypatch.setattr(starter, "files", lambda name: package)
    assert built_from() is None
    assert starter.starter_pin() == 'tag = "v0.1.0"'
    (package / starter.COMMIT_FILE).write_text(HEAD + "\n")
    assert built_from() == HEAD


def test_the_console_script_runs(tmp_path: Path):
    done = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "init", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "rules.toml").is_file()


def test_the_starter_manifest_resolves_against_this_projects_source(tmp_path: Path):
    # The same manifest, with the source read from this checkout instead of the pinned commit.
    manifest = starter_manifest(SOURCE_URL, f'rev = "{HEAD}"')
    remote = f'ac = {{ url = "{SOURCE_URL}", rev = "{HEAD}", trust = true }}'
    assert remote in manifest
    (tmp_path / "rules.toml").write_text(manifest.replace(remote, f'ac = {{ path = "{PROJECT}", trust = true }}'))
    [segment] = resolve(tmp_path).segments
    packages = {rule.why for rule in segment.rules}
    assert packages == {f"package ac:{package}" for package in STARTER_PACKAGES}
    assert not {rule.id for rule in segment.rules} & set(STARTER_EXCLUDE)


def test_the_starter_pins_the_constitution_this_project_publishes():
    index = Path(__file__).resolve().parents[2] / "constitution" / EDITION / "index.toml"
    published = tomllib.loads(index.read_text(encoding="utf-8"))
    assert (published["edition"], published["revision"]) == (EDITION, REVISION)
