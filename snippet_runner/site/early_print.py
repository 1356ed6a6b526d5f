"""Start the PDF as soon as the print page is final, while MkDocs finishes its build.

The print page is final once print-site has written it and the ``print_page`` plugin has given its
ids their page's prefix: the last PDF input MkDocs makes. The post-build steps after it (the
runner's page notebooks, its execution report, MkDocs' own end of the build) are not printed, so
the PDF process takes its job then, not when MkDocs has returned, and spends that time loading its
first part.

``site.build`` says what starting means for the staging folder it builds into (:func:`expect`); the
plugin says when the print page is final (:func:`print_page_written`); ``site.build`` takes what
came of it when MkDocs has returned (:func:`take`). A build made some other way (``mkdocs build``,
``mkdocs serve``, the tests' builds) expects nothing, and the plugin's call does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


class _Expected:
    def __init__(self, start: Callable[[], object]):
        self.start = start
        self.started = False
        self.outcome: object = None  # what start returned, once called
        self.error: Exception | None = None


_expected: dict[Path, _Expected] = {}


def expect(site_dir: Path, start: Callable[[], object]) -> None:
    """Call ``start`` once the print page in ``site_dir`` is final (at most once)."""
    _expected[Path(site_dir).resolve()] = _Expected(start)


def print_page_written(site_dir: Path | str) -> None:
    """The print page in ``site_dir`` is final: start what :func:`expect` was told to start. Its
    failure is kept for :func:`take` to raise, so that the build reports it where it reported it
    before, after MkDocs."""
    expected = _expected.get(Path(site_dir).resolve())
    if expected is None or expected.started:
        return
    expected.started = True
    try:
        expected.outcome = expected.start()
    except Exception as error:  # noqa: BLE001 - raised again by take()
        expected.error = error


def take(site_dir: Path) -> object:
    """Forget what was expected for ``site_dir``; what ``start`` returned, None if it was not
    called. Raises what ``start`` raised."""
    expected = _expected.pop(Path(site_dir).resolve(), None)
    if expected is not None and expected.error is not None:
        raise expected.error
    return expected.outcome if expected is not None else None


def forget(site_dir: Path) -> None:
    """Expect nothing more for ``site_dir`` (a build that ends, however it ends)."""
    _expected.pop(Path(site_dir).resolve(), None)
