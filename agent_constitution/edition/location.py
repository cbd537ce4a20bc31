"""Where an agent that reads the agent edition inside compiled instructions can open the full edition.

The agent edition names the full edition by its path in the repository that publishes the
constitution (`constitution/<edition>/generated/constitution.<lang>.md`, seed 001). A repository
that adopts the constitution from a rule source has no such file, so compile replaces that path with
one the agent can open: the file at the pinned commit on the source's forge (its raw Markdown, which
an agent reads without a browser), the file in a source folder next to the repository, or, for a
forge whose URL scheme is not known here, `<repository>@<commit>:<path>` (what `git show` takes).
"""

from __future__ import annotations

import re

# host → the raw file URL at a commit: {host} {project} (owner/name…) {commit} {path}
_RAW = {
    "github.com": "https://raw.githubusercontent.com/{project}/{commit}/{path}",
    "gitlab.com": "https://{host}/{project}/-/raw/{commit}/{path}",
    "codeberg.org": "https://{host}/{project}/raw/commit/{commit}/{path}",
}


def full_edition_link(repository: str | None, commit: str | None, path: str) -> str:
    """Where the file at `path` of the constitution's repository can be opened from the compiled repository.

    `repository`: None for the compiled repository itself, a folder relative to it for a local
    source, else a normalized URL (`github.com/owner/name`); `commit`: the pinned commit, or None
    for a local folder read as it stands."""
    if repository is None:
        return path
    if commit is None:
        return f"{repository}/{path}"
    host, _, project = repository.partition("/")
    template = _RAW.get(host)
    if template is not None and project:
        return template.format(host=host, project=project, commit=commit, path=path)
    return f"{repository}@{commit}:{path}"


def point_to_full_edition(text: str, repository: str | None, commit: str | None, edition: str) -> str:
    """The agent edition `text` with every path of a full edition replaced by its link (the edition
    folder is named after the edition, check 3; the file names are `render.file_names`)."""
    pattern = re.compile(re.escape(f"constitution/{edition}/generated/") + r"constitution\.([A-Za-z0-9-]+)\.md")
    return pattern.sub(lambda match: full_edition_link(repository, commit, match[0]), text)
