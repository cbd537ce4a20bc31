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

Comments (`#`) are not recognised by the judge: a word starting with `#` stays a word. That keeps
the reading on the conservative side (a protected path in a trailing comment still counts as a
mention). The repository checks, which read CI scripts and session commands through `checks.api`,
ask for them (`tokenize(line, comments=True)`).

A substitution (`$(…)`, `${…}`, backticks) is read whole, nested brackets and the quotes inside it
included, outside double quotes and within them: `"$(echo "a b")"` is one word.
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
        if ch == "$" and line[i + 1 : i + 2] in ("(", "{") or ch == "`":
            # bash reads a substitution inside quotes as its own text, so its quotes are its own:
            # `"$(echo "a b")"` is one word.
            end, closed = _backticked(line, i) if ch == "`" else _matching_paren(line, i + 1)
            out.append(line[i:end])
            if not closed:
                return "".join(out), n, False
            i = end
            continue
        out.append(ch)
        i += 1
    return "".join(out), n, False


def _ansi_c_quoted(line: str, open_at: int) -> tuple[str, int, bool, bool]:
    """Decoded content of $'...' whose quote opens at `open_at`: text, next, closed, decoded.

    `decoded` is False only when bash's value is not the decoded text: a NUL (bash ends the string
    there), a code point no string can hold, or bytes that are not UTF-8 text (`\\xaa` alone: an
    octal or `\\x` escape is one byte, which `\\xc3\\xa9` spells `é` with)."""
    out: list[str] = []
    decoded = True
    i = open_at + 1
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == "'":
            text, is_text = _as_text("".join(out))
            return text, i + 1, True, decoded and is_text
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = line[i + 1]
        if nxt in _ANSI_C:
            out.append(_ANSI_C[nxt])
            i += 2
            continue
        code, i = _ansi_c_code(line, i + 2, nxt)
        if code is None:
            out.append("\\" + nxt)
        elif code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            decoded = False
        elif code >= 0x80 and (nxt in _OCTAL or nxt == "x"):
            out.append(chr(0xDC00 + code))  # one byte, held as surrogateescape holds it until _as_text
        else:
            out.append(chr(code))
    text, is_text = _as_text("".join(out))
    return text, n, False, decoded and is_text


def _as_text(held: str) -> tuple[str, bool]:
    """`held` with its byte escapes read as UTF-8 together with the text around them, and whether
    the bytes are text; when they are not, the undecodable bytes become U+FFFD (the word is opaque)."""
    if not any("\udc80" <= ch <= "\udcff" for ch in held):
        return held, True
    try:
        raw = held.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate of the payload's own, which no byte stands for
        return held, False
    try:
        return raw.decode("utf-8"), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), False


def _ansi_c_code(line: str, i: int, escape: str) -> tuple[int | None, int]:
    """The code of the escape `\\<escape>` whose digits (or letter) start at `i`, and the index
    after it; None for an escape bash keeps as written."""
    if escape in _OCTAL:
        end = _run_end(line, i, 2, _OCTAL)
        return int(line[i - 1 : end], 8) & 0xFF, end
    width = _HEX_ESCAPES.get(escape)
    if width is not None:
        end = _run_end(line, i, width, _HEX)
        return (int(line[i:end], 16), end) if end > i else (None, i)
    if escape == "c" and i < len(line):
        return ord(line[i].upper()) ^ 0x40, i + 1
    return None, i


def _run_end(line: str, i: int, most: int, digits: frozenset[str]) -> int:
    """The end of the run of at most `most` characters of `digits` from `i`."""
    end = i
    while end < len(line) and end < i + most and line[end] in digits:
        end += 1
    return end


def _backticked(line: str, open_at: int) -> tuple[int, bool]:
    """End (exclusive) of the `...` substitution opening at `open_at`, and whether it closed."""
    close = line.find("`", open_at + 1)
    return (len(line), False) if close == -1 else (close + 1, True)


def _matching_paren(line: str, open_at: int) -> tuple[int, bool]:
    """End (exclusive) of the group opening at `open_at` with `(` (a substitution's) or `{` (a
    parameter expansion's), counting that bracket only; quotes suspend counting."""
    opening = line[open_at]
    closing = ")" if opening == "(" else "}"
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
        if ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return i + 1, True
        i += 1
    return n, False


class _WordScan:
    """One word of a line as it is read: its text so far, whether it is opaque (an expansion, a
    substitution or a glob), and the span left unread when a quote never closed (`lost`)."""

    __slots__ = ("line", "n", "out", "opaque", "lost")

    def __init__(self, line: str) -> None:
        self.line, self.n = line, len(line)
        self.out: list[str] = []
        self.opaque = False
        self.lost: Unread | None = None

    def run(self, start: int) -> tuple[Word, int, Unread | None]:
        """The word from `start`, the index after it, and an unread span if a quote never closed."""
        i = start
        while i < self.n:
            plain = _PLAIN_RUN.match(self.line, i)
            if plain is not None:  # a run of characters with no meaning to the shell, in one step
                self.out.append(plain.group())
                i = plain.end()
                continue
            ch = self.line[i]
            if ch in _WORD_END:
                break
            i = _WORD_STEPS[ch](self, i)
        return Word("".join(self.out), self.opaque), i, self.lost

    def unclosed(self, open_at: int, text: str) -> int:
        self.out.append(text)
        self.opaque = True
        self.lost = Unread(self.line[open_at:], "unclosed quote")
        return self.n

    def backslash(self, i: int) -> int:
        line = self.line
        nxt = line[i + 1] if i + 1 < self.n else ""
        if nxt == "\n":
            return i + 2  # a line continuation
        if nxt == "\r" and line[i + 2 : i + 3] == "\n":
            return i + 3
        self.out.append(nxt or "\\")
        return i + 2 if nxt else i + 1

    def single_quoted(self, i: int) -> int:
        close = self.line.find("'", i + 1)
        if close == -1:
            return self.unclosed(i, self.line[i + 1 :])
        self.out.append(self.line[i + 1 : close])
        return close + 1

    def double_quoted(self, i: int) -> int:
        text, nxt, closed = _double_quoted(self.line, i)
        if not closed:
            return self.unclosed(i, text)
        self.opaque = self.opaque or "$" in text or "`" in text
        self.out.append(text)
        return nxt

    def dollar(self, i: int) -> int:
        after = self.line[i + 1 : i + 2]
        if after == "'":
            return self.ansi_c_quoted(i)
        if after in ("(", "{"):
            return self.enclosed(i)
        return self.glob(i)  # an expansion: opaque like a glob

    def ansi_c_quoted(self, i: int) -> int:
        text, nxt, closed, decoded = _ansi_c_quoted(self.line, i + 1)
        if not closed:
            return self.unclosed(i, text)
        self.opaque = self.opaque or not decoded
        self.out.append(text)
        return nxt

    def enclosed(self, i: int) -> int:
        """`$(...)` or `${...}`: one opaque word-part however many spaces and quotes it holds."""
        end, closed = _matching_paren(self.line, i + 1)
        if not closed:
            return self.unclosed(i, self.line[i:end])
        self.out.append(self.line[i:end])
        self.opaque = True
        return end

    def backticks(self, i: int) -> int:
        end, _ = _backticked(self.line, i)
        self.out.append(self.line[i:end])
        self.opaque = True
        return end

    def glob(self, i: int) -> int:
        self.out.append(self.line[i])
        self.opaque = True
        return i + 1


# Every character `_PLAIN_RUN` stops at that does not end the word.
_WORD_STEPS = {"\\": _WordScan.backslash, "'": _WordScan.single_quoted, '"': _WordScan.double_quoted,
               "$": _WordScan.dollar, "`": _WordScan.backticks, "*": _WordScan.glob, "?": _WordScan.glob}


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
    for delimiter, strip_tabs, literal, owner in pending:
        body_text, end_of_body, after = _heredoc_body(line, i, delimiter, strip_tabs)
        # An unquoted delimiter expands $ and backticks first: that body is executed text, not data.
        expands = not literal and ("$" in body_text or "`" in body_text)
        if end_of_body > i and not expands:
            data.append((i, end_of_body))
        owner.heredocs.append(Heredoc(body_text, literal))
        i = after
    return min(i, len(line))


def _heredoc_body(line: str, start: int, delimiter: str, strip_tabs: bool) -> tuple[str, int, int]:
    """The body of one heredoc from `start`: its text, where it ends, and the index after its delimiter line."""
    body: list[str] = []
    i = end_of_body = start
    n = len(line)
    while i < n:
        end = line.find("\n", i)
        if end == -1:
            end = n
        text = line[i:end].removesuffix("\r")
        if strip_tabs:
            text = text.lstrip("\t")
        line_start = i
        i = end + 1
        if text == delimiter:
            return "".join(body), line_start, i
        body.append(text + "\n")
        end_of_body = min(i, n)
    return "".join(body), end_of_body, i


def tokenize(line: str, comments: bool = False) -> Tokenized:
    """Tokenize one shell command line (which may hold several physical lines). Never raises.

    With `comments`, a `#` starting a word comments out the rest of its physical line, as bash
    reads a script: the checks read CI scripts so, where a commented-out command is not run. The
    judge does not (see the module's docstring)."""
    return _Tokenizer(line, comments).run()


class _Tokenizer:
    """One line as it is read: the commands ended so far and the one being read (`current`), the
    spans left unread, the stdin-data spans, and the heredocs whose bodies follow the next newline."""

    __slots__ = ("line", "n", "comments", "commands", "unread", "data", "current", "pending")

    def __init__(self, line: str, comments: bool) -> None:
        self.line, self.n = line, len(line)
        self.comments = comments
        self.commands: list[_Builder] = []
        self.unread: list[Unread] = []
        self.data: list[tuple[int, int]] = []
        self.current = _Builder()
        self.pending: list[tuple[str, bool, bool, _Builder]] = []

    def run(self) -> Tokenized:
        line, i = self.line, 0
        while i < self.n:
            ch = line[i]
            if ch in " \t":
                i += 1
            elif ch in "\n\r":
                i = self.newline(i)
            elif ch == "#" and self.comments:
                end = line.find("\n", i)  # the newline still ends the command and starts any heredoc body
                i = self.n if end == -1 else end
            elif ch in "<>" and line[i + 1 : i + 2] == "(":
                # Process substitution is a word bash executes, never a redirect.
                word, i = self.substitution(i)
                self.current.words.append(word)
            else:
                i = self.operator_or_word(i)
        self.commands.append(self.current)
        return Tokenized(
            tuple(c.freeze() for c in self.commands if c.words or c.redirects),
            tuple(self.unread),
            tuple(self.data),
        )

    def end_command(self) -> None:
        self.commands.append(self.current)
        self.current = _Builder()

    def newline(self, i: int) -> int:
        self.end_command()
        i += 2 if self.line[i : i + 2] == "\r\n" else 1
        i = _consume_heredocs(self.line, i, self.pending, self.data)
        self.pending = []
        return i

    def substitution(self, open_at: int) -> tuple[Word, int]:
        """The process substitution `<(…)` or `>(…)` at `open_at`, an opaque word, and the index after it."""
        end, closed = _matching_paren(self.line, open_at + 1)
        if not closed:
            self.unread.append(Unread(self.line[open_at:], "unclosed quote"))
        return Word(self.line[open_at:end], True), end

    def operator_or_word(self, i: int) -> int:
        operator = _redirect_operator(self.line, i)
        if operator is not None:
            return self.redirect(i, operator)
        control = _control_operator(self.line, i)
        if control is not None:
            self.end_command()
            return i + len(control)
        word, nxt, lost = _WordScan(self.line).run(i)
        if lost is not None:
            self.unread.append(lost)
        self.current.words.append(word)
        return nxt

    def redirect(self, i: int, operator: str) -> int:
        line = self.line
        j = i + len(operator)
        while j < self.n and line[j] in " \t":
            j += 1
        if line[j : j + 1] in ("<", ">") and line[j + 1 : j + 2] == "(":
            target, end = self.substitution(j)
            self.current.redirects.append(Redirect(operator, target))
            return end
        word, nxt, lost = _WordScan(line).run(j)
        if lost is not None:
            self.unread.append(lost)
            return nxt
        if word.text == "":
            self.unread.append(Unread(line[i:j], "missing redirect target"))
            return j
        self.target(operator, word, j, nxt)
        return nxt

    def target(self, operator: str, word: Word, j: int, nxt: int) -> None:
        """A redirect's target word, spanning line[j:nxt]: a heredoc's delimiter, a herestring's data or a file."""
        if operator in ("<<", "<<-"):
            # bash never expands a delimiter; any quoting character in it makes the body literal.
            literal = any(q in self.line[j:nxt] for q in "'\"\\")
            self.pending.append((word.text, operator == "<<-", literal, self.current))
            return
        if word.text.startswith("(") and not word.opaque:
            word = Word(word.text, True)
        if operator == "<<<" and not word.opaque:
            self.data.append((j, nxt))
        self.current.redirects.append(Redirect(operator, word))


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
    words = _past_env(command.words)
    if not words or words[0].opaque:
        return "", []
    name = basename(words[0].text)
    if name == "eval":
        return name, words[1:]
    letters = "".join(letter for pattern, letter in _INLINE_FLAGS if pattern.fullmatch(name))
    if not letters:
        return "", []
    return name, _flag_programs(words, letters) or _stdin_programs(command)


def _flag_programs(words: list[Word], letters: str) -> list[Word]:
    programs = []
    for index, word in enumerate(words[1:], start=1):
        program = _flag_program(word, words[index + 1] if index + 1 < len(words) else None, letters)
        if program is not None:
            programs.append(program)
    return programs


def _stdin_programs(command: Command) -> list[Word]:
    """An interpreter given no program on its command line reads its heredocs and herestrings."""
    return [Word(heredoc.body) for heredoc in command.heredocs] + [
        r.target for r in command.redirects if r.operator == "<<<"]


def _past_env(words: tuple[Word, ...]) -> list[Word]:
    """The words from the interpreter on: NAME=VALUE, `env` and its options dropped."""
    words = list(words)
    while words and (_ASSIGNMENT.match(words[0].text) or words[0].text.startswith("-") or basename(words[0].text) == "env"):
        words.pop(0)
    return words


def _flag_program(word: Word, following: Word | None, letters: str) -> Word | None:
    """The program an interpreter's option word gives (`--eval=X`, `--eval X`, `-c X`, `-cX`), or None."""
    text = word.text
    if text.split("=", 1)[0] in _LONG_INLINE_FLAGS:
        return Word(text.split("=", 1)[1], word.opaque) if "=" in text else following
    if len(text) > 1 and text[0] == "-" and text[1] != "-":
        if text[-1] in letters and following is not None:
            return following
        if text[1] in letters and len(text) > 2:
            return Word(text[2:], word.opaque)
    return None


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
    reads = _CONDITIONAL_READERS.get(basename(words[0].text))
    return reads is not None and reads(words)


def _lists_files(words: tuple[Word, ...]) -> bool:
    return len(words) > 1 and words[1].text == "ls-files"


def _finds_only(words: tuple[Word, ...]) -> bool:
    return not any(w.text in _FIND_WRITERS for w in words[1:])


def _prints_lines(words: tuple[Word, ...]) -> bool:
    """`sed -n 'Np' FILE…`: prints lines, with no further option."""
    if len(words) <= 3 or words[1].text != "-n":
        return False
    return bool(_SED_PRINT.fullmatch(words[2].text)) and not any(w.text.startswith("-") for w in words[3:])


_CONDITIONAL_READERS = {"git": _lists_files, "find": _finds_only, "sed": _prints_lines}


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


def _runs(command: Command, name: str) -> bool:
    """The command's first word names `name` (by basename, not opaque)."""
    words = command.words
    return bool(words) and not words[0].opaque and basename(words[0].text) == name


def _tee_targets(command: Command) -> list[Word]:
    if not _runs(command, "tee"):
        return []
    found = []
    after_dashes = False
    for word in command.words[1:]:
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
    if not _runs(command, "sed"):
        return []
    args = command.words[1:]
    if not any(_in_place_flag(w.text) for w in args):
        return []
    operands = _sed_operands(args)
    if not any(_script_flag(w.text) for w in args):
        operands = operands[1:]  # without a script flag the first operand is the script itself, never a file
    return [word for word in operands if not word.opaque]


def _sed_operands(args: tuple[Word, ...]) -> list[Word]:
    """sed's operands: its words past the options and the values `-e`, `-f` take."""
    operands = []
    options_ended = skip_next = False
    for word in args:
        if skip_next:
            skip_next = False
        elif not options_ended and word.text == "--":
            options_ended = True
        elif not options_ended and word.text.startswith("-") and word.text != "-":
            skip_next = word.text in _SED_SCRIPT_FLAGS
        else:
            operands.append(word)
    return operands


MUTATION_RULES = (
    ("redirect-write", _redirect_targets),
    ("tee", _tee_targets),
    ("sed-in-place", _sed_targets),
)


def mutation_targets(command: Command) -> list[tuple[str, Word]]:
    """Every write target the fixed rules find in one simple command, as (rule name, target word)."""
    return [(name, word) for name, rule in MUTATION_RULES for word in rule(command)]
