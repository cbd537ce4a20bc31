"""Rule sources: where a source's files come from, and the user-level cache that keeps them.

A source is a git repository (a URL, or a local path to a repository) followed at a tag, branch or
rev, or a plain local folder while rules are being developed. Everything else in the project reads a
source through one call:

    fetch(*, url=None, path=None, tag=None, branch=None, rev=None, commit=None, base_dir) -> Snapshot

- `url=`: a git repository. `github.com/x/y`, `https://github.com/x/y.git`, `git@github.com:x/y`,
  `ssh://…` and `file://…` are accepted; a local path (`../rules`, `/srv/rules`) is a repository
  when it holds one, otherwise it is read as a plain folder.
- `path=`: a plain local folder, read as it is on disk (its working tree, not a commit). With a
  `tag`, `branch`, `rev` or `commit` it is read as a git repository instead.
- `tag` / `branch` / `rev`: what to follow (at most one; none means the default branch).
- `commit`: the commit the lock already pins. A pinned commit present in the cache needs no
  network; the tag, branch or rev is then not resolved again.
- Relative paths are resolved against `base_dir` (the folder of the file that names the source).

`Snapshot` (frozen): `key` (the normalized URL, see `normalize_url`), `commit` (the commit's hex id;
None for a plain folder), `digest` (`"sha256:<hex>"` over the source content, see `tree_digest`;
what the lock records for a plain folder) and `root` (a directory holding the source's tree, to be
treated as read-only: a user-cache entry for a git source, the folder itself for a plain folder;
`root / "rules" / "source.toml"` is the source file).

The source content is the folders `rules/`, `constitution/` and `manifests/` (base manifests a source
publishes for `extends`): the digest covers exactly these (`__pycache__` folders and `.pyc` files
excluded), so a plain folder and a git commit with the same content have the same digest. A cache
entry holds the whole tree of the commit, so an external check's script may live anywhere in the
source (`{source}/scripts/check_42.py`); links, submodules and the size limits are refused across the
whole tree.

    normalize_url(url, *, base_dir=None) -> str
        The key sources are matched by: `github.com/x/y` for all three spellings above (host lower
        case, no scheme, user or `.git`); an absolute path for a local path or `file://` URL.
    version_tags(*, url=None, path=None, base_dir) -> list[tuple[str, str]]
        Every tag of the repository as (tag name, commit hex), sorted by tag name, as
        `git ls-remote --tags` lists them (an annotated tag by its commit); no mirror is needed.
    newest_commit(*, url=None, path=None, branch=None, base_dir) -> str
        The commit a branch (None: the default branch) points at now.
    read_at(*, url=None, path=None, commit, name, base_dir) -> bytes | None
        One file of the source at a commit, read from the mirror's objects (nothing extracted).
    changed_paths(*, url=None, path=None, old, new, base_dir) -> frozenset[str] | None
        The paths that differ between two commits, by git's object ids in the mirror (None: a commit
        is not in it).
    remote_refs(*, url=None, path=None, base_dir) -> Refs
        What the repository's tags, branches and default branch name now, fetched with no fallback to
        the cache (an unreachable repository raises): what a locked run verifies `rules.lock` against.
    descends(*, url=None, path=None, base_dir, commit, ancestor) -> bool
        Whether `ancestor` is in the history of `commit` (both in the mirror).
    tags_listed_once()
        A context manager: inside it, `version_tags` asks each repository once.
    list_tags(sources)
        Inside `tags_listed_once()`: ask several repositories, (url, path, base_dir), for their tags at
        once (threads, one `git ls-remote` each).

`fetch`, `newest_commit` and `read_at` fetch the repository first when they need to, and
`version_tags` asks it with `git ls-remote`: the git command line, so SSH keys, the agent and
credential helpers work as for `git fetch`, with a timeout and a `fetching URL ...` (or `listing the
tags of URL ...`) line on stderr, falling back, with a warning, to what the cache already holds when
the repository cannot be reached.
Failures raise `agent_constitution.errors.UserError`: an unreachable source, refused credentials, a
URL that is not a repository, a URL of a transport not allowed or shaped as an option (`urls`), an
unknown tag, branch, rev or commit, a symbolic link, an oversize file or a tree past the shape limits
in the source (`content`, `limits`, `shape`). A cache entry that no longer matches git's object ids is
extracted again, with a warning on stderr.

The user-level cache lives in platformdirs' user cache dir (`AGENT_CONSTITUTION_CACHE` overrides it):
one bare mirror per repository and one extracted tree per commit, shared by every repo on the
machine, safe when several builds fill it at once and safe to delete at any time; see
`agent_constitution.sources.cache`.

`fetch`, `version_tags`, `newest_commit`, `read_at` and `Snapshot` live in `sources.snapshot` (which imports
pygit2) and are imported from there on first use, so that importing this package for `normalize_url`
or `tree_digest` stays cheap.

`sources.history` reads a plain folder's earlier constitution texts from the git repository the
folder is in, extracting a commit's tree into the cache as `fetch` does for a git source.

This package fetches and caches only. Authoring a source (`history`, `new_rule`, `validate`,
`impact`) lives in `agent_constitution.authoring`; `starter` (`agent-constitution init`) is still here.
"""

from agent_constitution.sources.digest import tree_digest
from agent_constitution.sources.urls import normalize_url

__all__ = [
    "Refs", "Snapshot", "changed_paths", "descends", "fetch", "list_tags", "newest_commit", "normalize_url", "read_at",
    "remote_refs", "tags_listed_once", "tree_digest", "version_tags",
]

_SNAPSHOT = (
    "Refs", "Snapshot", "changed_paths", "descends", "fetch", "list_tags", "newest_commit", "read_at", "remote_refs",
    "tags_listed_once", "version_tags",
)


def __getattr__(name: str):
    # `snapshot` imports pygit2 (about 35 ms). Task creation imports this package for `digest` and
    # `urls` only, so the fetching half is imported when something first uses it.
    if name in _SNAPSHOT:
        from agent_constitution.sources import snapshot  # lazy: task creation needs digest and urls; pygit2 (about 35 ms) loads on first use

        return getattr(snapshot, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
