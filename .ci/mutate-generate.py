#!/usr/bin/env python3
"""Proposes mutants of the library's sources and draws a reproducible sample of them.

.ci/mutate --generate uses this file; run alone, it prints a sample without building anything:

    python3 .ci/mutate-generate.py --seed S --count N [--block B ...]   the sample
    python3 .ci/mutate-generate.py --since REV [--seed S --count N]     those on a change
    python3 .ci/mutate-generate.py --stats [--since REV]   how many per block and operator

Every `.swift` file under Sources/ except Sources/Tour is read, strings and comments masked
out, and each code line in a branch of `#if` that Linux compiles is offered to the operators
(OPERATORS below lists them). A mutant replaces one or a few adjacent lines; it is named by its
file, its original lines and its mutated lines, never by line numbers (.ci/mutate matches
.ci/mutations/equivalent.txt that way, and prints a survivor with the lines around it that make
its lines occur once in the file).
Lines in Apple-only branches are not mutated: the tests run on Linux, where they do not compile.

The operators err on the side of mutants that compile: they skip operator declarations,
same-type constraints, generic angle brackets (a relational operator needs a space on both
sides), force unwraps, `try!` and `as!` (a removed `!` must be a prefix), a deletion that would
leave a value-returning body empty or a stored property uninitialized, a swap of two
statements that cannot change anything (no calls, neither touching what the other writes), and
bodies of functions that return a value (early return). The cancellation operator reads the
blocks around a point (`Scopes`): it throws only where the function or closure is `async` and
throws any error (a closure: it has a `try` or `throw` of its own outside a `do`), puts a
`continue` only inside a loop, a `return nil` only in a function returning an optional. A
statement moved before an `await` is one line, and never one that reads what the awaiting
statement declares. A mutant that does not compile anyway is dropped by .ci/mutate.

The sample is drawn per block, with a random generator seeded by the seed and the block's name,
from the block's candidates in the order of their path, line and column. It depends on the seed
and on the text of the sources only (and this file's operators): not on the order of files on
disk, nor on Python's hash seed. When the sources change, the sample changes with them. Each
block's candidates are shuffled once, and the sample takes the first ones, so a larger count
extends a smaller one.

On a change (`--since REV`, see `on_change`), the candidates are those on the lines that
changed between REV and the committed HEAD, in every block they touch: all of them, or a
sample drawn from one shuffle of them all (each block's share follows its changed lines).
"""

import argparse
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# The blocks in the manifest's order, then the shared internal target. A block's folder is
# Sources/<block>; Internals is Sources/Internals (.ci/mutate says which tests its mutants run).
BLOCKS = ["Sequence", "Context", "Observation", "Waiting", "Scheduling", "Environment", "Internals"]

OPERATORS = {
    "relational": "`<` <-> `<=`, `>` <-> `>=`, `==` <-> `!=` (in any condition: `if`, `guard`, "
    "`while`, a closure)",
    "logical": "`&&` <-> `||`",
    "boolean": "`true` <-> `false`",
    "not": "a logical `!` removed",
    "plus-minus-one": "`+ 1` <-> `- 1`, `+= 1` <-> `-= 1`",
    "range": "`..<` <-> `...`",
    "zero-one": "`0` <-> `1` beside a comparison",
    "delete": "one statement deleted (a call, an assignment, a `defer`)",
    "swap": "two adjacent one-line statements swapped",
    "early-return": "`return;` before the first statement of a Void function",
    "ordering": "a memory ordering weakened to `.relaxed`",
    "cancellation": "a cancellation branch given the other outcome: `try Task.checkCancellation()` "
    "removed, `Task.isCancelled` negated, `continue` or `return nil` <-> `throw "
    "CancellationError()`, a `catch` or `isCancelled` branch that returns goes on (`continue`) "
    "or throws instead",
    "before-await": "a statement moved before the statement with an `await` that precedes it",
}


@dataclass
class Mutant:
    block: str
    path: str  # relative to the repository, with forward slashes
    line: int  # 1-based number of the first replaced line
    column: int  # where in the line the change is, for a stable order
    operator: str
    old: list  # the replaced lines, as in the file
    new: list  # the lines put in their place (as many as `old`, so line numbers stay)
    index: int = field(default=-1)  # position in the sample, set by `sample`

    def apply(self, text):
        """The file's text with the mutant applied; checks the old lines are still there."""
        lines = text.split("\n")
        start = self.line - 1
        if lines[start : start + len(self.old)] != self.old:
            raise ValueError(f"{self.path}:{self.line} does not hold the mutant's original lines")
        lines[start : start + len(self.old)] = self.new
        return "\n".join(lines)

    def diff(self):
        out = [f"--- {self.path}:{self.line}  ({self.operator})"]
        out += ["- " + l.strip() for l in self.old]
        out += ["+ " + l.strip() for l in self.new if l.strip()] or ["+ (deleted)"]
        return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Reading Swift: which characters are code.

MASK = "\x01"  # stands for a character of a string or a comment; never matches an operator


def mask_code(text):
    """The text with every character of a comment or a string literal replaced by MASK.

    Handles `//` and nested `/* */` comments, "..." and \"\"\"...\"\"\" strings, raw strings
    (#"..."#) and interpolations (masked with their string). Newlines are kept.
    """
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(MASK * (end - i))
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(_masked(text[i:j]))
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            j = _string_end(text, i)
            out.append(_masked(text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _masked(s):
    return "".join("\n" if ch == "\n" else MASK for ch in s)


def _string_end(text, i):
    """The index just past the string literal that starts at i (with its # delimiters)."""
    hashes = 0
    while text[i + hashes] == "#":
        hashes += 1
    j = i + hashes
    multi = text.startswith('"""', j)
    quote = '"""' if multi else '"'
    j += len(quote)
    escape = "\\" + "#" * hashes
    close = quote + "#" * hashes
    n = len(text)
    while j < n:
        if text.startswith(escape + "(", j):  # an interpolation: skip to its closing paren
            j = _interpolation_end(text, j + len(escape) + 1)
        elif text.startswith(escape, j):
            j += len(escape) + 1
        elif text.startswith(close, j):
            return j + len(close)
        elif text[j] == "\n" and not multi:
            return j  # unterminated; give up on this line
        else:
            j += 1
    return n


def _interpolation_end(text, j):
    depth, n = 1, len(text)
    while j < n and depth:
        c = text[j]
        if c == '"' or (c == "#" and re.match(r'#+"', text[j:])):
            j = _string_end(text, j)
            continue
        depth += {"(": 1, ")": -1}.get(c, 0)
        j += 1
    return j


# ---------------------------------------------------------------------------------------------
# Conditional compilation: only branches that Linux compiles are mutated.

TRUE_IMPORTS = {"Glibc", "Synchronization", "Foundation", "Dispatch", "FoundationEssentials"}
SWIFT_VERSION = (6, 3)


def eval_condition(cond):
    """True or False for the conditions this repository uses on Linux; None when unsure."""
    def version(v):
        return tuple(int(x) for x in v.split("."))

    expr = cond
    expr = re.sub(r"canImport\((\w+)\)", lambda m: str(m.group(1) in TRUE_IMPORTS), expr)
    expr = re.sub(r"os\((\w+)\)", lambda m: str(m.group(1) == "Linux"), expr)
    expr = re.sub(r"(compiler|swift)\(>=\s*([\d.]+)\)",
                  lambda m: str(SWIFT_VERSION >= version(m.group(2))), expr)
    expr = re.sub(r"(compiler|swift)\(<\s*([\d.]+)\)",
                  lambda m: str(SWIFT_VERSION < version(m.group(2))), expr)
    expr = expr.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    if not re.fullmatch(r"[\sTrueFalsenotandor()]*", expr):
        return None
    try:
        return bool(eval(expr, {"__builtins__": {}}))
    except Exception:
        return None


def active_lines(masked_lines):
    """For each line, whether Linux compiles it (directive lines themselves are not code)."""
    active = []
    stack = []  # per #if: (parent active, a branch was taken, this branch active)
    for line in masked_lines:
        s = line.strip()
        parent = all(frame[2] for frame in stack)
        m = re.match(r"#(if|elseif)\b(.*)", s)
        if m and m.group(1) == "if":
            value = eval_condition(m.group(2).strip())
            stack.append([parent, value is True, value is True])
            active.append(False)
        elif m:  # elseif
            frame = stack[-1]
            value = eval_condition(m.group(2).strip())
            frame[2] = not frame[1] and value is True
            frame[1] = frame[1] or value is not False  # unsure: take no later branch either
            active.append(False)
        elif s.startswith("#else"):
            frame = stack[-1]
            frame[2] = not frame[1]
            frame[1] = True
            active.append(False)
        elif s.startswith("#endif"):
            stack.pop()
            active.append(False)
        else:
            active.append(all(frame[2] for frame in stack))
    return active


# ---------------------------------------------------------------------------------------------
# Statements.

KEYWORD_START = re.compile(
    r"(let|var|if|guard|for|while|switch|case|default|return|throw|break|continue|func|init|"
    r"deinit|subscript|struct|class|actor|enum|extension|protocol|import|typealias|else|catch|do|"
    r"repeat|fallthrough|static|private|fileprivate|internal|public|package|open|final|lazy|"
    r"weak|unowned|mutating|nonmutating|override|convenience|required|nonisolated|"
    r"associatedtype|precedencegroup|operator|get|set|willSet|didSet|yield|consume|_modify)\b"
)
ASSIGNMENT = re.compile(r"^[\w$.\[\]()?!]+ (=|\+=|-=|\*=|/=|&=|\|=|\^=|<<=|>>=|&\+=|&-=) ")
CALL = re.compile(r"^(try |try\? |await |try await )*[\w$.?!]+(\(.*| ?\{.*)[)}]$")
ENDS_CONTINUED = re.compile(r"(=|\(|\[|,|&&|\|\||[-+*/<>?:]|\bin|\bthrows|\bawait|\btry)$")
STARTS_CONTINUED = re.compile(r"^(\.|&&|\|\||[-+*/?:=]|\?\?|else\b|catch\b)")


def balanced(code):
    depth = 0
    for c in code:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def statement_kind(code):
    """'defer', 'assign', 'call' or 'let' for a complete one-line statement, else None."""
    if not code or not balanced(code):
        return None
    if code.startswith("defer {") and code.endswith("}"):
        return "defer"
    if re.match(r"(let|var) [\w$]+( *:[^=]+)? = ", code):
        return "let"
    if KEYWORD_START.match(code) or code[0] in "}{@#.":
        return None
    if ASSIGNMENT.match(code):
        return "assign"
    if CALL.match(code):
        return "call"
    return None


def pointless_swap(first, second):
    """Whether swapping two statements cannot change anything, or cannot compile.

    True when the second uses the name the first declares (it would not compile), or when
    neither calls or subscripts anything and neither reads or writes what the other writes:
    `a = b` and `c = d` in either order do the same.
    """
    def target(code):
        m = re.match(r"(?:(?:let|var) )?(?:self\.)?([\w$]+)", code)
        return m.group(1) if m else None

    def names(code):
        return set(re.findall(r"(?<![\w$.])[\w$]+", code))

    declared = re.match(r"(?:let|var) ([\w$]+)", first)
    if declared and declared.group(1) in names(second):
        return True
    calls = re.compile(r"[\w$?!)\]]\(|[\w$)] ?\{")  # a call, a subscript or a trailing closure
    if calls.search(first) or calls.search(second) or "[" in first or "[" in second:
        return False
    a, b = target(first), target(second)
    rest_a, rest_b = first.split("=", 1)[-1], second.split("=", 1)[-1]
    return a != b and a not in names(rest_b) and b not in names(rest_a)


def block_openers(masked_lines):
    """For each line, the line number (0-based) of the `{` line that encloses it, or None."""
    enclosing, stack = [], []
    for i, line in enumerate(masked_lines):
        enclosing.append(stack[-1] if stack else None)
        for c in line:
            if c == "{":
                stack.append(i)
            elif c == "}" and stack:
                stack.pop()
    return enclosing


def function_bodies(code):
    """(signature, first body line) for each function and deinit whose body opens at a line's end.

    `code` holds the masked, stripped code lines ("" for none). A signature runs from `func`
    to the first `{` outside its parentheses; one without a body (a protocol's requirement)
    ends where its parentheses close and the next line does not continue it.
    """
    found = []
    i = 0
    while i < len(code):
        if not (re.match(r"((@\w+(\([^)]*\))? )*(\w+ )*)func ", code[i]) or code[i] == "deinit {"):
            i += 1
            continue
        signature, depth, j = "", 0, i
        while j < len(code):
            for k, ch in enumerate(code[j]):
                depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
                if ch == "{" and depth == 0:
                    if code[j][k + 1 :].strip() == "":
                        found.append((signature + " " + code[j][: k + 1], j + 1))
                    break
            else:
                signature += " " + code[j]
                following = next((c for c in code[j + 1 :] if c), "")
                if depth == 0 and not re.match(r"(->|where|throws|rethrows|async|\{)", following):
                    break  # no body
                j += 1
                continue
            break
        i = j + 1
    return found


def returns_void(signature):
    """Whether a function signature (from `func` to its `{`) returns nothing."""
    depth, i = 0, 0
    while i < len(signature):
        c = signature[i]
        if c in "([<":
            depth += 1
        elif c in ")]>" and not signature.startswith("->", i - 1):
            depth -= 1
        elif signature.startswith("->", i) and depth == 0:
            result = signature[i + 2 :].split("where")[0].strip().rstrip("{").strip()
            return result in ("Void", "()")
        i += 1
    return True


# ---------------------------------------------------------------------------------------------
# Scopes: what encloses a point of the code (a function, a closure, a loop, a `catch`...), so that
# an operator only proposes a `throw` where one may be thrown, a `continue` inside a loop.

SIGNATURE = re.compile(r"((@\w+(\([^)]*\))? )*(\w+ )*)(func|init[?!]?|deinit|subscript)\b")
TYPE = re.compile(r"((@\w+(\([^)]*\))? )*(\w+ )*)(struct|class|enum|extension|actor|protocol)\b")
ACCESSOR = re.compile(
    r"(get|set|willSet|didSet|_read|_modify)\b|((@\w+ )*(\w+ )*)(var|let) [\w$]+ *:")
TRY = re.compile(r"(?<![\w$.])(try(?![?!\w$])|throw(?![\w$]))")


class Scopes:
    """The braces of a file's compiled code, each with the kind of block it opens.

    `code` holds the masked lines ("" for a line that is not compiled on Linux). A brace's kind
    is read from the statement before it: "function" (with its signature), "accessor",
    "closure", "loop" (`for`, `while`, `repeat`), "branch" (`if`, `else`, `switch`, `guard`'s
    `else`), "catch", "do", "defer", or "type".
    """

    def __init__(self, code):
        self.code = code
        self.depth = []  # per line: how many ( and [ are open where it starts
        self.enclosing = []  # per line: the (line, column) of each `{` open where it starts
        self.closing = {}  # (line, column) of a `{`: that of its `}`
        stack, depth = [], 0
        for i, line in enumerate(code):
            self.depth.append(depth)
            self.enclosing.append(list(stack))
            for col, ch in enumerate(line):
                depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
                if ch == "{":
                    stack.append((i, col))
                elif ch == "}" and stack:
                    self.closing[stack.pop()] = (i, col)
        self.kinds = {}

    def chain(self, i, col):
        """The braces around column `col` of line `i`, innermost first."""
        stack = list(self.enclosing[i])
        for c, ch in enumerate(self.code[i][:col]):
            if ch == "{":
                stack.append((i, c))
            elif ch == "}" and stack:
                stack.pop()
        return stack[::-1]

    def kind(self, brace):
        """(kind, the statement's text up to the brace) of a `{`."""
        if brace not in self.kinds:
            self.kinds[brace] = self._kind(*brace)
        return self.kinds[brace]

    def _kind(self, i, col):
        # The statement starts where no parenthesis is open and the line before does not go on.
        start = i
        while start > 0:
            before = next((j for j in range(start - 1, -1, -1) if self.code[j].strip()), None)
            if before is None:
                break
            if len(self.enclosing[start]) > len(self.enclosing[before]):
                break  # the line before opens the block this statement is in
            here = self.code[start].strip()
            continued = ENDS_CONTINUED.search(self.code[before].rstrip(MASK).rstrip())
            if not (self.depth[start] > 0 or continued or STARTS_CONTINUED.match(here)
                    or here.startswith((")", "]"))):
                break
            start = before
        text = " ".join(self.code[j].rstrip(MASK).strip() for j in range(start, i))
        text = (text + " " + self.code[i][:col].strip()).strip()
        # Only what follows the last brace still open on the way (a block on the same line).
        open_at = []
        for k, ch in enumerate(text):
            if ch == "{":
                open_at.append(k)
            elif ch == "}" and open_at:
                open_at.pop()
        prefix = text[open_at[-1] + 1 :].strip() if open_at else text
        parens = sum({"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0) for ch in prefix)
        bare = re.sub(r"^\}\s*(else\s+(?=if\b))?", "", prefix)
        if parens > 0:
            return "closure", prefix
        if re.search(r"(^|[\s}])else$", bare) or re.match(r"(if|switch|guard)\b", bare):
            return "branch", prefix
        if re.search(r"(^|[\s}])(do|defer|repeat)$", bare):
            return {"do": "do", "defer": "defer", "repeat": "loop"}[bare.split()[-1]], prefix
        if re.search(r"(^|\} )catch\b[^{}]*$", bare):
            return "catch", prefix
        if re.match(r"(for|while)\b", bare):
            return "loop", prefix
        if SIGNATURE.match(bare):
            return "function", prefix
        if TYPE.match(bare):
            return "type", prefix
        if ACCESSOR.match(bare) and "=" not in re.sub(r"[=!<>]=|->", "", bare):
            return "accessor", prefix
        return "closure", prefix

    def body(self, i, col):
        """The innermost function, closure, accessor, defer or type around a point, or None."""
        for brace in self.chain(i, col):
            if self.kind(brace)[0] in ("function", "closure", "accessor", "defer", "type"):
                return brace
        return None

    def may_throw(self, i, col):
        """Whether a `throw CancellationError()` compiles at a point, and the code there is
        asynchronous (where cancellation is seen): the function or closure around it is
        `async` and throws any error."""
        brace = self.body(i, col)
        if brace is None:
            return False
        kind, prefix = self.kind(brace)
        if kind in ("function", "accessor"):
            effects = self.effects(prefix)
            return bool(re.search(r"\basync\b", effects) and re.search(r"\bthrows\b", effects))
        return kind == "closure" and self.closure_has(brace, r"throws") and self.closure_has(
            brace, r"async")

    @staticmethod
    def effects(signature):
        """The effects of a function's signature: what follows the parameters, up to the result's
        arrow (a parameter's or the result's function type may throw too). A typed `throws`
        reads as no `throws`: it does not throw any error."""
        effects = re.sub(r"\bthrows\s*\(\s*any Error\s*\)", "throws", signature)
        effects = re.sub(r"\bthrows\s*\([^()]*\)", "typed", effects)
        while re.search(r"\([^()]*\)", effects):
            effects = re.sub(r"\([^()]*\)", "", effects)
        return effects.split("->")[0]

    def closure_has(self, brace, effect):
        """Whether a closure `throws` (or is `async`) already: its signature says so, or a `try`
        or `throw` (an `await`) of its own is in its body, not in a nested closure, nor in a
        `do` that catches it."""
        i, col = brace
        if re.match(r"[^{}]*\b" + effect + r"\b[^{}]*\bin\b", self.code[i][col + 1 :]):
            return True
        own = TRY if effect == "throws" else re.compile(r"(?<![\w$.])await\b")
        stops = ("function", "closure", "accessor", "defer")
        stops += ("do",) if effect == "throws" else ()  # a `do` catches, it does not wait
        end = self.closing.get(brace, (len(self.code) - 1, 0))
        for j in range(i, end[0] + 1):
            for m in own.finditer(self.code[j]):
                if (j, m.start()) <= brace or (j, m.start()) >= end:
                    continue
                for outer in self.chain(j, m.start()):
                    if outer == brace:
                        return True
                    if self.kind(outer)[0] in stops:
                        break
        return False

    def catches_a_wait(self, brace):
        """Whether the `do` block of a `catch` awaits (then what it catches may be a
        cancellation)."""
        i, col = brace
        close = self.code[i][:col].rfind("}")
        opening = [o for o, c in self.closing.items() if c == (i, close)]
        if close < 0 or not opening:
            return False
        (j, start) = opening[0]
        text = "\n".join([self.code[j][start:]] + self.code[j + 1 : i + 1])
        if j == i:
            text = self.code[i][start:close]
        return re.search(r"(?<![\w$.])await\b", text) is not None

    def in_loop(self, i, col):
        """Whether `continue` compiles at a point: a loop encloses it within its body."""
        for brace in self.chain(i, col):
            kind = self.kind(brace)[0]
            if kind == "loop":
                return True
            if kind not in ("branch", "catch", "do"):
                return False
        return False

    def returns(self, i, col):
        """What the function (not a closure) around a point returns: "optional", "void" (for
        nothing), or None for anything else."""
        brace = self.body(i, col)
        kind, prefix = self.kind(brace) if brace else (None, "")
        if kind != "function" or not re.match(r"((@\w+(\([^)]*\))? )*(\w+ )*)func\b", prefix):
            return None
        if returns_void(prefix):
            return "void"
        result = re.split(r"->", prefix)[-1].split(" where ")[0].strip()
        return "optional" if result.endswith("?") else None

    def in_cancellation_branch(self, i, col):
        """Whether a point is in a `catch` or in a branch taken on cancellation (`isCancelled`),
        within its function or closure."""
        for brace in self.chain(i, col):
            kind, prefix = self.kind(brace)
            if kind == "catch" and self.catches_a_wait(brace):
                return True
            if kind == "branch" and "isCancelled" in prefix:
                return True
            if kind not in ("branch", "loop", "do"):
                return False
        return False


# ---------------------------------------------------------------------------------------------
# The operators.

RELATIONAL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
ORDERINGS = r"\.(acquiring|releasing|acquiringAndReleasing|sequentiallyConsistent)\b"


def token_mutants(code, line):
    """(operator, column, new line) for each change of one token in a code line."""
    out = []

    def swap(m, replacement, op, group=0):
        start, end = m.span(group)
        out.append((op, start, line[:start] + replacement + line[end:]))

    is_operator_decl = re.search(r"\bfunc\s*[^\w\s(]", code)
    in_where_clause = re.search(r"\bwhere\b", code) and not re.search(r"\b(case|for|catch)\b", code)
    if not is_operator_decl:
        for m in re.finditer(r"(?<=[\w)\]?!] )(<|<=|>|>=|==|!=)(?= )", code):
            if in_where_clause and m.group(1) in ("==", "!="):
                continue
            swap(m, RELATIONAL[m.group(1)], "relational")
        for m in re.finditer(r"(?<= )(&&|\|\|)(?= )", code):
            swap(m, "||" if m.group(1) == "&&" else "&&", "logical")
        for m in re.finditer(r"(?<=[\w)\]] )([+-]=?) 1(?![\w.])", code):
            flipped = {"+": "-", "-": "+", "+=": "-=", "-=": "+="}[m.group(1)]
            swap(m, flipped, "plus-minus-one", 1)
        after = r"(?=$|[),\]:;]| \{| \?| else\b| &&| \|\|)"  # the literal is a whole operand
        for m in re.finditer(r"(?<= )(<|<=|>|>=|==|!=) ([01])" + after, code):
            swap(m, "1" if m.group(2) == "0" else "0", "zero-one", 2)
        for m in re.finditer(r"(?<![\w.$])([01]) (<|<=|>|>=|==|!=)(?= )", code):
            swap(m, "1" if m.group(1) == "0" else "0", "zero-one", 1)
    for m in re.finditer(r"(?<![\w.$])(true|false)(?![\w$])", code):
        swap(m, "false" if m.group(1) == "true" else "true", "boolean")
    for m in re.finditer(r"(?:(?<=^)|(?<=[\s(\[,:]))!(?=[\w($])", code):
        swap(m, "", "not")
    for m in re.finditer(r"(?<=[\w)\]])\.\.<(?=[\w(])", code):
        swap(m, "...", "range")
    for m in re.finditer(r"(?<=[\w)\]])\.\.\.(?=[\w(])", code):
        swap(m, "..<", "range")
    for m in re.finditer(r"(?<=rdering: )" + ORDERINGS, code):
        swap(m, ".relaxed", "ordering")
    return out


def cancellation_mutants(scopes, i, masked_line, line):
    """(operator, column, new line) for each cancellation branch of a code line given the other
    outcome, where that outcome compiles (a `throw` where the function or closure is `async` and
    throws, a `continue` in a loop, a `return nil` in a function returning an optional)."""
    out = []
    code = masked_line[: len(masked_line.rstrip(MASK).rstrip())]  # no trailing comment

    def put(m, replacement, group=0):
        start, end = m.span(group)
        out.append(("cancellation", start, line[:start] + replacement + line[end:]))

    def statement(m):  # the match starts a statement: a line's, a block's or a case's first
        return re.search(r"(^|[{:;])\s*$", code[: m.start()])

    flag = r"(?<![\w$.?!])(!?)((?:[\w$]+\.)*isCancelled)\b(?!\s*[:(]|\s*=(?!=))"
    for m in re.finditer(flag, code):
        if not re.search(r"\b(var|let|func|case) $", code[: m.start()]):
            put(m, "", 1) if m.group(1) else put(m, "!", 1)
    end = r"(?=\s*(\}|;|$))"  # the whole statement (not `continue outer`)
    for m in re.finditer(r"(?<![\w$.])(continue|return nil)" + end, code):
        if statement(m) and scopes.may_throw(i, m.start()):
            put(m, "throw CancellationError()")
    for m in re.finditer(r"(?<![\w$.])throw CancellationError\(\)" + end, code):
        if not statement(m):
            continue
        if scopes.in_loop(i, m.start()):
            put(m, "continue")
        result = scopes.returns(i, m.start())
        if result:
            put(m, "return nil" if result == "optional" else "return")
    # A `catch`, or a branch taken on cancellation, that returns or gives up: it goes on instead,
    # or throws.
    for m in re.finditer(r"(?<![\w$.])(return|break)\b[^{};]*?(?=\s*(\}|;|$))", code):
        if statement(m) and scopes.in_cancellation_branch(i, m.start()):
            if scopes.in_loop(i, m.start()):
                put(m, "continue")
            if scopes.may_throw(i, m.start()):
                put(m, "throw CancellationError()")
    return out


def file_mutants(block, path, text):
    lines = text.split("\n")
    masked = mask_code(text).split("\n")
    active = active_lines(masked)
    opener = block_openers(masked)
    code = [m.strip() if active[i] else "" for i, m in enumerate(masked)]
    code = [c if c.replace(MASK, "").strip() else "" for c in code]  # comment-only lines
    indent = [len(l) - len(l.lstrip()) for l in lines]
    scopes = Scopes([m if code[i] else "" for i, m in enumerate(masked)])
    out = []

    def add(i, col, op, old, new):
        out.append(Mutant(block, path, i + 1, col, op, old, new))

    def previous_code(i):
        j = i - 1
        while j >= 0 and not code[j]:
            j -= 1
        return code[j].rstrip(MASK).rstrip() if j >= 0 else ""

    def next_code(i):
        j = i + 1
        while j < len(code) and not code[j]:
            j += 1
        return code[j] if j < len(code) else ""

    def whole_statement(i):
        """The kind of line i when it is a whole statement on its own, else None."""
        c = code[i].rstrip(MASK).rstrip()
        if not c or c.startswith("import ") or ENDS_CONTINUED.search(c):
            return None
        if ENDS_CONTINUED.search(previous_code(i)) or STARTS_CONTINUED.match(next_code(i)):
            return None
        return statement_kind(c)

    def initializes_stored_property(i):
        """Whether line i, in an initializer, sets a stored property that has no default value
        (without the line, the initializer would not compile). The property is declared
        beside the initializer, at its indentation: the nearest such declaration counts."""
        o = opener[i]
        if o is None or not re.match(r"((\w+ )*)init\b|(\w+ )*init[?!]?\(", code[o]):
            return False
        m = re.match(r"(?:self\.)?([\w$]+) = ", code[i])
        if not m:
            return False
        name = re.escape(m.group(1))
        declaration = re.compile(r"(?:@\w+ )*(?:\w+ )*(let|var) " + name + r"\b(.*)")
        siblings = sorted((j for j in range(len(code)) if indent[j] == indent[o]),
                          key=lambda j: abs(j - o))
        for j in siblings:
            d = declaration.match(code[j])
            if d:
                return d.group(1) == "let" or not re.search(r" = |\?$", d.group(2))
        return False

    def sole_statement_of_value_block(i):
        """Whether line i is all a block holds whose value may be used: a function returning a
        value, a computed property, a closure (deleting a call there would not compile)."""
        o = opener[i]
        if o is None or previous_code(i) != code[o] or not next_code(i).startswith("}"):
            return False
        return "->" in code[o] or re.search(r"\b(var|let|get)\b|\bin$|= .*\{$|\breturn\b", code[o])

    for i, line in enumerate(lines):
        c = code[i]
        if not c:
            continue
        base = line[: indent[i]]
        for op, col, new in token_mutants(masked[i], line):
            add(i, col, op, [line], [new])
        for op, col, new in cancellation_mutants(scopes, i, masked[i], line):
            add(i, col, op, [line], [new])

        kind = whole_statement(i)
        if kind == "assign" and initializes_stored_property(i):
            kind = None
        if kind in ("defer", "assign") or (kind == "call" and not sole_statement_of_value_block(i)):
            op = "cancellation" if c.startswith("try Task.checkCancellation()") else "delete"
            add(i, indent[i], op, [line], [""])
        if c.startswith("defer {") and c.endswith("{"):  # a defer block over several lines
            end = i + 1
            while end < len(lines) and not (indent[end] == indent[i] and code[end].startswith("}")):
                end += 1
            if end < len(lines) and code[end] == "}" and end - i <= 8:
                add(i, indent[i], "delete", lines[i : end + 1], [""] * (end + 1 - i))

        j = i + 1
        if j < len(lines) and code[j] and indent[j] == indent[i] and code[i] != code[j]:
            first, second = whole_statement(i), whole_statement(j)
            if (first and second and "defer" not in (first, second)
                    and not code[j].startswith("return") and not sole_statement_of_value_block(j)
                    and not pointless_swap(code[i], code[j])):
                swapped = [base + lines[j].strip(), base + lines[i].strip()]
                add(i, indent[i], "swap", [lines[i], lines[j]], swapped)

    # Before the wait: a one-line statement moved above the statement before it, when that one
    # awaits (its first line has an `await`; it may span lines, as a call with a closure does).
    for s in range(len(lines)):
        c = code[s].rstrip(MASK).rstrip()
        one_line_branch = (re.match(r"(if|guard) ", c) and c.endswith("}") and balanced(c)
                           and not ENDS_CONTINUED.search(previous_code(s))
                           and not STARTS_CONTINUED.match(next_code(s)))
        if not (whole_statement(s) in ("call", "assign", "let") or one_line_branch):
            continue
        a = s - 1  # the first line of the statement before: at the same indentation
        while a >= 0 and (not code[a] or indent[a] > indent[s] or code[a].startswith("}")):
            a -= 1
        if a < 0 or indent[a] != indent[s] or scopes.enclosing[a] != scopes.enclosing[s]:
            continue
        first = code[a].rstrip(MASK).rstrip()
        before = next((j for j in range(a - 1, -1, -1) if code[j]), None)
        opened = before is None or len(scopes.enclosing[a]) > len(scopes.enclosing[before])
        starts = opened or not (ENDS_CONTINUED.search(previous_code(a))  # `{ x in` opens
                                or STARTS_CONTINUED.match(first))
        allowed = (not KEYWORD_START.match(first)
                   or re.match(r"(let|var|if|for|while|switch) ", first))
        if not (re.search(r"(?<![\w$.])await\b", first) and starts and allowed
                and balanced("".join(code[a:s]))):
            continue
        declared = re.match(r"(?:let|var) \(?([\w$, ]+)", first)
        used = set(re.findall(r"(?<![\w$.])[\w$]+", c))
        if declared and used & {n.strip() for n in declared.group(1).split(",")}:
            continue  # the statement reads what the awaiting one declares
        add(a, indent[a], "before-await", lines[a : s + 1], [lines[s]] + lines[a:s])

    # Early return: `return;` put before the first statement of a Void function's body.
    for signature, body in function_bodies(code):
        while body < len(code) and not code[body]:
            body += 1
        first = code[body] if body < len(code) else "}"
        if returns_void(signature) and active[body] and not first.startswith(("}", "#", "return")):
            old = lines[body]
            new = old[: indent[body]] + "return; " + old.strip()
            add(body, indent[body], "early-return", [old], [new])

    # One mutant per change: two operators proposing the same lines keep the first.
    seen, unique = set(), []
    for m in sorted(out, key=lambda m: (m.line, m.column, m.operator, m.new)):
        k = (m.line, tuple(m.new))
        if k not in seen and m.old != m.new:
            seen.add(k)
            unique.append(m)
    return unique


def candidates(root, block):
    folder = root / "Sources" / block
    result = []
    for path in sorted(folder.rglob("*.swift"), key=lambda p: p.relative_to(root).as_posix()):
        rel = path.relative_to(root).as_posix()
        result += file_mutants(block, rel, path.read_text())
    return result


def quotas(count, blocks):
    """An equal share of `count` for each block; the remainder to the first blocks in order."""
    share, rest = divmod(count, len(blocks))
    return {b: share + (1 if i < rest else 0) for i, b in enumerate(blocks)}


def sample(root, seed, count, blocks):
    """The sample: each block's quota, from its candidates in a seeded shuffle."""
    blocks = [b for b in BLOCKS if b in blocks]
    chosen = []
    for block, quota in quotas(count, blocks).items():
        pool = candidates(root, block)
        order = list(range(len(pool)))
        random.Random(f"{seed}/{block}").shuffle(order)
        chosen += [pool[k] for k in order[:quota]]
    for index, mutant in enumerate(chosen, 1):
        mutant.index = index
    return chosen


def git(root, *arguments):
    return subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=True,
                          check=True).stdout


def changed_lines(root, rev):
    """The blocks' source lines that changed since commit `rev`: {path: set of line numbers}.

    Compares `rev` with the committed HEAD (`git diff REV HEAD`, uncommitted changes aside) and
    numbers the lines as HEAD has them: lines added or changed count, a removal leaves nothing
    to mutate, a moved file counts only the lines that changed in it. Sources/Tour is no block's.
    """
    diff = git(root, "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff",
               "--find-renames", "--unified=0", rev, "HEAD", "--", "Sources")
    changed, path = {}, None
    for line in diff.split("\n"):
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None  # None: the file was deleted
            if path and (not path.endswith(".swift") or path.split("/")[1] not in BLOCKS):
                path = None
        elif line.startswith("@@ ") and path:
            m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            start, count = int(m.group(1)), int(m.group(2) or 1)
            changed.setdefault(path, set()).update(range(start, start + count))
    return {path: lines for path, lines in changed.items() if lines}


def on_change(root, rev, blocks, key=None, count=None):
    """The candidates on the lines changed since `rev` (`changed_lines`), in the named blocks:
    each whose replaced lines include a changed one, in the order of block, path, line and
    column. With a count, that many of them, drawn with `key` from one seeded shuffle (a
    larger count extends a smaller one), in the same order. The files are read as HEAD has them.

    Returns the mutants, numbered from 1, the changed lines of those blocks, and how many
    candidates are on them.
    """
    changed = {p: l for p, l in changed_lines(root, rev).items() if p.split("/")[1] in blocks}
    pool = []
    for path in sorted(changed, key=lambda p: (BLOCKS.index(p.split("/")[1]), p)):
        block = path.split("/")[1]
        text = git(root, "show", f"HEAD:{path}")
        pool += [m for m in file_mutants(block, path, text)
                 if changed[path] & set(range(m.line, m.line + len(m.old)))]
    drawn = pool
    if count is not None:
        order = list(range(len(pool)))
        random.Random(f"{key}/since").shuffle(order)
        drawn = [pool[k] for k in sorted(order[:count])]
    for index, mutant in enumerate(drawn, 1):
        mutant.index = index
    return drawn, changed, len(pool)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", default="1")
    parser.add_argument("--count", type=int, default=150)
    parser.add_argument("--block", action="append", choices=BLOCKS)
    parser.add_argument("--stats", action="store_true", help="candidates per block and operator")
    parser.add_argument("--since", metavar="REV", help="every candidate on the lines changed "
                        "since REV (a sample with --count)")
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    blocks = args.block or BLOCKS
    if args.since:
        count = args.count if "--count" in sys.argv else None
        mutants, _, _ = on_change(root, args.since, blocks, args.seed, count)
        if args.stats:
            mutants = {b: [m for m in mutants if m.block == b] for b in blocks}
        else:
            for mutant in mutants:
                print(f"#{mutant.index} {mutant.block}\n{mutant.diff()}\n")
            return
    if args.stats:
        for block in blocks:
            pool = mutants[block] if args.since else candidates(root, block)
            if args.since and not pool:
                continue
            ops = {}
            for m in pool:
                ops[m.operator] = ops.get(m.operator, 0) + 1
            by_operator = ", ".join(f"{k} {v}" for k, v in sorted(ops.items()))
            print(f"{block}: {len(pool)} candidates: {by_operator}")
        return
    for mutant in sample(root, args.seed, args.count, blocks):
        print(f"#{mutant.index} {mutant.block}\n{mutant.diff()}\n")


if __name__ == "__main__":
    main()
