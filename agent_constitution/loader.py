"""The doit task namespace, shared by a repo's dodo.py and the `agent-constitution` doit.LOADER entry point.

A repo selects it with `[tool.doit] loader = "agent-constitution"` in pyproject.toml, or with a
three-line dodo.py (`from agent_constitution.loader import namespace; globals().update(namespace())`);
either way every doit command (`compile`, `check`, `list`, `clean`, …) sees the same tasks.
"""

from __future__ import annotations

import gc

# Before the package's imports: a run's objects are nearly all modules, classes and the inputs it
# holds to the end, which the cycle collector scans over and over for nothing to free. At its default
# of a collection every 700 new objects it took 30 ms of a 50-rule compile's 0.7 s of CPU, 105-125 ms
# of a 500-rule one's 1.2-1.4 s and 20 ms of a no-op's 0.3 s (bench/bench_peers.py's workspaces);
# every 100,000 it runs none after this point (those during doit's own imports remain, 15 ms), and
# still bounds the garbage in cycles a large build leaves for it.
gc.set_threshold(100_000)

from doit.cmd_base import NamespaceTaskLoader
from doit.doit_cmd import set_var
from doit.exceptions import TaskFailed
from doit.loader import create_after, task_params

from agent_constitution import console
from agent_constitution.project import Project
from agent_constitution.tasks import FAMILIES, GROUP_OPTIONS, GROUPS, OLD_NAMES
from agent_constitution.tasks.reporter import Reporter
from agent_constitution.errors import UserError
from agent_constitution.tasks.actions import InputError
from agent_constitution.tasks.verbs import VERBS

DEFAULT_CONFIG = {
    "dep_file": "cache/doit.sqlite3",
    "backend": "sqlite3",
    "default_tasks": ["compile"],
    "reporter": Reporter,
}


def namespace(project: Project | None = None) -> dict:
    """`DOIT_CONFIG` plus one `task_<family>` creator per task family and one per group task."""
    project = project or Project.here()
    console.lines_in_order()  # a plain `doit` run, like `agent-constitution`
    # doit opens the dependency DB before it creates any task, so its folder must exist now.
    project.cache.mkdir(parents=True, exist_ok=True)
    names: dict[str, object] = {"DOIT_CONFIG": dict(DEFAULT_CONFIG)}
    members: dict[str, list[str]] = {group: [] for group in GROUPS}
    for family in FAMILIES:
        names[f"task_{family.NAME}"] = _creator(family, project)
        for group in family.GROUPS:
            members[group].append(family.NAME)
    for group, doc in GROUPS.items():
        names[f"task_{group}"] = _group(group, doc, members[group], GROUP_OPTIONS.get(group, []))
    return names


def _creator(family, project: Project):
    old = OLD_NAMES.get(family.NAME)

    # One line: doit reads every creator's source to sort them by line (`inspect.getsourcelines`
    # tokenizes the whole body), which over a 20-line body cost 15 ms of every doit command.
    def create():
        return _created(family, project, old)

    create.__doc__ = family.__doc__
    if getattr(family, "DELAYED", False):
        # Created only when a command reaches them: `doit compile` need not plan every check or page.
        create = create_after()(create)
    return create


def _created(family, project: Project, old: str | None):
    """The family's tasks, each followed by its twin under the old name; when there are none, the task
    that says why (asked for by name) or an empty group task under each name."""
    created = False
    for task in family.tasks(project):
        created = True
        # doit takes the dict apart as it reads it: the twin is made first.
        twin = _alias(old, task) if old and task.get("basename") == family.NAME else None
        yield task
        if twin:
            yield twin
    if not created:
        # A task run only on request (`doit site` outside a rule source) says why it does nothing;
        # a group's member (render, validate-source) stays silent when the group reaches it, as it
        # does in any repository, and says why when it is asked for by name (`doit render`).
        named = _named_on_command_line()
        for name in (family.NAME, old) if old else (family.NAME,):
            if not family.GROUPS or name in named:
                yield _not_here(family, project, name)
            elif old:  # an empty group task under each name, as doit makes for a creator that yields none
                yield {"basename": name, "name": None, "doc": family.__doc__.splitlines()[0]}


def _alias(old: str, task: dict) -> dict:
    """The twin of `task` under its family's old name: the same task, so a script's `doit source --base
    REF` keeps its options (a twin that only depended on `task` would refuse them)."""
    name = task.get("name")
    target = f"{task['basename']}:{name}" if name else task["basename"]
    return {**task, "basename": old, "doc": f"the old name of `{target}`"}


def _alone(command: str, words: list[str]):
    """The family of the one task `doit run` is asked for, when it is an `ALONE` family (it depends on
    no other task) and nothing else is on the line (or its positional argument takes the rest)."""
    if command != "run" or not words:
        return None
    family = next((family for family in FAMILIES if family.NAME == words[0]), None)
    if family is None or not getattr(family, "ALONE", False):
        return None
    return family if len(words) == 1 or getattr(family, "POS_ARG", None) else None


def _named_on_command_line() -> set[str]:
    # doit hands a task creator neither the command nor the tasks asked for; the process's own
    # arguments name them (`doit render`, `doit -n 2 source`, `agent-constitution render`).
    import sys

    return {word.partition(":")[0] for word in sys.argv[1:] if not word.startswith("-") and "=" not in word}


def _not_here(family, project: Project, name: str) -> dict:
    verb = next(verb for verb in VERBS.values() if (verb.task or verb.name) == family.NAME)
    reason, fix = verb.needs(project.root)
    error = UserError(f"`{name}` does not apply here: {reason}", fix=fix)
    return {"basename": name, "doc": family.__doc__.splitlines()[0], "actions": [(_fail, [str(error)])],
            "uptodate": [False]}


def _fail(message: str) -> TaskFailed:
    return InputError(message)


def _group(name: str, doc: str, members: list[str], options: list[dict]):
    def create(**flags):
        # doit gives a task's options to that task alone; a group hands its flags to its members as
        # command-line variables (`doit compile --locked` = `doit compile locked=1`).
        for flag, given in flags.items():
            if given:
                set_var(flag, "1")
        return {"actions": None, "task_dep": members, "doc": doc}

    create.__doc__ = doc
    return task_params(options)(create) if options else create


class Loader(NamespaceTaskLoader):
    """The `doit.LOADER` entry point: `[tool.doit] loader = "agent-constitution"`."""

    def setup(self, opt_values):
        self.namespace = namespace()

    def load_tasks(self, cmd, pos_args):
        # `doit outdated` and `doit upgrade ...` run one task that depends on no other: creating the
        # others (a check task per rule) would cost more than the run itself at 5,000 rules.
        family = _alone(cmd.name, pos_args)
        if family is None:
            return super().load_tasks(cmd, pos_args)
        everything = self.namespace
        self.namespace = {name: everything[name] for name in ("DOIT_CONFIG", f"task_{family.NAME}")}
        try:
            return super().load_tasks(cmd, pos_args)
        finally:
            self.namespace = everything

    def load_doit_config(self) -> dict:
        # Values from [tool.doit] / doit.cfg are applied after this and win, as doit users expect.
        return dict(self.namespace["DOIT_CONFIG"])
