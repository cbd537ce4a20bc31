"""The name of every file and folder the tools read or write, and the key of a segment's build state.

One home per name: a module that needs `rules.toml` or `cache/resolved/` takes it from here. Paths
are POSIX strings relative to the folder named in their comment (the repository root unless said
otherwise). Standard library only, and nothing else imported: every doit command creates its tasks
from these names before any stage is imported.
"""

from __future__ import annotations

# --- a repository that uses rules (the repository root) ------------------------------------------
MANIFEST = "rules.toml"
LOCKFILE = "rules.lock"
BASELINE = "rules.baseline.toml"  # the findings accepted when the checks were adopted (`baseline`)
REVIEW_FILE = "rules.review.toml"  # the verdicts recorded on the checks' results (`checks.verdicts`)
CACHE = "cache"  # project-local build state; safe to delete

# --- a rule source (its root) ----------------------------------------------------------------------
RULES = "rules"  # rules/<id>.toml, one file per rule
SOURCE_CONFIG = "rules/source.toml"  # what makes a repository a rule source
SOURCE_FILE = "source.toml"  # the same file, inside RULES
RULE_CHECKS = "rules/checks"  # the python checks of the source's rules
SKILLS = "rules/skills"
CONSTITUTION = "constitution"  # the folder of a repository's constitution editions
MANIFESTS = "manifests"  # base manifests a source publishes for `extends`

# --- what compile writes (in each segment's folder, unless a path says otherwise) -----------------
AGENTS = "AGENTS.md"
CLAUDE = "CLAUDE.md"
PART_GLOB = "AGENTS.*.md"
SETTINGS = ".claude/settings.json"
PRE_COMMIT = ".pre-commit-config.yaml"
LEFTHOOK = ("lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml")
PLAIN_HOOK = ".git/hooks/pre-commit"  # written only with [compile] git-hook = "plain"
PLAIN_MESSAGE_HOOK = ".git/hooks/commit-msg"  # likewise: the commit message rules
PLAIN_HOOKS = (PLAIN_HOOK, PLAIN_MESSAGE_HOOK)
HUSKY = ".husky"  # husky's hook scripts, one per git hook (.husky/pre-commit)
SIMPLE_GIT_HOOKS = (".simple-git-hooks.json", "simple-git-hooks.json", "package.json")  # simple-git-hooks' config

# --- inside CACHE -----------------------------------------------------------------------------------
RESOLVED = "resolved"  # resolved/<segment key>.json
CHECKS = "checks"  # checks/results/, checks/inputs/, checks/report.json
REVIEW = "review"  # the review queue and its verdicts
UPGRADE = "upgrade"  # upgrade/<branch>.md, a pull request's description
IMPACT = "impact"  # impact/issue.md, the task list `doit impact --open` opens as an issue
COMPILE_LOCK = "compile.lock"  # held while a compile runs
WRITTEN = "written"  # written/<job digest>.json: what a compile step wrote, for its `git add` line
TOOLS = "tools.json"  # the external tools the selected rules' checks run, for a CI to install
JUDGES = "judges.json"  # the hosts whose covenant judge hook compile added (not `pdks init`), for taking them out

# --- the JSON Schemas of the files a user writes (agent_constitution/schemas/*.json) -----------------
# The files of that folder on the main branch: what a `#:schema` line (TOML, taplo and Even Better
# TOML) or a `# yaml-language-server: $schema=` modeline written by the tool names.
SCHEMA_URL = "https://raw.githubusercontent.com/Luolc/agent-constitution/main/agent_constitution/schemas/"


def schema_url(name: str) -> str:
    """The address of schema `name` (e.g. `rules.schema.json`)."""
    return SCHEMA_URL + name


# --- the covenant ---------------------------------------------------------------------------------
# The config file, in the order discovery lists them; `pdks init` writes the first.
CONFIG_NAMES = ("polydeukes.config.yaml", "polydeukes.config.yml", "polydeukes.config.json")



def has_covenant(root) -> bool:  # root: a pathlib.Path (this module imports nothing)
    """Whether the repository has a covenant config, under any of the names the judge discovers."""
    return any((root / name).is_file() for name in CONFIG_NAMES)


# --- segments ---------------------------------------------------------------------------------------
ROOT_SEGMENT = "."  # the segment of the repository root


def segment_key(path: str) -> str:
    """A segment's file name in `cache/resolved/`: "." → "_root", "a/b" → "a__b"."""
    return "_root" if path == ROOT_SEGMENT else path.replace("/", "__")
