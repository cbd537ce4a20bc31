"""Rule 34: No secrets in the tree.

What it decides: whether a text file holds a private key or an access token in one of the formats
the rule's text names, each a format its issuer gave a fixed prefix or shape so that scanners can
recognise it without guessing (GitHub's `ghp_`, npm's `npm_`, PyPI's macaroon prefix, a PEM block's
armour line). Why these and not an entropy scanner (detect-secrets' default plugins, trufflehog's
entropy mode): a random-looking string is not a secret (hashes, lockfile integrity digests, test
vectors fill real repositories), so guessing from entropy reports what the rule does not forbid;
a fixed-prefix format matched with its exact length is a secret, which keeps a finding final. Why
not an external scanner (gitleaks knows more formats): its verdicts would differ between machines
that have it and machines that do not, and a pass would mean "gitleaks was absent" on the second;
the formats here are written down with their source, so the rule and its check say the same.

Left out on purpose: AWS's documented example keys (ending in `EXAMPLE`, as in its own docs), and
formats that are public by design (Google API keys in web apps, JWTs, which are often unsigned test
fixtures). A finding names the format and the line, never the secret.

Revision 3 judges the shape of the key material, not only its label, because the test fixtures of
secret detectors (pre-commit-hooks' `testing/resources/*.ini`, detect-secrets' tests) are full of
labels without a key: a PEM armour line counts only when key material follows it (a run of base64,
after optional RFC 1421 header lines, within the next lines or the next pieces of a string literal),
a PuTTY header only in a file that goes on to its `Private-Lines:`,
and an AWS key id only in AWS's own alphabet (base32: A-Z and 2-7) with at least 3 bits of Shannon
entropy per character, as gitleaks' `aws-access-token` rule requires (config/gitleaks.toml), so
`AKIAVOGONSVOGONS0042` and `AKIATESTTESTTESTTEST` are not keys. Neither looks at the path: a real key
in a test folder is still a key.
"""

import bisect
import math
import re

from agent_constitution.checks.api import Finding, Repository

from ._helpers import text_files

RULE = 34
SUPERSEDED = False

# Each format: the literal words one of which every match contains (a file without any of them is
# not searched for the format: a substring test is far cheaper than the expression), and the
# expression, with where its shape is documented.
_FORMATS = {
    # RFC 7468 armour; OpenSSH's own key files; PuTTY's .ppk header.
    "private key": (("PRIVATE KEY", "PuTTY-User-Key-File-"),
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\bPuTTY-User-Key-File-[23]: "),
    # age (age-encryption.org/v1): Bech32 with the AGE-SECRET-KEY-1 prefix.
    "age secret key": (("AGE-SECRET-KEY-1",),
        r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b"),
    # AWS IAM: access key ids start AKIA (long-term) or ASIA (temporary), then 16 upper-case characters.
    "AWS access key id": (("AKIA", "ASIA"),
        r"\b(?:AKIA|ASIA)(?![0-9A-Z]*EXAMPLE\b)[A-Z2-7]{16}\b"),
    # GitHub's token formats (github.blog, "Behind GitHub's new authentication token formats").
    "GitHub token": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})\b"),
    # GitLab's token prefixes (docs.gitlab.com, "Token overview").
    "GitLab token": (("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "gloas-", "glagent-", "glsoat-", "glffct-"),
        r"\b(?:glpat|gldt|glrt|glptt|glft|glcbt|gloas|glagent|glsoat|glffct)-[A-Za-z0-9_-]{20,}"),
    # Slack tokens (api.slack.com, "Token types") and incoming webhooks.
    "Slack token": (("xox", "xapp-", "hooks.slack.com"),
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]+"
                   r"|https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{24}"),
    # OpenAI: legacy keys carry T3BlbkFJ ("OpenAI" in base64) in the middle; project and service keys.
    "OpenAI API key": (("T3BlbkFJ", "sk-proj-", "sk-svcacct-"),
        r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-(?:proj|svcacct)-[A-Za-z0-9_-]{40,}"),
    # Anthropic: sk-ant-api03-… and admin keys.
    "Anthropic API key": (("sk-ant-",),
        r"\bsk-ant-[A-Za-z0-9_-]{32,}"),
    # Stripe live secret and restricted keys (docs.stripe.com, "API keys"); test keys reach no money.
    "Stripe live key": (("_live_",),
        r"\b(?:sk|rk)_live_[0-9A-Za-z]{24,}"),
    # npm access tokens (github.blog, "npm has a new access token format").
    "npm token": (("npm_",),
        r"\bnpm_[A-Za-z0-9]{36}\b"),
    # PyPI API tokens: a macaroon whose base64 opens with the issuer (pypi.org, test.pypi.org).
    "PyPI token": (("pypi-Ag",),
        r"\bpypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}"),
    # Hugging Face user access tokens.
    "Hugging Face token": (("hf_",),
        r"\bhf_[A-Za-z]{34}\b"),
    # DigitalOcean personal, OAuth and refresh tokens.
    "DigitalOcean token": (("_v1_",),
        r"\bdo[por]_v1_[a-f0-9]{64}\b"),
    # Shopify app access tokens and shared secrets.
    "Shopify token": (("shpat_", "shpca_", "shppa_", "shpss_"),
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    # SendGrid API keys: SG.<22>.<43>.
    "SendGrid API key": (("SG.",),
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"),
    # Docker Hub personal access tokens.
    "Docker Hub token": (("dckr_pat_",),
        r"\bdckr_pat_[A-Za-z0-9_-]{27}\b"),
    # Databricks personal access tokens.
    "Databricks token": (("dapi",),
        r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b"),
    # Postman API keys.
    "Postman API key": (("PMAK-",),
        r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    # Telegram bot tokens: <bot id>:AA<33>.
    "Telegram bot token": ((":AA",),
        r"\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}\b"),
}


def _anchored(regex: str) -> str:
    """`regex` with each `\\b` that opens one of its top-level alternatives moved behind the literal
    that follows it (`\\bhf_[A-Za-z]{34}` → `hf_(?<=\\bhf_)[A-Za-z]{34}`): the same matches, since the
    look-behind sees exactly that literal with the boundary before it, but an expression that
    opens with a literal is one the engine skips through in C, where an opening `\\b` had it try
    every position (0.11 s against 0.003 s for the Hugging Face format over a 4 MB file holding
    `hf_`)."""
    parts, depth, start, in_class = [], 0, 0, False
    for i, char in enumerate(regex):
        if regex[i - 1:i] == "\\" and regex[i - 2:i] != "\\\\":
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(regex[start:i])
            start = i + 1
    parts.append(regex[start:])
    return "|".join(_anchor(part) for part in parts)


def _anchor(alternative: str) -> str:
    literal = re.match(r"\\b([A-Za-z0-9_:-]+)", alternative)
    if literal is None:
        return alternative
    word, rest = literal.group(1), alternative[literal.end():]
    if rest[:1] in ("?", "*", "+", "{"):  # the last character is quantified: not part of the literal
        word, rest = word[:-1], word[-1] + rest
    return f"{word}(?<=\\b{word}){rest}" if word else alternative


FORMATS = {kind: (words, re.compile(_anchored(regex))) for kind, (words, regex) in _FORMATS.items()}
# The formats' words by first character, one expression per character: a search for an expression
# that starts with one literal character skips to that character in C, where one expression of
# every word tried a dozen branches at each of the many places its first characters occur (a
# quarter less time: 0.58 s against 0.77 s over the 76 MB of text of an 11,000-file tree).
WORDS = sorted({word for words, _ in FORMATS.values() for word in words}, key=len, reverse=True)


def _searches(words: list[str]) -> tuple[tuple[re.Pattern, list[str]], ...]:
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(word)
    return tuple((re.compile(re.escape(first) + "(?:" + "|".join(re.escape(word[1:]) for word in group) + ")"), group)
                 for first, group in groups.items())


_SEARCHES = _searches(WORDS)

# What may stand between a PEM armour line and its key material: line breaks, `\n` escapes, quotes and
# the `+` or `,` that join string literals, then RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`).
_PEM_BODY = re.compile(r"""(?:\s|\\n|\\r|["'`+,]|b'|b")*(?:[A-Za-z-]+:[^\n\\]*(?:\s|\\n|["'`+,])+)*"""
                       r"[A-Za-z0-9+/]{40}")
_MIN_ENTROPY = {"AWS access key id": 3.0}


def _has_key_material(text: str, end: int) -> bool:
    return _PEM_BODY.match(text, end, min(len(text), end + 400)) is not None


def _entropy(word: str) -> float:
    counts = [word.count(letter) for letter in set(word)]
    return -sum(count / len(word) * math.log2(count / len(word)) for count in counts)


def _is_secret(kind: str, match: re.Match, text: str) -> bool:
    if kind == "private key" and match.group().startswith("-----"):
        return _has_key_material(text, match.end())
    if kind == "private key":  # a PuTTY key file's header; its private half follows `Private-Lines:`
        return "Private-Lines:" in text[match.end():match.end() + 4000]
    least = _MIN_ENTROPY.get(kind)
    return least is None or _entropy(match.group()) >= least


def words_in(text: str) -> set[str]:
    """The formats' words that occur in `text` (`word in text` for each, one search per first character)."""
    present: set[str] = set()
    for search, words in _SEARCHES:
        if search.search(text) is not None:
            present.update(word for word in words if word in text)
    return present


def check(repo: Repository) -> list[Finding]:
    return [finding for path, text in text_files(repo) for finding in check_file(path, text)]


def check_file(path: str, text: str) -> list[Finding]:
    """One file's findings; the runner calls this per file and keeps the answer for an unchanged one."""
    present = words_in(text)
    if not present:
        return []
    found = []
    for kind, (words, pattern) in FORMATS.items():
        if not present.isdisjoint(words):
            found.extend((match.start(), kind) for match in pattern.finditer(text) if _is_secret(kind, match, text))
    if not found:
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    findings = []
    for offset, kind in sorted(found):
        line = bisect.bisect_right(starts, offset)
        findings.append(Finding(f"{kind} in the tree", path=path, line=line, column=offset - starts[line - 1] + 1))
    return findings
