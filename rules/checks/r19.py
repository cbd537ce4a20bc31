"""Rule 19: Manage Python dependencies with Bazel and rules_python."""

import re

from agent_constitution.checks.api import Finding, Repository

RULE = 19
SUPERSEDED = False

LOCK_LABEL = re.compile(r"""requirements_lock\s*=\s*["']([^"']+)["']""")


def check(repo: Repository) -> list[Finding]:
    if not repo.exists("MODULE.bazel"):
        return [Finding("no MODULE.bazel at the repository root", path="MODULE.bazel")]
    text = repo.read_text("MODULE.bazel")
    findings = [
        Finding(f"MODULE.bazel does not mention {word}", path="MODULE.bazel")
        for word in ("rules_python", "pip.parse")
        if word not in text
    ]
    labels = [(match.group(1), text.count("\n", 0, match.start()) + 1) for match in LOCK_LABEL.finditer(text)]
    if not labels:
        findings.append(Finding("MODULE.bazel names no requirements_lock file", path="MODULE.bazel"))
    for label, line in labels:
        path = _path(label)
        if not repo.exists(path):
            findings.append(
                Finding(
                    f"requirements_lock {label!r} is not a file of the repository ({path})",
                    path="MODULE.bazel",
                    line=line,
                )
            )
    return findings


def _path(label: str) -> str:
    """`//third_party:requirements.txt` → `third_party/requirements.txt`; `:x.txt` → `x.txt`."""
    label = label.removeprefix("@").removeprefix("//")
    package, _, name = label.rpartition(":")
    return f"{package}/{name}" if package else name
