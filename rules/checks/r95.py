"""Rule 95: A JavaScript linter is configured and run (ESLint, Biome or oxlint).

In a segment (a workspace package), the runner files and linter configuration of the folders above
it count too: a workspace's root `package.json` script `eslint .` lints every package.
"""

from agent_constitution.checks.api import Finding, Repository, Undecidable

from ._helpers import runners_naming

RULE = 95
SUPERSEDED = False

RUNS = r"\b(?:eslint|biome|oxlint)\b"
CONFIGS = ("eslint.config.*", ".eslintrc*", "biome.json", "biome.jsonc", ".oxlintrc.json")


def check(repo: Repository) -> list[Finding]:
    if runners_naming(repo, RUNS):
        return []
    # ESLint, Biome and oxlint find their configuration in the folders above the one they lint too.
    configured = [path for pattern in CONFIGS for path in repo.glob(pattern)] + repo.enclosing(*CONFIGS)
    if configured:
        raise Undecidable(f"{configured[0]} configures a linter, but no script, pre-commit, CI or task runner file "
                          "here runs it")
    return [Finding("no JavaScript linter (ESLint, Biome, oxlint) is configured or run",
                    path="package.json" if repo.exists("package.json") else None)]
