"""Rule 73: Dependency updates are automated (Dependabot or Renovate).

The fix (unsafe: Dependabot then opens pull requests) writes `.github/dependabot.yml` when the
repository has no configuration at all: one weekly update for each ecosystem whose manifest it
finds, in the topmost folders that hold one (a workspace's members update with its root; `github-actions` for workflows, `uv` beside a `uv.lock`, else
`pip`, `npm`, `cargo`, `gomod`, `docker`, ...). A Dependabot file that lists no updates is the
maintainer's to fill.
"""

import json
from posixpath import basename, dirname

from agent_constitution.checks.api import Finding, Fix, Repository, Undecidable, Unfixed

from ._helpers import parse_yaml

RULE = 73
SUPERSEDED = False

DEPENDABOT = (".github/dependabot.yml", ".github/dependabot.yaml")
RENOVATE = ("renovate.json", "renovate.json5", ".github/renovate.json", ".github/renovate.json5",
            ".gitlab/renovate.json", ".renovaterc", ".renovaterc.json")


def check(repo: Repository) -> list[Finding]:
    if any(repo.exists(path) for path in RENOVATE):
        return []
    for path in DEPENDABOT:
        if repo.exists(path):
            config, error = parse_yaml(repo.read_text(path))
            if error:
                raise Undecidable(f"{path} is not valid YAML: {error}")
            if isinstance(config, dict) and config.get("updates"):
                return []
            return [Finding("the Dependabot configuration lists no updates", path=path)]
    if repo.exists("package.json"):
        try:
            if "renovate" in json.loads(repo.read_text("package.json")):
                return []
        except (ValueError, TypeError):
            pass
    return [Finding("no Dependabot or Renovate configuration: dependency updates are left to hand work")]


# Dependabot's ecosystem for each manifest name (docs.github.com: "Dependabot options reference").
MANIFESTS = {
    "uv.lock": "uv", "pyproject.toml": "pip", "requirements.txt": "pip", "Pipfile": "pip", "setup.py": "pip",
    "package.json": "npm", "Cargo.toml": "cargo", "go.mod": "gomod", "Dockerfile": "docker",
    "Gemfile": "bundler", "composer.json": "composer", "pom.xml": "maven", "build.gradle": "gradle",
    "build.gradle.kts": "gradle", "mix.exs": "mix", "pubspec.yaml": "pub",
}
SKIPPED = ("node_modules/", "vendor/", "tests/", "test/", "testdata/", "fixtures/", "examples/", "docs/")


def fix(repo: Repository, findings: list[Finding]) -> list[Fix | Unfixed]:
    if any(finding.path for finding in findings):
        return [Unfixed("the Dependabot file lists no updates: say which ecosystems it updates", DEPENDABOT[0])]
    folders: dict[str, set[str]] = {}
    for path in repo.files:
        ecosystem = MANIFESTS.get(basename(path))
        if ecosystem is None or any(part in f"/{path}" for part in ("/" + skip for skip in SKIPPED)):
            continue
        folders.setdefault(ecosystem, set()).add("/" + dirname(path))
    # A workspace's members update with its root (one lockfile): keep the topmost folders only.
    folders = {ecosystem: {folder for folder in found if not any(_above(other, folder) for other in found)}
               for ecosystem, found in folders.items()}
    if "uv" in folders:  # uv's ecosystem updates uv.lock and pyproject.toml together
        folders["pip"] = folders["pip"] - folders["uv"] if "pip" in folders else set()
        if not folders["pip"]:
            del folders["pip"]
    if repo.glob(".github/workflows/*.yml") or repo.glob(".github/workflows/*.yaml"):
        folders["github-actions"] = {"/"}
    if not folders:
        return [Unfixed("no manifest of an ecosystem Dependabot updates was found; write the configuration by hand")]
    lines = ["# Dependency updates (written by `agent-constitution check --fix --unsafe-fixes`: review the",
             "# ecosystems and folders).", "version: 2", "updates:"]
    for ecosystem in sorted(folders):
        where = sorted(folders[ecosystem])
        lines.append(f"  - package-ecosystem: {ecosystem}")
        if len(where) == 1:
            lines.append(f'    directory: "{where[0]}"')
        else:
            lines.append("    directories:")
            lines += [f'      - "{folder}"' for folder in where]
        lines += ["    schedule:", "      interval: weekly"]
    return [Fix(DEPENDABOT[0], "\n".join(lines) + "\n", unsafe=True,
                note="a Dependabot configuration for " + ", ".join(sorted(folders)))]


def _above(folder: str, other: str) -> bool:
    return folder != other and (folder == "/" or other.startswith(folder.rstrip("/") + "/"))
