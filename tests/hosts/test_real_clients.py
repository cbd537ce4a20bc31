"""The loader models against the real clients, run offline with no credentials: what each one says it
loaded from the repository's instruction files.

- Codex: `codex debug prompt-input` prints the model-visible input, the AGENTS.md chain included.
- Claude Code: `claude -p` with an `InstructionsLoaded` hook (given by `--settings`) records every
  instruction file it loads; with no credentials it stops before any model call.
- Gemini CLI: `gemini -d` logs the context files it loads (MemoryDiscovery) before its first request,
  which goes to a closed port on 127.0.0.1 (HTTPS_PROXY); the test stops it once the files are logged.
- Aider (from PyPI, `.ci/pypi-tools.txt`): `aider --exit` with a placeholder key starts, names each
  read-only file it added to the chat, and exits before any model call.

Each runs with HOME in the test's folder, so no user's configuration is read or written.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from agent_constitution.hosts.loaders import views
from tests.consumers import npm_bin, pypi_bin

DEAD = "http://127.0.0.1:9"  # nothing listens there: a request fails at once, on this machine


def repo(root: Path) -> Path:
    files = {"AGENTS.md": "ROOT-RULE\n", "CLAUDE.md": "@AGENTS.md\n", "GEMINI.md": "GEM-ROOT\n",
             "svc/AGENTS.md": "SVC-RULE\n", "svc/CLAUDE.md": "@AGENTS.md\n", "svc/GEMINI.md": "GEM-SVC @./more.md\n",
             "svc/more.md": "MORE\n", "svc/deep/AGENTS.md": "DEEP-RULE\n", "svc/deep/CLAUDE.md": "@AGENTS.md\n"}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def offline(home: Path) -> dict:
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and "PROXY" not in k.upper()}
    return {**env, "HOME": str(home), "HTTPS_PROXY": DEAD, "HTTP_PROXY": DEAD, "https_proxy": DEAD,
            "http_proxy": DEAD, "NO_PROXY": "", "CODEX_HOME": str(home / ".codex")}


def test_codex_loads_the_chain_the_model_says(tmp_path):
    codex = npm_bin("codex")
    root = repo(tmp_path / "repo")
    for budget in (32768, 12):
        done = subprocess.run([str(codex), "debug", "prompt-input", "-c", f"project_doc_max_bytes={budget}", "hi"],
                              cwd=root / "svc", env=offline(tmp_path / "home"), capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        texts = [part.get("text", "") for item in json.loads(done.stdout) if item.get("type") == "message"
                 for part in item["content"]]
        (block,) = [text for text in texts if text.startswith("# AGENTS.md instructions for")]
        loaded = block.split("<INSTRUCTIONS>\n", 1)[1].rsplit("\n</INSTRUCTIONS>", 1)[0]
        (view,) = views(root, "codex", "svc/file") if budget == 32768 else [_budget(root, budget)]
        assert loaded.replace("\n\n", "").strip() == "".join(p.text for p in view.pieces).replace("\n\n", "").strip()
        assert "DEEP-RULE" not in loaded


def _budget(root: Path, budget: int):
    from agent_constitution.hosts.loaders import codex as model
    from agent_constitution.hosts.loaders.common import View, cut_bytes

    (view,) = views(root, "codex", "svc/file")
    return View(view.agent, view.product, view.scenario, tuple(cut_bytes(list(view.pieces), budget)), model.BUDGET)


def test_claude_code_loads_what_the_model_says(tmp_path):
    claude = npm_bin("claude")
    root = repo(tmp_path / "repo")
    record = tmp_path / "loaded.jsonl"
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"InstructionsLoaded": [{"hooks": [
        {"type": "command", "command": f"cat >> '{record}'; echo >> '{record}'"}]}]}}))
    for cwd, model in ((root, views(root, "claude-code", "svc/file")[0]), (root / "svc", views(root, "claude-code", "svc/file")[1])):
        record.write_text("")
        subprocess.run([str(claude), "-p", "hi", "--settings", str(settings), "--output-format", "json"], cwd=cwd,
                       env=offline(tmp_path / "home"), capture_output=True, text=True, timeout=120)
        loaded = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
        seen = [Path(entry["file_path"]).relative_to(root).as_posix() for entry in loaded]
        assert seen, "no InstructionsLoaded event was recorded"
        # hooks run as the files load, not one after another: the order of the records is not the load order
        if cwd == root:  # at start only; the model's lazy files come when a file in svc/ is read
            assert sorted(seen) == ["AGENTS.md", "CLAUDE.md"] == sorted(p.path for p in model.pieces[:2])
        else:
            assert sorted(seen) == sorted(p.path for p in model.pieces) == ["CLAUDE.md", "svc/AGENTS.md", "svc/CLAUDE.md"]
    # [compile] claude = "link": every CLAUDE.md on the path is read as it is, the ancestors' too
    for folder in (root, root / "svc", root / "svc" / "deep"):
        (folder / "CLAUDE.md").unlink()
        (folder / "CLAUDE.md").symlink_to("AGENTS.md")
    record.write_text("")
    subprocess.run([str(claude), "-p", "hi", "--settings", str(settings), "--output-format", "json"],
                   cwd=root / "svc" / "deep", env=offline(tmp_path / "home"), capture_output=True, text=True, timeout=120)
    seen = [Path(json.loads(line)["file_path"]).relative_to(root).as_posix()
            for line in record.read_text().splitlines() if line.strip()]
    model = views(root, "claude-code", "svc/deep/file")[1]
    assert sorted(seen) == sorted(p.path for p in model.pieces) == ["CLAUDE.md", "svc/CLAUDE.md", "svc/deep/CLAUDE.md"]
    assert "ROOT-RULE" in model.text and "DEEP-RULE" in model.text


def test_gemini_cli_loads_what_the_model_says(tmp_path):
    gemini = npm_bin("gemini")
    root = repo(tmp_path / "repo")
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"privacy": {"usageStatisticsEnabled": False}}))
    env = {**offline(home), "GEMINI_API_KEY": "offline-test-no-key"}
    process = subprocess.Popen([str(gemini), "-d", "-p", "hi", "--skip-trust"], cwd=root / "svc", env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    deadline = time.monotonic() + 90
    try:
        for line in process.stderr:
            lines.append(line)
            if "[STARTUP]" in line or time.monotonic() > deadline:
                break
    finally:
        process.kill()
        process.wait()
    marker = "Successfully read and processed imports: "
    read = [line.split(marker, 1)[1] for line in lines if marker in line]
    seen = [Path(entry.split(" (Length:")[0]).relative_to(root).as_posix() for entry in read]
    lengths = [int(entry.split("(Length: ")[1].rstrip(")\n")) for entry in read]
    (view,) = views(root, "gemini", "svc/file")
    assert seen == [p.path for p in view.pieces] == ["GEMINI.md", "svc/GEMINI.md"]
    assert lengths[0] == len(view.pieces[0].text)  # the root's file, as is
    assert lengths[1] >= len("GEM-SVC MORE")  # svc's, its import expanded


def _aider(aider: Path, cwd: Path, home: Path) -> str:
    flags = ["--exit", "--model", "gpt-4o", "--openai-api-key", "offline-test-no-key", "--no-check-update",
             "--no-analytics", "--no-show-release-notes", "--no-gitignore", "--yes-always", "--no-pretty",
             "--map-tokens", "0", "--no-auto-commits"]
    done = subprocess.run([str(aider), *flags], cwd=cwd, env=offline(home), capture_output=True, text=True,
                          timeout=180, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout + done.stderr


def test_aider_reads_the_conventions_compile_names_in_its_configuration(tmp_path):
    from agent_constitution.compile.outputs.aider_read import CONFIG, CONVENTIONS, wanted_text

    aider = pypi_bin("aider")
    root = tmp_path / "repo"
    (root / "svc").mkdir(parents=True)
    (root / CONVENTIONS).write_text("- ac:1 Be kind\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for mine in (None, "map-tokens: 0\nvim: false\n"):  # compile's own file; a line added to the user's
        (root / CONFIG).write_text(wanted_text(mine, True))
        said = _aider(aider, root, tmp_path / "home")
        (view,) = views(root, "aider", "svc/file")
        assert [p.path for p in view.pieces] == [CONVENTIONS]
        assert f"Added {CONVENTIONS} to the chat (read-only)" in said
    # started in a subfolder, the relative name resolves there: nothing is read (docs/compile.md)
    assert "to the chat (read-only)" not in _aider(aider, root / "svc", tmp_path / "home")
