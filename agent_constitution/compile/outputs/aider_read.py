"""Aider's `read:` of the rules: Aider loads no instruction file by itself, only the files its
`.aider.conf.yml` (at the git root, or in the working folder) names under `read:`.

With `aider` enabled, compile writes the rules into `CONVENTIONS.md` (`summary.py`, the root file and
every nested segment's text, as Aider reads nothing nested) and makes `.aider.conf.yml` read it:

- no `.aider.conf.yml`: compile writes one of its own, marked by its first line, holding `read:`;
- a `.aider.conf.yml` of the user's without a `read` key: one line `read: CONVENTIONS.md`, marked by
  its comment, goes at its end (and out again, byte for byte, when `aider` is dropped);
- one whose `read:` names other files: left alone (compile edits no value of the user's); the
  read-back proof then says Aider misses the rules, with the line to add.

A `.aider.conf.yml` that is not valid YAML, or not a mapping, is left alone the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_constitution.compile.outputs.base import Job, Plan, Step, digest
from agent_constitution.fsio import confine, remove, write_atomic, write_if_changed
from agent_constitution.hosts.agents import OWN_CONFIG

CONFIG = ".aider.conf.yml"
CONVENTIONS = "CONVENTIONS.md"
BANNER = OWN_CONFIG.decode() + "Aider reads the rules from CONVENTIONS.md\n"  # a file of ours shows no user of Aider
OURS = f"{BANNER}read: {CONVENTIONS}\n"
LINE = f"read: {CONVENTIONS}  # added by agent-constitution compile\n"


class AiderRead:
    name = "aider-read"

    def jobs(self, plan: Plan) -> list[Job]:
        if "aider" not in plan.settings.agents and not _ours_in(plan):
            return []
        return [Job(name=CONFIG, doc="Make Aider read the rules (`read:` in .aider.conf.yml)", subject=CONFIG,
                    task_dep=(f"agents:{CONVENTIONS}",) if "aider" in plan.settings.agents else ())]

    def run(self, plan: Plan, job: Job, *, locked: bool) -> Step:
        from agent_constitution.compile.strict import refuse_change, refuse_removal  # lazy: strict would add 0.3 ms to a no-op check (no job runs)

        path = confine(plan.root / CONFIG, plan.root)
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        wanted = wanted_text(current, "aider" in plan.settings.agents)
        if wanted == current:
            return Step(state=_state(plan))
        if wanted is None:
            refuse_removal(path, locked=locked)
            remove(path, within=plan.root)
            return Step(state=_state(plan), removed=(CONFIG,))
        refuse_change(path, current, wanted, locked=locked, edited=False)
        write_if_changed(path, wanted, within=plan.root)
        return Step((CONFIG,), state=_state(plan))

    def fresh(self, plan: Plan, job: Job, values: Mapping) -> bool:
        return bool(values) and values.get("state") == _state(plan)

    def clean(self, plan: Plan, job: Job) -> list[str]:
        path = confine(plan.root / CONFIG, plan.root)
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        wanted = wanted_text(current, False)
        if wanted == current:
            return []
        if wanted is None:
            remove(path, within=plan.root)
        else:
            write_atomic(path, wanted, within=plan.root)
        return [CONFIG]


def wanted_text(current: str | None, enabled: bool) -> str | None:
    """What `.aider.conf.yml` holds once `read:` is as `enabled` wants (None: no file); `current` when
    it is the user's to change."""
    if not enabled:
        if current == OURS or (current is not None and current.startswith(BANNER)):
            return None
        if current is not None and LINE in current:
            return current.replace(LINE, "", 1)
        return current
    if current is None or current.startswith(BANNER):
        return OURS
    if LINE in current or not _may_add(current):
        return current
    return current + LINE


def _may_add(text: str) -> bool:
    """A mapping without a `read` key, ending with a newline, that stays a mapping with the line added."""
    if not text.endswith("\n") and text:
        return False
    data = _load(text)
    if data is _BAD or not (data is None or isinstance(data, dict)) or (isinstance(data, dict) and "read" in data):
        return False
    after = _load(text + LINE)
    return isinstance(after, dict) and after.get("read") == CONVENTIONS


_BAD = object()  # what `_load` returns for a text that is not YAML


def _load(text: str):
    from ruamel.yaml import YAML

    try:
        return YAML(typ="safe", pure=True).load(text)
    except Exception:  # ruamel raises many types: any of them means the file is left alone
        return _BAD


def _ours_in(plan: Plan) -> bool:
    path = plan.root / CONFIG
    if not path.is_file():
        return False
    text = path.read_text(encoding="utf-8", errors="replace")
    return text.startswith(BANNER) or LINE in text


def _state(plan: Plan) -> str:
    path = plan.root / CONFIG
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    return digest([text, "aider" in plan.settings.agents])


OUTPUT = AiderRead()
