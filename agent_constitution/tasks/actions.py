"""What every doit action of the task families shares: a `UserError`, or a stage's failure text,
becomes a failed task.

Every doit command imports every family, so this module imports only doit's exceptions and the
error type.
"""

from __future__ import annotations

import functools

from doit.exceptions import TaskFailed

from agent_constitution.errors import OutOfDate, UserError


class InputError(TaskFailed):
    """A task failed on bad input (a `UserError`): the command exits 2, not 1 (`commands/run.py`)."""


def failed(message: str | None) -> TaskFailed | None:
    """A stage's failure text (None: it succeeded) as doit's failed task."""
    return None if message is None else TaskFailed(message)


def reported(action):
    """Run `action`; a `UserError` it raises fails the task with the error's text (no traceback).

    `functools.wraps` keeps the action's signature (doit passes `params` by parameter name) and its
    module and name (`doit -n N` pickles an action by reference)."""

    @functools.wraps(action)
    def run(*args, **kwargs):
        try:
            return action(*args, **kwargs)
        except UserError as error:
            return TaskFailed(str(error)) if isinstance(error, OutOfDate) else InputError(str(error))

    return run
