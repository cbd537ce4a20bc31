"""The verbs of the `agent-constitution` command: the doit task each runs, what it needs to apply, its help.

The doit loader reads this table too (a family that does not apply in a repository says why), so it
imports only the task families' option lists, never the runner in `commands/run.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_constitution.edition import CONSTITUTION
from agent_constitution.errors import docs_url
from agent_constitution.layout import MANIFEST, SOURCE_CONFIG
from agent_constitution.tasks import (GROUP_OPTIONS, GROUPS, OLD_NAMES, baseline, checks, fleet, impact, lock, readback, review,
                                     site, upgrade, validate_source)
from agent_constitution.wiring import PROG


# An old verb → the verb it names now (`agent-constitution source` runs `validate-source`).
ALIASES = {old: new for new, old in OLD_NAMES.items()}

Need = Callable[[Path], tuple[str, str] | None]  # None, or why a verb does not apply and the fix


def _has_manifest(root: Path) -> tuple[str, str] | None:
    if (root / MANIFEST).is_file():
        return None
    return f"no {MANIFEST} in {root}", f"run `{PROG} init` to start one"


def _is_source(root: Path) -> tuple[str, str] | None:
    if (root / SOURCE_CONFIG).is_file():
        return None
    return (f"{root} is not a rule source repository (it has no {SOURCE_CONFIG})",
            f"run it in the root of a rule source ({docs_url('sources', 'authoring-a-rule-source')})")


def _has_constitution(root: Path) -> tuple[str, str] | None:
    if (root / CONSTITUTION).is_dir():
        return None
    return (f"{root} has no {CONSTITUTION}/ folder, the sources of a constitution",
            f"run it in a repository that publishes a constitution ({docs_url('constitution')})")


def _any(*needs: Need) -> Need:
    def need(root: Path) -> tuple[str, str] | None:
        missing = [need(root) for need in needs]
        return None if None in missing else missing[0]

    return need


def _all(*needs: Need) -> Need:
    def need(root: Path) -> tuple[str, str] | None:
        return next((missing for missing in (one(root) for one in needs) if missing), None)

    return need


@dataclass(frozen=True)
class Verb:
    """One verb: the doit task it runs, what it needs to apply, and its help."""

    name: str
    summary: str
    topic: str
    needs: Need | None = None
    options: list[dict] = field(default_factory=list)
    variables: dict[str, tuple[str, str]] = field(default_factory=dict)  # NAME → (its values, its help)
    subtask: str = ""  # `fetch SOURCE` runs `fetch:SOURCE`
    output_formats: bool = False  # `--output-format` (checks/formats.py) prints the report
    policy: bool = False  # `--policy FILE|URL#COMMIT`: an organisation policy layer (docs/fleet.md)
    task: str = ""  # the doit task it runs, when not named like the verb (`agents` runs `readback`)


# `check`'s fix options, ruff's flags: handled before doit runs (commands/fix.py), never passed to it.
FIX_OPTIONS = [
    {"name": "fix", "long": "fix", "type": bool, "default": False, "doit": False,
     "help": "apply the safe fixes of the failing rules, then check again"},
    {"name": "unsafe_fixes", "long": "unsafe-fixes", "type": bool, "default": False, "doit": False,
     "help": "also the unsafe fixes (they can change what the repository does: a narrowed permission, a pinned SHA)"},
    {"name": "diff", "long": "diff", "type": bool, "default": False, "doit": False,
     "help": "print the fixes as a unified diff instead of writing them (exit 1 when there is one)"},
]

VERBS = {
    verb.name: verb
    for verb in (
        Verb("compile", GROUPS["compile"], "compile", _any(_has_manifest, _has_constitution),
             GROUP_OPTIONS["compile"], policy=True),
        Verb("check", GROUPS["check"], "checks", _any(_has_manifest, _is_source, _has_constitution),
             FIX_OPTIONS, variables=checks.VARIABLES, output_formats=True, policy=True),
        Verb("lock", "Resolve rules.toml and write rules.lock", "rules", _has_manifest, lock.PARAMS, policy=True),
        Verb("verify", "Check the constitution binding and each source's version ranges", "rules", _has_manifest),
        Verb("resolution", "Report the warnings of each segment's resolution the lock wrote to cache/resolved/ since the last run",
             "rules", _has_manifest),
        Verb("fetch", "Fetch each source (or SOURCE) into the user-level cache", "sources", _has_manifest,
             subtask="SOURCE"),
        Verb("upgrade", "Move the sources to their newest allowed commit; print each changed rule's diff",
             "rules", _has_manifest, upgrade.PARAMS),
        Verb("outdated", "List what `upgrade` would change; writes nothing", "rules", _has_manifest),
        Verb("replace", "Replace superseded rules in rules.toml with their successors", "rules", _has_manifest),
        Verb("baseline", "Write rules.baseline.toml: today's findings, accepted until fixed (--prune: drop fixed ones)",
             "checks", _has_manifest, baseline.PARAMS),
        Verb("review", "Ask the configured reviewers about the review queue; record their verdicts "
             "(`review calibrate`: measure a reviewer on labelled cases)", "checks", _has_manifest,
             review.PARAMS + review.CALIBRATE_PARAMS, subtask="calibrate"),
        Verb("review-ingest", "Record reviewer verdicts that disagree with the checks", "checks", _has_manifest),
        Verb("agents", "Show what each enabled agent loads in each segment and the rules in force it misses",
             "compile", _has_manifest, readback.PARAMS, task=readback.NAME),
        Verb("compile:user", "Compile the user-tier manifest into a user-level AGENTS.md", "compile"),
        Verb("new-rule", "Write a trial rule with the next free ID", "sources", _is_source, validate_source.NEW_RULE_PARAMS),
        Verb("validate-source", "Validate this rule source against its files and its git history", "sources", _is_source,
             validate_source.PARAMS),
        Verb("site", "Build the public static site of this rule source", "site", _is_source,
             variables=site.VARIABLES),
        Verb("impact", "List the provisions changed since --base REF and the rules citing each", "site",
             _all(_is_source, _has_constitution), impact.PARAMS),
        Verb("fleet", "Report on many repositories: policy, releases behind, rules violated, waivers, baseline",
             "fleet", None, fleet.PARAMS, policy=True),
        Verb("render", "Render the constitution's editions into its generated/ folder", "constitution",
             _has_constitution),
    )
}
