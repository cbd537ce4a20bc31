"""A change is judged by what it adds: which repository findings the change's base already had.

Under `change=…` the repository rules still judge the whole tree, but a finding fails the run only
where the change makes or keeps it worse: a finding in a file the change touches, or one whose
fingerprint (`checks.fingerprints`) the base tree of the change does not have. The rest is
*pre-existing*: counted and listed with `-v`, never failing (as ruff and pre-commit judge the files
a commit touches, and SonarQube judges "new code").

The base's findings come from running the same rules on the base tree (`ChangeSpec.base`: HEAD for
`staged` and `worktree`, the merge base for `A..B`), exported from git's objects into a temporary
folder, and only for the rules that have a finding outside the touched files: a rule that passes,
or whose every finding is in a touched file, needs no base. They are kept in
`cache/checks/base/<tree>.json` by tree id and by each rule's check, so the next commit on the same
base (or a re-run of the hook) pays nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from agent_constitution.checks.fingerprints import printed
from agent_constitution.checks.model import RESULT_FORMAT, Outcome, Result, RuleCheck
from agent_constitution.checks.subjects import ChangeSpec, read_change
from agent_constitution.fsio import write_if_changed

KEPT = 8  # base trees whose findings are kept in cache/checks/base/


def touched(root: Path, spec: ChangeSpec) -> frozenset[str]:
    """The repository paths the change adds, edits, deletes or renames (both names of a rename)."""
    change = read_change(root, spec)
    return frozenset(path for file in change.files for path in (file.old_path, file.new_path) if path)


def split(results: Sequence[Result], root: Path, cache: Path, spec: ChangeSpec,
          rules: Mapping[tuple[str, str], RuleCheck], segments: Sequence[str]) -> list[Result]:
    """The results with each repository finding the change did not add moved to `preexisting`; a
    violation left with no finding passes."""
    paths = touched(root, spec)
    # A repository-scoped rule is judged at the root whichever segment selects it.
    by_ref = {ref: rule for (_, ref), rule in rules.items()}
    needed = [(r.segment, rules.get((r.segment, r.ref)) or by_ref[r.ref]) for r in results
              if _repository_violation(r) and r.ref in by_ref and any(item.path not in paths for item in printed(r))]
    base = base_findings(root, cache, spec, needed, segments)
    done = []
    for result in results:
        before = base.get((result.segment, result.ref))
        if before is None or not _repository_violation(result):
            done.append(result)
            continue
        kept, old = [], []
        for item in printed(result):
            (old if item.path not in paths and item.fingerprint in before else kept).append(item.finding)
        done.append(replace(result, findings=tuple(kept), preexisting=result.preexisting + tuple(old),
                            outcome=Outcome.VIOLATION if kept else Outcome.PASS))
    return done


def _repository_violation(result: Result) -> bool:
    return result.outcome is Outcome.VIOLATION and result.subject == "repository"


def base_findings(root: Path, cache: Path, spec: ChangeSpec, jobs: Sequence[tuple[str, RuleCheck]],
                  segments: Sequence[str]) -> dict[tuple[str, str], frozenset[str]]:
    """The fingerprints of each (segment, rule)'s findings on the change's base tree."""
    if not jobs:
        return {}
    if spec.base is None:  # the first commit: nothing existed before it
        return {(segment, rule.ref): frozenset() for segment, rule in jobs}
    folder = cache / "checks" / "base"
    store = folder / f"{spec.base}.json"
    kept = _read(store)
    keys = {(segment, rule.ref): _key(spec.base, segment, rule, segments) for segment, rule in jobs}
    missing = [(segment, rule) for segment, rule in jobs if keys[(segment, rule.ref)] not in kept]
    if missing:
        kept.update(_judge_base(root, spec.base, missing, segments, keys))
        write_if_changed(store, json.dumps({"version": 1, "rules": kept}, indent=0, sort_keys=True) + "\n",
                         within=cache)
        _prune(folder)
    return {job: frozenset(kept[key]) for job, key in keys.items()}


def _key(tree: str, segment: str, rule: RuleCheck, segments: Sequence[str]) -> str:
    """What a rule's findings on a tree depend on besides the tree: the rule's check and code."""
    text = json.dumps([tree, segment, list(segments), rule.to_json(), RESULT_FORMAT], sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _read(store: Path) -> dict[str, list[str]]:
    """The kept fingerprints (cache/ is the user's: anything unreadable is judged again)."""
    try:
        data = json.loads(store.read_bytes())
        rules = data["rules"]
        if data.get("version") == 1 and isinstance(rules, dict) and all(
                isinstance(v, list) and all(isinstance(f, str) for f in v) for v in rules.values()):
            return dict(rules)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return {}


def _judge_base(root: Path, tree: str, jobs: Sequence[tuple[str, RuleCheck]], segments: Sequence[str],
                keys: Mapping[tuple[str, str], str]) -> dict[str, list[str]]:
    from agent_constitution.checks.runner import Subjects, run_check  # lazy: the runner imports this module's callers; only a change's base is judged here
    from agent_constitution.checks.scan import Scan  # lazy: only where the base's tree is scanned
    from agent_constitution.checks.waivers import file_lines, inline  # lazy: only where findings are waived here

    with tempfile.TemporaryDirectory(prefix="agent-constitution-base-") as temporary:
        export = Path(temporary)
        files = export_tree(root, tree, export)
        subjects = Subjects(scan=Scan(export, files), segments=tuple(segments))
        found = {}
        for segment, rule in jobs:
            result = inline(run_check(rule, segment, subjects), file_lines(export))
            found[keys[(segment, rule.ref)]] = sorted(item.fingerprint for item in printed(result))
        return found


def export_tree(root: Path, tree: str, into: Path) -> tuple[str, ...]:
    """Write the files of git tree `tree` below `into`; the paths written, sorted. Links and
    submodules are left out: a link could lead out of the folder, and a check reads files."""
    import pygit2  # lazy: pygit2 only where a change or its base is read

    repo = pygit2.Repository(str(root))
    written = []
    stack = [("", repo[tree])]
    while stack:
        prefix, node = stack.pop()
        for entry in node:
            if entry.name in ("", ".", "..", ".git") or "/" in entry.name or "\0" in entry.name:
                continue  # git's objects are the repository's, not ours to trust: nothing leaves the folder
            path = f"{prefix}{entry.name}"
            if entry.filemode == pygit2.enums.FileMode.TREE:
                stack.append((path + "/", repo[entry.id]))
            elif entry.filemode in (pygit2.enums.FileMode.BLOB, pygit2.enums.FileMode.BLOB_EXECUTABLE):
                target = into / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(repo[entry.id].data)
                if entry.filemode == pygit2.enums.FileMode.BLOB_EXECUTABLE:
                    target.chmod(target.stat().st_mode | stat.S_IXUSR)
                written.append(path)
    return tuple(sorted(written))


def _prune(folder: Path) -> None:
    stores = sorted(folder.glob("*.json"), key=lambda path: path.stat().st_mtime_ns, reverse=True)
    for path in stores[KEPT:]:
        try:
            os.unlink(path)
        except OSError:
            pass
