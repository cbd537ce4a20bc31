"""Where the organisation policy comes from: never from the repository it governs.

Three places, each a layer, read in this order and all applied (`Policy.layers`):

1. the managed path, `policy.toml` in platformdirs' site config dir (`/etc/xdg/agent-constitution/`
   on Linux, `/Library/Application Support/agent-constitution/` on macOS, `C:\\ProgramData\\…` on
   Windows): what a machine's administrator installs;
2. the environment variable `AGENT_CONSTITUTION_POLICY`: what a CI runner or a fleet job sets;
3. `--policy` on the command line (`settings.given`).

Each names a file, or a git repository pinned by commit, `URL#COMMIT` or `URL#COMMIT:PATH` (PATH
defaults to `agent-constitution/policy.toml`, the place in an organisation's `.github`-style
repository), read from the commit's objects through the sources machinery (the same transports
allow-list, the user's git credentials, the user cache). A file inside the repository being built
is refused: a change to the repository could then rewrite what governs it.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from agent_constitution.errors import UserError
from agent_constitution.readers import decode, parse_toml, read_bytes

ENV = "AGENT_CONSTITUTION_POLICY"
FILE = "policy.toml"
IN_REPOSITORY = "agent-constitution/policy.toml"  # PATH in a `URL#COMMIT` policy, by default
_PINNED = re.compile(r"^(?P<commit>[0-9a-f]{40})(?::(?P<path>[^:]+))?$")


@dataclass
class Settings:
    """What the command line gave: `--policy` (set by the command runner before the tasks run)."""

    given: str | None = None


settings = Settings()


@dataclass(frozen=True)
class Layer:
    shown: str  # how messages name it: a path, or `URL#COMMIT:PATH`
    text: str
    digest: str  # sha256 of its bytes
    base_dir: Path  # what relative source URLs in it are relative to
    origin: str  # "managed" | "environment" | "--policy"


@dataclass(frozen=True)
class Found:
    """The layers in force, in order (managed, environment, --policy); none: no policy."""

    layers: tuple[Layer, ...] = ()
    models: tuple = field(default=(), compare=False)

    @property
    def digest(self) -> str | None:
        """One digest for the whole policy: a layer's own, or of every layer's in order."""
        if not self.layers:
            return None
        if len(self.layers) == 1:
            return self.layers[0].digest
        joined = "\n".join(f"{layer.origin} {layer.digest}" for layer in self.layers)
        return "sha256:" + hashlib.sha256(joined.encode()).hexdigest()


def managed_path() -> Path:
    import platformdirs  # lazy: what a check run without a policy pays for a stat of the managed path

    return Path(platformdirs.site_config_dir("agent-constitution")) / FILE


def specs(environ=None) -> list[tuple[str, str]]:
    """(origin, spec) of every layer that is set, in order."""
    environ = os.environ if environ is None else environ
    found = []
    managed = managed_path()
    if managed.exists():
        found.append(("managed", str(managed)))
    if environ.get(ENV):
        found.append(("environment", environ[ENV]))
    if settings.given:
        found.append(("--policy", settings.given))
    return found


def discover(project_root: Path | None = None, environ=None) -> Found:
    """The policy in force for `project_root` (None: outside a repository, as the fleet reads)."""
    given = specs(environ)
    if not given:
        return Found((), ())
    from agent_constitution.policy.model import PolicyFile  # lazy: pydantic, only when a policy is set
    from agent_constitution.ruleset.models import parse  # lazy: pydantic, only when a policy is set

    layers, models = [], []
    for origin, spec in given:
        layer = _read(origin, spec, project_root)
        layers.append(layer)
        models.append(parse(PolicyFile, parse_toml(layer.text, layer.shown), layer.shown))
    return Found(tuple(layers), tuple(models))


def _read(origin: str, spec: str, project_root: Path | None) -> Layer:
    url, hash_sign, pin = spec.rpartition("#")
    if hash_sign and url:
        match = _PINNED.match(pin)
        if match is None:
            raise UserError(f"the policy {spec!r} ({origin}) names a git repository without a full commit",
                            fix="write URL#COMMIT or URL#COMMIT:PATH with the 40-hex commit id (a branch or tag "
                                "could move under every repository it governs)")
        return _from_git(origin, url, match["commit"], match["path"] or IN_REPOSITORY)
    path = Path(spec).expanduser().resolve()
    if project_root is not None and path.is_relative_to(project_root.resolve()):
        raise UserError(f"the policy {spec} ({origin}) is a file of the repository it governs",
                        file=spec, fix="keep the policy outside the repository: the managed path, a file the CI "
                                       "runner provides, or a git URL pinned by commit")
    data = read_bytes(path, spec)
    return Layer(spec, decode(data, spec), _digest(data), path.parent, origin)


def _from_git(origin: str, url: str, commit: str, name: str) -> Layer:
    from agent_constitution.sources import read_at  # lazy: pygit2, only for a policy pinned in git

    shown = f"{url}#{commit}:{name}"
    data = read_at(url=url, commit=commit, name=name, base_dir=Path.cwd())
    if data is None:
        raise UserError(f"the policy repository {url} has no file {name} at commit {commit}", file=shown,
                        fix="name the policy file's path after the commit: URL#COMMIT:PATH")
    return Layer(shown, decode(data, shown), _digest(data), Path.cwd(), origin)


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()
