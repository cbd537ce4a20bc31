"""What every doit action of the task families shares: a `UserError`, or a stage's failure text,
becomes a failed task.

Every doit command imports every family, so this module imports only doit's exceptions and the
error type.
"""

from __future__ import annotations

import errno
import functools
from pathlib import Path

from doit.exceptions import TaskFailed

from agent_constitution.errors import OutOfDate, UserError
from agent_constitution.fsio import write_error
from agent_constitution.wiring import spoken


# In a task's `meta`: it stands for several (a group of compile jobs, every segment's resolution) and
# prints the mark of each one it runs (`.  agents:<segment>/AGENTS.md`), so the reporter prints none of its own.
MEMBERS = "members"


class InputError(TaskFailed):
    """A task failed on bad input (a `UserError`): the command exits 2, not 1 (`commands/run.py`)."""


def failed(message: str | None) -> TaskFailed | None:
    """A stage's failure text (None: it succeeded) as doit's failed task."""
    return None if message is None else TaskFailed(spoken(message, Path.cwd()))


# A write refused for want of space or permission, wherever it was made (git's own mkdir, a cache
# folder): one message like fsio's, never a traceback.
_WRITE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM)


def reported(action):
    """Run `action`; a `UserError` it raises fails the task with the error's text (no traceback), and
    so does an `OSError` of a write the disk or the folder refused (full, read-only).

    `functools.wraps` keeps the action's signature (doit passes `params` by parameter name) and its
    module and name (`doit -n N` pickles an action by reference)."""

    @functools.wraps(action)
    def run(*args, **kwargs):
        try:
            return action(*args, **kwargs)
        except UserError as error:
            # doit runs in the repository's root: the fix names the command its user has.
            text = spoken(str(error), Path.cwd())
            return TaskFailed(text) if isinstance(error, OutOfDate) else InputError(text)
        except OSError as error:
            if error.errno not in _WRITE_ERRNOS:
                raise
            return InputError(str(write_error(error, error.filename or "a file")))

    return run
