"""What is not yet approved about a run that ``make serve`` shows anyway, and what approving it writes.

The page's notice and the terminal's line both say which approved files ``python -m snippet_runner accept`` would
create, rewrite or remove; one place decides it, from the verdicts the engine's rules gave the run
(:func:`snippet_runner.checking.rules.check_approved`), so the two always agree and nothing is compared twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from snippet_runner.checking.engine import Outcome


@dataclass(frozen=True)
class Pending:
    """An example whose run is shown but not approved."""

    snippet: str  # the example, as messages name it: snippets/page/example.py
    rel: str  # relative to the snippets folder, as `python -m snippet_runner accept <rel>` takes it
    new: tuple[str, ...]  # approved files that do not exist yet: accepting creates them
    changed: tuple[str, ...]  # approved files this run differs from: accepting rewrites them
    removed: tuple[str, ...]  # approved picture data for pictures this run no longer shows

    @property
    def kind(self) -> str:
        """``new`` for an example with no approved output at all, else ``changed``."""
        return "new" if self.new and not self.changed and not self.removed else "changed"

    def effects(self, listed=", ".join) -> str:
        """What approving does ("writes …, rewrites … and removes …"), for the page and the terminal alike."""
        verbs = (("writes", self.new), ("rewrites", self.changed), ("removes", self.removed))
        return " and ".join(f"{verb} {listed(names)}" for verb, names in verbs if names)

    def line(self) -> str:
        """The terminal's one line for it."""
        return f"Not yet approved ({self.kind}): {self.snippet}; `python -m snippet_runner accept {self.rel}` {self.effects()}"


def pending(outcome: Outcome) -> Pending | None:
    """What approving ``outcome`` would write, or None if it is approved (or was not run); from the
    two verdicts the rules gave it (only ``warn`` mode returns one that is not approved, merged)."""
    if outcome.verdict is None or outcome.verdict.approved:
        return None
    snippet = outcome.snippet
    new: list[str] = []
    changed: list[str] = []
    removed: list[str] = []
    output, pictures = outcome.verdict.parts
    files = ((output, snippet.approved_name, True), (pictures, snippet.approved_pictures_name, outcome.pictures))
    for verdict, name, shown in files:
        if verdict.missing:
            new.append(name)
        elif not verdict.approved:
            (changed if shown else removed).append(name)  # the data of pictures it no longer shows goes
    return Pending(snippet.loc().rsplit(":", 1)[0], snippet.rel, tuple(new), tuple(changed), tuple(removed))
