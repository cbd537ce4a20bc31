"""Rule 36: Never pipe a download into a shell.

Decides, line by line in scripts, CI configurations, Dockerfiles and Makefiles: `curl` or `wget`
output handed to an interpreter (`sh`, `bash`, `zsh`, `dash`, `ksh`, `python`, `sudo`), whether piped
(`curl … | sh`), substituted into its command line (`sh -c "$(curl …)"`, `eval "$(curl …)"`) or read
through a process substitution (`bash <(curl …)`, `source <(curl …)`). A download piped into a
program a variable names (`curl … | $SHELL`, `| "${RUN:-sh}"`) may or may not be an interpreter:
undecidable, unless another line is a violation. Since revision 5 text that is shown rather than run
is left out: a comment line, the quoted words of `echo` / `printf`, and Make's `$(warning …)`,
`$(info …)` and `$(error …)` (cobra's Makefile prints "run: curl … | sh" as advice).
"""

import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 36
SUPERSEDED = False

FILES = (
    "**/*.sh",
    "**/*.bash",
    "**/Dockerfile*",
    "**/*.Dockerfile",
    "**/Makefile",
    "**/*.mk",
    ".github/workflows/*",
    ".gitlab-ci.yml",
    ".forgejo/workflows/*",
    ".ci/*",
)
_SHELL = r"(?:sh|bash|zsh|dash|ksh|python[0-9.]*)"
_FETCH = r"(?:curl|wget)\b"
HANDED = re.compile(
    # piped: curl … | [sudo [-E]] sh
    r"\b" + _FETCH + r"[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:" + _SHELL + r"|sudo)\b"
    # substituted or process-substituted: sh -c "$(curl …)", bash <(curl …), eval "$(curl …)"
    + r"|(?:\b" + _SHELL + r"\b[^\n]*?(?:-c\s*[\"']?\$\(|<\()|(?:^|[\s;&|])(?:eval|source|\.)\s+[\"']?(?:\$\(|<\())"
    + r"\s*" + _FETCH
)

PIPED_TO_VARIABLE = re.compile(r"\b" + _FETCH + r"[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?[\"']?\$")

# Text a line shows instead of running: a comment, what echo/printf print, Make's message functions.
_MESSAGE_COMMAND = re.compile(r"^\s*[@-]*\s*(?:echo|printf)\b")
_MAKE_MESSAGE = re.compile(r"\$\((?:warning|info|error)\s.*\)")
_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'")


def _run_part(line: str) -> str:
    """The part of a line that runs: comments, printed strings and Make's messages taken out."""
    if line.lstrip().startswith("#"):
        return ""
    line = _MAKE_MESSAGE.sub("", line)
    return _QUOTED.sub('""', line) if _MESSAGE_COMMAND.match(line) else line


# A script without one of those names: a file whose first line runs it with a shell.
SHEBANG = re.compile(rb"#![ \t]*\S*(?:/|env[ \t]+)(?:sh|bash|zsh|dash|ksh)\b")


def check(repo: Repository) -> list[Finding]:
    paths = sorted({path for pattern in FILES for path in repo.glob(pattern)}
                   | {path for path in repo.files if _shell_script(repo, path)})
    findings, unsure = [], []
    for path in paths:
        try:
            text = repo.read_text(path)
        except UnicodeDecodeError:
            continue
        for number, whole in enumerate(text.splitlines(), 1):
            line = _run_part(whole)
            match = HANDED.search(line)
            if match is None and PIPED_TO_VARIABLE.search(line):
                unsure.append(f"{path}:{number}")
            if match:
                findings.append(
                    Finding(
                        "a download is handed to an interpreter",
                        path=path,
                        line=number,
                        column=match.start() + 1,
                    )
                )
    if unsure and not findings:
        raise Undecidable(f"{unsure[0]} pipes a download into a program a variable names: is it an interpreter?")
    return findings


def _shell_script(repo: Repository, path: str) -> bool:
    # Through the run's shared read of the file (binaries and files over 4 MiB are not scripts).
    text = repo.text(path)
    return text is not None and bool(SHEBANG.match(text[:64].encode("utf-8")))
