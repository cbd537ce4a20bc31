"""Each outcome path of a python check, a command check and a rule without a check."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent_constitution.checks.model import Outcome
from agent_constitution.checks.runner import Subjects, run_check
from agent_constitution.checks.scan import scan

from .conftest import PASSING, make_source, rule, write


def subjects(root: Path) -> Subjects:
    return Subjects(scan(root))


def run(root: Path, rule_id: int = 1, **kwargs):
    return run_check(rule(root, rule_id, **kwargs), ".", subjects(root))


def test_python_pass_and_violation(tmp_path: Path):
    make_source(tmp_path, {}, {"r1": PASSING.format(id=1)})
    assert run(tmp_path, python="r1").outcome is Outcome.VIOLATION
    write(tmp_path, {"README.md": "hi"})
    result = run(tmp_path, python="r1")
    assert result.outcome is Outcome.PASS and result.findings == ()


def test_violation_carries_findings(tmp_path: Path):
    make_source(tmp_path, {}, {"r1": PASSING.format(id=1)})
    result = run(tmp_path, python="r1")
    assert [f.reason for f in result.findings] == ["README.md is missing"]
    assert result.check == "python:r1" and result.title == "Rule 1"


def test_crash_is_undecidable_with_cause(tmp_path: Path):
    make_source(tmp_path, {}, {"r1": "RULE = 1\ndef check(repo):\n    return 1 / 0\n"})
    result = run(tmp_path, python="r1")
    assert result.outcome is Outcome.UNDECIDABLE
    assert result.cause.startswith("crash: ZeroDivisionError") and "r1.py:3" in result.cause


def test_system_exit_is_undecidable(tmp_path: Path):
    make_source(tmp_path, {}, {"r1": "import sys\nRULE = 1\ndef check(repo):\n    sys.exit(3)\n"})
    assert run(tmp_path, python="r1").cause.startswith("crash: SystemExit")


def test_check_that_raises_undecidable(tmp_path: Path):
    code = "from agent_constitution.checks.api import Undecidable\nRULE = 1\ndef check(repo):\n    raise Undecidable('needs a human')\n"
    make_source(tmp_path, {}, {"r1": code})
    result = run(tmp_path, python="r1")
    assert (result.outcome, result.cause) == (Outcome.UNDECIDABLE, "needs a human")


def test_malformed_return_value(tmp_path: Path):
    make_source(tmp_path, {}, {"r1": "RULE = 1\ndef check(repo):\n    return ['not a finding']\n"})
    assert run(tmp_path, python="r1").cause.startswith("malformed output")


def test_module_naming_another_rule(tmp_path: Path):
    make_source(tmp_path, {}, {"r1": PASSING.format(id=2)})
    assert "says RULE = 2" in run(tmp_path, python="r1").cause


def test_missing_module_and_import_error(tmp_path: Path):
    make_source(tmp_path, {}, {"r2": "import not_a_module_anywhere\nRULE = 2\n"})
    assert "not found" in run(tmp_path, python="r1").cause
    assert "failed to import: ModuleNotFoundError" in run(tmp_path, 2, python="r2").cause


def test_relative_helper_import(tmp_path: Path):
    helper = "def present(repo, path):\n    return repo.exists(path)\n"
    code = "from agent_constitution.checks.api import Finding\nfrom ._helpers import present\nRULE = 1\n" \
           "def check(repo):\n    return [] if present(repo, 'rules/source.toml') else [Finding('x')]\n"
    make_source(tmp_path, {}, {"r1": code, "_helpers": helper})
    assert run(tmp_path, python="r1").outcome is Outcome.PASS


def test_untrusted_source_runs_no_code(tmp_path: Path):
    marker = tmp_path / "imported"
    make_source(tmp_path, {}, {"r1": f"open({str(marker)!r}, 'w').close()\nRULE = 1\ndef check(repo):\n    return []\n"})
    result = run(tmp_path, python="r1", trusted=False)
    assert result.outcome is Outcome.UNDECIDABLE and result.cause.startswith("untrusted source: 'ac'")
    assert not marker.exists()
    command = run(tmp_path, command=[sys.executable, "-c", f"open({str(marker)!r}, 'w')"], trusted=False)
    assert command.outcome is Outcome.UNDECIDABLE and not marker.exists()


def test_rule_without_check_goes_to_review(tmp_path: Path):
    result = run(tmp_path)
    assert result.outcome is None and result.check is None


def script(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_command_pass_violation_and_locations(tmp_path: Path):
    assert run(tmp_path, command=script("pass")).outcome is Outcome.PASS
    found = {"findings": [{"reason": "bad", "path": "a.py", "line": 3, "column": 2}, {"reason": "whole repo"}]}
    result = run(tmp_path, command=script(f"print({json.dumps(json.dumps(found))}); raise SystemExit(1)"))
    assert result.outcome is Outcome.VIOLATION
    assert [(f.reason, f.path, f.line, f.column) for f in result.findings] == [
        ("bad", "a.py", 3, 2), ("whole repo", None, None, None)]


def test_command_other_exit_status_is_a_crash(tmp_path: Path):
    result = run(tmp_path, command=script("import sys; print('boom', file=sys.stderr); sys.exit(2)"))
    assert (result.outcome, result.cause) == (Outcome.UNDECIDABLE, "crash: exit status 2: boom")


def test_command_killed_by_signal(tmp_path: Path):
    result = run(tmp_path, command=script("import os, signal; os.kill(os.getpid(), signal.SIGTERM)"))
    assert result.cause == "crash: killed by signal 15"


def test_command_timeout(tmp_path: Path):
    result = run(tmp_path, command=script("import time; time.sleep(30)"), timeout=0.3)
    assert (result.outcome, result.cause) == (Outcome.UNDECIDABLE, "timeout: no answer within 0.3 s")


def test_command_bad_json_and_bad_schema(tmp_path: Path):
    bad_json = run(tmp_path, command=script("print('{not json'); raise SystemExit(1)"))
    assert bad_json.outcome is Outcome.UNDECIDABLE and bad_json.cause.startswith("malformed output: stdout is not JSON")
    extra = run(tmp_path, command=script("print('{\"findings\": [{\"reason\": \"x\", \"severity\": 1}]}'); exit(1)"))
    assert extra.cause.startswith("malformed output: findings.0.severity")
    no_findings = run(tmp_path, command=script("raise SystemExit(1)"))
    assert no_findings.cause.startswith("malformed output: exit status 1 (violated) but no findings")
    findings_on_pass = run(tmp_path, command=script("print('{\"findings\": [{\"reason\": \"x\"}]}')"))
    assert findings_on_pass.cause.startswith("malformed output: exit status 0")


def test_command_missing_tool(tmp_path: Path):
    declared = run(tmp_path, command=["nonexistent-tool-xyz", "check"], tools=["nonexistent-tool-xyz"])
    assert (declared.outcome, declared.cause) == (Outcome.UNDECIDABLE, "missing tool: nonexistent-tool-xyz (not found on PATH; install it and put it on PATH)")
    undeclared = run(tmp_path, command=["nonexistent-tool-xyz"])
    assert undeclared.cause == "missing tool: nonexistent-tool-xyz (not found)"


def test_command_runs_in_root_with_source_and_environment(tmp_path: Path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "c.py").write_text(
        "import json, os, sys\n"
        "ok = os.getcwd() == os.environ['AGENT_CONSTITUTION_ROOT'] and os.environ['AGENT_CONSTITUTION_RULE'] == 'ac:1'\n"
        "sys.exit(0 if ok else 2)\n")
    result = run(tmp_path, command=[sys.executable, "{source}/rules/c.py"], tools=[sys.executable])
    assert result.outcome is Outcome.PASS, result.cause


def test_command_runs_without_a_shell(tmp_path: Path):
    """Shell syntax in an argument reaches the program as it is: nothing expands it."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "c.py").write_text(
        "import sys\nsys.exit(0 if sys.argv[1:] == ['$HOME', '*.py', 'a;b', '`id`'] else 2)\n")
    result = run(tmp_path, command=[sys.executable, "{source}/rules/c.py", "$HOME", "*.py", "a;b", "`id`"])
    assert result.outcome is Outcome.PASS, result.cause


def test_record_subject(tmp_path: Path):
    code = ("from agent_constitution.checks.api import Finding\nRULE = 1\n"
            "def check(record):\n    return [Finding(f'ran {call.name}') for call in record.tool_calls()]\n")
    make_source(tmp_path, {}, {"r1": code})
    session = tmp_path / "session.jsonl"
    session.write_text(json.dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Bash"}]}}) + "\n")
    result = run_check(rule(tmp_path, python="r1", subject="record"), ".", Subjects(scan(tmp_path), record=session))
    assert [f.reason for f in result.findings] == ["ran Bash"]
    session.write_text("not json\n")
    broken = run_check(rule(tmp_path, python="r1", subject="record"), ".", Subjects(scan(tmp_path), record=session))
    assert broken.outcome is Outcome.UNDECIDABLE and "not a JSON line" in broken.cause


def test_progress_line_only_on_long_runs(monkeypatch, capsys):
    from agent_constitution.checks import progress

    progress.start(3)
    progress.tick("ac:1")
    assert capsys.readouterr().err == ""  # a short run prints nothing
    monkeypatch.setattr(progress, "QUIET_FOR", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)
    progress.tick("ac:2")
    assert capsys.readouterr().err.startswith("checks: 2 of at most 3 run in 0 s (last: ac:2)")


def test_subjects_travel_to_worker_processes_as_a_token(tmp_path: Path):
    """`doit -n N` pickles every task: the subjects are a token, not the scan of the whole tree."""
    import pickle

    from agent_constitution.checks import runner

    write(tmp_path, {f"f{n}.txt": "x" for n in range(200)})
    shared = subjects(tmp_path)
    data = pickle.dumps(shared)
    assert len(data) < 1000
    assert pickle.loads(data) is shared       # a forked worker finds the run it inherited
    del runner._RUNS[shared.token]            # a process that did not inherit it scans once
    rebuilt = pickle.loads(data)
    assert rebuilt is not shared and rebuilt.scan.files == shared.scan.files
    assert pickle.loads(data) is rebuilt
