"""The shell tokenizer: one command line into simple commands, data spans and unread spans.

The judge reads shell command lines on every hook call, so this module is standard library only
and never raises: a construct it cannot finish reading becomes an `Unread` span and the scan carries
on, so the commands before and after it still get precise judgment. What bash hands to a command's
stdin instead of executing (heredoc bodies, herestring words) is recorded as `data` spans; the
`command` source is the line with those spans deleted (`executed_text`), so a forbidden token quoted
inside data never matches a declaration. A continuation (`git \\<newline>push`) stays two lines there:
the `lines` step splits on newlines only, so `^` is the start of a physical line.

The value types are `record`s (record.py) rather than dataclasses or `typing.NamedTuple`, the
regular expressions are `patterns.fixed` (compiled from the plan, without `re`), and annotations
are evaluated eagerly (no `from __future__ import annotations`): this module loads on every hook
call, and `dataclasses`, `typing`, `collections` or `re` would cost more to import than the module.

Comments (`#`) are not recognised: a word starting with `#` stays a word. That keeps the reading on
the conservative side (a protected path in a trailing comment still counts as a mention).
"""

from agent_constitution.covenant.patterns import fixed
from agent_constitution.covenant.record import record


class Word(record("Word", ["text", "opaque"], defaults=[False])):
    """A word as bash would pass it (`text`); `opaque` when its value is not knowable before running."""

    __slots__ = ()


class Redirect(record("Redirect", ["operator", "target"])):
    """A redirect: its `operator` as written and its `target` Word."""

    __slots__ = ()

    @property
    def writes(self) -> bool:
        return ">" in self.operator


class Heredoc(record("Heredoc", ["body", "literal"])):
    """A heredoc `body`; `literal` when the delimiter was quoted, so bash writes the body verbatim."""

    __slots__ = ()


class Command(record("Command", ["words", "redirects", "heredocs"], defaults=[(), ()])):
    """One simple command: its words, redirects and the heredoc bodies it declared, in order (tuples)."""

    __slots__ = ()


class Unread(record("Unread", ["text", "reason"])):
    """A span the scanner could not read (`text`, from its opening character to where it gave up)
    and why: `reason` is 'unclosed quote' or 'missing redirect target'."""

    __slots__ = ()


class Tokenized(record("Tokenized", ["commands", "unread", "data"])):
    """The `commands` and `unread` spans of a line, and its `data`: half-open (start, end) spans
    of the line that are stdin data."""

    __slots__ = ()

    @property
    def fully_read(self) -> bool:
        """False means the line is untokenizable: at least one span could not be read."""
        return not self.unread


class _Builder:
    """A command under construction; heredoc bodies arrive after the command has closed."""

    __slots__ = ("words", "redirects", "heredocs")

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.redirects: list[Redirect] = []
        self.heredocs: list[Heredoc] = []

    def freeze(self) -> Command:
        return Command(tuple(self.words), tuple(self.redirects), tuple(self.heredocs))


# Inside double quotes bash drops a backslash only before these; elsewhere it is content.
_DQ_ESCAPABLE = frozenset('$`"\\')
# ANSI-C escapes of $'...', decoded as bash does (its `ansicstr`), so a target spelled
# `$'\x2eclaude/settings.json'` is read as the path it names. An escape bash does not know keeps
# its backslash, as in bash.
_ANSI_C = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")
# \x takes at most 2 hex digits, \u 4, \U 8 (bash 5).
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_WORD_END = frozenset(" \t\n\r;|&<>")
_PLAIN_RUN = fixed(r"[^ \t\n\r;|&<>\\'\"$`*?]+")
_ASSIGNMENT = fixed(r"[A-Za-z_][A-Za-z0-9_]*=")
NESTED_SHELLS = frozenset({"eval", "bash", "sh", "zsh"})


def _double_quoted(line: str, open_at: int) -> tuple[str, int, bool]:
    """Content of a "..." string opening at `open_at`, the index after it, and whether it closed."""
    out: list[str] = []
    i = open_at + 1
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == "\\":
            nxt = line[i + 1] if i + 1 < n else ""
            if nxt == "\n":
                i += 2
                continue
            if nxt in _DQ_ESCAPABLE:
                out.append(nxt)
                i += 2
                continue
            out.append(ch)
            i += 1
            continue
        if ch == '"':
            return "".join(out), i + 1, True
        out.append(ch)
        i += 1
    return "".join(out), n, False


def _ansi_c_quoted(line: str, open_at: int) -> tuple[str, int, bool, bool]:
    """Decoded content of $'...' whose quote opens at `open_at`: text, next, closed, decoded.

    `decoded` is False only when bash's value is not the decoded text: a NUL (bash ends the string
    there) or a code point no string can hold."""
    out: list[str] = []
    decoded = True
    i = open_at + 1
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == "'":
            return "".join(out), i + 1, True, decoded
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = line[i + 1]
        i += 2
        if nxt in _ANSI_C:
            out.append(_ANSI_C[nxt])
            continue
        code = None
        if nxt in _OCTAL:
            j = i
            while j < n and j < i + 2 and line[j] in _OCTAL:
                j += 1
            code, i = int(line[i - 1 : j], 8) & 0xFF, j
        elif nxt in _HEX_ESCAPES:
            j = i
            while j < n and j < i + _HEX_ESCAPES[nxt] and line[j] in _HEX:
                j += 1
            if j > i:
                code, i = int(line[i:j], 16), j
        elif nxt == "c" and i < n:
            code, i = ord(line[i].upper()) ^ 0x40, i + 1
        if code is None:
            out.append("\\" + nxt)
            continue
        if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            decoded = False
            continue
        out.append(chr(code))
    return "".join(out), n, False, decoded


def _matching_paren(line: str, open_at: int) -> tuple[int, bool]:
    """End (exclusive) of the parenthesised group opening at `open_at`; quotes suspend counting."""
    depth = 0
    i = open_at
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            close = line.find("'", i + 1)
            if close == -1:
                return n, False
            i = close + 1
            continue
        if ch == '"':
            _, nxt, closed = _double_quoted(line, i)
            if not closed:
                return n, False
            i = nxt
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1, True
        i += 1
    return n, False


def _scan_word(line: str, start: int) -> tuple[Word, int, Unread | None]:
    """One word from `start`: the word, the index after it, and an unread span if a quote never closed."""
    out: list[str] = []
    opaque = False
    i = start
    n = len(line)

    def unclosed(open_at: int, text: str) -> tuple[Word, int, Unread]:
        return Word("".join(out) + text, True), n, Unread(line[open_at:], "unclosed quote")

    while i < n:
        plain = _PLAIN_RUN.match(line, i)
        if plain is not None:  # a run of characters with no meaning to the shell, in one step
            out.append(plain.group())
            i = plain.end()
            continue
        ch = line[i]
        if ch in _WORD_END:
            break
        if ch == "\\":
            nxt = line[i + 1] if i + 1 < n else ""
            if nxt == "\n":
                i += 2
            elif nxt == "\r" and line[i + 2 : i + 3] == "\n":
                i += 3
            elif nxt:
                out.append(nxt)
                i += 2
            else:
                out.append(ch)
                i += 1
            continue
        if ch == "'":
            close = line.find("'", i + 1)
            if close == -1:
                return unclosed(i, line[i + 1 :])
            out.append(line[i + 1 : close])
            i = close + 1
            continue
        if ch == '"':
            text, nxt, closed = _double_quoted(line, i)
            if not closed:
                return unclosed(i, text)
            if "$" in text or "`" in text:
                opaque = True
            out.append(text)
            i = nxt
            continue
        if ch == "$" and line[i + 1 : i + 2] == "'":
            text, nxt, closed, decoded = _ansi_c_quoted(line, i + 1)
            if not closed:
                return unclosed(i, text)
            opaque = opaque or not decoded
            out.append(text)
            i = nxt
            continue
        if ch == "$" and line[i + 1 : i + 2] == "(":
            end, closed = _matching_paren(line, i + 1)
            if not closed:
                return unclosed(i, line[i:end])
            out.append(line[i:end])
            opaque = True
            i = end
            continue
        if ch == "`":
            close = line.find("`", i + 1)
            end = n if close == -1 else close + 1
            out.append(line[i:end])
            opaque = True
            i = end
            continue
        if ch in "$*?":
            opaque = True
        out.append(ch)
        i += 1
    return Word("".join(out), opaque), i, None


def _redirect_operator(line: str, i: int) -> str | None:
    """The redirect operator at `i`, longest form first; an fd digit run before `>` is folded in."""
    j = i
    n = len(line)
    while j < n and "0" <= line[j] <= "9":
        j += 1
    if j > i and j < n and line[j] == ">":
        tail = line[j + 1 : j + 2]
        return line[i : j + 2] if tail in (">", "&", "|") else line[i : j + 1]
    three = line[i : i + 3]
    if three in ("&>>", "<<<", "<<-"):
        return three
    two = three[:2]
    if two in (">>", ">|", "&>", ">&", "<&", "<<"):
        return two
    if three[:1] in (">", "<"):
        return three[:1]
    return None


def _control_operator(line: str, i: int) -> str | None:
    two = line[i : i + 2]
    if two in ("&&", "||"):
        return two
    ch = line[i]
    return ch if ch in ";|&" else None


def _consume_heredocs(
    line: str, start: int, pending: list[tuple[str, bool, bool, _Builder]], data: list[tuple[int, int]]
) -> int:
    """Read queued heredoc bodies from `start` (just after a newline); returns the index after them."""
    i = start
    n = len(line)
    for delimiter, strip_tabs, literal, owner in pending:
        body: list[str] = []
        body_start = end_of_body = i
        while i < n:
            end = line.find("\n", i)
            if end == -1:
                end = n
            text = line[i:end]
            if text.endswith("\r"):
                text = text[:-1]
            line_start = i
            i = end + 1
            if strip_tabs:
                text = text.lstrip("\t")
            if text == delimiter:
                end_of_body = line_start
                break
            body.append(text + "\n")
            end_of_body = min(i, n)
        body_text = "".join(body)
        # An unquoted delimiter expands $ and backticks first: that body is executed text, not data.
        expands = not literal and ("$" in body_text or "`" in body_text)
        if end_of_body > body_start and not expands:
            data.append((body_start, end_of_body))
        owner.heredocs.append(Heredoc(body_text, literal))
    return min(i, n)


def tokenize(line: str) -> Tokenized:
    """Tokenize one shell command line (which may hold several physical lines). Never raises."""
    commands: list[_Builder] = []
    unread: list[Unread] = []
    data: list[tuple[int, int]] = []
    current = _Builder()
    pending: list[tuple[str, bool, bool, _Builder]] = []
    i = 0
    n = len(line)

    while i < n:
        ch = line[i]
        if ch in " \t":
            i += 1
            continue
        if ch in "\n\r":
            commands.append(current)
            current = _Builder()
            i += 2 if line[i : i + 2] == "\r\n" else 1
            i = _consume_heredocs(line, i, pending, data)
            pending = []
            continue
        if ch in "<>" and line[i + 1 : i + 2] == "(":
            # Process substitution is a word bash executes, never a redirect.
            end, closed = _matching_paren(line, i + 1)
            current.words.append(Word(line[i:end], True))
            if not closed:
                unread.append(Unread(line[i:], "unclosed quote"))
            i = end
            continue
        operator = _redirect_operator(line, i)
        if operator is not None:
            j = i + len(operator)
            while j < n and line[j] in " \t":
                j += 1
            if line[j : j + 1] in ("<", ">") and line[j + 1 : j + 2] == "(":
                end, closed = _matching_paren(line, j + 1)
                current.redirects.append(Redirect(operator, Word(line[j:end], True)))
                if not closed:
                    unread.append(Unread(line[j:], "unclosed quote"))
                i = end
                continue
            word, nxt, lost = _scan_word(line, j)
            if lost is not None:
                unread.append(lost)
                i = nxt
                continue
            if word.text == "":
                unread.append(Unread(line[i:j], "missing redirect target"))
                i = j
                continue
            if operator in ("<<", "<<-"):
                # bash never expands a delimiter; any quoting character in it makes the body literal.
                raw = line[j:nxt]
                literal = any(q in raw for q in "'\"\\")
                pending.append((word.text, operator == "<<-", literal, current))
                i = nxt
                continue
            if word.text.startswith("(") and not word.opaque:
                word = Word(word.text, True)
            if operator == "<<<" and not word.opaque:
                data.append((j, nxt))
            current.redirects.append(Redirect(operator, word))
            i = nxt
            continue
        control = _control_operator(line, i)
        if control is not None:
            commands.append(current)
            current = _Builder()
            i += len(control)
            continue
        word, nxt, lost = _scan_word(line, i)
        if lost is not None:
            unread.append(lost)
        current.words.append(word)
        i = nxt

    commands.append(current)
    return Tokenized(
        tuple(c.freeze() for c in commands if c.words or c.redirects),
        tuple(unread),
        tuple(data),
    )


def executed_text(line: str) -> str:
    """The line with every stdin-data span deleted: what the `command` source holds."""
    data = tokenize(line).data
    if not data:
        return line
    parts: list[str] = []
    cut = 0
    for start, end in data:
        parts.append(line[cut:start])
        cut = end
    parts.append(line[cut:])
    return "".join(parts)


def basename(text: str) -> str:
    return text[text.rfind("/") + 1 :]


def command_name(command: Command) -> Word | None:
    """The word naming the command after any leading NAME=VALUE assignments."""
    for word in command.words:
        if not _ASSIGNMENT.match(word.text):
            return word
    return None


def is_nested_shell(command: Command) -> bool:
    """The command re-parses its arguments in a nested shell, which this tokenizer never reads into."""
    name = command_name(command)
    return name is not None and basename(name.text) in NESTED_SHELLS


# Interpreters that run a program given on their command line, and the flag letter that takes it.
# The program is code this layer does not read: a path inside it may be written (`open(p, 'w')`).
_INLINE_FLAGS = (
    (fixed(r"python[0-9.]*|pypy[0-9.]*"), "c"),
    (fixed(r"node(js)?|deno|bun"), "e"),
    (fixed(r"node(js)?"), "p"),
    (fixed(r"ruby[0-9.]*"), "e"),
    (fixed(r"perl[0-9.]*"), "e"),
    (fixed(r"perl[0-9.]*"), "E"),
    (fixed(r"php[0-9.]*"), "r"),
    (fixed(r"(ba|z|da|k|mk|fi)?sh"), "c"),
)
_LONG_INLINE_FLAGS = frozenset({"--eval", "--print", "--command"})


def inline_programs(command: Command) -> tuple[str, list[Word]]:
    """(interpreter, program words) of an interpreter one-liner (`python3 -c CODE`, `node -e CODE`,
    `perl -pi -e CODE`, `bash -lc CODE`, `env python3 -c CODE`, `eval CODE`); ('', []) for any other
    command. An interpreter given no program on its command line reads one from stdin, so its
    heredoc bodies and herestring words are programs too (`python3 - <<EOF`).

    A flag letter ending a short-option cluster takes the next word; one starting it with more
    letters after it carries the program attached (`-cCODE`)."""
    words = list(command.words)
    # NAME=VALUE, `env` and its options before the interpreter
    while words and (_ASSIGNMENT.match(words[0].text) or words[0].text.startswith("-") or basename(words[0].text) == "env"):
        words.pop(0)
    if not words or words[0].opaque:
        return "", []
    name = basename(words[0].text)
    if name == "eval":
        return name, words[1:]
    letters = "".join(letter for pattern, letter in _INLINE_FLAGS if pattern.fullmatch(name))
    if not letters:
        return "", []
    programs: list[Word] = []
    for index, word in enumerate(words[1:], start=1):
        text = word.text
        following = words[index + 1] if index + 1 < len(words) else None
        if text in _LONG_INLINE_FLAGS or text.split("=", 1)[0] in _LONG_INLINE_FLAGS:
            if "=" in text:
                programs.append(Word(text.split("=", 1)[1], word.opaque))
            elif following is not None:
                programs.append(following)
        elif len(text) > 1 and text[0] == "-" and text[1] != "-":
            if text[-1] in letters and following is not None:
                programs.append(following)
            elif text[1] in letters and len(text) > 2:
                programs.append(Word(text[2:], word.opaque))
    if not programs:
        programs = [Word(heredoc.body) for heredoc in command.heredocs]
        programs += [r.target for r in command.redirects if r.operator == "<<<"]
    return name, programs


# Deliberately not git diff/log/show: each can write through --output=.
READ_ONLY_ALLOWLIST: tuple[tuple[str, ...], ...] = (
    ("cat",),
    ("head",),
    ("tail",),
    ("grep",),
    ("rg",),
    ("ls",),
    ("wc",),
    ("diff",),
    ("stat",),
    ("file",),
    ("echo",),
    ("printf",),
    ("git", "status"),
    ("git", "grep"),
)
_FIND_WRITERS = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_SED_PRINT = fixed(r"[0-9]+(,[0-9]+)?p")


def _matches_prefix(words: tuple[Word, ...], prefix: tuple[str, ...]) -> bool:
    if len(words) < len(prefix):
        return False
    for index, expected in enumerate(prefix):
        word = words[index]
        text = basename(word.text) if index == 0 else word.text
        if word.opaque or text != expected:
            return False
    return True


def _conditional_reader(words: tuple[Word, ...]) -> bool:
    if any(w.opaque for w in words) or not words:
        return False
    name = basename(words[0].text)
    if name == "git" and len(words) > 1 and words[1].text == "ls-files":
        return True
    if name == "find":
        return not any(w.text in _FIND_WRITERS for w in words[1:])
    if name == "sed" and len(words) > 3 and words[1].text == "-n":
        return bool(_SED_PRINT.fullmatch(words[2].text)) and not any(
            w.text.startswith("-") for w in words[3:]
        )
    return False


def proves_read_only(command: Command, tokenized: Tokenized) -> bool:
    """Whether `command` is proven not to write: a fully read line, no nested shell, an allowlisted
    head (first word by basename, no opaque word in the matched positions) or a conditional reader
    (git ls-files, find without a writing action, sed -n 'Np' over files)."""
    if not tokenized.fully_read or is_nested_shell(command):
        return False
    return read_only_head(command) or _conditional_reader(command.words)


def read_only_head(command: Command) -> bool:
    """The command's leading words match an allowlist entry (no line or nested-shell conditions)."""
    return any(_matches_prefix(command.words, prefix) for prefix in READ_ONLY_ALLOWLIST)


# --- mutation rules (fixed, not configurable) ---------------------------------------------------

_FD_REFERENCE = fixed(r"-|[0-9]+-?")
_SED_SCRIPT_FLAGS = ("-e", "-f", "--expression", "--file")


def _redirect_targets(command: Command) -> list[Word]:
    found = []
    for redirect in command.redirects:
        if not redirect.writes or redirect.target.opaque:
            continue
        if redirect.operator.endswith(">&") and _FD_REFERENCE.fullmatch(redirect.target.text):
            continue
        found.append(redirect.target)
    return found


def _tee_targets(command: Command) -> list[Word]:
    words = command.words
    if not words or words[0].opaque or basename(words[0].text) != "tee":
        return []
    found = []
    after_dashes = False
    for word in words[1:]:
        if word.opaque:
            continue
        if not after_dashes and word.text == "--":
            after_dashes = True
            continue
        if not after_dashes and word.text.startswith("-") and word.text != "-":
            continue
        found.append(word)
    return found


def _in_place_flag(text: str) -> bool:
    return text.startswith("-i") or text == "--in-place" or text.startswith("--in-place=")


def _script_flag(text: str) -> bool:
    return text in _SED_SCRIPT_FLAGS or text.startswith(("-e", "-f", "--expression=", "--file="))


def _sed_targets(command: Command) -> list[Word]:
    words = command.words
    if not words or words[0].opaque or basename(words[0].text) != "sed":
        return []
    args = words[1:]
    if not any(_in_place_flag(w.text) for w in args):
        return []
    found = []
    options_ended = skip_next = False
    # Without a script flag the first positional operand is the script itself, never a file.
    script_seen = any(_script_flag(w.text) for w in args)
    for word in args:
        if skip_next:
            skip_next = False
            continue
        if not options_ended:
            if word.text == "--":
                options_ended = True
                continue
            if word.text.startswith("-") and word.text != "-":
                skip_next = word.text in _SED_SCRIPT_FLAGS
                continue
        if not script_seen:
            script_seen = True
            continue
        if not word.opaque:
            found.append(word)
    return found


MUTATION_RULES = (
    ("redirect-write", _redirect_targets),
    ("tee", _tee_targets),
    ("sed-in-place", _sed_targets),
)


def mutation_targets(command: Command) -> list[tuple[str, Word]]:
    """Every write target the fixed rules find in one simple command, as (rule name, target word)."""
    return [(name, word) for name, rule in MUTATION_RULES for word in rule(command)]
