"""The reviewer presets against the real agent CLIs from npm, without a model call: every flag a
preset passes is one its CLI's `--help` lists, with the values the preset gives it, and the answer
schema is one each CLI's structured-output mode takes. What a model prints is not checkable offline
(docs/checks.md, "The presets and the real CLIs"); the stand-ins in test_reviewer.py hold those shapes."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from agent_constitution.checks.reviewer import ANSWER_SCHEMA, PRESETS
from tests.consumers import npm_bin

# The CLI of each preset, and the subcommand whose help lists the flags the preset uses.
CLIS = {"claude": ("claude", ()), "codex": ("codex", ("exec",)), "gemini": ("gemini", ())}


def help_text(preset: str, tmp_path: Path) -> str:
    program, sub = CLIS[preset]
    # A home of the test's own: a CLI may write its settings there on first start.
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"), "NO_COLOR": "1"}
    done = subprocess.run([str(npm_bin(program)), *sub, "--help"], capture_output=True, text=True, timeout=120,
                          env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_flag_of_a_preset_is_one_its_cli_lists(preset: str, tmp_path: Path):
    text = help_text(preset, tmp_path)
    command = PRESETS[preset].command
    assert command[0] == CLIS[preset][0]
    flags = [part for part in command[1:] if part.startswith("-") and part != "-"]
    assert flags
    for flag in flags:
        assert re.search(rf"(^|[\s,]){re.escape(flag)}([\s,=<\[]|$)", text, re.MULTILINE), f"{preset}: {flag} not in --help"


def test_claude_takes_json_output_and_a_schema_in_print_mode(tmp_path: Path):
    text = help_text("claude", tmp_path)
    assert re.search(r"--output-format <format>.*?\"json\"", text, re.DOTALL)
    assert "--json-schema <schema>" in text and "-p, --print" in text


def test_codex_exec_reads_the_prompt_from_stdin_and_takes_a_schema_file(tmp_path: Path):
    text = help_text("codex", tmp_path)
    assert "if `-` is used),\n          instructions are read from stdin" in text or re.search(
        r"`-`.*?read from\s+stdin", text, re.DOTALL)
    assert "--output-schema <FILE>" in text and "Print events to stdout as JSONL" in text
    assert re.search(r"--sandbox <SANDBOX_MODE>.*?read-only", text, re.DOTALL)
    # `--output-schema` is OpenAI's strict structured output: every property required, no others.
    assert set(ANSWER_SCHEMA["required"]) == set(ANSWER_SCHEMA["properties"])
    assert ANSWER_SCHEMA["additionalProperties"] is False


def test_gemini_appends_stdin_to_its_prompt_and_prints_json(tmp_path: Path):
    text = help_text("gemini", tmp_path)
    assert re.search(r"-p, --prompt .*?Appended to input on stdin", text, re.DOTALL)
    assert re.search(r"--output-format .*?\"json\"", text, re.DOTALL)
