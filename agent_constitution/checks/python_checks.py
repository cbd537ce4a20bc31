"""Loading a source's python checks from its own tree, so that a rule and its check travel at one version.

A source's `rules/checks/` folder is imported as a package under a private name derived from the
folder's path (`_ac_checks_<digest>`), never as `rules.checks`: two sources, or two locked versions
of one source, can then be loaded in one process without shadowing each other or anything the user
has on `sys.path`. Helpers shared by a source's checks are imported relatively (`from . import _toml`).
Loading runs the source's code, so the runner calls this only for trusted sources.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from agent_constitution.checks.api import Undecidable
from agent_constitution.layout import RULE_CHECKS


def package_name(source_root: Path) -> str:
    digest = hashlib.blake2b(str(Path(source_root).resolve()).encode(), digest_size=8).hexdigest()
    return f"_ac_checks_{digest}"


def load_check(source_root: Path, module: str, rule_id: int) -> ModuleType:
    """The check module `module` of the source at `source_root`; Undecidable when it cannot be used."""
    folder = Path(source_root) / RULE_CHECKS
    if not (folder / f"{module}.py").is_file():
        raise Undecidable(f"check module {module} not found: no {folder / (module + '.py')}")
    package = _package(folder, package_name(source_root))
    try:
        loaded = importlib.import_module(f"{package}.{module}")
    except Exception as error:  # the module's own code failed: the check cannot decide
        raise Undecidable(f"check module {module} failed to import: {_last_line(error)}") from None
    if getattr(loaded, "RULE", None) != rule_id:
        raise Undecidable(f"check module {module} says RULE = {getattr(loaded, 'RULE', None)!r}, "
                          f"but rule {rule_id} names it")
    if not callable(getattr(loaded, "check", None)) and not callable(getattr(loaded, "check_file", None)):
        raise Undecidable(f"check module {module} has no check() or check_file() function")
    return loaded


def _package(folder: Path, name: str) -> str:
    if name not in sys.modules:
        init = folder / "__init__.py"
        if init.is_file():
            spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
        else:
            spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
            spec.submodule_search_locations = [str(folder)]
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
        if init.is_file():
            try:
                spec.loader.exec_module(package)
            except Exception as error:
                del sys.modules[name]
                raise Undecidable(f"{init} failed to import: {_last_line(error)}") from None
    return name


def _last_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".strip()
