"""The hops of one rule's text from `rules/<id>.toml` to `AGENTS.md` in a real `doit compile`.

    uv run python bench/house_hops.py [CHECKOUT] [--rule 7] [-v]

Generates a 50-rule repository with one segment (bench/bench_compile.py's `write_repo`; its root
selects rules 1-20) in a temporary folder and runs one full `doit compile` there with CHECKOUT's
code (default: this checkout; pass a worktree of an older commit to measure it the same way), in a
process of its own under a profile hook. The hook looks at every call of a function of CHECKOUT's
`agent_constitution` and at its return: a call whose arguments, or a return whose value, hold the
rule's text (the first six words of its `text.en`, in a str or bytes, or in an object holding one:
dicts, sequences, dataclasses, models, down to eight levels) is a hop of the text. The path starts
at the first hop and ends when `AGENTS.md` first holds the text (checked at every return of the
package's functions): later hops (read-back, digests of the written file) are left out.

Prints, over the path's functions in the order the text first reached each:
- hops: the functions the text passes through (each once, however often it is called);
- files: the distinct modules of those functions;
- returns: how often the path enters a module it had already left;
- changes of form: how often the text's form changes from one function to the next, the form being
  `bytes` or `str` for a document that holds the text (a file's bytes, a TOML or JSON text, the
  rendered Markdown), `str (the text alone)`, the innermost record that holds it (a dataclass or
  model of the package's: `Rule`, `ResolvedRule`, ...), or else the builtin container whose item is
  the text alone (`dict` for `{"en": text}`).
`-v` lists the path, one function a line with its form.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# Run in the child, in the generated repository: the compile under the profile hook; prints the
# hops as JSON lines (function, file, direction, form) on the real stdout.
TRACER = r'''
import dataclasses, json, os, sys, threading, types

def trace():
    # the text comes in the environment, not in sys.argv, which doit reads; and the function's
    # locals, not the module's globals, hold it, as doit hands its loader the main module
    checkout, fragment, text = (os.environ.pop(name) for name in ("HOPS_CHECKOUT", "HOPS_FRAGMENT", "HOPS_TEXT"))
    sys.argv = ["doit", "compile"]
    package = os.path.join(checkout, "agent_constitution") + os.sep
    needle = fragment.encode()
    agents = os.path.join(os.getcwd(), "AGENTS.md")
    hops, done, last = [], [], [None]

    def form_of(value, depth=0, seen=None):
        """The form of the text in VALUE, or None when VALUE holds no text: `bytes` or `str` for a
        document holding it, `text` for the text alone, else the innermost record (a class of the
        package's, a model) holding it, or the builtin container that holds the text alone."""
        seen = set() if seen is None else seen
        if isinstance(value, str):
            return None if fragment not in value else ("text" if value.strip() == text else "str")
        if isinstance(value, (bytes, bytearray)):
            return "bytes" if needle in value else None
        if depth > 8 or id(value) in seen or isinstance(value, (int, float, bool, type(None))):
            return None
        seen.add(id(value))
        if isinstance(value, dict):
            items = list(value.keys()) + list(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            items = list(value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            items = [getattr(value, field.name, None) for field in dataclasses.fields(value)]
        elif hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType)) and not callable(value):
            items = list(vars(value).values())
        else:
            return None
        record = type(value).__module__ != "builtins"
        for item in items:
            found = form_of(item, depth + 1, seen)
            if found == "text" or (record and found in BUILTIN):
                return type(value).__name__
            if found is not None:
                return found
        return None

    BUILTIN = {"dict", "list", "tuple", "set", "frozenset"}

    def written():
        """Whether AGENTS.md holds the text yet (read again only when its size or mtime changed)."""
        try:
            state = os.stat(agents)
        except FileNotFoundError:
            return False
        key = (state.st_size, state.st_mtime_ns)
        if key == last[0]:
            return False
        last[0] = key
        with open(agents, "rb") as file:
            return needle in file.read()

    def profile(frame, event, arg):
        if done or event not in ("call", "return") or not frame.f_code.co_filename.startswith(package):
            return
        code = frame.f_code
        if event == "return" and written():  # the write has happened: the path ends at the hop before
            done.append(True)
            return
        if event == "call":
            count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
            values = [frame.f_locals.get(name) for name in code.co_varnames[:count]]
        else:
            values = [arg]
        for value in values:
            form = form_of(value)
            if form is not None:
                where = os.path.relpath(code.co_filename, checkout)
                hops.append([f"{where}:{code.co_qualname}", where, event, "str (the text alone)" if form == "text" else form])
                return

    from doit.doit_cmd import DoitMain
    real, sys.stdout = sys.stdout, open(os.devnull, "w")
    threading.setprofile(profile)
    sys.setprofile(profile)
    code = DoitMain().run(["compile"])
    sys.setprofile(None)
    sys.stdout = real
    print(json.dumps({"exit": code, "ended_at_write": bool(done), "hops": hops}))

trace()
'''


def generate(root: Path, rule: int) -> tuple[str, str]:
    """The repository and (fragment, text) of RULE's text."""
    spec = importlib.util.spec_from_file_location("bench_compile", HERE / "bench" / "bench_compile.py")
    bench_compile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_compile)
    bench_compile.write_repo(root, segments=1, rules=50)
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=bench", "-c", "user.email=bench@localhost",
                                                       "commit", "-qm", "input"]):
        subprocess.run(["git", *command], cwd=root, check=True, capture_output=True)
    text = tomllib.loads((root / "src" / "rules" / f"{rule}.toml").read_text())["text"]["en"].strip()
    return " ".join(text.split()[:6]), text


def path_of(hops: list[list[str]]) -> list[tuple[str, str, str]]:
    """(function, file, form) of each function in the order the text first reached it."""
    seen, path = set(), []
    for function, where, _, form in hops:
        if function not in seen:
            seen.add(function)
            path.append((function, where, form))
    return path


@dataclass(frozen=True)
class Figures:
    path: list[tuple[str, str, str]]  # (function, file, form) in the order the text first reached each
    carried: int  # the calls and returns that carried the text, repeats included

    @property
    def files(self) -> int:
        return len({where for _, where, _ in self.path})

    @property
    def returns(self) -> int:
        """How often the path enters a file it had already left."""
        files = [where for _, where, _ in self.path]
        visits = [where for index, where in enumerate(files) if index == 0 or files[index - 1] != where]
        return sum(1 for index, where in enumerate(visits) if where in visits[:index])

    @property
    def forms(self) -> list[str]:
        return sorted({form for _, _, form in self.path})

    @property
    def changes(self) -> int:
        forms = [form for _, _, form in self.path]
        return sum(1 for before, after in itertools.pairwise(forms) if before != after)


def measure(checkout: Path, rule: int) -> Figures:
    """Trace RULE's text through one full compile with CHECKOUT's code; exits when it cannot."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        fragment, text = generate(root, rule)
        env = {key: value for key, value in os.environ.items() if key not in {"CI", "VIRTUAL_ENV"}}
        env |= {"PYTHONPATH": str(checkout), "PYTHONSAFEPATH": "1", "PYTHONDONTWRITEBYTECODE": "1",
                "AGENT_CONSTITUTION_CACHE": str(Path(folder) / "user-cache"),
                "AGENT_CONSTITUTION_CONFIG": str(Path(folder) / "user-config"),
                "HOPS_CHECKOUT": str(checkout), "HOPS_FRAGMENT": fragment, "HOPS_TEXT": text}
        # agent_constitution is imported first, from CHECKOUT, before doit puts the repository on sys.path
        runner = "import agent_constitution\n" + TRACER
        done = subprocess.run([sys.executable, "-c", runner], cwd=root, env=env, capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            sys.exit(f"the traced compile failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        found = json.loads(done.stdout.strip().splitlines()[-1])
        agents = (root / "AGENTS.md").read_text()
    if found["exit"] != 0 or not found["ended_at_write"] or fragment not in agents:
        sys.exit(f"the compile did not write rule {rule}'s text to AGENTS.md (exit {found['exit']})")
    return Figures(path_of(found["hops"]), len(found["hops"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", nargs="?", type=Path, default=HERE)
    parser.add_argument("--rule", type=int, default=7, help="a rule the root selects (1-20)")
    parser.add_argument("-v", "--verbose", action="store_true")
    options = parser.parse_args()
    checkout = options.checkout.resolve()
    figures = measure(checkout, options.rule)
    print(f"rule {options.rule}'s text, rules/{options.rule}.toml -> AGENTS.md ({checkout.name}): "
          f"{len(figures.path)} hops through {figures.files} files, {figures.returns} returns to a file already "
          f"visited, {figures.changes} changes of form ({len(figures.forms)} forms: {', '.join(figures.forms)}); "
          f"{figures.carried} calls and returns carried it")
    if options.verbose:
        for function, _, form in figures.path:
            print(f"  {function}  [{form}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
