"""The one parser of `agent-constitution`: every verb × (`--help`, an unknown option, an unknown
variable, a typo'd verb), with the stream, the text and the exit code; the global options on every
verb; shell completion (the answers, and the bash script run by bash)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution import cli, console
from agent_constitution.commands import completion, parser
from agent_constitution.tasks.verbs import VERBS

PROJECT = Path(__file__).resolve().parents[1]
EVERY_VERB = parser.verbs()
TASK_VERBS = list(VERBS)


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path, monkeypatch):
    # No repository: a parse that went on to run something would fail differently.
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    yield
    console.settings.__init__()


def test_the_table_has_every_verb_once():
    assert len(EVERY_VERB) == len(set(EVERY_VERB))
    assert {"init", "help", "doit", "completion", "compile", "check", "fetch"} <= set(EVERY_VERB)


@pytest.mark.parametrize("verb", EVERY_VERB)
def test_help_lists_the_options_and_variables_on_stdout(verb, capsys, tmp_path):
    assert cli.main([verb, "--help"]) == 0
    out = capsys.readouterr()
    assert not out.err and not any(tmp_path.iterdir())
    if verb == "doit":  # doit's own command line, its own help
        assert "doit" in out.out
        return
    assert out.out.startswith(f"usage: agent-constitution {verb}")
    for flag in ("-q, --quiet", "-v, --verbose", "--color auto|always|never", "-V, --version", "-h, --help",
                 "Exit status: 0 done", "Reference: https://github.com/Luolc/agent-constitution/blob/main/docs/"):
        assert flag in out.out, flag
    if verb in VERBS:
        for option in VERBS[verb].options:
            assert f"--{option['long']}" in out.out
        for name, (values, _) in VERBS[verb].variables.items():
            assert f"{name}={values}" in out.out


@pytest.mark.parametrize("verb", EVERY_VERB)
def test_an_unknown_option_is_an_error_with_exit_2(verb, capsys):
    assert cli.main([verb, "--bogus-option"]) == 2
    out = capsys.readouterr()
    assert not out.out
    if verb == "doit":  # doit's refusal, with doit's usage exit mapped to 2
        assert "bogus-option" in out.err
        return
    assert out.err.startswith(f"error: unknown option '--bogus-option' for `agent-constitution {verb}`\n  fix: ")
    assert f"`agent-constitution {verb} --help` lists the options" in out.err


@pytest.mark.parametrize("verb", [verb for verb in EVERY_VERB if verb != "doit"])
def test_an_unknown_variable_is_an_error_with_exit_2(verb, capsys):
    assert cli.main([verb, "bogus=1"]) == 2
    out = capsys.readouterr()
    assert not out.out
    assert out.err.startswith(f"error: unknown variable 'bogus' for `agent-constitution {verb}`\n  fix: ")


@pytest.mark.parametrize("verb", EVERY_VERB)
def test_a_typod_verb_is_an_error_that_names_the_verb(verb, capsys):
    assert cli.main([verb[:-1]]) == 2
    out = capsys.readouterr()
    assert not out.out
    assert out.err == (f"error: unknown command {verb[:-1]!r}\n"
                       f"  fix: did you mean `agent-constitution {verb}`? `agent-constitution --help` lists the commands\n")


@pytest.mark.parametrize("verb", [verb for verb in EVERY_VERB if verb != "doit"])
@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_version_on_every_verb(verb, flag, capsys):
    assert cli.main([verb, flag]) == 0
    assert capsys.readouterr().out.startswith("agent-constitution 0.1.0")


def test_the_nearest_option_and_variable_are_suggested(capsys):
    assert cli.main(["compile", "--lockd"]) == 2
    assert "fix: did you mean '--locked'?" in capsys.readouterr().err
    assert cli.main(["check", "--format", "json"]) == 2
    assert "fix: did you mean '--output-format'?" in capsys.readouterr().err
    assert cli.main(["check", "chnage=staged"]) == 2
    assert "fix: did you mean 'change='? its variables: change=, record=, message=, rules=, segments=, undecidable=" in (
        capsys.readouterr().err)
    assert cli.main(["check", "--output-format", "jsno"]) == 2
    assert "'jsno' is not one of full, concise, json, sarif, github, gitlab (did you mean 'json'?)" in (
        capsys.readouterr().err)
    assert cli.main(["check", "--color", "alway"]) == 2
    assert "(did you mean 'always'?)" in capsys.readouterr().err
    assert cli.main(["check", "stray"]) == 2
    assert "error: unexpected argument 'stray' for `agent-constitution check`" in capsys.readouterr().err
    assert cli.main(["check", "rules=ac:1", "rules=ac:2"]) == 2
    assert "rules= was given twice" in capsys.readouterr().err
    assert cli.main(["-q", "check", "-v"]) == 2
    assert "-q and -v were both given" in capsys.readouterr().err


@pytest.mark.parametrize("args,verbosity,color", [
    (["check"], console.NORMAL, "auto"),
    (["check", "-v"], console.VERBOSE, "auto"),
    (["-v", "check", "-v"], console.DEBUG, "auto"),
    (["check", "-vv"], console.DEBUG, "auto"),
    (["check", "-q"], console.QUIET, "auto"),
    (["-q", "check"], console.QUIET, "auto"),
    (["--color", "never", "check"], console.NORMAL, "never"),
    (["--color=never", "check", "--color", "always"], console.NORMAL, "always"),
])
def test_global_options_before_or_after_the_verb(args, verbosity, color):
    invocation = parser.parse(args, environ={})
    assert (invocation.verbosity, invocation.color) == (verbosity, color)


def test_what_a_task_verb_passes_on():
    invocation = parser.parse(["upgrade", "--source", "ac", "--open", "-j", "3"], environ={})
    assert invocation.options == {"source": "ac", "open_pr": True} and invocation.jobs == 3  # by name
    invocation = parser.parse(["fetch", "ac", "other"], environ={})  # `resolution` is one task: it takes no SEGMENT
    assert invocation.words == ("ac", "other")
    invocation = parser.parse(["check", "change=staged", "-v", "message=.git/COMMIT_EDITMSG"], environ={})
    assert invocation.variables == {"change": "staged", "message": ".git/COMMIT_EDITMSG"}


def test_github_actions_chooses_the_github_format():
    assert parser.parse(["check"], environ={"GITHUB_ACTIONS": "true"}).output_format == "github"
    assert parser.parse(["check"], environ={}).output_format == "full"
    given = parser.parse(["check", "--output-format", "json"], environ={"GITHUB_ACTIONS": "true"})
    assert given.output_format == "json"
    assert parser.parse(["compile"], environ={"GITHUB_ACTIONS": "true"}).output_format == "full"


def test_the_overview_names_every_verb_and_the_exit_codes(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for verb in EVERY_VERB:
        assert f"\n  {verb} " in out
    assert parser.EXIT_CODES in out


# --- completion -----------------------------------------------------------------------------------


def test_completion_offers_verbs_options_variables_and_values(tmp_path):
    (tmp_path / "rules.lock").write_text('version = 2\n[rules]\n"ac:12" = {}\n"ac:14" = {}\n"ac:140" = {}\n')
    (tmp_path / "sub").mkdir()
    here = tmp_path / "sub"
    assert completion.complete(["co"], here) == ["completion", "compile", "compile:user"]
    assert completion.complete(["-v", "chec"], here) == ["check"]
    assert "--locked" in completion.complete(["compile", "--l"], here)
    assert completion.complete(["check", "--output-format", "g"], here) == ["github", "gitlab"]
    assert completion.complete(["check", "--color", ""], here) == ["auto", "always", "never"]
    assert completion.complete(["check", "ch"], here) == ["change="]
    assert completion.complete(["check", "change=s"], here) == ["change=staged"]
    assert completion.complete(["check", "undecidable="], here) == ["undecidable=warn", "undecidable=fail"]
    assert completion.complete(["check", "rules=ac:1"], here) == ["rules=ac:12", "rules=ac:14", "rules=ac:140"]
    assert completion.complete(["check", "rules=ac:12,ac:14"], here) == ["rules=ac:12,ac:14", "rules=ac:12,ac:140"]
    assert completion.complete(["completion", ""], here) == ["bash", "zsh", "fish"]
    assert "formats" in completion.complete(["help", "f"], here)
    assert completion.complete(["nothing", ""], here) == []
    # doit's own commands are not verbs: never offered.
    assert "list" not in completion.complete([""], here) and "forget" not in completion.complete([""], here)


def test_rule_ids_need_a_readable_lock(tmp_path):
    assert completion.rule_ids(tmp_path) == []
    (tmp_path / "rules.lock").write_text("not toml [")
    assert completion.rule_ids(tmp_path) == []


def test_the_bash_script_completes_through_the_command(tmp_path):
    """bash runs the printed script and the completion function, as it would on TAB."""
    (tmp_path / "rules.lock").write_text('[rules]\n"ac:12" = {}\n"ac:14" = {}\n')
    script = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "completion", "bash"],
                            capture_output=True, text=True, check=True).stdout
    program = tmp_path / "agent-constitution"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} -m agent_constitution.cli \"$@\"\n")
    program.chmod(0o755)

    def tab(line: str) -> list[str]:
        words = line.split(" ")
        shell = (f"{script}\nCOMP_LINE={line!r}; COMP_POINT={len(line)}; COMP_WORDS=({' '.join(map(repr, words))});"
                 f" COMP_CWORD={len(words) - 1}; _agent_constitution_complete; printf '%s|' \"${{COMPREPLY[@]}}\"")
        done = subprocess.run(["bash", "--norc", "-c", shell], cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"})
        assert done.returncode == 0, done.stderr
        return done.stdout.split("|")[:-1]

    program_line = f"{program} "
    assert tab(program_line + "chec") == ["check "]
    assert tab(program_line + "check und") == ["undecidable="]
    # bash breaks the word at `=` and `:`: it is given what follows the last of them.
    assert tab(program_line + "check rules=ac:1") == ["12 ", "14 "]


@pytest.mark.parametrize("shell", completion.SHELLS)
def test_every_shell_gets_a_script_naming_both_programs(shell, capsys):
    assert cli.main(["completion", shell]) == 0
    out = capsys.readouterr().out
    assert completion.VARIABLE in out and "agent-constitution" in out and "agc" in out
    checker = {"bash": ["bash", "-n"], "zsh": ["zsh", "-n"], "fish": ["fish", "--no-execute"]}[shell]
    if subprocess.run(["which", checker[0]], capture_output=True).returncode == 0:
        assert subprocess.run([*checker], input=out, text=True, capture_output=True).returncode == 0


def test_completion_answers_through_the_environment_variable(tmp_path):
    done = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "check", "--output-format", ""],
                          env={**os.environ, completion.VARIABLE: "zsh"}, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.split() == list(parser.output_formats())
    assert cli.main(["completion"]) == 2


def _program_on_path(tmp_path: Path) -> dict:
    program = tmp_path / "agent-constitution"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} -m agent_constitution.cli \"$@\"\n")
    program.chmod(0o755)
    return {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (.ci/run installs it)")
def test_the_zsh_script_completes_through_the_command(tmp_path):
    """zsh runs the printed function as its completion system would on TAB: `words` and `CURRENT` set,
    `compadd` receiving the candidates (recorded here instead of shown)."""
    script = subprocess.run([sys.executable, "-m", "agent_constitution.cli", "completion", "zsh"],
                            capture_output=True, text=True, check=True).stdout
    env = _program_on_path(tmp_path)

    def tab(*words: str) -> list[str]:
        quoted = " ".join(f"'{word}'" for word in words)
        shell = (f"compdef() {{ :; }}\n{script}\ncompadd() {{ print -l -- \"${{@[-1]}}\" }}\n_files() {{ print FILES }}\n"
                 f"words=({quoted}); CURRENT={len(words)}; _agent_constitution_complete")
        done = subprocess.run(["zsh", "-f", "-c", shell], cwd=tmp_path, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert "check" in tab("agent-constitution", "chec")
    assert tab("agent-constitution", "check", "und") == ["undecidable="]
    assert tab("agent-constitution", "nothing-like-a-verb", "x") == ["FILES"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed (.ci/run installs it)")
def test_the_fish_script_completes_through_the_command(tmp_path):
    """fish sources the printed script and completes a command line (`complete -C`), as on TAB."""
    env = _program_on_path(tmp_path)

    def tab(line: str) -> list[str]:
        shell = f"agent-constitution completion fish | source; complete -C {line!r}"
        done = subprocess.run(["fish", "--no-config", "-c", shell], cwd=tmp_path, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return [candidate.split("\t")[0] for candidate in done.stdout.splitlines()]

    assert tab("agent-constitution chec") == ["check"]
    assert set(parser.output_formats()) <= set(tab("agent-constitution check --output-format "))
