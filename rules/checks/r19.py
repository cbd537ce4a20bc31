"""Rule 19: Manage Python dependencies with Bazel and rules_python.

A `requirements_lock` given by a name (a variable, a macro's argument) rather than a label in
quotes names a file only Bazel can work out: undecidable, unless something else is wrong.
"""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 19
SUPERSEDED = False

LOCK_LABEL = re.compile(r"""requirements_lock\s*=\s*["']([^"']+)["']""")
LOCK_NAMED = re.compile(r"""requirements_lock\s*=\s*(?!["'\s])(\S+?)\s*[,)]""")


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
    named = LOCK_NAMED.findall(text)
    if not labels and not named:
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
    if named and not findings:
        raise Undecidable(f"MODULE.bazel gives requirements_lock as {named[0]!r}, not a label in quotes: "
                          "which file it names only Bazel can tell")
    return findings


def _path(label: str) -> str:
    """`//third_party:requirements.txt` → `third_party/requirements.txt`; `:x.txt` → `x.txt`."""
    label = label.removeprefix("@").removeprefix("//")
    package, _, name = label.rpartition(":")
    return f"{package}/{name}" if package else name
