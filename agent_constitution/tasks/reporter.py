"""doit's console reporter, with what goes wrong on stderr.

doit writes a failed task's message (a `UserError`'s text, through `actions.reported`) and its
captured output to the same stream as the progress lines, stdout; a user, a pre-commit hook or an
agent host reads errors from stderr. Progress lines (`.  task`, `-- task`) stay on stdout.
"""

from __future__ import annotations

import sys

from doit.reporter import ConsoleReporter


class Reporter(ConsoleReporter):
    desc = "console output, failures and errors on stderr"

    def add_failure(self, task, fail):
        self._on_stderr(super().add_failure, task, fail)

    def complete_run(self):
        self._on_stderr(super().complete_run)

    def _on_stderr(self, report, *args):
        # sys.stderr at the time of the call: pytest's capture and doit's own redirection are honoured.
        out, self.outstream = self.outstream, sys.stderr
        try:
            report(*args)
        finally:
            self.outstream = out
