"""Rule 101: Committed scripts start no agent with its safeguards off.

Looks for the flags that turn approvals or the sandbox off in Claude Code, Codex and Gemini CLI in
shell scripts, task runner files, `package.json`, Dockerfiles, dev containers and CI files.
`--yolo` counts only in a command line that names one of those agents. An occurrence in a
Dockerfile or `.devcontainer/`, where the container may be the sandbox, is undecidable.
"""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 101
SUPERSEDED = False

FLAGS = re.compile(r"--dangerously-skip-permissions|--permission-mode[= ]+bypassPermissions|"
                   r"--dangerously-bypass-approvals-and-sandbox|(?:--sandbox|-s)[= ]+danger-full-access|"
                   r"--approval-mode[= ]+yolo|\b(?:claude|codex|gemini)\b[^\n]*\s(?:--yolo|-y)\b")
PATTERNS = ("**/*.sh", "**/*.bash", "**/*.zsh", "**/*.ps1", "**/Makefile", "**/justfile", "**/Justfile",
            "**/Taskfile.yml", "**/package.json", "**/Dockerfile*", ".devcontainer/**", ".github/workflows/*",
            ".forgejo/workflows/*", ".gitlab-ci.yml")
CONTAINER = re.compile(r"(?:^|/)Dockerfile[^/]*$|^\.devcontainer/")


def check(repo: Repository) -> list[Finding]:
    findings, contained = [], []
    for path in sorted({path for pattern in PATTERNS for path in repo.glob(pattern)}):
        try:
            text = repo.read_text(path)
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = FLAGS.search(line)
            if not match:
                continue
            if CONTAINER.search(path):
                contained.append(f"{path}:{number}")
            else:
                findings.append(Finding(f"starts an agent with its safeguards off ({match.group(0).strip()})",
                                        path=path, line=number))
    if not findings and contained:
        raise Undecidable(f"{contained[0]}: safeguards off inside a container, which may be the sandbox")
    return findings
