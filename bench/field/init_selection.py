"""The `rules.toml` that `agent-constitution init` writes in a repository, over a rule source folder.

Usage: uv run --project CHECKOUT python CHECKOUT/bench/field/init_selection.py REPO CHECKOUT [--full]

The field corpus's runner (`corpus/field.py --selection init`) measures the checks with the selection
a newcomer gets: init's own code (`commands.starter`: the shape, the packages, the choices, the fit to
what the agents load, and the default set) over the rules of CHECKOUT as they stand in its working
tree, so that an edit of a rule's `default` is measured before it is committed. The source line is a
trusted `path` source to CHECKOUT instead of init's pinned URL, which is the only difference from
what init writes. `--full` keeps every rule of the selected packages (the selection before the
default set). Prints the manifest; nothing is written.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from agent_constitution.commands.shape import detect
from agent_constitution.commands.starter import SOURCE_URL, fitted_starter, project_layer, starter_manifest
from agent_constitution.ruleset.source import load_source

_SOURCE_LINE = re.compile(r'^ac = \{ url = .*\}$', re.MULTILINE)


def manifest(repo: Path, checkout: Path, *, full: bool = False) -> str:
    source = load_source(checkout)
    own = project_layer(repo)
    starter = fitted_starter(repo, detect(repo), source, SOURCE_URL, None, own.text if own else "",
                             defaults=not full)
    text = starter_manifest(SOURCE_URL, 'rev = "field"', starter)
    text, count = _SOURCE_LINE.subn(f'ac = {{ path = "{checkout}", trust = true }}', text)
    if count != 1:
        raise SystemExit("init's manifest has no `ac = { url = ... }` line to point at the checkout")
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--full", action="store_true", help="every rule of init's packages, not only the default set")
    args = parser.parse_args()
    sys.stdout.write(manifest(args.repo.resolve(), args.checkout.resolve(), full=args.full))
    return 0


if __name__ == "__main__":
    sys.exit(main())
