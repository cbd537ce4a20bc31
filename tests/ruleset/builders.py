"""Write small rule sources and manifests into temp folders for the tests."""

from __future__ import annotations

from pathlib import Path

import tomlkit


def write_source(
    root: Path,
    rules: dict[int, dict],
    *,
    name: str = "ac",
    domains: tuple[str, ...] = ("python", "ci", "git"),
    groups: dict[str, object] | None = None,
    sources: dict[str, dict] | None = None,
    constitution: str | None = "2026-10",
    revision: str = "0.1",
    text: str | None = None,
) -> Path:
    """A source in `root`: each rule dict gives at least `parent`; the rest is filled in (`text`: every
    rule's text, unless its dict gives one)."""
    folder = root / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "name": name,
        "languages": ["en", "zh"],
        "domains": {d: {"title": {"en": d.title(), "zh": d}} for d in domains},
        "groups": {
            g: {"parent": parent, "title": {"en": g, "zh": g}} for g, parent in (groups or {}).items()
        },
        "sources": sources or {},
    }
    (folder / "source.toml").write_text(tomlkit.dumps(config))
    for rule_id, fields in rules.items():
        write_rule(root, rule_id, **({"text": text} if text is not None else {}), **fields)
    if constitution:
        edition = root / "constitution" / constitution
        edition.mkdir(parents=True, exist_ok=True)
        (edition / "constitution.md").write_text("# Constitution\n")
        (edition / "index.toml").write_text(f'status = "draft"\nedition = "{constitution}"\nrevision = "{revision}"\n')
    return root


def write_rule(root: Path, rule_id: int, **fields) -> None:
    """`text`: one text for every language, or a table of texts by language (default: one sentence
    naming the rule)."""
    text = fields.pop("text", None)
    data = {
        "id": rule_id,
        "revision": 1,
        "status": "active",
        "authority": ["must-ask"],
        **fields,
        "title": {"en": f"Rule {rule_id}", "zh": f"规定 {rule_id}"},
        "text": {"en": f"Text of rule {rule_id}.", "zh": f"规定 {rule_id} 的正文。"} if text is None
        else dict(text) if isinstance(text, dict) else {"en": text, "zh": text},
    }
    (root / "rules" / f"{rule_id}.toml").write_text(tomlkit.dumps(data))


def write_manifest(root: Path, data: dict, name: str = "rules.toml") -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tomlkit.dumps(data))
    return path


def git(root: Path, *args: str) -> str:
    import subprocess

    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )
    return done.stdout.strip()


def commit_all(root: Path, message: str, tag: str | None = None) -> str:
    """Commit everything in `root` (initialising the repository first) and optionally tag it."""
    if not (root / ".git").exists():
        git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    if tag:
        git(root, "tag", tag)
    return git(root, "rev-parse", "HEAD")
