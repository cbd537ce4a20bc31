"""The verbs of the `agent-constitution` command, one plain function per module returning an exit code.

`init` and `help` are plain functions; every other verb runs this project's doit task graph
in-process (`run.py`), so a repository needs no dodo.py and no doit on PATH.
"""
