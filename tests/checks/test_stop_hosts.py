"""The change-scoped checks at every host's stop-like event: each host's payload in, its answer out.

The payloads are written from each host's documentation (the URL above each); the runner is run
as the host runs it: `python -m agent_constitution.checks.stop <host>` in a subfolder of the
project, with no `CLAUDE_PROJECT_DIR`, so the project is found from the payload.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_constitution.hosts import stop_hosts

from .conftest import write
from .test_stop import project, transcript  # noqa: F401  (the fixture and the Claude Code transcript)


def payload(host: str, root: Path, record: Path | None = None, again: bool = False) -> dict:
    if host == "codex":
        # https://developers.openai.com/codex/hooks — Stop: the common fields, `turn_id`,
        # `stop_hook_active`, `last_assistant_message`.
        return {"session_id": "s-1", "transcript_path": str(record) if record else None, "cwd": str(root / "src"),
                "hook_event_name": "Stop", "model": "gpt-5", "permission_mode": "default", "turn_id": "t-1",
                "stop_hook_active": again, "last_assistant_message": "Done."}
    if host == "gemini-cli":
        # https://geminicli.com/docs/hooks/reference — AfterAgent: the base fields, `prompt`,
        # `prompt_response`, `stop_hook_active`.
        return {"session_id": "s-1", "transcript_path": str(record) if record else "", "cwd": str(root / "src"),
                "hook_event_name": "AfterAgent", "timestamp": "2026-12-01T12:00:00.000Z", "prompt": "fix it",
                "prompt_response": "Done.", "stop_hook_active": again}
    if host == "copilot":
        # https://docs.github.com/en/copilot/reference/hooks-reference — agentStop (camelCase form).
        return {"sessionId": "s-1", "timestamp": 1704614750000, "cwd": str(root / "src"),
                "transcriptPath": "/tmp/transcript.jsonl", "stopReason": "end_turn", "stop_hook_active": again}
    if host == "cursor":
        # https://cursor.com/docs/agent/hooks — stop: the common fields, `status`, `loop_count`.
        return {"conversation_id": "c-1", "generation_id": "g-1", "hook_event_name": "stop",
                "workspace_roots": [str(root)], "status": "completed", "loop_count": 1 if again else 0}
    assert host == "cline"
    # https://docs.cline.bot/features/hooks/hook-reference — TaskComplete.
    return {"clineVersion": "3.36.0", "hookName": "TaskComplete", "timestamp": "1733050000000", "taskId": "task-1",
            "workspaceRoots": [str(root)], "userId": "u-1",
            "taskComplete": {"taskMetadata": {"taskId": "task-1", "ulid": "01JD000000000000000000000"}}}


def stop(host: str, root: Path, data: dict) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")}
    return subprocess.run([sys.executable, "-m", "agent_constitution.checks.stop", host], input=json.dumps(data),
                          capture_output=True, text=True, env=env, cwd=root / "src")


OTHER_HOSTS = [name for name in stop_hosts() if name != "claude-code"]


@pytest.mark.parametrize("host", OTHER_HOSTS)
def test_a_clean_stop_goes_through_the_way_the_host_reads_it(project: Path, host: str):
    done = stop(host, project, payload(host, project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == {"codex": "", "copilot": "", "gemini-cli": "{}", "cursor": "{}",
                                   "cline": '{"cancel": false}'}[host]


@pytest.mark.parametrize("host", OTHER_HOSTS)
def test_a_violation_goes_back_to_the_model_the_way_the_host_takes_it(project: Path, host: str):
    write(project, {"prod.env": "KEY=1\n"})  # untracked: part of the worktree's change (rule 8)
    done = stop(host, project, payload(host, project))
    if host in ("codex", "gemini-cli"):  # exit 2: stderr is the continuation prompt
        assert done.returncode == 2 and "ac:8 Rule 8: adds a .env file (prod.env)" in done.stderr
        assert done.stdout.strip() == ""
        return
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    text = {"copilot": lambda: (answer["decision"] == "block") and answer["reason"],
            "cursor": lambda: answer["followup_message"],
            "cline": lambda: (answer["cancel"] is False) and answer["contextModification"]}[host]()
    assert "ac:8 Rule 8: adds a .env file (prod.env)" in text


@pytest.mark.parametrize("host", ["codex", "gemini-cli", "copilot", "cursor"])
def test_a_continued_stop_goes_through(project: Path, host: str):
    write(project, {"prod.env": "KEY=1\n"})
    done = stop(host, project, payload(host, project, again=True))
    assert done.returncode == 0
    if host in ("codex", "gemini-cli"):  # the lines go to the user
        assert "prod.env" in json.loads(done.stdout)["systemMessage"]
    else:  # no message to the user is documented at this event: the lines stay on stderr
        assert "prod.env" in done.stderr and "followup_message" not in done.stdout and "block" not in done.stdout


def test_codex_and_gemini_transcripts_are_the_record(project: Path, tmp_path: Path):
    """Their transcripts are formats checks/records.py reads: the record rules run on them."""
    rollout = tmp_path / "rollout.jsonl"
    call = {"type": "function_call", "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", "git push --force"]})}
    rollout.write_text(json.dumps({"timestamp": "2026-12-01T12:00:00Z", "type": "response_item", "payload": call}) + "\n")
    done = stop("codex", project, payload("codex", project, record=rollout))
    assert done.returncode == 2 and "ac:7 Rule 7: force push" in done.stderr
    session = tmp_path / "session-1.json"
    message = {"type": "gemini", "toolCalls": [{"name": "run_shell_command", "args": {"command": "git push --force"}}]}
    session.write_text(json.dumps({"messages": [message]}))
    done = stop("gemini-cli", project, payload("gemini-cli", project, record=session))
    assert done.returncode == 2 and "ac:7 Rule 7: force push" in done.stderr


def test_a_stop_that_cannot_judge_still_answers_the_hosts_way(project: Path):
    (project / "rules.toml").write_text("rules = [\n")
    done = stop("copilot", project, payload("copilot", project))
    assert done.returncode == 0 and "could not run the checks" in json.loads(done.stdout)["reason"]
    done = stop("codex", project, payload("codex", project))
    assert done.returncode == 2 and "could not run the checks" in done.stderr


def test_outside_a_project_there_is_nothing_to_check(tmp_path: Path):
    (tmp_path / "src").mkdir()
    done = stop("cursor", tmp_path, payload("cursor", tmp_path))
    assert done.returncode == 0 and done.stdout.strip() == "{}"


def test_an_unknown_host_is_a_usage_error(project: Path):
    done = stop("vim", project, {})
    assert done.returncode == 2 and "usage: python -m agent_constitution.checks.stop [claude-code|" in done.stderr
