"""Rule 113: Start no agent with more authority than the session has.

A shell command of the record whose program is `claude`, `codex` or `gemini` (also through `npx`,
`bunx` or `pnpm dlx`) with a flag that turns approvals or the sandbox off is a violation. The flag
text inside an `echo` or a commit message is not a start, since only the agent's own command line
counts. An agent started with options from a variable (`claude -p x $FLAGS`) is undecidable when
nothing else is reported: the record does not show their value.
"""

from agent_constitution.checks.api import Finding, Record, Undecidable

from ._helpers import simple_commands

RULE = 113
SUPERSEDED = False

AGENTS = {"claude", "codex", "gemini"}
RUNNERS = {"npx", "bunx", "pnpx"}
PACKAGES = {"claude-code": "claude", "gemini-cli": "gemini", "codex": "codex"}
OFF = {"--dangerously-skip-permissions", "--dangerously-bypass-approvals-and-sandbox", "--yolo"}
VALUED_OFF = {("--permission-mode", "bypassPermissions"), ("--sandbox", "danger-full-access"),
              ("-s", "danger-full-access"), ("--approval-mode", "yolo")}


def check(record: Record) -> list[Finding]:
    findings, hidden = [], []
    for line, command in record.shell_commands():
        for words in simple_commands(command):
            words = _unwrapped(words)
            if not words or words[0].rsplit("/", 1)[-1] not in AGENTS:
                continue
            pairs = set(zip(words, words[1:])) | {tuple(word.split("=", 1)) for word in words if "=" in word}
            flag = next((word for word in words if word in OFF), None) or next(
                (" ".join(pair) for pair in VALUED_OFF if pair in pairs), None)
            if flag:
                findings.append(Finding(f"starts {words[0]} with {flag}: more authority than this session holds",
                                        path=str(record.path), line=line))
            elif any(word.startswith("$") for word in words[1:]):
                hidden.append(command.strip())
    if not findings and hidden:
        raise Undecidable(f"starts an agent with options from a variable, whose value the record does not show: "
                          f"{hidden[0]!r}")
    return findings


def _unwrapped(words: list[str]) -> list[str]:
    program = words[0].rsplit("/", 1)[-1]
    if program in RUNNERS or (program == "pnpm" and words[1:2] == ["dlx"]):
        rest = words[2:] if program == "pnpm" else words[1:]
        rest = [word for word in rest if word not in ("-y", "--yes")]
        if rest:
            package = rest[0].rsplit("/", 1)[-1].split("@")[0]  # @anthropic-ai/claude-code@1.0 → claude-code
            return [PACKAGES.get(package, package), *rest[1:]]
    return words
