"""Render the constitution's editions (seed 001) into its generated/ folder."""

from __future__ import annotations

NAME = "render"
GROUPS = ("compile",)


def tasks(project):
    # Filled by the constitution compiler.
    return
    yield
