"""``make accept``: the one way an approved ``.out`` or ``.pictures.json`` file is written.

Like Pydantic's ``--update-examples``: change a snippet, ``python -m snippet_runner accept``, review the diff. Each
snippet runs twice, fresh, under two hash seeds, and only what both runs agree on is approved, so
an output that changes between runs (an unseeded random number, a set's order) is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from snippet_runner.checking import comparison
from snippet_runner.checking.engine import Engine
from snippet_runner.errors import SnippetError

# PYTHONHASHSEED of the two workers: a set's or a dict-of-strings' order differs between them.
HASH_SEEDS = ("1", "2")
_OUTPUT_DIFFERS = (
    "printed something different in two fresh runs, so its output cannot be approved;"
    " seed what is random (torch.manual_seed), sort what is unordered, print no timings"
)
_PICTURES_DIFFER = (
    "showed different pictures in two fresh runs, so they cannot be approved;"
    " seed what is random (torch.manual_seed) before computing what they show"
)


@dataclass
class Approval:
    """What approving one snippet did: the approved files it rewrote, or why it could not."""

    rel: str
    updated: list[str] = field(default_factory=list)
    error: SnippetError | None = None


def approve(first: Engine, second: Engine, rels: list[str]) -> Iterator[Approval]:
    """Run each snippet in both engines and write what they agree on as its approved files."""
    if first is second or first.cache is not None or second.cache is not None:
        raise ValueError("approval needs two uncached engines, so each snippet really runs twice")
    for engine in (first, second):
        engine.approval_mode = "warn"
        engine.prefetch(rels)
    for rel in rels:
        try:
            one, two = first.run(rel), second.run(rel)
            drawn = [comparison.pictures_text(outcome.pictures) for outcome in (one, two)]
            for a, b, why in ((one.output, two.output, _OUTPUT_DIFFERS), (*drawn, _PICTURES_DIFFER)):
                verdict = comparison.same(a, b, ("first run", "second run"))
                if not verdict.approved:
                    raise SnippetError(one.snippet.loc(), why, detail=verdict.diff)
        except SnippetError as error:
            yield Approval(rel, error=error)
            continue
        done = Approval(rel)
        if comparison.write(one.snippet.expected_output_path, one.output):
            done.updated.append(one.snippet.approved_name)
        if comparison.write_pictures(one.snippet.expected_pictures_path, drawn[0]):
            done.updated.append(one.snippet.approved_pictures_name)
        yield done
