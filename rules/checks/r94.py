"""Rule 94: TypeScript compiles in strict mode.

Each `tsconfig*.json` (JSON with comments and trailing commas, as TypeScript reads it) must reach
`compilerOptions.strict: true`, itself or through `extends` to a file in the repository. A chain
that ends in a package (`@tsconfig/node20`) or in a file the repository does not hold (one a
framework generates, such as `.nuxt/tsconfig.json`) without `strict` is undecidable.

In a segment (a workspace package), `extends` is followed as TypeScript follows it: a
`../tsconfig.base.json` above the package's folder is read from the whole repository
(`Repository.locate`), so only a base outside the repository is undecidable.
"""

import json
import posixpath
import re

from agent_constitution.checks.api import Finding, Repository, Undecidable

RULE = 94
SUPERSEDED = False

COMMENTS = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
# Strings are matched first so that a comma before `]` inside one (`",]"`) is left alone.
TRAILING = re.compile(r'("(?:\\.|[^"\\])*")|,(?=\s*[}\]])')


def check(repo: Repository) -> list[Finding]:
    findings, unsure = [], []
    whole = repo.repository
    for path in repo.glob("**/tsconfig*.json"):
        if "node_modules/" in path:
            continue
        strict, via = _strict(whole, repo.locate(path), set())
        if strict is None and via:
            unsure.append((path, via))
        elif not strict:
            findings.append(Finding("compilerOptions.strict is not true", path=path))
    if not findings and unsure:
        raise Undecidable(f"{unsure[0][0]} extends {unsure[0][1]!r}, which the repository does not hold (a package "
                          "or a generated file), and sets no strict")
    return findings


def _strict(repo: Repository, path: str, seen: set) -> tuple[bool | None, str | None]:
    """(strict, None) when the chain decides it; (None, package) when it ends outside the repository.
    `repo` is the whole repository and `path` a path of it: a base may lie above a segment's folder."""
    seen.add(path)
    config = _jsonc(repo, path)
    options = config.get("compilerOptions") or {}
    if isinstance(options, dict) and "strict" in options:
        return options["strict"] is True, None
    bases = config.get("extends") or []
    for base in reversed([bases] if isinstance(bases, str) else bases):
        if not isinstance(base, str):
            continue
        if not base.startswith("."):
            return None, base
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), base))
        target = target if target.endswith(".json") else target + ".json"
        if target.startswith("../") or not repo.exists(target):
            return None, base  # generated (a framework's .nuxt/tsconfig.json) or outside the repository
        if target not in seen:
            strict, via = _strict(repo, target, seen)
            if strict is not None or via:
                return strict, via
    return False, None


def _jsonc(repo: Repository, path: str) -> dict:
    text = COMMENTS.sub(lambda m: m.group(1) or "", repo.read_text(path))
    try:
        data = json.loads(TRAILING.sub(lambda m: m.group(1) or "", text))
    except ValueError as error:
        raise Undecidable(f"{path} is not valid JSON with comments: {error}") from None
    return data if isinstance(data, dict) else {}
