"""doit's console reporter, with what goes wrong on stderr, and quiet when `agent-constitution` asks.

doit writes a failed task's message (a `UserError`'s text, through `actions.reported`) and its
captured output to the same stream as the progress lines, stdout; a user, a pre-commit hook or an
agent host reads errors from stderr. Progress lines (`.  task`, `-- task`) stay on stdout, and are
written only when `console.settings.show_tasks` says so: always under a plain `doit`, under `-v`
for `agent-constitution` (quiet by default, like ruff). Each failure is recorded with its kind
(`input`: bad input, a `UserError`; `failed`: the task's own failure, such as violations; `error`:
an exception, a bug) for the command's exit code (`commands/run.py`).
"""

from __future__ import annotations

import sys

from doit.cmd_run import opt_outfile
from doit.exceptions import TaskError
from doit.reporter import ConsoleReporter

from agent_constitution import console
from agent_constitution.tasks.actions import MEMBERS, InputError


class Reporter(ConsoleReporter):
    desc = "console output, failures and errors on stderr"

    def write(self, text):
        # doit's default stream is the sys.stdout of doit's import: write to today's instead, so that
        # a redirection since (pytest's capture, a caller's) is honoured, as on stderr below.
        out = sys.stdout if self.outstream is opt_outfile["default"] else self.outstream
        out.write(text)

    def execute_task(self, task):
        if console.settings.show_tasks and not (task.meta or {}).get(MEMBERS):
            super().execute_task(task)

    def skip_uptodate(self, task):
        if console.settings.show_tasks:
            super().skip_uptodate(task)

    def skip_ignore(self, task):
        if console.settings.show_tasks:
            super().skip_ignore(task)

    def add_failure(self, task, fail):
        kind = "input" if isinstance(fail, InputError) else "error" if isinstance(fail, TaskError) else "failed"
        console.settings.failures.append((task.name, kind))
        self._on_stderr(super().add_failure, task, fail)

    def _write_failure(self, result, write_exception=True):
        if console.settings.show_tasks or result["exception"].report is False:
            return super()._write_failure(result, write_exception)
        # Quiet: the message alone (`error: …` with its `fix:`), without doit's `TaskFailed - taskid:…`.
        if write_exception:
            self.write(result["exception"].get_msg().rstrip("\n") + "\n")

    def complete_run(self):
        self._on_stderr(super().complete_run)

    def _on_stderr(self, report, *args):
        # sys.stderr at the time of the call: pytest's capture and doit's own redirection are honoured.
        out, self.outstream = self.outstream, sys.stderr
        try:
            report(*args)
        finally:
            self.outstream = out
