"""Writes the judge cannot see through (issue 37, part 6): shell commands that may write any path.

`shell-mod` reads a command's words for protected paths. Some commands write where their words do
not say: an archive's members (`tar -x`, `unzip`), another commit's tree (`git checkout other`),
arguments read from stdin (`xargs cp`), what a search finds (`find … -delete`), a tree copied onto
a folder (`cp -r x/ .`), a computed operand (`cp x "$F"`), or an inline program (`python3 -c
"open('.cla'+'ude/…','w')"`). `unseen_write` names such a command, with the protected path it may
write: a precise one where a cheap look decides (git names the files a checkout would rewrite; a
destination folder holds no protected path), else the first protected path, standing for all.

Standard library only; imported by `meta.py` only when a shell command is judged.
"""

from __future__ import annotations

import os

from agent_constitution.covenant.shell import (
    READ_ONLY_ALLOWLIST,
    Command,
    Word,
    basename,
    inline_programs,
)

TYPE_CHECKING = False  # hot path: importing `typing` costs every hook call about 3 ms
if TYPE_CHECKING:
    from typing import Any

# Words that run the rest of the command line as a command of its own.
_WRAPPERS = frozenset({"sudo", "doas", "env", "nice", "nohup", "time", "command", "exec", "builtin",
                       "timeout", "stdbuf", "ionice", "setsid", "chronic", "unbuffer"})
_WRAPPER_ARGS = {"sudo": "ugCDhpr", "doas": "uC", "env": "uCS", "nice": "n", "ionice": "cnp", "timeout": "sk"}
# Commands whose operands are written (created, replaced, moved, deleted or re-permissioned).
WRITERS = frozenset({"cp", "mv", "rm", "rmdir", "ln", "install", "touch", "tee", "truncate", "chmod",
                     "chown", "chgrp", "mkdir", "rsync", "shred", "unlink", "dd", "sed", "perl", "mktemp"})
# Commands that write files a patch or mailbox names, read here from nothing the judge sees.
_PATCHERS = frozenset({"patch"})
_TAR = frozenset({"tar", "bsdtar", "gtar"})
_ZIP = frozenset({"7z", "7za", "7zr", "7zz"})
_UNZIP_READS = frozenset("lptvzZc")  # unzip -l, -p, -t, -v, -z, -Z, -c write nothing
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_XARGS_ARGS = frozenset({"-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter",
                         "--max-args", "--max-procs", "--max-chars", "--max-lines", "--eof", "--process-slot-var"})
_PARALLEL_ARGS = frozenset({"-j", "-N", "-n", "-S", "-I", "--jobs", "--sshlogin", "--joblog", "--results",
                            "--delay", "--timeout", "--retries", "--tag-string"})
_RSYNC_ARGS = frozenset({"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from",
                         "--include-from", "--files-from", "--chmod", "--chown", "--rsync-path", "--backup-dir",
                         "--suffix", "-T", "--temp-dir", "--compare-dest", "--copy-dest", "--link-dest", "-B",
                         "--block-size", "--max-size", "--min-size", "--partial-dir", "--log-file",
                         "--password-file", "--port", "--timeout", "--bwlimit", "-M", "--remote-option"})
# Identifiers through which an inline program can write a file, or reach something that can (its
# own imports, the interpreter's internals, a nested program). A program naming none of them, and
# no protected path, is let through: `python3 -c "print(1)"`. A heuristic, said in the docs.
_PROGRAM_POWERS = {
    "python": frozenset({
        "open", "write", "writelines", "write_text", "write_bytes", "os", "posix", "nt", "shutil", "pathlib",
        "Path", "subprocess", "system", "popen", "spawn", "exec", "eval", "compile", "importlib", "getattr",
        "setattr", "globals", "locals", "vars", "builtins", "modules", "io", "_io", "codecs", "tarfile",
        "zipfile", "extractall", "fileinput", "runpy", "ctypes", "pty", "tempfile", "sqlite3", "dbm",
        "shelve", "mmap", "rename", "replace", "unlink", "remove", "rmtree", "symlink", "mkdir", "chmod",
        "truncate", "touch", "copy", "copyfile", "copytree", "move", "logging", "breakpoint",
    }),
    "node": frozenset({
        "fs", "child_process", "process", "eval", "Function", "globalThis", "global", "import", "module",
        "Deno", "Bun", "write", "writeFile", "writeFileSync", "appendFile", "appendFileSync", "spawn",
        "exec", "execSync", "constructor", "Reflect", "worker_threads", "vm", "inspector", "require",
    }),
    "perl": frozenset({
        "open", "sysopen", "system", "exec", "unlink", "rename", "link", "symlink", "mkdir", "rmdir",
        "chmod", "truncate", "eval", "do", "require", "use", "qx", "syscall", "File", "IO", "POSIX",
    }),
    "ruby": frozenset({
        "File", "IO", "open", "system", "exec", "spawn", "eval", "send", "__send__", "public_send",
        "require", "require_relative", "load", "Kernel", "FileUtils", "Dir", "Pathname", "instance_eval",
        "class_eval", "const_get", "Object", "syscall", "binding", "Open3", "Process",
    }),
    "php": frozenset({
        "fopen", "file_put_contents", "fwrite", "system", "exec", "shell_exec", "passthru", "proc_open",
        "popen", "eval", "assert", "include", "include_once", "require", "require_once", "unlink", "rename",
        "copy", "mkdir", "rmdir", "chmod", "touch", "call_user_func", "call_user_func_array", "create_function",
        "symlink", "link", "SplFileObject", "ZipArchive", "PharData",
    }),
}
_REQUIRE_LITERAL = "require("  # node: `require('x')` with one literal module name is read as a name


def _language(name: str) -> str | None:
    for prefix, language in (("python", "python"), ("pypy", "python"), ("node", "node"), ("deno", "node"),
                             ("bun", "node"), ("perl", "perl"), ("ruby", "ruby"), ("php", "php")):
        if name.startswith(prefix):
            return language
    return None


def computed(word: Word) -> bool:
    """The word's value is computed when the command runs (an expansion or a substitution), not
    merely a glob, whose reach `meta.Reach` compares."""
    return word.opaque and ("$" in word.text or "`" in word.text or word.text.startswith(("<(", ">(")))


class Context:
    """What the look at one command needs: the root, the protected paths, whether relative words
    start at the root (`anchored`: no `cd` before), `reach` (a `meta.Reach`, or None) and how a
    path is compared with a protected one (`names`)."""

    __slots__ = ("root", "protected", "anchored", "reach", "names")

    def __init__(self, root: str, protected: tuple[str, ...], anchored: bool, reach: Any, names: Any) -> None:
        self.root, self.protected, self.anchored, self.reach = root, protected, anchored, reach
        self.names = names  # `meta.path_matches_protected(candidate, protected)`: meta imports this module

    def every(self, reason: str) -> tuple[str, str]:
        """A write this layer cannot bound: it stands for every protected path."""
        shown = ", ".join(self.protected[:3]) + (f" and {len(self.protected) - 3} more" if len(self.protected) > 3 else "")
        return self.protected[0], f"{reason}: it may write any protected path ({shown})"

    def holding(self, folder: str) -> str | None:
        """The first protected path at or inside `folder` (the root itself holds all), or None;
        every protected path for a folder this layer cannot place (relative after a `cd`)."""
        if not folder.startswith("/") and not self.anchored:
            return self.protected[0]
        real_root = os.path.realpath(self.root)
        real = os.path.realpath(os.path.join(real_root, folder))
        for path in self.protected:
            target = os.path.realpath(os.path.join(real_root, path))
            if real == target or target.startswith(real.rstrip("/") + "/") or real.startswith(target + "/"):
                return path
        return None

    def holding_glob(self, path: str) -> str | None:
        """`holding`, or for a path with glob characters the protected path the glob reaches."""
        if any(c in path for c in "*?[") and self.reach is not None:
            return self.reach.glob_names(path, self.anchored)
        return self.holding(path)


def unwrap(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """The words of the command a wrapper runs (`sudo -u x cp …` -> `cp …`), assignments dropped."""
    words = list(words)
    while words:
        text = words[0].text
        if _assignment(text):
            words.pop(0)
            continue
        name = basename(text)
        if words[0].opaque or name not in _WRAPPERS:
            break
        words.pop(0)
        _drop_wrapper_options(name, words)
    return tuple(words)


def _assignment(text: str) -> bool:
    return "=" in text and not text.startswith("-") and text.split("=", 1)[0].isidentifier()


def _drop_wrapper_options(name: str, words: list[Word]) -> None:
    """Pops a wrapper's options, the values they take and `timeout`'s duration off `words`."""
    takes = _WRAPPER_ARGS.get(name, "")
    while words and words[0].text.startswith("-") and words[0].text != "-":
        flag = words.pop(0).text
        if len(flag) == 2 and flag[1] in takes and words:
            words.pop(0)
    if name == "timeout" and words:
        words.pop(0)  # the duration


def _short_flags(text: str) -> str:
    """The letters of a short-option word (`-xvf` -> `xvf`); empty for anything else."""
    return text[1:] if text.startswith("-") and not text.startswith("--") else ""


def _proven_reader(words: tuple[Word, ...]) -> bool:
    if not words or any(w.opaque for w in words):
        return False
    if basename(words[0].text) == "find":
        return not any(w.text in _FIND_EXEC or w.text in _FIND_WRITES for w in words[1:])
    return any(_starts_with(words, prefix) for prefix in READ_ONLY_ALLOWLIST)


_FIND_WRITES = ("-delete", "-fprint", "-fprint0", "-fprintf", "-fls")


def _starts_with(words: tuple[Word, ...], prefix: tuple[str, ...]) -> bool:
    return (len(words) >= len(prefix) and basename(words[0].text) == prefix[0]
            and all(words[i].text == prefix[i] for i in range(1, len(prefix))))


def plainly_unseen_free(command: Command) -> bool:
    """A cheap first look: nothing in `command` that `unseen_write` would look at (most commands).
    False sends it the long way, which decides."""
    for redirect in command.redirects:
        if redirect.writes and redirect.target.opaque:
            return False
    words = command.words
    if not words or words[0].opaque or "=" in words[0].text:
        return not words
    name = basename(words[0].text)
    return name not in _LOOKED_AT and _language(name) is None


def unseen_write(command: Command, context: Context) -> tuple[str, str] | None:
    """(protected path, reason) when `command` may write a protected path its words do not name."""
    redirect = next((r for r in command.redirects
                     if r.writes and computed(r.target) and not r.operator.endswith(">&")), None)
    if redirect is not None:
        return context.every(f"a redirect writes to the computed target {redirect.target.text}")
    words = unwrap(command.words)
    if not words:
        return None
    head = words[0]
    if computed(head):
        return context.every(f"the command name {head.text} is computed")
    return _written_by(basename(head.text), words[1:], command, context)


def _written_by(name: str, args: tuple[Word, ...], command: Command, context: Context) -> tuple[str, str] | None:
    """What the command `name` may write unseen: its own judge's finding, a computed operand, a
    patch's files or an inline program's targets."""
    judge = _JUDGES.get(name)
    found = None if judge is None else judge(name, args, context)
    if found is None:
        found = _computed_operand(name, args, context)
    if found is None and name in _PATCHERS:
        return context.every(f"{name} writes the files its patch names")
    language = _language(name)
    if found is None and language is not None:
        return _program(command, language, context)
    return found


def _computed_operand(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    """A writer (`sed` and `perl` only in place) with an operand computed when it runs."""
    if name not in WRITERS:
        return None
    if name in ("sed", "perl") and not any(w.text.startswith(("-i", "--in-place")) for w in args):
        return None
    operand = next((w for w in args if computed(w)), None)
    return None if operand is None else context.every(f"{name} has the computed operand {operand.text}")


# --- archives ----------------------------------------------------------------------------------


def _extracting(name: str, args: tuple[Word, ...], destination: str | None, context: Context) -> tuple[str, str] | None:
    folder = destination if destination is not None else "."
    held = context.holding(folder)
    if held is None:
        return None
    where = destination if destination is not None else "the working folder" if context.anchored else "the folder a cd moved to"
    return held, (f"{name} extracts an archive into {where}, which holds protected path {held}; its members"
                  " are not read here, so it may write any protected path there")


def _tar(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    if not any(_tar_extracts(index, word.text) for index, word in enumerate(args)):
        return None
    destination = _tar_destination(args)
    if destination is not None and computed(destination):
        return context.every(f"{name} extracts into the computed folder {destination.text}")
    return _extracting(name + " -x", args, None if destination is None else destination.text, context)


def _tar_extracts(index: int, text: str) -> bool:
    """`--extract`, `--get`, a short option bundle holding `x`, or an old-style first word (`tar xf`)."""
    old_style = index == 0 and not text.startswith("-") and "x" in text
    return text in ("--extract", "--get") or old_style or "x" in _short_flags(text)


def _tar_destination(args: tuple[Word, ...]) -> Word | None:
    """The folder of tar's last `-C`, `--directory` or `--directory=`."""
    destination = None
    for index, word in enumerate(args):
        text = word.text
        if text in ("-C", "--directory") and index + 1 < len(args):
            destination = args[index + 1]
        elif text.startswith("--directory="):
            destination = Word(text.split("=", 1)[1], word.opaque)
        elif text.startswith("-C") and len(text) > 2 and not text.startswith("--"):
            destination = Word(text[2:], word.opaque)
    return destination


def _unzip(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    if any(c in _UNZIP_READS for word in args for c in _short_flags(word.text)):
        return None
    destination = _unzip_destination(args)
    if destination is not None and computed(destination):
        return context.every(f"unzip extracts into the computed folder {destination.text}")
    return _extracting(name, args, None if destination is None else destination.text, context)


def _unzip_destination(args: tuple[Word, ...]) -> Word | None:
    """The folder of unzip's last `-d`."""
    destination = None
    for index, word in enumerate(args):
        if word.text == "-d" and index + 1 < len(args):
            destination = args[index + 1]
        elif word.text.startswith("-d") and len(word.text) > 2:
            destination = Word(word.text[2:], word.opaque)
    return destination


def _seven_zip(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    if not args or args[0].text not in ("x", "e"):
        return None
    out = next((w for w in args if w.text.startswith("-o")), None)
    if out is not None and computed(out):
        return context.every(f"{name} extracts into the computed folder {out.text[2:]}")
    return _extracting(f"{name} {args[0].text}", args, None if out is None else out.text[2:], context)


def _other_archive(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    first = args[0].text if args else ""
    extracts = {
        "cpio": any(w.text in ("-i", "--extract") or (w.text.startswith("-i") and not w.text.startswith("--"))
                    for w in args),
        "ar": first.lstrip("-").startswith("x"),
        "jar": first.lstrip("-").startswith("x"),
        "pax": any(w.text.startswith("-") and "r" in w.text[1:] for w in args),
    }[name]
    return _extracting(name, args, None, context) if extracts else None


# --- stdin arguments, searches, tree copies ------------------------------------------------------


def _inner(args: tuple[Word, ...], taking: frozenset[str]) -> tuple[Word, ...]:
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        text = args[index].text
        index += 2 if text in taking else 1
    return args[index:]


def _xargs(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    inner = _inner(args, _XARGS_ARGS if name == "xargs" else _PARALLEL_ARGS)
    if name == "parallel" and ":::" in [w.text for w in inner]:
        inner = inner[: [w.text for w in inner].index(":::")]
    if not inner:
        return None  # `xargs` alone echoes
    inner = unwrap(inner)
    if _proven_reader(inner):
        return None
    runs = inner[0].text if inner else "a command"
    return context.every(f"{name} runs {runs} with arguments this layer does not read (stdin or a list)")


def _find(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    starts, expression = _find_parts(args)
    action = _find_action(expression)
    if action is None:
        return None
    for start in starts or [Word(".")]:
        if computed(start):
            return context.every(f"find {action} starts at the computed folder {start.text}")
        held = context.holding(start.text)
        if held is not None:
            return held, (f"find {action} works under {start.text}, which holds protected path {held}; what it"
                          " matches is not known before it runs")
    return None


def _find_parts(args: tuple[Word, ...]) -> tuple[list[Word], tuple[Word, ...]]:
    """find's start folders and its expression, past the leading `-H`, `-L`, `-P`, `-O…`, `-D x`."""
    index = 0
    while index < len(args) and (args[index].text in ("-H", "-L", "-P") or args[index].text.startswith(("-O", "-D"))):
        index += 2 if args[index].text == "-D" else 1
    starts = []
    while index < len(args) and not args[index].text.startswith(("-", "(", "!", ")")):
        starts.append(args[index])
        index += 1
    return starts, args[index:]


def _find_action(expression: tuple[Word, ...]) -> str | None:
    """The first action of a find expression that may write: `-delete`, or an `-exec` of no proven reader."""
    for position, word in enumerate(expression):
        if word.text == "-delete":
            return "-delete"
        if word.text in _FIND_EXEC:
            end = next((i for i in range(position + 1, len(expression)) if expression[i].text in (";", "+")),
                       len(expression))
            inner = unwrap(expression[position + 1 : end])
            if not _proven_reader(tuple(w for w in inner if w.text != "{}")):
                return f"{word.text} {inner[0].text if inner else ''}".rstrip()
    return None


_RECURSIVE = frozenset({"-r", "-R", "-a", "--recursive", "--archive"})


def _tree_copy(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    copy = _Copy(name, args)
    placed = copy.placed()
    if not copy.recursive or placed is None:
        return None
    target, operands = placed
    if computed(target) or any(computed(o) for o in operands):
        return None  # the computed-operand rule names it
    folder = target.text
    is_dir = _is_folder(folder, copy.whole, context)
    for source in operands:
        landing = _landing(name, source.text, folder, is_dir)
        held = context.holding_glob(landing)
        if held is not None:
            verb = "moves" if name == "mv" else "copies"
            return held, (f"{name} {verb} a tree onto {landing}, which holds protected path {held}; what the"
                          " tree holds is not read here")
    return None


class _Copy:
    """What the words of `cp`, `mv` or `rsync` say: the operands, the target folder (`-t`), whether
    it copies a tree, and `-T` (`whole`: the destination is the tree itself)."""

    __slots__ = ("operands", "target", "recursive", "whole")

    def __init__(self, name: str, args: tuple[Word, ...]) -> None:
        taking = _RSYNC_ARGS if name == "rsync" else frozenset({"-t", "-S", "--suffix", "--target-directory"})
        self.operands: list[Word] = []
        self.target: Word | None = None
        self.recursive = name == "mv"
        self.whole = False
        index = 0
        while index < len(args):
            text = args[index].text
            if text == "--":
                self.operands.extend(args[index + 1 :])
                break
            if text.startswith("-") and text != "-":
                self._option(name, args, index)
                index += 2 if text in taking else 1
                continue
            self.operands.append(args[index])
            index += 1

    def placed(self) -> tuple[Word, tuple[Word, ...]] | None:
        """The target folder and what is copied onto it (the last operand without `-t`), or None."""
        if self.target is not None:
            return self.target, tuple(self.operands)
        if len(self.operands) < 2:
            return None
        return self.operands[-1], tuple(self.operands[:-1])

    def _option(self, name: str, args: tuple[Word, ...], index: int) -> None:
        word = args[index]
        text = word.text
        if text in ("-t", "--target-directory") and index + 1 < len(args):
            self.target = args[index + 1]
        elif text.startswith("--target-directory="):
            self.target = Word(text.split("=", 1)[1], word.opaque)
        if text in _RECURSIVE or any(c in "rRa" for c in _short_flags(text)):
            self.recursive = True
        self.whole = self.whole or text in ("-T", "--no-target-directory") and name != "rsync"


def _is_folder(folder: str, whole: bool, context: Context) -> bool:
    """Whether a copy lands inside `folder` (not onto it: `-T`); a folder this layer cannot place
    (relative after a `cd`) may be one."""
    if context.anchored or folder.startswith("/"):
        return not whole and os.path.isdir(os.path.join(context.root, folder))
    return True


def _landing(name: str, source: str, folder: str, is_dir: bool) -> str:
    """Where a copied tree lands: in `folder`, or `folder` itself for contents (`x/.`, rsync's `x/`)."""
    tail = basename(source.rstrip("/"))
    contents = tail in (".", "..", "") or (name == "rsync" and source.endswith("/"))
    return folder if not is_dir or contents else folder.rstrip("/") + "/" + tail


# --- git ----------------------------------------------------------------------------------------

_GIT_TREE_WRITERS = frozenset({"checkout", "switch", "reset", "restore", "merge", "rebase"})
_GIT_BLIND = frozenset({"stash", "apply", "am", "pull", "cherry-pick", "revert", "clean", "read-tree",
                        "checkout-index", "submodule", "filter-branch", "bisect"})
_GIT_ARGS = frozenset({"-b", "-B", "-c", "-C", "--orphan", "-s", "--source", "--conflict", "-t", "--track",
                       "-X", "--strategy-option", "--strategy", "-m", "--onto", "-x", "--exec"})


def _git(name: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    index = next((i for i, w in enumerate(args) if not w.text.startswith("-")), len(args))
    elsewhere = next((w.text for w in args[:index] if _git_elsewhere(w.text)), None)
    if elsewhere is not None:
        return _git_elsewhere_writes(elsewhere, args, context)
    if index >= len(args):
        return None
    sub, rest = args[index].text, args[index + 1 :]
    if sub in _GIT_BLIND:
        return _git_blind(sub, rest, context)
    if sub not in _GIT_TREE_WRITERS:
        return None
    return _git_tree(sub, rest, context)


def _git_elsewhere_writes(option: str, args: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    sub = next((w.text for w in args if w.text in _GIT_TREE_WRITERS | _GIT_BLIND), None)
    return None if sub is None else context.every(f"git {option} {sub} works on a tree this layer does not place")


def _git_elsewhere(text: str) -> bool:
    """A git option that moves the repository or its tree elsewhere (`-C`, `--work-tree`, …)."""
    return text in ("-C", "-c", "--git-dir", "--work-tree") or text.startswith(("--git-dir=", "--work-tree="))


def _git_blind(sub: str, rest: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    """A git subcommand writing files this layer does not list, unless its words say it writes none."""
    action = rest[0].text if rest else ""
    writes_nothing = _GIT_BLIND_READS.get(sub)
    if writes_nothing is not None and writes_nothing(action, rest):
        return None
    return context.every(f"git {sub} {action}".rstrip() + " writes files this layer does not list")


def _stash_reads(action: str, rest: tuple[Word, ...]) -> bool:
    return action not in ("pop", "apply", "branch")


def _apply_reads(action: str, rest: tuple[Word, ...]) -> bool:
    return any(w.text in ("--check", "--stat", "--numstat", "--summary", "--cached") for w in rest)


def _clean_reads(action: str, rest: tuple[Word, ...]) -> bool:
    return any(w.text in ("-n", "--dry-run") or "n" in _short_flags(w.text) for w in rest)


def _sequencer_stops(action: str, rest: tuple[Word, ...]) -> bool:
    return action in ("--abort", "--quit", "--show-current-patch")


_GIT_BLIND_READS = {"stash": _stash_reads, "apply": _apply_reads, "clean": _clean_reads,
                    **dict.fromkeys(("am", "cherry-pick", "revert"), _sequencer_stops)}


class _GitArgs:
    """The words after a tree-writing git subcommand: its flags, its plain words (refs, or paths
    for `checkout`), the paths after `--`, and the values its options take."""

    __slots__ = ("flags", "words", "paths", "values")

    def __init__(self, rest: tuple[Word, ...]) -> None:
        self.flags: list[str] = []
        self.words: list[str] = []
        self.paths: list[str] = []
        self.values: dict[str, str] = {}
        index = 0
        while index < len(rest):
            text = rest[index].text
            if text == "--":
                self.paths.extend(w.text for w in rest[index + 1 :])
                break
            if text.startswith("-") and text != "-":
                index += self._option(text, rest[index + 1].text if index + 1 < len(rest) else None)
            else:
                self.words.append(text)
            index += 1

    def _option(self, text: str, following: str | None) -> int:
        """Records one option; 1 when it took the next word as its value."""
        flag, equals, value = text.partition("=")
        self.flags.append(flag)
        if equals:
            self.values[flag] = value
        elif text in _GIT_ARGS and following is not None:
            self.values[text] = following
            return 1
        return 0

    def has(self, *flags: str) -> bool:
        return any(f in self.flags for f in flags)


def _named(ref: str) -> str:
    return "@{-1}" if ref == "-" else ref  # `git checkout -`: the branch before


def _git_tree(sub: str, rest: tuple[Word, ...], context: Context) -> tuple[str, str] | None:
    if any(computed(w) for w in rest):
        return context.every(f"git {sub} has a computed argument")
    git = _GitArgs(rest)
    if sub in ("rebase", "merge") and git.has("--continue", "--skip", "--edit-todo"):
        resumed = next(f for f in git.flags if f.startswith("--"))
        return context.every(f"git {sub} {resumed} applies commits this layer does not list")
    if git.has("--pathspec-from-file"):
        return context.every(f"git {sub} reads its paths from a file")
    return _GIT_TREE_JUDGES[sub](sub, git, context)


def _git_merge(sub: str, git: _GitArgs, context: Context) -> tuple[str, str] | None:
    if git.has("--abort", "--quit"):
        return None
    refs = git.words + ([git.values["--onto"]] if "--onto" in git.values else [])
    if not refs:
        return context.every(f"git {sub} with no named commit")
    for ref in refs:
        found = _differing(context, ref, f"git {sub} {ref}")
        if found is not None:
            return found
    return None


def _git_reset(sub: str, git: _GitArgs, context: Context) -> tuple[str, str] | None:
    if not git.has("--hard", "--merge", "--keep"):
        return None  # the index and HEAD move; the working tree is left as it is
    ref = git.words[0] if git.words else "HEAD"
    return _differing(context, ref, f"git reset {git.flags[0]} {ref}")


def _git_restore(sub: str, git: _GitArgs, context: Context) -> tuple[str, str] | None:
    staged = git.has("--staged", "-S")
    if staged and not git.has("--worktree", "-W"):
        return None
    source = git.values.get("--source") or git.values.get("-s") or ("HEAD" if staged else None)
    return _differing(context, source, f"git restore {' '.join(git.paths + git.words)}".rstrip())


def _git_checkout(sub: str, git: _GitArgs, context: Context) -> tuple[str, str] | None:
    """`git checkout` and `git switch`: a branch made, a commit switched to, or paths restored."""
    if "--orphan" in git.values or any(git.values.get(f) for f in ("-b", "-B", "-c", "-C")):
        return _git_new_branch(sub, git, context)
    if not git.words:
        return None if not git.paths else _differing(context, None, f"git {sub} -- {' '.join(git.paths)}")
    ref = git.words[0]
    if sub == "checkout" and _commit(context, ref) is None and not _remote_branch(context, ref):
        return _differing(context, None, f"git checkout {' '.join(git.words + git.paths)}")  # paths, from the index
    return _differing(context, ref, f"git {sub} {ref}")


def _git_new_branch(sub: str, git: _GitArgs, context: Context) -> tuple[str, str] | None:
    if "--orphan" in git.values and sub == "switch":
        return context.every("git switch --orphan empties the working tree")
    ref = git.words[0] if git.words else None
    return None if ref is None else _differing(context, ref, f"git {sub} {ref}")


_GIT_TREE_JUDGES = {"merge": _git_merge, "rebase": _git_merge, "reset": _git_reset, "restore": _git_restore,
                    "checkout": _git_checkout, "switch": _git_checkout}


def _run_git(context: Context, *args: str) -> tuple[int, str]:
    import subprocess  # only when a git command that rewrites the tree is judged

    environment = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "-c", "diff.external=", "-C", context.root, *args],
            capture_output=True, env=environment, timeout=20, check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return 128, str(error)
    return done.returncode, done.stdout.decode("utf-8", "replace") if done.returncode == 0 else done.stderr.decode("utf-8", "replace")


def _commit(context: Context, ref: str) -> str | None:
    code, out = _run_git(context, "rev-parse", "--verify", "--quiet", "--end-of-options", _named(ref) + "^{commit}")
    return out.strip() if code == 0 and out.strip() else None


def _remote_branch(context: Context, ref: str) -> str | None:
    """The one remote-tracking branch `git checkout <ref>` would start <ref> from (its DWIM)."""
    code, out = _run_git(context, "for-each-ref", "--format=%(objectname)", f"refs/remotes/*/{ref}")
    found = out.split() if code == 0 else []
    return found[0] if len(found) == 1 else None


def _differing(context: Context, ref: str | None, action: str) -> tuple[str, str] | None:
    """The first protected path whose working-tree file differs from `ref`'s (the index's when
    None): what the command would rewrite. A question git cannot answer stands for every path."""
    commit = None
    if ref is not None:
        commit = _commit(context, ref) or _remote_branch(context, ref)
        if commit is None:
            return context.every(f"{action}: {ref} names no commit here, so what it writes is not known")
    return _rewritten(context, commit, action)


def _rewritten(context: Context, commit: str | None, action: str) -> tuple[str, str] | None:
    """The first protected path git lists as differing between the working tree and `commit` (the index's when None)."""
    specs = [":(literal)" + path for path in context.protected]
    code, out = _run_git(context, "diff", "--name-only", "-z", "--no-ext-diff", "--no-textconv",
                         *([commit] if commit else []), "--", *specs)
    if code != 0:
        said = out.strip().splitlines()[0] if out.strip() else code
        return context.every(f"{action}: git could not list what it changes ({said})")
    return next(((path, f"{action} rewrites protected path {name} (it differs from the working tree)")
                 for name in out.split("\0") if name for path in context.protected if context.names(name, path)),
                None)


# --- inline programs ----------------------------------------------------------------------------


def _identifiers(text: str) -> set[str]:
    found, current = set(), []
    for ch in text:
        if ch.isalnum() or ch == "_" or ch == "$":
            current.append(ch)
        elif current:
            found.add("".join(current))
            current = []
    if current:
        found.add("".join(current))
    return found


def _program(command: Command, language: str, context: Context) -> tuple[str, str] | None:
    name, programs = inline_programs(command)
    for program in programs:
        if computed(program):
            return context.every(f"an inline {name} program is computed ({program.text[:60]})")
        power = _power(program.text, language)
        if power is not None:
            return context.every(
                f"an inline {name} program can write through {power}, to a target this layer does not read"
            )
    return None


def _power(text: str, language: str) -> str | None:
    """The first identifier (sorted) through which a program in `language` can write, or None."""
    if language == "node":  # require('fs') names its module in a literal; anything else is code
        text = _literal_requires(text)
    powers = _PROGRAM_POWERS[language]
    power = next((n for n in sorted(_identifiers(text)) if n in powers or (n.startswith("__") and n.endswith("__"))),
                 None)
    if power is None and "`" in text and language in ("perl", "ruby"):
        power = "`"
    return power


def _literal_requires(text: str) -> str:
    """`require('x')` with one quoted name becomes ` x `; any other `require` stays as code."""
    out, start = [], 0
    while True:
        at = text.find(_REQUIRE_LITERAL, start)
        if at < 0:
            out.append(text[start:])
            return "".join(out)
        rest = text[at + len(_REQUIRE_LITERAL) :].lstrip()
        quote = rest[:1]
        close = rest.find(quote, 1) if quote in ("'", '"') else -1
        literal = rest[1:close] if close > 0 else None
        tail = rest[close + 1 :].lstrip() if close > 0 else ""
        if literal is None or not tail.startswith(")") or any(c in literal for c in "'\"`+$\\"):
            out.append(text[start : at + len(_REQUIRE_LITERAL)])
            start = at + len(_REQUIRE_LITERAL)
            continue
        out.append(text[start:at] + " " + literal.removeprefix("node:") + " ")
        start = len(text) - len(tail) + 1


_JUDGES = {
    **dict.fromkeys(_TAR, _tar),
    "unzip": _unzip,
    **dict.fromkeys(_ZIP, _seven_zip),
    **dict.fromkeys(("cpio", "ar", "jar", "pax"), _other_archive),
    "xargs": _xargs,
    "parallel": _xargs,
    "find": _find,
    "cp": _tree_copy,
    "mv": _tree_copy,
    "rsync": _tree_copy,
    "git": _git,
}
_LOOKED_AT = frozenset({*_JUDGES, *WRITERS, *_PATCHERS, *_WRAPPERS})
