"""The checks of rules 37, 40 and 60 onwards: each passes on a compliant subject, reports the violating
one and is undecidable on the third, which it must not judge either way."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_constitution.checks.api import Record, Undecidable

from .subjects import AGENTS, bash, change, check_module, record, repository

SHA = "0123456789abcdef0123456789abcdef01234567"


def told(path, prompt: str, *tool_uses) -> Record:
    """A Claude Code record whose principal wrote `prompt`."""
    lines = [json.dumps({"type": "user", "message": {"role": "user", "content": prompt}})]
    for number, (name, tool_input) in enumerate(tool_uses):
        block = {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": tool_input}
        lines.append(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [block]}}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Record.read(path)


# rule id → (compliant, violating, undecidable); each (principal's prompt or None, tool calls)
RECORDS: dict[int, tuple[tuple, tuple, tuple]] = {
    40: (
        (None, bash("uv build", "npm run publish-docs-locally", "aws s3 ls", "kubectl get pods")),
        (None, bash("uv build && uv publish", "kubectl apply -f deploy.yaml")),
        ("Deploy the new image to the staging cluster with helm", bash("helm upgrade web ./chart")),
    ),
    61: (
        (None, bash("git switch -c topic", "git push -u origin topic", "git push origin HEAD:refs/heads/topic")),
        (None, bash("git push origin main")),
        ("Fix the typo and push it to main", bash("git checkout main", "git pull", "git push")),
    ),
    64: (
        (None, bash("kill 4242", "kill -- -$(cat /tmp/job/pid)", "kill %1")),
        (None, bash("pkill -f 'doit check'", "kill $(pgrep -f uvicorn)", "ps aux | grep x | awk '{print $2}'",
                    "pgrep node | xargs kill -9", "killall python", "kill -9 -1")),
        (None, bash("kill $(lsof -t -i :8000)")),
    ),
    65: (
        (None, bash("gh repo view --json visibility", "chmod 755 run.sh", "gh api repos/o/r/collaborators")),
        (None, bash("gh repo edit --visibility public", "chmod -R 777 build", "gh secret set TOKEN < t",
                    "aws iam attach-user-policy --user-name ci --policy-arn x")),
        (None, bash("gh api -X PATCH repos/o/r -f has_wiki=false")),
    ),
    66: (
        (None, bash("gh pr view 12 --comments", "gh issue list", "curl -s https://example.test/api")),
        (None, bash("gh pr comment 12 --body 'LGTM'", "gh issue create --title bug --body x",
                    "curl -X POST -d @m.json https://hooks.slack.com/services/T/B/x")),
        ("Open a pull request with the fix", bash("gh pr create --fill")),
    ),
    67: (
        (None, [("Write", {"file_path": "/work/src/a.py", "content": ""}), *bash("echo x > /tmp/out.txt",
                "uv run pytest > log.txt 2>&1", "cat a | tee -a notes.md")], "codex"),
        (None, [("Write", {"file_path": "/home/me/.bashrc", "content": ""}), *bash("echo x >> ~/.profile")], "codex"),
        (None, [("Write", {"file_path": "/work/src/a.py", "content": ""})]),
    ),
    68: (
        (None, bash("uv sync", "echo 'use sudo only by hand'", "id -u")),
        (None, bash("sudo apt-get install -y jq", "cd / && doas rm x", "su -c 'make install'")),
        (None, bash("ssh build-host 'sudo systemctl restart web'")),
    ),
    69: (
        (None, bash("uv add httpx", "npm install --save-dev eslint", "python -m venv .venv && pip install -e .")),
        (None, bash("npm install -g typescript", "pip install --user black", "cargo install ripgrep",
                    "uv tool install ruff", "sudo apt-get install -y jq", "brew install gh")),
        (None, bash("pip install requests")),
    ),
}
# Checks that read something only some agents' records give (the session's folder): the agents
# whose records the violating session is written for.
AGENTS_OF = {67: ("codex",)}

# rule id → (compliant, violating, undecidable); each (messages, files as path → (old, new))
CHANGES: dict[int, tuple[tuple, tuple, tuple]] = {
    37: (
        ([], {"rules.toml": ('rules = []\n', 'rules = []\n[sources]\nac = "github.com/Luolc/agent-constitution"\n')}),
        (["Enable the team rules"], {"rules.toml": ('rules = []\n', 'rules = []\n[sources.team]\nurl = "example.test/team/rules"\ntag = "v2"\n')}),
        ([], {"rules.toml": ('rules = []\n', 'rules = []\n[sources.team]\nurl = "example.test/team/rules"\ntag = "v2"\n')}),
    ),
    60: (
        (["Add the lock command", "修正拼写"], {}),
        (["Add the lock command."], {}),
        (["Support tags, branches, etc."], {}),
    ),
    62: (
        (["Add the lock command\n\nCo-authored-by: Claude <noreply@anthropic.com>", "Fix\n\nAssisted-by: Codex"], {}),
        (["Add the lock command\n\nIt writes rules.lock."], {}),
        (["Add the lock command\n\nCo-authored-by: Ada Lovelace <ada@example.test>"], {}),
    ),
    83: (
        (["Add httpx: the client for the registry API"], {"pyproject.toml": ('[project]\ndependencies = ["rich"]\n',
                                                                            '[project]\ndependencies = ["rich", "httpx>=0.27"]\n')}),
        (["Add the registry client"], {"package.json": ('{"dependencies": {}}', '{"dependencies": {"left-pad": "1.3.0"}}')}),
        ([], {"go.mod": ("module a\n", "module a\nrequire github.com/pkg/errors v0.9.1\n")}),
    ),
    63: (
        ([], {"a.py": ("x = 1\n" * 300, "x = 1\n" * 300 + "y = 2\n" * 50), "uv.lock": (None, "z\n" * 5000),
              # What compile writes is reviewed in rules.toml: its fenced text, part files, skills.
              "AGENTS.md": ("# Notes\n", "# Notes\n\n<!-- agent-constitution:begin -->\n" + "- ac:1 a rule\n" * 300
                            + "<!-- agent-constitution:end -->\n"),
              "AGENTS.python.md": (None, "<!-- generated by agent-constitution from rules.toml; do not edit -->\n"
                                   + "text\n" * 300),
              ".claude/skills/uv-project/SKILL.md": (None, "step\n" * 300),
              ".claude/skills/uv-project/.agent-constitution.json": (None, json.dumps(
                  {"generated-by": "agent-constitution", "from": "ac:rules/skills/uv-project",
                   "files": {"SKILL.md": "0" * 64}})),
              "gen/api_pb2.py": (None, "# -*- coding: utf-8 -*-\n# " + "@" + "generated by protoc\n" + "x\n" * 500)}),
        ([], {"a.py": (None, "y = 2\n" * 401)}),
        ([], {"old/util.py": ("x\n" * 300, None), "new/util.py": (None, "x\n" * 300)}),
    ),
}


def workflow(on: str = "pull_request", job: str = "    timeout-minutes: 10\n", steps: str = "      - run: make check\n"):
    return f"on: {on}\npermissions:\n  contents: read\njobs:\n  test:\n    runs-on: ubuntu-latest\n{job}    steps:\n{steps}"


GITLAB_OK = 'image: python:3.12\nworkflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\ntest:\n  script: [make check]\n'
PRE_COMMIT = "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    hooks: [{id: ruff}]\n" \
             "  - repo: https://github.com/pre-commit/mirrors-mypy\n    hooks: [{id: mypy}]\n"

# rule id → (compliant files, violating files, undecidable files)
REPOSITORIES: dict[int, tuple[dict, dict, dict]] = {
    70: (
        {".github/workflows/label.yml": workflow("pull_request_target", steps="      - uses: actions/checkout@v4\n")},
        {".github/workflows/label.yml": workflow("[pull_request_target]", steps="      - uses: actions/checkout@v4\n"
                                                 "        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n")},
        {".github/workflows/label.yml": workflow("pull_request_target", steps="      - uses: actions/checkout@v4\n"
                                                 "        with:\n          ref: ${{ inputs.ref }}\n")},
    ),
    71: (
        {".github/workflows/ci.yml": workflow(), ".github/workflows/call.yml": "on: push\njobs:\n  call:\n    uses: ./.github/workflows/ci.yml\n"},
        {".github/workflows/ci.yml": workflow(job="")},
        {".github/workflows/ci.yml": "on: [push\n"},
    ),
    72: (
        {".github/workflows/ci.yml": workflow("[push, pull_request]"), ".github/workflows/nightly.yml": workflow("schedule")},
        {".github/workflows/ci.yml": workflow("push")},
        {".github/workflows/ci.yml": workflow("workflow_call")},
    ),
    73: (
        {".github/dependabot.yml": "version: 2\nupdates:\n  - package-ecosystem: pip\n    directory: /\n"
                                   "    schedule: {interval: weekly}\n"},
        {"pyproject.toml": "[project]\nname = 'a'\n"},
        {".github/dependabot.yml": "version: 2\nupdates: [\n"},
    ),
    76: (
        {".gitlab-ci.yml": GITLAB_OK},
        {".gitlab-ci.yml": "test:\n  script: [make check]\n"},
        {".gitlab-ci.yml": "include:\n  - project: team/ci\n    file: base.yml\ntest:\n  script: [make check]\n"},
    ),
    77: (
        {".gitlab-ci.yml": GITLAB_OK + "lint:\n  image: {name: 'node@sha256:" + "a" * 64 + "'}\n  script: [x]\n"},
        {".gitlab-ci.yml": "image: python\ntest:\n  image: node:latest\n  script: [x]\n"},
        {".gitlab-ci.yml": "test:\n  image: $BUILD_IMAGE\n  script: [x]\n"},
    ),
    78: (
        {".forgejo/workflows/ci.yml": f"on: push\njobs:\n  t:\n    steps:\n      - uses: https://code.forgejo.org/actions/checkout@{SHA} # v4\n      - uses: ./local\n"},
        {".forgejo/workflows/ci.yml": "on: push\njobs:\n  t:\n    steps:\n      - uses: https://code.forgejo.org/actions/checkout@v4\n"},
        {".forgejo/workflows/ci.yml": "on: push\njobs:\n  t:\n    steps:\n      - uses: ${{ vars.CHECKOUT }}\n"},
    ),
    79: (
        {"pyproject.toml": "[project]\nname = 'a'\n", ".pre-commit-config.yaml": PRE_COMMIT},
        {"pyproject.toml": "[project]\nname = 'a'\n", "a.py": "x = 1\n"},
        {"pyproject.toml": "[project]\nname = 'a'\n[tool.ruff]\nline-length = 100\n"},
    ),
    80: (
        {"pyproject.toml": "[project]\nname = 'a'\n", "Makefile": "check:\n\tuv run mypy src\n"},
        {"pyproject.toml": "[project]\nname = 'a'\n", ".pre-commit-config.yaml": PRE_COMMIT.split("  - repo: https://github.com/pre-commit")[0]},
        {"pyproject.toml": "[project]\nname = 'a'\n", "setup.cfg": "[mypy]\nstrict = True\n"},
    ),
}

# Rules whose check runs an external tool: rule id → (the tools it runs, what they answer when the
# repository complies, what they answer when it does not) as tool → (exit status, stdout, report);
# the report is written where `-o` or `--report-path` says, and a fourth item goes to stderr. Without the tools the check is
# undecidable. Each runs on `files`.
TOOLS: dict[int, tuple[dict, dict, dict]] = {
    74: ({".github/workflows/ci.yml": workflow()}, {"actionlint": (0, "[]", "")},
         {"actionlint": (1, json.dumps([{"message": "property \"foo\" is not defined", "filepath": ".github/workflows/ci.yml",
                                         "line": 9, "column": 5, "kind": "expression"}]), "")}),
    75: ({".github/workflows/ci.yml": workflow()}, {"zizmor": (0, "[]", "")},
         {"zizmor": (13, json.dumps([{"ident": "template-injection", "desc": "code injection via template expansion",
                                      "locations": [{"symbolic": {"key": {"Local": {"given_path": "./.github/workflows/ci.yml"}}},
                                                     "concrete": {"location": {"start_point": {"row": 8}}}}]}]), "")}),
    81: ({"uv.lock": "version = 1\n", "pyproject.toml": "[project]\nname = 'a'\n"},
         {"uv": (0, "", "jinja2==3.1.2\n"), "pip-audit": (0, json.dumps({"dependencies": [{"name": "jinja2", "version": "3.1.6", "vulns": []}]}), "")},
         {"uv": (0, "", "jinja2==3.1.2\n"), "pip-audit": (1, json.dumps({"dependencies": [{"name": "jinja2", "version": "3.1.2", "vulns": [
             {"id": "GHSA-h5c8-rqwp-cp95", "fix_versions": ["3.1.3"]}]}]}), "")}),
    82: ({"a.py": "x = 1\n"}, {"gitleaks": (0, "", "[]")},
         {"gitleaks": (1, "", json.dumps([{"RuleID": "github-pat", "Description": "GitHub token", "File": "a.py",
                                           "StartLine": 3, "Commit": "ab" * 20}]))}),
}

# --- JavaScript and TypeScript -------------------------------------------------------------------

PACKAGE = '{"name": "app", "engines": {"node": ">=20"}, "scripts": {"lint": "eslint ."}}'


def ci(run: str) -> dict:
    return {".github/workflows/ci.yml": workflow(steps=f"      - run: {run}\n")}


REPOSITORIES.update({
    84: ({"package.json": PACKAGE, "package-lock.json": "{}", "packages/a/package.json": '{"name": "a"}'},
         {"package.json": PACKAGE, "yarn.lock": ""},
         {"package.json": "{not json"}),
    85: ({"package.json": PACKAGE, "pnpm-lock.yaml": "", "pnpm-workspace.yaml": "packages: [packages/*]\n",
          "packages/a/package.json": '{"name": "a"}'},
         {"package.json": PACKAGE, "package-lock.json": "{}"},
         {"package.json": "[1,"}),
    86: ({"package.json": PACKAGE, "yarn.lock": ""},
         {"package.json": PACKAGE, "yarn.lock": "", "pnpm-lock.yaml": ""},
         {"package.json": ""}),
    87: (ci("npm ci && npm test"), ci("npm install && npm test"), {"package.json": PACKAGE}),
    88: (ci("pnpm install --frozen-lockfile && pnpm install && pnpm i react@16"), ci("pnpm i --no-frozen-lockfile"),
         {"package.json": PACKAGE}),
    89: (ci("yarn install --immutable && yarn --version"), ci("yarn"), {"package.json": PACKAGE}),
    90: ({"package.json": PACKAGE, "packages/a/package.json": '{"name": "a", "private": true}'},
         {"package.json": '{"name": "app"}'},
         {"package.json": '{"name": '}),
    94: ({"tsconfig.json": '{\n  // base\n  "extends": "./tsconfig.base.json",\n}\n',
          "tsconfig.base.json": '{"compilerOptions": {"strict": true,}}'},
         {"tsconfig.json": '{"compilerOptions": {"strict": false}}'},
         {"tsconfig.json": '{"extends": "@tsconfig/node20/tsconfig.json"}'}),
    95: ({"package.json": PACKAGE},
         {"package.json": '{"name": "app", "scripts": {"test": "vitest"}}'},
         {"package.json": '{"name": "app"}', "eslint.config.js": "export default [];\n"}),
    97: ({"package-lock.json": json.dumps({"lockfileVersion": 3, "packages": {
             "": {"name": "app"}, "node_modules/a": {"license": "MIT"}, "node_modules/b": {"license": "(MIT OR GPL-3.0)"},
             "node_modules/c": {"license": "LGPL-3.0-only"}}})},
         {"package-lock.json": json.dumps({"lockfileVersion": 3, "packages": {"node_modules/a": {"license": "AGPL-3.0"}}})},
         {"package-lock.json": json.dumps({"lockfileVersion": 3, "packages": {"node_modules/a": {"version": "1.0.0"}}})}),
})
TOOLS.update({
    96: ({"package.json": PACKAGE, "package-lock.json": "{}"},
         {"npm": (0, json.dumps({"vulnerabilities": {}}), "")},
         {"npm": (1, json.dumps({"vulnerabilities": {"lodash": {"severity": "critical"}, "minimist": {"severity": "low"}}}), "")}),
})
CHANGES.update({
    91: (([], {"src/a.ts": ("let a = 1\n", "let a = 2\nconst isDebugger = false\n")}),
         ([], {"src/a.ts": ("let a = 1\n", "let a = 1\nif (x) { debugger }\n"), "src/b.js": (None, "debugger;\n")}),
         ([], {"src/a.ts": ("", "const tip = 'type debugger to stop'\n")})),
    92: (([], {"a.test.ts": ("", "it('adds', () => {})\ndescribe.each([1])('x', () => {})\n")}),
         ([], {"a.test.ts": ("", "it.only('adds', () => {})\n"), "b.spec.js": ("", "fdescribe('b', () => {})\n")}),
         ([], {"src/a.ts": ("", "const picked = choices.only('a')\n")})),
    93: (([], {"bin/cli.js": ("", "console.log('done')\n"), "src/a.ts": ("", "console.log(x) // eslint-disable-line no-console\n"),
               "src/a.test.ts": ("", "console.log(1)\n")}),
         ([], {"src/a.ts": ("", "console.log('here')\n")}),
         ([], {"tools/gen.ts": ("", "console.log('generated')\n")})),
})

# --- Agent configuration -------------------------------------------------------------------------

REPOSITORIES.update({
    98: ({".claude/settings.json": json.dumps({"permissions": {"allow": ["Bash(uv run:*)", "Read"], "defaultMode": "acceptEdits"}})},
         {".claude/settings.json": json.dumps({"permissions": {"allow": ["Bash(*)"], "defaultMode": "bypassPermissions"}})},
         {".claude/settings.json": "{permissions: }"}),
    99: ({".mcp.json": json.dumps({"mcpServers": {
             "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2025.8.21", "."]},
             "git": {"command": "uvx", "args": ["mcp-server-git==0.6.2"]},
             "own": {"command": "node", "args": ["tools/mcp.js"]},
             "web": {"type": "http", "url": "https://mcp.example.test/mcp"},
             "db": {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/x/db-mcp:1.4.0"]}}})},
         {".mcp.json": json.dumps({"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"]},
                                                  "db": {"command": "docker", "args": ["run", "-i", "x/db-mcp:latest"]}}})},
         {".mcp.json": json.dumps({"mcpServers": {"odd": {"command": "mcp-launch", "args": ["thing"]}}})}),
    100: ({".codex/config.toml": 'sandbox_mode = "workspace-write"\n[profiles.ci]\nsandbox_mode = "read-only"\n'},
          {".codex/config.toml": 'approval_policy = "never"\n[profiles.fast]\nsandbox_mode = "danger-full-access"\n'},
          {".codex/config.toml": 'sandbox_mode = \n'}),
    101: ({"scripts/review.sh": "claude -p 'review' --permission-mode plan\n", "README.md": "never use --dangerously-skip-permissions\n"},
          {".github/workflows/ai.yml": workflow(steps="      - run: codex exec --dangerously-bypass-approvals-and-sandbox 'fix'\n"),
           "Makefile": "fix:\n\\tgemini --yolo -p 'fix it'\n"},
          {".devcontainer/post-create.sh": "claude --dangerously-skip-permissions\n"}),
    102: ({".gemini/settings.json": '{\n  // shared\n  "tools": {"autoAccept": false}\n}\n'},
          {".gemini/settings.json": '{"autoAccept": true, "general": {"defaultApprovalMode": "yolo"}}'},
          {".gemini/settings.json": '{"tools": '}),
})
RECORDS.update({
    103: ((None, [("Edit", {"file_path": "/work/src/a.py"}), *bash("cat .claude/settings.json")]),
          (None, [("Edit", {"file_path": "/work/.claude/settings.json"}), *bash("jq . x > .mcp.json")]),
          ("Add a hook that runs the checks", [("Edit", {"file_path": "/work/.claude/settings.json"})])),
})

# --- Test integrity, Go and Rust -----------------------------------------------------------------

CHANGES.update({
    104: (([], {"tests/test_a.py": ("", '@pytest.mark.skip(reason="needs a GPU")\n@pytest.mark.xfail(reason="bug 12")\n'
                                        '@unittest.skip("flaky on CI")\n'),
                "a_test.go": ("", 't.Skip("needs docker")\n'), "src/lib.rs": ("", '#[ignore = "slow"]\n'),
                "a.test.ts": ("", "// waits for the API\nit.skip('calls', () => {})\nconst rest = items.skip\n")}),
          ([], {"tests/test_a.py": ("", "@pytest.mark.skip\n@pytest.mark.skipif(sys.platform == 'win32')\n"),
                "a_test.go": ("", "t.SkipNow()\n"), "src/lib.rs": ("", "#[ignore]\n"), "a.test.ts": ("", "xit('calls', () => {})\n")}),
          ([], {"a.test.ts": ("", "const rest = stream.skip(3)\n")})),
    105: ((["Split the parser tests"], {"tests/test_a.py": ("def test_parse():\n    assert p()\n", None),
                                         "tests/test_parse.py": (None, "def test_parse():\n    assert p()\n")}),
          (["Tidy the tests"], {"tests/test_a.py": ("def test_parse():\n    pass\ndef test_dump():\n    pass\n",
                                                    "def test_parse():\n    pass\n")}),
          (["Remove test_dump and the dumps test: dump() is gone"], {"a.test.ts": ("it('dumps', () => {})\nit('parses', () => {})\n",
                                                                 "it('parses', () => {})\n"),
                                                   "tests/test_a.py": ("def test_dump():\n    pass\n", "")})),
    106: (([], {"tests/test_a.py": ("def test_a():\n    assert f() == 1\n", "def test_a():\n    assert f() == 2\n")}),
          ([], {"tests/test_a.py": ("def test_a():\n    assert f() == 1\n", "def test_a():\n    # assert f() == 1\n    assert True\n"),
                "a.test.ts": ("", "it('x', () => { expect(true).toBe(true) })\nexpect(true).toBe(true)\n")}),
          ([], {"tests/test_a.py": ("def test_a():\n    assert f() == 1\n    assert g() == 2\n",
                                    "def test_a():\n    check_all(f, g)\n")})),
})
REPOSITORIES.update({
    107: ({"go.mod": "module a\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n", "go.sum": "x\n",
           "tools/go.mod": "module tools\n\ngo 1.22\n"},
          {"go.mod": "module a\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n)\n"},
          {"go.work": "go 1.22\nuse ./a\n", "go.work.sum": "x\n", "a/go.mod": "module a\nrequire b v1.0.0\n"}),
    110: ({"Cargo.toml": "[workspace]\nmembers = ['crates/*']\n", "Cargo.lock": "", "crates/a/Cargo.toml": "[package]\nname = 'a'\n"},
          {"Cargo.toml": "[package]\nname = 'a'\n"},
          {"Cargo.toml": "[package\n"}),
})
TOOLS.update({
    108: ({"main.go": "package main\n"}, {"gofmt": (0, "", "")}, {"gofmt": (0, "./main.go\n", "")}),
    109: ({"go.mod": "module a\n", "main.go": "package main\n"}, {"go": (0, "", "")},
          {"go": (1, "./main.go:3:2: unreachable code\n", "")}),
    111: ({"Cargo.toml": "[package]\nname = 'a'\n", "src/main.rs": "fn main() {}\n"}, {"cargo": (0, "", "")},
          {"cargo": (1, "Diff in src/main.rs:1:\n-fn main(){}\n+fn main() {}\n", "")}),
    112: ({"Cargo.toml": "[package]\nname = 'a'\n", "deny.toml": "[licenses]\nallow = ['MIT']\n"},
          {"cargo": (0, "", ""), "cargo-deny": (0, "", "")},
          {"cargo": (1, "", "", json.dumps({"type": "diagnostic", "fields": {"severity": "error", "code": "rejected",
                                                                            "message": "GPL-3.0 is not allowed"}}) + "\n"),
           "cargo-deny": (0, "", "")}),
})

# --- Subagents and citations ---------------------------------------------------------------------

RECORDS.update({
    113: ((None, bash("claude -p 'review the diff' --permission-mode plan", "echo --yolo", "codex exec --sandbox read-only 'x'")),
          (None, bash("claude -p 'fix' --dangerously-skip-permissions", "npx -y @google/gemini-cli --yolo -p x")),
          (None, bash('claude -p "$PROMPT" $CLAUDE_FLAGS'))),
})
REPOSITORIES.update({
    114: ({"rules/1.toml": 'id = 1\n[text]\nen = "Needs a yes ({@must-ask.publication})."\nzh = "需要同意。"\n',
           "rules/skills/a/SKILL.md": "---\nname: a\n---\nSee must-ask.publication.\n"},
          {"rules/1.toml": 'id = 1\n[text]\nen = "Needs a yes (Art. IV §1(5))."\nzh = "见第四条第一款。"\n',
           "rules/skills/a/SKILL.md": "Publishing needs a yes (§ 1).\n"},
          {"rules/1.toml": "id = [\n"}),
})

# --- pre-commit ----------------------------------------------------------------------------------

REPOSITORIES.update({
    115: ({".pre-commit-config.yaml": f"repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.15.4\n"
           f"  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: {SHA}  # frozen: v6.0.0\n"
           "  - repo: local\n    hooks: []\n"},
          {".pre-commit-config.yaml": "repos:\n  - repo: https://github.com/psf/black\n    rev: stable\n"},
          {".pre-commit-config.yaml": "repos:\n  - repo: https://github.com/x/hooks\n    rev: release-candidate\n"}),
})


def _record(tmp_path, case):
    prompt, calls, *agent = case
    if prompt is None:
        return record(tmp_path / "s.jsonl", *calls, agent=agent[0] if agent else "claude-code")
    return told(tmp_path / "s.jsonl", prompt, *calls)


@pytest.mark.parametrize("rule_id", sorted(RECORDS))
def test_record_check_passes_on_a_compliant_session(rule_id, tmp_path):
    assert check_module(rule_id).check(_record(tmp_path, RECORDS[rule_id][0])) == []


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("rule_id", sorted(RECORDS))
def test_record_check_reports_a_violating_session(rule_id, agent, tmp_path):
    if agent not in AGENTS_OF.get(rule_id, AGENTS):
        pytest.skip(f"rule {rule_id}'s check reads what {agent}'s records do not give")
    prompt, calls, *_ = RECORDS[rule_id][1]
    findings = check_module(rule_id).check(record(tmp_path / "s.jsonl", *calls, agent=agent))
    assert findings and all(finding.path == str(tmp_path / "s.jsonl") for finding in findings)


@pytest.mark.parametrize("rule_id", sorted(RECORDS))
def test_record_check_leaves_the_third_session_to_the_reviewer(rule_id, tmp_path):
    with pytest.raises(Undecidable):
        check_module(rule_id).check(_record(tmp_path, RECORDS[rule_id][2]))


@pytest.mark.parametrize("rule_id", sorted(CHANGES))
@pytest.mark.parametrize("which", [0, 1, 2], ids=["compliant", "violating", "undecidable"])
def test_change_check(rule_id, which, tmp_path):
    messages, files = CHANGES[rule_id][which]
    run = lambda: check_module(rule_id).check(change(tmp_path, messages, files))  # noqa: E731
    if which == 2:
        with pytest.raises(Undecidable):
            run()
    else:
        assert bool(run()) == (which == 1)


@pytest.mark.parametrize("rule_id", sorted(REPOSITORIES))
@pytest.mark.parametrize("which", [0, 1, 2], ids=["compliant", "violating", "undecidable"])
def test_repository_check(rule_id, which, tmp_path):
    run = lambda: check_module(rule_id).check(repository(tmp_path, REPOSITORIES[rule_id][which]))  # noqa: E731
    if which == 2:
        with pytest.raises(Undecidable):
            run()
    else:
        findings = run()
        assert bool(findings) == (which == 1), findings
        assert all(finding.reason for finding in findings)


def test_rule_71_reads_forgejo_workflows_too_and_asks_nothing_of_gitlab(tmp_path):
    check = check_module(71).check
    findings = check(repository(tmp_path / "forgejo", {".forgejo/workflows/ci.yml": workflow(job="")}))
    assert [finding.path for finding in findings] == [".forgejo/workflows/ci.yml"]
    assert check(repository(tmp_path / "gitlab", {".gitlab-ci.yml": "test:\n  script: [make check]\n"})) == []


@pytest.mark.parametrize("agent", AGENTS)
def test_the_principals_words_are_read_from_every_agents_record(agent, tmp_path):
    from importlib import import_module

    helpers = import_module(check_module(40).__package__ + "._helpers")
    assert "please do the task" in helpers.principal_text(record(tmp_path / "s.jsonl", *bash("ls"), agent=agent))


def test_a_publishing_command_the_task_never_mentions_is_reported_even_beside_one_it_does(tmp_path):
    session = told(tmp_path / "s.jsonl", "create the GitHub release v2.0", *bash("gh release create v2.0", "uv publish"))
    findings = check_module(40).check(session)
    assert [finding.reason.split(":")[0] for finding in findings] == ["uv publish"]


# How many findings each violating session gives: every violating command is found, once.
FINDINGS = {113: 2, 103: 2, 40: 2, 61: 1, 64: 5, 65: 4, 66: 3, 67: 2, 68: 3, 69: 6}


@pytest.mark.parametrize("rule_id", sorted(FINDINGS))
def test_every_violating_command_is_found_once(rule_id, tmp_path):
    prompt, calls, *agent = RECORDS[rule_id][1]
    findings = check_module(rule_id).check(record(tmp_path / "s.jsonl", *calls, agent=(agent or ["claude-code"])[0]))
    assert len(findings) == FINDINGS[rule_id], [finding.reason for finding in findings]


def _fake_tools(folder, answers: dict) -> str:
    """A folder of programs that answer like `answers` says (see TOOLS), as a PATH."""
    import sys

    folder.mkdir()
    for tool, (status, stdout, report, *stderr) in answers.items():
        script = folder / tool
        script.write_text(
            f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\n"
            "for flag in ('-o', '--report-path'):\n"
            "    if flag in args:\n"
            f"        open(args[args.index(flag) + 1], 'w').write({report!r})\n"
            f"sys.stdout.write({stdout!r})\nsys.stderr.write({''.join(stderr)!r})\nsys.exit({status})\n",
            encoding="utf-8")
        script.chmod(0o755)
    return str(folder)


@pytest.mark.parametrize("rule_id", sorted(TOOLS))
@pytest.mark.parametrize("which", [1, 2, 0], ids=["compliant", "violating", "without-the-tool"])
def test_tool_check(rule_id, which, tmp_path, monkeypatch):
    files, *answers = TOOLS[rule_id]
    repo = repository(tmp_path / "repo", files)
    monkeypatch.setenv("PATH", _fake_tools(tmp_path / "bin", answers[which - 1] if which else {}))
    if which == 0:
        with pytest.raises(Undecidable, match="missing tool"):
            check_module(rule_id).check(repo)
    else:
        findings = check_module(rule_id).check(repo)
        assert bool(findings) == (which == 2), findings
        assert all(finding.reason for finding in findings)


def test_a_tool_that_fails_is_undecidable(tmp_path, monkeypatch):
    repo = repository(tmp_path / "repo", TOOLS[74][0])
    monkeypatch.setenv("PATH", _fake_tools(tmp_path / "bin", {"actionlint": (3, "", "")}))
    with pytest.raises(Undecidable, match="exit 3"):
        check_module(74).check(repo)


def test_instructions_codex_hands_over_as_user_messages_are_not_the_principals(tmp_path):
    from importlib import import_module

    helpers = import_module(check_module(40).__package__ + "._helpers")
    path = tmp_path / "s.jsonl"
    record(path, *bash("ls"), agent="codex")
    injected = {"timestamp": "2026-11-30T10:00:00.000Z", "type": "response_item", "payload": {
        "type": "message", "role": "user",
        "content": [{"type": "input_text", "text": "# AGENTS.md instructions for /work\n\nPublish with uv publish."}]}}
    path.write_text(json.dumps(injected) + "\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    said = helpers.principal_text(Record.read(path))
    assert "please do the task" in said and "publish" not in said


def test_a_skip_marker_quoted_in_a_string_or_outside_tests_is_not_a_skip(tmp_path):
    files = {"tests/test_rules.py": ("", 'CASE = ("@pytest.mark.skip\\n", "it.skip(x)")\n'),
             "src/checks.py": ("", '"""Reports `pytest.skip()` without a message."""\n')}
    assert check_module(104).check(change(tmp_path, [], files)) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(st.text(max_size=6), json_values, max_size=4), comment=st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=10))
def test_tsconfig_reader_reads_json_with_comments_and_trailing_commas(tmp_path, data, comment):
    """What TypeScript accepts (comments, trailing commas) reads as the JSON it annotates; strings that
    look like comments stay strings."""
    text = json.dumps(data, indent=1)
    lines = [line + ("," if line.rstrip().endswith(("]", "}", '"', "e", "l")) and index < len(text.splitlines()) - 1
                     and text.splitlines()[index + 1].strip() in ("}", "]", "},", "],") else "")
             for index, line in enumerate(text.splitlines())]
    annotated = "// " + comment.replace("\n", " ") + "\n" + "\n".join(lines) + "\n/* end */\n"
    repo = repository(tmp_path, {"tsconfig.json": annotated})
    assert check_module(94)._jsonc(repo, "tsconfig.json") == data


def test_a_tsconfig_extending_a_generated_file_is_undecidable(tmp_path):
    repo = repository(tmp_path, {"packages/nuxt/tsconfig.json": '{"extends": "./playground/.nuxt/tsconfig.json"}'})
    with pytest.raises(Undecidable, match="nuxt"):
        check_module(94).check(repo)


def test_a_comma_before_a_bracket_inside_a_string_stays(tmp_path):
    # Found by the property test above: trailing commas were removed inside strings too.
    repo = repository(tmp_path, {"tsconfig.json": '{"paths": {",]": [",}",],},}'})
    assert check_module(94)._jsonc(repo, "tsconfig.json") == {"paths": {",]": [",}"]}}


# --- Dictated approvals ---------------------------------------------------------------------------

def conversation(path, agent: str, *turns) -> Record:
    """A record of `agent` (claude-code, codex, gemini-cli) holding `turns` in order: ("principal", text),
    ("agent", text) or a (Claude Code tool name, input) call."""
    if agent == "gemini-cli":
        messages = []
        for number, (who, what) in enumerate(turns):
            if who in ("principal", "agent"):
                kind = "user" if who == "principal" else "gemini"
                messages.append({"id": f"m{number}", "type": kind, "content": what})
            else:
                name, args = (("run_shell_command", {"command": what["command"]}) if who == "Bash"
                              else ("write_file", {"file_path": what["file_path"]}))
                messages.append({"id": f"m{number}", "type": "gemini", "content": "",
                                 "toolCalls": [{"id": f"c{number}", "name": name, "args": args}]})
        path.write_text(json.dumps({"sessionId": "5e0f", "messages": messages}), encoding="utf-8")
        return Record.read(path)
    lines = []
    if agent == "codex":
        lines.append({"type": "session_meta", "payload": {"id": "0199", "cwd": "/work"}})
    for number, (who, what) in enumerate(turns):
        if agent == "claude-code":
            if who == "principal":
                lines.append({"type": "user", "message": {"role": "user", "content": what}})
            else:
                block = ({"type": "text", "text": what} if who == "agent" else
                         {"type": "tool_use", "id": f"toolu_{number}", "name": who, "input": what})
                lines.append({"type": "assistant", "message": {"role": "assistant", "content": [block]}})
        elif who in ("principal", "agent"):
            role, kind = ("user", "input_text") if who == "principal" else ("assistant", "output_text")
            lines.append({"type": "response_item", "payload": {"type": "message", "role": role,
                                                               "content": [{"type": kind, "text": what}]}})
        elif who == "Bash":
            lines.append({"type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
                                                               "call_id": f"c{number}",
                                                               "arguments": json.dumps({"cmd": what["command"]})}})
        else:
            patch = f"*** Begin Patch\n*** Update File: {what['file_path']}\n@@\n-a\n+b\n*** End Patch\n"
            lines.append({"type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch",
                                                               "call_id": f"c{number}", "input": patch}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return Record.read(path)


ASK = ("agent", "The fix is ready. Shall I push it to main?")
# rule id → (compliant, violating, undecidable) conversations
CONVERSATIONS: dict[int, tuple[tuple, tuple, tuple]] = {
    130: (
        (("principal", "fix the typo"), *bash("git status"), ASK, ("principal", "yet"),
         *bash("git log -1"), ("agent", "To confirm: push the fix to main now?"), ("principal", "yes push it"),
         *bash("git push origin main"), ("agent", "Do you want me to publish it too?"), ("principal", "no, not today"),
         ("Edit", {"file_path": "CHANGES.md", "old_string": "a", "new_string": "b"})),
        (("principal", "fix the typo"), ASK, ("principal", "get hub"), ("agent", "Pushing."),
         *bash("git push origin main")),
        (("principal", "fix the typo"), ASK, ("principal", "yes but wait for the CI"), *bash("git push origin main")),
    ),
}


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
@pytest.mark.parametrize("which", [0, 1, 2], ids=["compliant", "violating", "undecidable"])
def test_conversation_check(which, agent, tmp_path):
    for rule_id, cases in CONVERSATIONS.items():
        session = conversation(tmp_path / f"{rule_id}.jsonl", agent, *cases[which])
        run = lambda: check_module(rule_id).check(session)  # noqa: E731
        if which == 2:
            with pytest.raises(Undecidable):
                run()
        else:
            findings = run()
            assert bool(findings) == (which == 1), findings
            assert all(finding.line for finding in findings)


def test_a_gemini_record_cannot_show_whether_the_agent_acted_on_an_unclear_approval(tmp_path):
    compliant, violating, _ = CONVERSATIONS[130]
    assert check_module(130).check(conversation(tmp_path / "a.json", "gemini-cli", ("principal", "go"),
                                                *bash("git push origin topic"))) == []
    with pytest.raises(Undecidable, match="Gemini CLI"):
        check_module(130).check(conversation(tmp_path / "b.json", "gemini-cli", *violating))


@pytest.mark.parametrize("reply, verdict", [
    ("yes", "yes"), ("Yeah go ahead", "yes"), ("好的", "yes"), ("可以", "yes"), ("sure, do it", "yes"),
    ("no", "no"), ("不要", "no"), ("wait", "no"),
    ("yes but not now", "mixed"), ("不可以", "mixed"), ("okay, hold on", "mixed"),
    ("yet", "none"), ("push the staging one", "none"), ("get hub", "none"),
])
def test_what_counts_as_a_plain_yes(reply, verdict):
    assert check_module(130)._verdict(reply) == verdict


def test_what_the_host_writes_as_a_user_message_is_no_reply(tmp_path):
    path = tmp_path / "s.jsonl"
    conversation(path, "claude-code", ASK, ("principal", "<command-name>/cost</command-name>"),
                 *bash("git push origin main"))
    sidechain = {"type": "user", "isSidechain": True, "message": {"role": "user", "content": "review the diff"}}
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], json.dumps(sidechain), *lines[1:]]) + "\n")
    # The agent pushed with no reply at all: the next principal message is still to come.
    assert check_module(130).check(Record.read(path)) == []


@pytest.mark.parametrize("command, acts", [
    ("git status", False), ("ls -la && cat README.md", False), ("grep -rn TODO src 2>/dev/null", False),
    ("git log --oneline | head", False), ("cat a > b", True), ("echo done >> notes.md", True),
    ("find . -name '*.pyc' -delete", True), ("git push origin main", True), ("uv publish", True),
])
def test_what_acts_on_a_reply(command, acts, tmp_path):
    session = conversation(tmp_path / "s.jsonl", "claude-code", ASK, ("principal", "yet"), *bash(command))
    assert bool(check_module(130).check(session)) == acts


def test_a_stamp_outside_a_skill_folder_or_hand_text_around_the_fences_still_counts(tmp_path):
    module = check_module(63)
    stamp = json.dumps({"generated-by": "agent-constitution", "files": {"big.py": "0" * 64, "../src/a.py": "0" * 64}})
    hidden = change(tmp_path, files={"src/big.py": (None, "x\n" * 300), "src/.agent-constitution.json": (None, stamp),
                                     ".claude/skills/s/.agent-constitution.json": (None, stamp),
                                     "src/a.py": (None, "y\n" * 200)})
    assert module.check(hidden)
    fenced = "<!-- agent-constitution:begin -->\n- ac:1 a rule\n<!-- agent-constitution:end -->\n"
    around = change(tmp_path, files={"AGENTS.md": (fenced, "# Notes\n" + "Our own words.\n" * 401 + fenced)})
    assert module.check(around)
