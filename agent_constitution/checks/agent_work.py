"""Whether the work being checked is an agent's: the rules about agent conduct judge nothing else.

A rule whose `[check]` says `author = "agent"` (an attribution trailer, an agent's own settings)
judges only an agent's work, so a person's commit is never refused for it. A git hook cannot ask
who is committing; what it has is the environment of the process that runs `git commit`, which an
agent host sets for every command it runs. docs/checks.md ("Agent work") cites each variable:

- Claude Code sets `CLAUDECODE=1`;
- Codex sets `CODEX_SANDBOX` (the sandbox it runs a command in) and
  `CODEX_SANDBOX_NETWORK_DISABLED=1`, and newer versions `CODEX_THREAD_ID`;
- Gemini CLI sets `GEMINI_CLI=1` in the shell it runs a command in;
- Cursor's agent sets `CURSOR_AGENT=1`, Cline `CLINE_ACTIVE=true`;
- `AGENT_CONSTITUTION_AGENT=1` says so for any other runner (a CI job that runs an agent action,
  GitHub Copilot's coding agent, which documents no variable of its own).

The Stop hook runs inside an agent's session: its work is always an agent's, and so is a change
judged together with a session record (`record=`).

Not the commit's trailers: a commit that names its agent in a trailer passes the trailer rule
anyway, and one without a trailer cannot be told from a person's by its message.
"""

from __future__ import annotations

from collections.abc import Mapping

# (variable, host) in the order they are tried; the first one set names the host.
VARIABLES = (
    ("AGENT_CONSTITUTION_AGENT", "an agent (AGENT_CONSTITUTION_AGENT)"),
    ("CLAUDECODE", "Claude Code"),
    ("CODEX_SANDBOX", "Codex"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", "Codex"),
    ("CODEX_THREAD_ID", "Codex"),
    ("GEMINI_CLI", "Gemini CLI"),
    ("CURSOR_AGENT", "Cursor"),
    ("CLINE_ACTIVE", "Cline"),
)
_OFF = ("", "0", "false", "no", "off")
STOP_HOOK = "the agent's Stop hook"
RECORDED = "a session record is judged with it"
NOT_AGENT = ("judges only an agent's work, and no agent host's environment variable is set "
             "(a person's commit; set AGENT_CONSTITUTION_AGENT=1 where an agent commits)")


def agent_host(environ: Mapping[str, str]) -> str | None:
    """Why the commands run in `environ` are an agent's (`CLAUDECODE is set: Claude Code`), or None."""
    for variable, host in VARIABLES:
        value = environ.get(variable)
        if value is not None and value.strip().lower() not in _OFF:
            return f"{variable} is set: {host}"
    return None
