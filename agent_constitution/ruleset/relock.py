"""The lock stage's short way: an edit to the text of a path source's rules, applied without resolving.

A one-rule edit in a plain folder of 5,000 rules changes one rule's entry in `rules.lock` (its
revision and digest) and that rule's entry in the typed resolution of each segment that enables it
(`cache/resolved/`). Resolving again to find that out reads the status of every rule file, validates
every rule and selects every segment: work that grows with the source, not with the edit. So after
each run the lock stage records what it was computed from (`record`, the file `cache/lock-state.json`):
the status of every input file, and for every rule file of a plain folder the part of the rule its
place in the resolution depends on (its *shape*: `SHAPE`), which segments enable it, and which rules
a check module serves. The next run takes the short way (`apply`) when all of these hold:

- the state is there, of this format and of these modules (the `ruleset` modules' status);
- the last run had nothing to warn about, and `rules.lock` and every document are as it left them;
- the same input files exist, and the ones whose status changed (at most `MAX_CHANGED`) are rule files
  `rules/<id>.toml` or check modules `rules/checks/<name>.py` of a plain folder, nothing else
  (not `source.toml`, a manifest, the constitution, a skill);
- each changed rule file (and each rule of a changed check module) validates on its own exactly as a
  load validates it (`ruleset.source.load_rule`), and keeps its shape: only what `TEXT` names changed.

Then it rewrites the rules' entries in the lock and in the documents that hold them, and nothing
else; a locked run refuses a change the way the full way does. While the lock holds the bytes the
writer makes of it (the state says so: a locked run may have left an older writer's lock as it was),
the rules' lines are replaced in it by the writer's line for each (`lockfile.rule_line`), which gives
the bytes of parsing it, replacing the entries and writing it again; otherwise it goes through its
model and writer. Anything else, including an invalid rule, takes the full
way, which reports it with the same message as always. A file changed less than two seconds before
the state was written is taken as changed next time (`sources.parsed` says why).

The state is build state in the project's cache, sealed like the parsed-rule cache (`sources.parsed`:
an HMAC under this user's key), so a state the repository brought, or one edited since, is no state
at all, nor is one of another format or Python. It is removed before the short way writes anything
and written last, so a run that stops half-way leaves none, and the next run takes the full way.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import hmac
import json
import marshal
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from agent_constitution.errors import OutOfDate, UserError
from agent_constitution.fsio import remove, write_atomic, write_if_changed
from agent_constitution.layout import RULE_CHECKS, RULES
from agent_constitution.readers import decode, parse_toml, read_bytes, read_cached
from agent_constitution.ruleset.inputs import Status, file_status
from agent_constitution.ruleset.layout import LOCKFILE
from agent_constitution.ruleset.lockfile import HEADER, lock_file_text, read_lock, records_same, rule_line, why_stale
from agent_constitution.ruleset.models import LockedRule
from agent_constitution.ruleset.resolved import FOLDER, ResolvedRule, index_path, read_index, read_resolved, resolved_path
from agent_constitution.ruleset.source import load_rule, rule_file_digest
from agent_constitution.sources.parsed import seal, user_key
from agent_constitution.wiring import command, spoken

STATE = "lock-state"
FORMAT = 2
# More changed files than this (a branch switch, a pull) take the full way, which is as fast then.
MAX_CHANGED = 100
# What a rule's place in the resolution depends on: a change in one of these takes the full way. Its
# check's python module counts too (it names the file the rule's digest covers).
SHAPE = ("id", "status", "parent", "requires", "conflicts", "supersedes", "superseded_by", "tier", "constitution")
# What only the rule's own entries carry (besides its digest, of the file's bytes): the short way
# rewrites these. Every field of `Rule` is in one of the two (a test says so).
TEXT = ("revision", "title", "text", "created", "authority", "check", "default")
_RACY_NS = 2_000_000_000
# marshal, not JSON: the state of 5,000 rule files is read and written in a few ms instead of 40 ms
# (it is read as soon as anything changed, and written after every run of the lock stage). Sealed,
# since marshal is not meant for data someone else made; its format may change between Pythons.
_MARSHAL = 4
_PYTHON = "%d.%d" % sys.version_info[:2]

def shape(rule) -> str:
    """A digest of what `SHAPE` names of `rule`."""
    data = {field: getattr(rule, field) for field in SHAPE}
    data["constitution"] = [data["constitution"].min, data["constitution"].max]
    data["check"] = None if rule.check is None else rule.check.python
    return hashlib.blake2b(json.dumps(data, sort_keys=True).encode(), digest_size=16).hexdigest()


def record(root: Path, cache: Path, resolution, statuses: Mapping[str, Status], *, warned: bool,
           canonical: bool) -> None:
    """Keep what the full way computed the lock and documents from, for the next run's `apply`;
    `canonical`: whether rules.lock holds the bytes the writer makes of it (a locked run leaves an
    older writer's lock that records the same resolution as it is)."""
    rules: dict[str, list] = {}
    checks: dict[str, list[str]] = {}
    sources: list[list] = []
    folders = _folders(statuses)
    for key, item in sorted(resolution.fetched.items()):
        if item.snapshot.commit is not None:
            continue  # a git source's content is its commit's: it moves only with the lock
        folder = folders.get(os.path.realpath(item.snapshot.root / RULES))
        if folder is None:
            continue
        source = item.source
        sources.append([resolution.world.names[key], str(item.snapshot.root), list(source.config.languages)])
        for rule_id, rule in source.rules.items():
            path = os.path.join(folder, f"{rule_id}.toml")
            rules[path] = [len(sources) - 1, rule_id, shape(rule)]
            if rule.check is not None and rule.check.python is not None:
                checks.setdefault(os.path.join(os.path.dirname(folder), RULE_CHECKS, f"{rule.check.python}.py"), []).append(path)
    held: dict[str, list[str]] = {}
    for segment in resolution.segments:
        for rule in segment.rules:
            held.setdefault(f"{rule.source}:{rule.id}", []).append(segment.path)
    _write_state(root, cache, {
        "rules": rules, "checks": checks, "sources": sources, "segments": held, "warned": warned,
        "canonical": canonical,
    }, statuses)


def apply(root: Path, cache: Path, statuses: Mapping[str, Status], *, locked: bool, because: str) -> bool | None:
    """Bring the lock and the documents in step with a text edit the short way: whether it wrote the
    lock, or None when the full way must run (see the module docstring)."""
    state = _read_state(cache)
    if state is None or state["warned"]:
        return None
    old = read_cached(root / LOCKFILE)
    if old is None:
        return None
    if _digest(old) != state["lock"] or state["inputs"].keys() != statuses.keys():
        return None
    if any(file_status(path) != seen for path, seen in state["documents"].items()):
        return None
    inputs = state["inputs"]
    changed = [path for path, status in statuses.items() if status is None or inputs[path] != status]
    if not changed or len(changed) > MAX_CHANGED:
        return None
    rules, checks = state["rules"], state["checks"]
    affected: set[str] = set()
    for path in changed:
        if path in rules:
            affected.add(path)
        elif path in checks:
            affected.update(checks[path])
        else:
            return None
    revised = {}
    for path in sorted(affected):
        found = _revised(path, rules[path], state["sources"])
        if found is None:
            return None
        revised[found[0].ref] = found
    return _rewrite(root, cache, state, revised, old, statuses, locked=locked, because=because)


def _revised(path: str, entry: list, sources: list[list]):
    """(the rule's new resolved entry, minus why; its revision) or None when it must go the full way."""
    index, rule_id, kept_shape = entry
    name, source_root, languages = sources[index]
    root = Path(source_root)
    try:
        rule = load_rule(root, f"{rule_id}.toml", set(languages), lambda shown: parse_toml(decode(read_bytes(path, shown), shown), shown))
    except UserError:
        return None  # the full way reports it, with what a load says across rules
    if shape(rule) != kept_shape:
        return None
    check = None if rule.check is None or rule.check.python is None else root / RULE_CHECKS / f"{rule.check.python}.py"
    try:
        digest = rule_file_digest(path, check)
    except OSError:
        return None
    entry = ResolvedRule.of(name, rule, digest)
    return entry, rule.revision


def _rewrite(root, cache, state, revised, old: bytes, statuses, *, locked: bool, because: str) -> bool | None:
    text = None if locked or not state["canonical"] else _entries_rewritten(old, revised, command(root))
    if text is not None:
        same = old == text.encode()
    else:
        try:
            current = read_lock(root)
        except UserError:
            return None
        if current is None:
            return None
        rules = dict(current.rules)
        for ref, (entry, revision) in revised.items():
            if ref in rules:
                rules[ref] = LockedRule(revision=revision, digest=entry.digest)
        model = current.model_copy(update={"rules": rules})
        text = lock_file_text(model, command(root))
        same = old == text.encode() or (locked and records_same(current, model))
        if not same and locked:
            raise OutOfDate(
                f"the lockfile needs to be updated, but {because}: {LOCKFILE} {why_stale(current, model)}",
                file=LOCKFILE,
                fix="run `doit lock` and commit rules.lock",
            )
    documents = {}
    for ref in revised:
        for segment in state["segments"].get(ref, ()):
            if segment not in documents:
                try:
                    documents[segment] = read_resolved(resolved_path(cache, segment))
                except UserError:
                    return None
    index = read_index(cache)
    if index is None:
        return None
    # From here on the state no longer describes the files: gone until the new one is written.
    remove(cache / STATE, within=cache, missing_ok=True)
    if not same:
        write_if_changed(root / LOCKFILE, text, within=root)
    for segment, document in documents.items():
        updated = tuple(
            dataclasses.replace(revised[rule.ref][0], why=rule.why) if rule.ref in revised else rule for rule in document.rules
        )
        write_if_changed(resolved_path(cache, segment), dataclasses.replace(document, rules=updated).to_json(), within=cache)
    # The index is rewritten on every run of the lock stage (its age says when the documents were
    # last brought in step): the same bytes again.
    write_atomic(index_path(cache), index.to_json(), within=cache)
    kept = {key: state[key] for key in ("rules", "checks", "sources", "segments", "warned")}
    # Unless a locked run left it as it was, the lock now holds the writer's bytes.
    _write_state(root, cache, {**kept, "canonical": state["canonical"] or not locked}, statuses)
    return not same


def _entries_rewritten(old: bytes, revised, program: str) -> str | None:
    """The lock `old`, which holds the bytes `lock_file_text` wrote, with the revised rules' lines in
    `[rules]` replaced (a rule the lock does not record is left out, as the model's way does), or None
    when its header is not the one written now. The same text as parsing the lock, replacing the
    entries and writing it again, without either: at 5,000 rules x 1,000 segments that was 0.8 s of
    CPU of a one-rule edit's 3.4 s (the 1.3 MB lock parsed as TOML and validated)."""
    try:
        text = old.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.startswith(spoken(HEADER, program=program) + "\nversion = 2\n"):
        return None
    for ref, (entry, revision) in revised.items():
        line = rule_line(ref, LockedRule(revision=revision, digest=entry.digest))
        start = text.find("\n" + line.partition(" = ")[0] + " = ")
        if start < 0:
            continue
        end = text.find("\n", start + 1)
        if end < 0:
            return None
        text = text[:start + 1] + line + text[end:]
    return text


def _folders(statuses: Mapping[str, Status]) -> dict[str, str]:
    """The real path of each `rules/` folder among the input files → that folder as they name it."""
    found: dict[str, str] = {}
    for folder in {os.path.dirname(path) for path in statuses}:
        if os.path.basename(folder) == RULES:
            found.setdefault(os.path.realpath(folder), folder)
    return found


def _write_state(root: Path, cache: Path, kept: dict, statuses: Mapping[str, Status]) -> None:
    key = user_key()
    if key is None:
        return  # no user cache to seal it with: every run takes the full way
    written = time.time_ns()
    bound = written - _RACY_NS
    inputs = {path: None if status is None or status[1] >= bound or status[2] >= bound else tuple(status)
              for path, status in statuses.items()}
    documents = {str(path): file_status(path) for path in sorted((cache / FOLDER).glob("*.json"))}
    data = read_cached(root / LOCKFILE)
    if data is None:
        return
    lock = _digest(data)
    body = marshal.dumps({"format": FORMAT, "python": _PYTHON, "code": _code(), "lock": lock, "inputs": inputs,
                          "documents": documents, **kept}, _MARSHAL)
    write_atomic(cache / STATE, seal(key, body) + b"\n" + body, within=cache)


def _read_state(cache: Path) -> dict | None:
    key = user_key()
    data = read_cached(cache / STATE)  # not a regular file (a FIFO): no state, never a wait
    if data is None:
        return None
    head, _, body = data.partition(b"\n")
    # Sealed by this user's key, so written by this module (a file the repository brought, or one
    # edited since, does not verify); what is checked below guards against another version's file.
    if key is None or not hmac.compare_digest(head, seal(key, body)):
        return None
    try:
        data = marshal.loads(body)
        if data["format"] != FORMAT or data["python"] != _PYTHON or data["code"] != _code():
            return None
        if not all(isinstance(data[name], dict) for name in ("inputs", "documents", "rules", "checks", "segments")):
            return None
        if not isinstance(data["sources"], list) or not isinstance(data["warned"], bool) or not isinstance(data["lock"], str):
            return None
        if not isinstance(data["canonical"], bool):
            return None
    except (ValueError, EOFError, KeyError, TypeError):
        return None
    return data


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@functools.lru_cache(maxsize=1)  # the modules of this process do not change while it runs
def _code() -> tuple:
    """The status of the modules that decide a resolution: another version of them (an upgrade of the
    tool, an edit of its code) takes the full way once."""
    found = []
    for entry in os.scandir(Path(__file__).parent):
        if entry.name.endswith(".py"):
            status = entry.stat()
            found.append((entry.name, status.st_size, status.st_mtime_ns))
    return tuple(sorted(found))
