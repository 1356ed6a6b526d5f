"""Expand ``{{ run <page>/<file>.py }}`` lines into the snippet's code and its real output, as plain
Markdown (fenced blocks, a warning when unapproved), so search, the print page and the contents see
the output as text. markdown-exec runs code in the MkDocs process (no cache, expected exceptions or
captured warnings); pymdownx.snippets only includes text. Lines inside fenced blocks are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from snippet_runner.checking.engine import Engine, Outcome
from snippet_runner.checking.pending import pending
from snippet_runner.errors import SetupError, SnippetError, SnippetErrors, as_text
from snippet_runner.pictures.draw import Drawer
from snippet_runner.running.snippet import SETTING

DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*)\{\{\s*run\s+(?P<rel>[\w.-]+(?:/[\w.-]+)*\.py)"
    r'(?:\s+predict="(?P<question>[^"\\]+)")?\s*\}\}\s*$'
)
LOOKS_LIKE_DIRECTIVE = re.compile(r"^[ \t]*\{\{|\{\{\s*run\b")
INLINE_CODE = re.compile(r"(`+).+?\1")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
SYNTAX = '{{ run <page>/<file>.py }} or {{ run <page>/<file>.py predict="<question>" }}'


@dataclass(frozen=True)
class Include:
    line: int  # 1-based, in the page
    indent: str
    rel: str
    question: str | None = None  # "Predict, then run": the output folds under it, for after an answer


def _closes(fence: str, line: str) -> bool:
    """CommonMark's closing rule: a fence of the same character, at least as long."""
    closing = FENCE.match(line)
    return closing is not None and closing["fence"][0] == fence[0] and len(closing["fence"]) >= len(fence)


def fenced_blocks(
    lines: list[str], closes: Callable[[str, str], bool] = _closes
) -> Iterator[tuple[re.Match, int, int]]:
    """Each fenced block: its opening line's match, that line's index and the index of the line that
    closes it by ``closes(fence, line)`` (``len(lines)`` if none does); its lines are no Markdown."""
    index = 0
    while index < len(lines):
        if opened := FENCE.match(lines[index]):
            end = next((i for i in range(index + 1, len(lines)) if closes(opened["fence"], lines[i])), len(lines))
            yield opened, index, end
            index = end
        index += 1


def outside_fences(markdown: str) -> Iterator[tuple[int, str]]:
    """Each line of the page outside fenced code blocks, with its line number."""
    lines = markdown.splitlines()
    inside = {i for _, start, end in fenced_blocks(lines) for i in range(start, end + 1)}
    return ((number, line) for number, line in enumerate(lines, start=1) if number - 1 not in inside)


def find_includes(markdown: str, page: str) -> list[Include]:
    """Every include on the page, in order; a malformed one raises ``SnippetError`` naming page:line."""
    includes: list[Include] = []
    for number, line in outside_fences(markdown):
        if match := DIRECTIVE.match(line):
            includes.append(Include(number, match["indent"], match["rel"], match["question"]))
        elif LOOKS_LIKE_DIRECTIVE.search(INLINE_CODE.sub("", line)):
            raise SnippetError(
                f"{page}:{number}", f"malformed include {line.strip()!r}; expected {SYNTAX} on a line of its own"
            )
    return includes


def run_all(markdown: str, page: str, engine: Engine) -> dict[int, Outcome]:
    """Run every include on the page: ``{page line: outcome}``; one ``SnippetError`` lists every failure."""
    outcomes, errors = {}, []
    for include in find_includes(markdown, page):
        try:
            outcomes[include.line] = engine.run(include.rel)
        except SetupError as error:
            raise error.on_page(f"{page}:{include.line}") from None  # nothing can run: say that once
        except SnippetError as error:
            errors.append(error.on_page(f"{page}:{include.line}"))
    if errors:
        raise combined(errors)
    return outcomes


def combined(errors: list[SnippetError]) -> SnippetError:
    """One error for several, listing each (flattened, so pages' lists merge into one)."""
    flat = [e for error in errors for e in (error.errors if isinstance(error, SnippetErrors) else [error])]
    return flat[0] if len(flat) == 1 else SnippetErrors(flat)


def expand(markdown: str, page: str, engine: Engine, raw_html: Callable[[str], str] | None = None) -> str:
    """Replace each include with code and output; errors name the page line and the snippet.
    ``raw_html`` stores a picture's HTML (in the extension's stash, so it passes at any indentation)."""
    lines = markdown.splitlines()
    outcomes = run_all(markdown, page, engine)
    drawer = Drawer.of(engine)
    errors: list[SnippetError] = []
    for include in reversed(find_includes(markdown, page)):
        try:
            rendered = render(outcomes[include.line], drawer, raw_html, include.question)
        except SnippetError as error:
            errors.insert(0, error.on_page(f"{page}:{include.line}"))
            continue
        block = [include.indent + text if text else "" for text in rendered]
        lines[include.line - 1 : include.line] = block
    if errors:
        raise combined(errors)
    return "\n".join(lines) + ("\n" if markdown.endswith("\n") else "")


def render(outcome: Outcome, drawer: Drawer, raw_html: Callable[[str], str] | None, question: str | None) -> list[str]:
    """The code, then what the run printed and drew (folded under ``question``, if any)."""
    snippet = outcome.snippet
    first, code = shown_code(snippet.source)
    out = fenced(code, f'python title="{snippet.folder}/{snippet.rel}" linenums="{first}"')
    verdict = outcome.verdict
    if verdict is None:
        return out  # execution switched off: code only
    if not verdict.approved:
        out += [""] + _unapproved_warning(outcome, verdict)
    shown: list[str] = []
    if outcome.output:
        title = "Output"
        if outcome.error:
            # an identifier (protocol.TypeName): it cannot end the attribute or the line; pymdownx escapes it
            title = f"Output: raises {outcome.error.type}, as intended"
            if "Traceback (most recent call last):" in outcome.output:
                # The worker keeps only the frames of the snippet's own folder (running/terminal.py):
                # the reader's terminal shows PyTorch's frames too, so the page says so.
                title += "; traceback shows this file's frames only"
        shown += [""] + fenced(as_text(outcome.output), f'{{ .text .snippet-output title="{title}" }}')
    for number, picture in enumerate(outcome.pictures, start=1):
        html = drawer.figure(picture, snippet, number)
        shown += ["", raw_html(html) if raw_html else html]
    if question is None or not shown:
        return out + shown
    folded = ["    " + text if text else "" for text in shown[1:]]
    return [*out, "", f'??? question "Predict, then run: {question}"', "", *folded]


def shown_code(source: str) -> tuple[int, str]:
    """(the file line it starts at, the code a reader sees): without the ``# snippet:`` lines at the top."""
    lines = source.splitlines(keepends=True)
    skip = 0
    while skip < len(lines) and SETTING.match(lines[skip].strip()):
        skip += 1
    if skip:
        while skip < len(lines) and not lines[skip].strip():
            skip += 1
    return skip + 1, "".join(lines[skip:])


def _unapproved_warning(outcome: Outcome, verdict) -> list[str]:
    """The notice over an unapproved output: what changed, and which files approving it writes."""
    waiting = pending(outcome)
    assert waiting is not None  # the verdict is not approved
    why = []
    if waiting.new:
        why.append(f"This example has no approved {_listed(waiting.new)} yet.")
    if waiting.changed:
        why.append(f"What it shows differs from the approved {_listed(waiting.changed)}.")
    if waiting.removed:
        why.append(f"It no longer shows the pictures of {_listed(waiting.removed)}.")
    accept = (
        f"Review it, then run `python -m snippet_runner accept {waiting.rel}` (or `accept` alone for every"
        f" example): it runs the example twice and {waiting.effects(_listed)}; a site build fails until then."
    )
    lines = ['!!! warning "Output not yet approved"', "", f"    {' '.join(why)} {accept}"]
    if verdict.diff:
        lines += [""] + ["    " + text if text else "" for text in fenced(as_text(verdict.diff), "diff")]
    return lines


def _listed(names) -> str:
    return " and ".join(f"`{name}`" for name in names)


def fenced(text: str, info: str) -> list[str]:
    """``text`` as a fenced block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", *text.rstrip("\n").splitlines(), fence]
