"""What compile needs of the constitution in force: `agent_edition(root, commit) -> AgentEdition`.

`root` is the folder of the bound edition (`constitution/<edition>/` of the source's tree). The
agent edition's text per language is its `generated/` file when the folder has one for every
language, else rendered from the edition's sources; the provision labels (`Art. IV §1`, by anchor)
are taken for every language the renderer knows, so a rule in any language can cite a provision.
The lock stage writes the result into the resolution's index (`ruleset.resolved.Index`), so compile
and the checks never read the constitution's folder; the user tier, which keeps no cache, takes it
from here directly.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from agent_constitution.edition.languages import LANGUAGES
from agent_constitution.edition.references import label, targets
from agent_constitution.edition.render import file_names, outputs
from agent_constitution.edition.files import load, read_worktree
from agent_constitution.readers import read_text
from agent_constitution.ruleset.resolved import AgentEdition


def agent_edition(root: Path | str, commit: str) -> AgentEdition:
    """`commit`: what the edition is bound at (for a plain folder, the digest of its files), so that
    a process reads an edition again when it changed."""
    return _agent_edition(str(root), commit)


@lru_cache(maxsize=8)
def _agent_edition(root: str, commit: str) -> AgentEdition:
    folder = Path(root)
    prefix = f"constitution/{folder.name}/"
    sources = {path: data for path, data in read_worktree(folder.parent.parent).items() if path.startswith(prefix)}
    edition = load(sources)
    names = {code: file_names(code)[1] for code in edition.index.languages}
    if all((folder / "generated" / name).is_file() for name in names.values()):
        text = {code: read_text(folder / "generated" / name) for code, name in names.items()}
    else:
        rendered = outputs(edition)
        text = {code: rendered[name].decode("utf-8") for code, name in names.items()}
    known = targets(edition)
    labels = {code: MappingProxyType({anchor: label(target, language, short=False) for anchor, target in known.items()})
              for code, language in LANGUAGES.items()}
    return AgentEdition(tuple(edition.index.languages), MappingProxyType(text), MappingProxyType(labels))
