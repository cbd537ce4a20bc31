"""Hostile inputs to the covenant judge: each fails closed (exit 2, a reason) well inside a hook timeout.

Every case runs the real `pdks` console script on a project in a temp dir, with a generous time
bound (the limits themselves are far tighter; the bound only proves nothing hangs).
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.covenant import budget
from agent_constitution.covenant.adapters import claude_code, codex, grok
from agent_constitution.covenant.adapters.common import Refusal
from agent_constitution.covenant.config import ConfigError, parse
from agent_constitution.covenant.plan import PLAN_DIR, build_plan, load_plan

PDKS = Path(sys.executable).with_name("pdks")
# Seconds: that the call ends at all, well before a host's hook timeout (60 s and more), on a shared
# and loaded machine too; the judge's own run budget (10 s) is what makes it end. How fast it ends
# is measured in bench/bench_pdks.py, not here.
BOUND = 30.0
CONFIG = """\
languages: { ts: { productionGlob: 'src/**', testCmd: 'run {scope}' } }
protectedPaths: ['.claude/settings.json', 'gate']
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text("{}\n")
    (root / "src").mkdir()
    (root / "src" / "a.ts").write_text("x=a\n")
    (root / "polydeukes.config.yaml").write_text(CONFIG)
    return root


def run(root, args, stdin):
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "HOME": str(root.parent)}
    env.pop("POLYDEUKES_TELEMETRY_PATH", None)
    start = time.monotonic()
    done = subprocess.run([str(PDKS), *args], input=stdin, capture_output=True, cwd=root, env=env, timeout=60)
    return done.returncode, done.stderr.decode(), time.monotonic() - start


def hook(root, tool_name, tool_input, **extra):
    payload = {"hook_event_name": "PreToolUse", "cwd": str(root), "tool_name": tool_name, "tool_input": tool_input}
    return run(root, ["hook", "claude-code"], json.dumps({**payload, **extra}).encode())


def bash(root, command):
    return hook(root, "Bash", {"command": command})


# --- part 5: budgets ------------------------------------------------------------------------------


def test_a_10_mb_bash_command_is_refused_fast(project):
    code, err, took = bash(project, "echo " + "a" * 10_000_000)
    assert code == 2
    assert "the payload is over the 8 MiB the judge reads" in err
    assert took < BOUND


def test_a_command_over_the_length_limit_is_refused_before_tokenizing(project):
    code, err, took = bash(project, "x\n" * 400_000)  # 800,000 characters, inside the payload limit
    assert code == 2
    assert f"the Bash command is 800000 characters, over the judge's limit of {budget.COMMAND_LIMIT}" in err
    assert took < BOUND


def test_the_longest_command_still_judged_is_judged_in_time(project):
    code, err, took = bash(project, "x\n" * (budget.COMMAND_LIMIT // 2))
    assert code == 0, err
    assert took < BOUND


def test_a_yaml_alias_bomb_fails_fast_with_a_clear_error(project):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]
    (project / "polydeukes.config.yaml").write_text(CONFIG + "\n".join(lines) + "\n")
    code, err, took = bash(project, "ls")
    assert code == 2
    assert f"expands to more than {budget.YAML_NODES} nodes through its aliases" in err
    assert took < BOUND


def test_deep_yaml_nesting_fails_with_a_clear_error(project):
    (project / "polydeukes.config.yaml").write_text(CONFIG + "x: " + "[" * 3000 + "]" * 3000 + "\n")
    code, err, took = bash(project, "ls")
    assert code == 2
    assert f"the document nests deeper than {budget.YAML_DEPTH} levels" in err
    assert took < BOUND


def test_an_oversized_config_is_refused(project):
    (project / "polydeukes.config.yaml").write_text(CONFIG + "#" * budget.CONFIG_LIMIT + "\n")
    code, err, took = bash(project, "ls")
    assert code == 2
    assert "over the 48 KiB limit" in err
    assert took < BOUND


CATASTROPHIC = """\
disciplines:
  - id: 'slow-scope'
    enforce: block
    declare:
      mechanism: 'naming'
      scope: { source: 'target.path', include: ['^(a+)+$'] }
      extract:
        outside: [{ op: 'source', of: 'target.path' }, { op: 'matches', re: '^(?!data/)' }]
      relate:
        - { id: 'placed', relation: { op: 'empty', of: 'outside' }, message: '{value}' }
"""


def test_a_catastrophic_regex_in_a_scope_is_stopped_by_the_regex_budget(project):
    (project / "polydeukes.config.yaml").write_text(CONFIG + CATASTROPHIC)
    code, err, took = hook(project, "Write", {"file_path": "a" * 40 + "!", "content": "x"})
    assert code == 2
    assert "regular-expression matching ran past its 1 s budget for this run" in err
    assert took < BOUND


def test_a_fifo_write_target_is_refused_without_opening(project):
    os.mkfifo(project / "src" / "pipe.ts")
    code, err, took = hook(project, "Write", {"file_path": str(project / "src" / "pipe.ts"), "content": "x"})
    assert code == 2
    assert "the pre-state of the target could not be read (the target" in err
    assert "pipe.ts is not a regular file)" in err
    assert took < BOUND


def test_a_fifo_transcript_is_refused_without_opening(project):
    os.mkfifo(project / "session.jsonl")
    code, err, took = hook(project, "Bash", {"command": "ls"}, transcript_path=str(project / "session.jsonl"))
    assert code == 2
    assert "the session evidence could not be gathered (the transcript" in err
    assert took < BOUND


def test_a_device_transcript_is_refused(project):
    code, err, took = hook(project, "Bash", {"command": "ls"}, transcript_path="/dev/zero")
    assert code == 2
    assert "the transcript /dev/zero is not a regular file" in err
    assert took < BOUND


def test_a_fifo_as_shell_write_target_blocks(project):
    os.mkfifo(project / "src" / "pipe.ts")
    (project / "polydeukes.config.yaml").write_text(CONFIG + CATASTROPHIC.replace("^(a+)+$", "^src/"))
    transcript = project.parent / "t.jsonl"
    transcript.write_text("")
    code, err, took = hook(project, "Bash", {"command": "echo x >> src/pipe.ts"}, transcript_path=str(transcript))
    assert code == 2
    assert "pipe.ts is not a regular file" in err
    assert took < BOUND


def test_a_fifo_file_source_fails_closed(project, tmp_path):
    os.mkfifo(project / "gate.json")
    source = CATASTROPHIC.replace("^(a+)+$", "^src/").replace(
        "      extract:", "      sources: { g: { file: 'gate.json' } }\n      extract:"
    )
    (project / "polydeukes.config.yaml").write_text(CONFIG + source)
    code, err, took = hook(project, "Write", {"file_path": "src/b.ts", "content": "x"})
    assert code == 2
    assert "gate.json is not a regular file" in err
    assert took < BOUND


def test_a_fifo_telemetry_log_is_never_opened(project):
    (project / ".polydeukes").mkdir()
    os.mkfifo(project / ".polydeukes" / "roi.log")
    code, err, took = bash(project, "ls")
    assert code == 0, err
    assert took < BOUND


def test_stdin_over_the_limit_fails_the_session_check_closed(project):
    code, err, took = run(project, ["covenant", "check", "--enforce", "block"], b" " * (budget.PAYLOAD_LIMIT + 1))
    assert code == 2
    assert "covenant check failed closed: the input is over the 8 MiB the judge reads" in err
    assert took < BOUND


def test_the_run_deadline_interrupts_a_blocked_read(project):
    # Stdin that never ends: only the run's deadline can stop the read.
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    code = (
        "import sys; from agent_constitution.covenant import budget, cli; budget.SESSION_BUDGET = (1.0, 0.5);"
        " sys.exit(cli.main(['hook', 'claude-code']))"
    )
    start = time.monotonic()
    with subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project, env=env
    ) as child:
        child.wait(timeout=30)  # stdin stays open the whole time
        err = child.stderr.read()
    assert child.returncode == 2
    assert time.monotonic() - start < BOUND
    assert b"the judgment ran past its 1 s budget" in err


# --- part 4: trust only what can be verified ------------------------------------------------------


def test_a_tampered_plan_does_not_change_a_verdict(project):
    assert bash(project, "ls")[0] == 0  # compiles and stores the plan
    (plan,) = (project / PLAN_DIR).glob("*.json")
    head, _, body = plan.read_bytes().partition(b"\n")
    data = json.loads(body)
    assert ".claude/settings.json" in data["protected"]
    data["protected"] = []
    plan.write_bytes(head + b"\n" + json.dumps(data).encode())  # edited, seal kept
    code, err, took = hook(project, "Write", {"file_path": ".claude/settings.json", "content": "{}"})
    assert code == 2
    assert "Write would modify protected path .claude/settings.json" in err
    assert took < BOUND
    assert json.loads(plan.read_bytes().partition(b"\n")[2])["protected"][0] == ".claude/settings.json"


def test_an_unsealed_plan_is_recompiled(project):
    load_plan(project)
    (plan,) = (project / PLAN_DIR).glob("*.json")
    plan.write_text(json.dumps({"format": 2, "error": None, "protected": []}))
    assert load_plan(project)["protected"] == [".claude/settings.json", "gate", "polydeukes.config.yaml", ".polydeukes"]


def test_the_state_folder_is_protected(project):
    code, err, _ = bash(project, "echo '{}' > .polydeukes/plans/x.json")
    assert code == 2
    assert "redirect-write targets protected path .polydeukes" in err
    code, err, _ = hook(project, "Write", {"file_path": ".polydeukes/baseline.json", "content": "{}"})
    assert code == 2
    assert "Write would modify protected path .polydeukes/baseline.json" in err


def test_a_symlink_to_a_protected_folder_is_followed_by_edits(project):
    (project / "cl").symlink_to(".claude")
    code, err, took = hook(
        project, "Edit", {"file_path": str(project / "cl" / "settings.json"), "old_string": "{}", "new_string": "[]"}
    )
    assert code == 2
    assert f"Edit would modify protected path .claude/settings.json through the symlink {project}/cl/settings.json" in err
    assert took < BOUND


def test_a_symlink_is_followed_in_shell_words(project):
    (project / "cl").symlink_to(".claude")
    code, err, _ = bash(project, "echo x > cl/settings.json")
    assert code == 2
    assert "redirect-write targets protected path .claude/settings.json through cl/settings.json" in err
    assert bash(project, "cat cl/settings.json")[0] == 0  # reading through the link stays allowed


def test_creating_an_alias_to_a_protected_path_is_blocked(project):
    code, err, _ = bash(project, "ln -s .claude cl")
    assert code == 2
    assert "ln would create an alias to protected path .claude/settings.json" in err


def test_a_glob_naming_a_protected_path_is_blocked(project):
    code, err, took = bash(project, "ln -s .cl*e cl")
    assert code == 2
    assert "ln would create an alias to protected path .claude/settings.json" in err
    assert took < BOUND
    code, err, _ = bash(project, "sed -i s/a/b/ .cl[a]ude/sett*")
    assert code == 2
    assert "protected path .claude/settings.json" in err
    code, err, _ = bash(project, "rm -rf *")
    assert code == 2
    assert "rm reaches protected path .claude/settings.json through * without read-only proof" in err
    code, err, _ = bash(project, "rm .cl{a,}ude/settings.json")
    assert code == 2
    assert "through .cl{a,}ude/settings.json" in err


def test_globs_that_cannot_reach_a_protected_path_pass(project):
    for command in ("rm -f src/*.o", "ls *", "cat src/*.ts", "echo {a,b}.txt"):
        code, err, _ = bash(project, command)
        assert code == 0, (command, err)


def test_a_glob_after_a_directory_change_is_compared_at_any_depth(project):
    code, err, _ = bash(project, "cd src && rm -rf *")
    assert code == 2
    assert "through * without read-only proof" in err


def test_a_brace_word_too_large_to_compare_blocks_with_its_reason(project):
    code, err, _ = bash(project, "echo " + "{a,b}" * 11)
    assert code == 2
    assert "expands to more than 1024 paths: a word this layer cannot compare with the protected paths" in err


# --- hypothesis: the config loader and the payload parsers ---------------------------------------

NAMES = st.sampled_from(["a", "b", "c"])
YAML_VALUES = st.recursive(
    st.sampled_from(["x", "1", "'q'", "[]", "{}", "*a", "*b", "&a x", "&b [1]", "!!str s", "~"]),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(st.tuples(NAMES, inner), max_size=4).map(
            lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
        ),
        st.tuples(NAMES, inner).map(lambda pair: f"&{pair[0]} {pair[1]}"),
    ),
    max_leaves=20,
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(document=YAML_VALUES, key=st.sampled_from(["doc", "protectedPaths", "languages", "witness", "disciplines"]))
def test_the_config_loader_gives_a_plan_or_a_clean_error(document, key):
    text = f"{key}: {document}\n"
    try:
        parse("polydeukes.config.yaml", text)
    except ConfigError as error:
        assert str(error).startswith("failed to parse polydeukes.config.yaml: ")
        assert "\n" not in str(error)
    plan = build_plan(Path("polydeukes.config.yaml"), (CONFIG + text).encode())
    assert plan["error"] is None or "\n" not in plan["error"]
    json.dumps(plan)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
INPUT_KEYS = ["file_path", "command", "content", "old_string", "new_string", "edits", "patch", "input", "path"]
INPUTS = st.dictionaries(st.sampled_from(INPUT_KEYS), JSON_VALUES | st.text(max_size=40), max_size=5)
PAYLOADS = st.one_of(
    st.text(max_size=80),
    JSON_VALUES.map(json.dumps),
    st.fixed_dictionaries(
        {"tool_name": st.sampled_from(["Edit", "Write", "MultiEdit", "NotebookEdit", "Bash", "Task", "apply_patch"])},
        optional={"tool_input": INPUTS | JSON_VALUES, "cwd": JSON_VALUES, "agent_type": JSON_VALUES},
    ).map(json.dumps),
)


@FUZZ
@given(raw=PAYLOADS, host=st.sampled_from([claude_code, codex, grok]))
def test_the_payload_parsers_translate_or_refuse(tmp_path_factory, raw, host):
    root = tmp_path_factory.mktemp("hook")
    try:
        translated = host.translate(raw, root)
    except Refusal:
        return
    assert isinstance(translated, dict)
    json.dumps(translated)


def test_the_state_folder_is_not_part_of_the_baseline(project):
    transcript = project.parent / "t.jsonl"
    transcript.write_text("")
    for _ in range(2):  # the second run compares with the baseline the first one stored
        assert hook(project, "Bash", {"command": "ls"}, transcript_path=str(transcript))[0] == 0
    stored = json.loads((project / ".polydeukes" / "baseline.json").read_text())
    assert ".polydeukes" not in stored["entries"]
    log = (project / ".polydeukes" / "roi.log").read_text()
    assert "unattributed\tbaseline\t.polydeukes" not in log


def test_a_protected_path_that_is_a_link_is_caught_through_its_target(tmp_path):
    outside = tmp_path / "dotfiles"
    outside.mkdir()
    (outside / "settings.json").write_text("{}\n")
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".claude").symlink_to(outside)
    (root / "polydeukes.config.yaml").write_text(CONFIG)
    code, err, _ = hook(root, "Write", {"file_path": str(outside / "settings.json"), "content": "[]"})
    assert code == 2
    assert f"Write would modify protected path .claude/settings.json through the symlink {outside}/settings.json" in err
