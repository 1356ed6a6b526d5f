"""Join the parts of the PDF, each printed on its own (``pdf_parts.py``, ``pdf.py``), into the one
PDF a print of the whole page would be: its sheets in order, numbered as one book, its links
landing on their targets in whichever part those are, its bookmarks, its tags and its metadata.

What a part's PDF lacks, and the join supplies:

* **Page numbers.** A part is printed without footer; Chromium numbers a document's sheets from 1
  and has no option to start elsewhere. So Chromium prints, once per page count, that many empty
  sheets with the footer alone (``pdf.print_page_numbers``: the same template, font and place as a
  whole print), and the join lays sheet n's footer over the book's sheet n: a content stream added
  after the sheet's own, which is wrapped in ``q``/``Q`` so that it starts from the page's own
  coordinates. The footer's font and graphics state join the sheet's resources under names of
  their own.
* **Links between parts.** A part carries an empty stand-in anchor for every id outside it that it
  links to, so Chromium keeps the link (it drops one whose target it does not print); the joined
  PDF's named destinations (the catalog's ``/Dests``) take each name from the part that really
  holds it, and the stand-ins' destinations are dropped.
* **The contents' numbers.** The contents part prints a placeholder in each entry's number box;
  once the destinations are known, ``pdf._write_numbers_into_pdf`` writes each entry's page over
  its placeholder, as it does for a whole print.
* **Bookmarks.** Each part's outline (Chromium's, built from its headings, each item tied to its
  heading's structure element) is kept whole; the parts' top-level chains are linked into one.
* **Tags.** One structure tree: each part's tree holds the page's shell (the Document, Material's
  article, the print-site page's element) and under it the part's sections; the join keeps the
  first part's shell and puts every part's sections side by side in it, as a whole print has them.
  The parent tree's keys (each sheet's ``/StructParents``, each link's ``/StructParent``) are
  shifted by the keys of the parts before; the table header ids (``nodeNNNNNNNN``, numbered from 0
  in each part by ``pdf.make_reproducible``) are numbered on across parts, where they are named
  (``/ID``, the ``/IDTree``) and where a cell points at them (``/Headers``).
* **Metadata,** once: the first part's catalog entries (``/Lang``, ``/MarkInfo``,
  ``/ViewerPreferences``) and document information, the cover's title, author, subject and
  keywords, and a file ``/ID`` computed from the content, so that the same parts give the same
  bytes.

pikepdf (qpdf) does the copying: ``pages.extend`` and ``copy_foreign`` copy each part's objects
once and keep the references between them (a structure element's page, a bookmark's structure
element) pointing at the copies; ``Page.contents_add`` appends a footer to a sheet;
``save(deterministic_id=True)`` computes the file ``/ID`` from the content. pypdf, which the rest
of the PDF code uses, was tried first and does the same with ``PdfWriter.add_page`` and ``clone``,
but it parses and writes every object in Python: joining the chapter's tens of thousands of objects
took longer than the whole print it is meant to save, where pikepdf's C++ takes a fraction of it
(dev/measurements.md has the figures). Neither library merges structure
trees, a name-only ``/Dests`` dictionary with stand-ins to drop, or outlines with their ``/SE``
entries (pypdf's ``append`` rebuilds bookmarks without them and leaves the tags out; pikepdf's
``add_pages_from`` renames a name found twice instead of choosing the part that holds it), hence
the code below. The contents' numbers are worked out with ``pdf.py``'s pypdf code, on the contents
part alone (a few sheets), and written into the book's copy of its sheets.

Everything the join changes, it changes in the book's copies, never in a part as opened: so the
copying, most of a join's work, can start before the join knows its parts (``Ahead``).
"""

from __future__ import annotations

import base64
import json
import re
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snippet_runner.files import write_atomic
from snippet_runner.site import pdf as printer

_NODE_ID = re.compile(r"^node(\d{8})$")
FOOTER_PREFIX = "PageNumber"  # the footer's resources join a sheet's as /PageNumberF4, /PageNumberG3...


class ContentsNotNumbered(RuntimeError):
    """The contents' numbers could not be written over their placeholders (a font without a
    digit, a placeholder not where expected): ``numbers`` is each entry's page, for printing the
    contents part again with them in the page (``pdf_book.py``)."""

    def __init__(self, numbers: dict[str, int]):
        super().__init__("the contents' page numbers could not be written over their placeholders")
        self.numbers = numbers


@dataclass
class JoinPart:
    path: Path
    stand_ins: set[str] = field(default_factory=set)  # ids whose anchors in this part are stand-ins
    contents: list[str] = field(default_factory=list)  # the printed contents' targets, if it has them
    cells: list[tuple[int, int]] | None = None  # its table cells' objects (table_cells), if known


class Ahead:
    """Parts copied into a new book before the join, in a thread of their own: copying is most of a
    join's work, and ``pdf_process.py`` starts it for the last book's parts as soon as it starts,
    so that it runs while the browser starts, while the process waits for its job and while
    Chromium prints (the process waits on the browser then). Each part is copied as it was printed; the join changes
    only the copies (the ids it numbers on, the contents' numbers), so a part copied here and one
    the join copies itself are the same objects. A part copied here that the join does not use is
    left unreferenced, and pikepdf writes only what the book references: the bytes are those of a
    join without ``Ahead`` (tests/builds/test_pdf_parts.py compares them)."""

    def __init__(self, paths: list[Path]) -> None:
        from pikepdf import Pdf

        self.book = Pdf.new()
        self.sources: dict[Path, Any] = {}  # pikepdf.Pdf, each part opened
        self._copying = threading.Thread(target=self._copy_all, args=(paths,), daemon=True)
        self._copying.start()

    def wait(self) -> None:
        """Until every part is copied (or given up: the join copies what is missing itself)."""
        self._copying.join()

    def _copy_all(self, paths: list[Path]) -> None:
        from pikepdf import Name, Pdf

        for path in paths:
            try:
                source = Pdf.open(path)
                for sheet in source.pages:
                    self.book.copy_foreign(sheet.obj)
                for name in (Name.StructTreeRoot, Name.Outlines):
                    if name in source.Root:
                        self.book.copy_foreign(source.Root[name])
            except Exception:  # noqa: BLE001 - removed or half-written since: the join copies it itself
                continue
            self.sources[path] = source


def join(
    parts: list[JoinPart],
    numbers: Path,
    out: Path,
    metadata: dict[str, str],
    keep: list | None = None,
    ahead: Ahead | None = None,
) -> int:
    """Write the joined PDF of ``parts`` to ``out``, with the footers of ``numbers`` (a PDF of as
    many sheets, from ``pdf.print_page_numbers``); returns its number of sheets. Raises
    ContentsNotNumbered if the contents' numbers cannot be written over their placeholders.

    With ``keep``, the opened documents are added to it instead of being let go of on return:
    freeing qpdf's copies of the chapter's parts takes about a third as long as the join itself,
    and a process about to end (``pdf_process.py``) need not spend it before it answers. With
    ``ahead``, the parts it copied are not copied again, and its book is the one written (so an
    ``Ahead`` serves one join)."""
    import pikepdf
    from pikepdf import Array, Dictionary, Name, Pdf

    if ahead is not None:
        ahead.wait()
    copied = ahead.sources if ahead is not None else {}
    sources = [copied.get(part.path) or Pdf.open(part.path) for part in parts]
    footers = Pdf.open(numbers)
    book = ahead.book if ahead is not None else Pdf.new()
    offsets, keys = [], []  # each part's first sheet and first parent-tree key in the book
    sheets = key = 0
    for source in sources:
        offsets.append(sheets)
        keys.append(key)
        sheets += len(source.pages)
        key += int(source.Root.StructTreeRoot.get(Name.ParentTreeNextKey, 0))
    if len(footers.pages) != sheets:
        raise RuntimeError(f"{numbers.name} has {len(footers.pages)} sheets for a book of {sheets}")

    owners = _owners(sources, parts, offsets)
    renamed, base = [], 0  # each part's header cell ids, numbered on from the parts before
    for part, source in zip(parts, sources, strict=True):
        renamed.append(_renumber_node_ids(source, base, book, part.cells))
        base += len(renamed[-1])
    for part, source in zip(parts, sources, strict=True):
        if part.contents:
            _number_the_contents(part, source, book, [owners.get(target, (None, 0))[1] for target in part.contents])
    with warnings.catch_warnings():
        # It says named destinations are not carried over: the catalog's /Dests are rebuilt below.
        warnings.simplefilter("ignore", pikepdf.PageCopyWarning)
        for source in sources:
            book.pages.extend(source.pages)
    for source, offset, first_key in zip(sources, offsets, keys, strict=True):
        for index in range(len(source.pages)):
            sheet = book.pages[offset + index].obj
            if Name.StructParents in sheet:
                sheet.StructParents = int(sheet.StructParents) + first_key
            for annotation in sheet.get(Name.Annots, []):
                if Name.StructParent in annotation:
                    annotation.StructParent = int(annotation.StructParent) + first_key

    book.Root.Dests = book.make_indirect(
        Dictionary(
            {"/" + name: Array([book.pages[sheet - 1].obj, *dest[1:]]) for name, (dest, sheet) in sorted(owners.items())}
        )
    )
    _stamp_page_numbers(footers, book)
    _join_outlines(sources, book)
    _join_structure(sources, keys, key, renamed, book)
    first = sources[0].Root
    for name in (Name.Lang, Name.MarkInfo, Name.ViewerPreferences):
        if name in first:
            value = first[name]
            # A direct dictionary is copied entry by entry (Chromium writes them flat); an indirect one whole.
            if value.is_indirect:
                value = book.copy_foreign(value)
            elif isinstance(value, Dictionary):
                value = Dictionary(dict(value.items()))
            book.Root[name] = value
    info = {str(k): str(v) for k, v in sources[0].docinfo.items()}
    info["/Producer"] = f"{info.get('/Producer', 'Chromium')}, parts joined by pikepdf"
    for entry, text in metadata.items():
        if text:
            info[f"/{entry.title()}"] = text
    book.docinfo = book.make_indirect(Dictionary(info))
    out.parent.mkdir(parents=True, exist_ok=True)
    book.save(out, deterministic_id=True)
    if keep is not None:
        keep.extend([*sources, footers, book])
    return sheets


def _stamp_page_numbers(footers, book) -> None:
    """Lay footer sheet n over the book's sheet n: the sheet's content wrapped in q/Q, then the
    footer's own content, its font and graphics state added to the sheet's resources under names
    of their own. Inline, not as a form XObject (``Page.add_overlay``): PDFium (Chromium's viewer,
    and the tests' reader) reads a contents sheet without text of its own along the bottom as
    lines of one letter each."""
    from pikepdf import Dictionary, Name

    for sheet, footer in zip(book.pages, footers.pages, strict=True):
        data = footer.obj.Contents.read_bytes()
        resources = sheet.obj.Resources
        for kind in (Name.Font, Name.ExtGState):
            for name, value in (footer.obj.Resources.get(kind) or {}).items():
                renamed = f"/{FOOTER_PREFIX}{name[1:]}"
                data = re.sub(rb"%s(?=[\s/\[<(])" % re.escape(name.encode()), renamed.encode(), data)
                if kind not in resources:
                    resources[kind] = Dictionary()
                resources[kind][renamed] = book.copy_foreign(value)
        sheet.contents_add(b"q\n", prepend=True)
        sheet.contents_add(b"\nQ\n")
        sheet.contents_add(data)


def _owners(sources, parts: list[JoinPart], offsets: list[int]) -> dict:
    """Name -> (its destination in the part that holds its element, its 1-based sheet in the book)."""
    from pikepdf import Name

    out: dict = {}
    for source, part, offset in zip(sources, parts, offsets, strict=True):
        index = {page.obj.objgen: i for i, page in enumerate(source.pages)}
        for name, dest in (source.Root.get(Name.Dests) or {}).items():
            name = str(name).removeprefix("/")
            if name in part.stand_ins or name in out:
                continue
            out[name] = (dest, offset + index[dest[0].objgen] + 1)
    return out


def _number_the_contents(part: JoinPart, source, book, numbers: list[int | None]) -> None:
    """Write each contents entry's page over its placeholder, in ``book``'s copies of the contents
    part's sheets (``pdf._write_numbers_into_pdf``, which reads the part with pypdf). The streams
    written are kept beside the part (``numbered_path``) with the numbers they hold: a prose edit
    that moves no page gives the same numbers, and the part is not read again."""
    kept = _kept_numbering(part, numbers)
    if kept is None:
        from pypdf import PdfReader

        written = printer._write_numbers_into_pdf(PdfReader(part.path), numbers, printer.placeholders(len(numbers)))
        if written is None:
            raise ContentsNotNumbered(
                {target: n for target, n in zip(part.contents, numbers, strict=True) if n is not None}
            )
        kept = {number: stream.get_data() for number, stream in written.items()}
        record = {"numbers": numbers, "streams": {str(k): base64.b64encode(v).decode() for k, v in kept.items()}}
        write_atomic(numbered_path(part.path), json.dumps(record).encode())
    for page in source.pages:
        contents = page.obj.Contents
        if contents.objgen[0] in kept:
            book.copy_foreign(contents).write(kept[contents.objgen[0]])


def numbered_path(part_pdf: Path) -> Path:
    """Where the contents part's numbered streams are kept: beside the part, under its key."""
    return part_pdf.with_suffix(".numbered.json")


def _kept_numbering(part: JoinPart, numbers: list[int | None]) -> dict[int, bytes] | None:
    try:
        record = json.loads(numbered_path(part.path).read_text())
        if record["numbers"] != numbers:
            return None
        return {int(k): base64.b64decode(v) for k, v in record["streams"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _join_outlines(sources, book) -> None:
    """One outline: each part's bookmarks, copied whole, their top-level chains linked in order."""
    from pikepdf import Dictionary, Name

    items = []
    for source in sources:
        outlines = source.Root.get(Name.Outlines)
        if outlines is None or Name.First not in outlines:
            continue
        item = book.copy_foreign(outlines).First
        while item is not None:
            items.append(item)
            item = item.get(Name.Next)
    if not items:
        return
    root = book.make_indirect(Dictionary(Type=Name.Outlines))
    count = 0
    for before, after in zip([None, *items], [*items, None], strict=True):
        if before is not None:
            before.Parent = root
            count += 1 + max(0, int(before.get(Name.Count, 0)))
            if after is None:
                if Name.Next in before:
                    del before.Next
            else:
                before.Next = after
        if after is not None:
            if before is None:
                if Name.Prev in after:
                    del after.Prev
            else:
                after.Prev = before
    root.First, root.Last, root.Count = items[0], items[-1], count
    book.Root.Outlines = root


def _join_structure(sources, keys: list[int], next_key: int, renamed: list[dict[str, str]], book) -> None:
    """One structure tree (see the module's docstring); ``renamed``: each part's header cell ids, old -> new."""
    from pikepdf import Array, Dictionary, Name, String

    trees = [book.copy_foreign(source.Root.StructTreeRoot) for source in sources]
    shells = [_shell(tree.K) or [tree.K] for tree in trees]
    depth = min(len(shell) for shell in shells)
    if len({tuple(str(e.S) for e in shell[:depth]) for shell in shells}) != 1:
        depth = 1  # not the same shell in every part: the parts go side by side under one Document
    holder = shells[0][depth - 1]
    kids, parents, ids = [], [], []
    for tree, shell, first_key, found in zip(trees, shells, keys, renamed, strict=True):
        own = shell[depth - 1]
        for kid in own.K if isinstance(own.K, Array) else [own.K]:
            kids.append(kid)
            if isinstance(kid, Dictionary) and Name.S in kid:
                kid.P = holder
        for number, value in _number_tree(tree.get(Name.ParentTree)):
            parents += [number + first_key, value]
        for name, value in _name_tree(tree.get(Name.IDTree)):
            ids.append((found.get(name, name), value))
    holder.K = Array(kids)
    document = shells[0][0]
    root = Dictionary(
        Type=Name.StructTreeRoot,
        K=document,
        ParentTree=book.make_indirect(Dictionary(Nums=Array(parents))),
        ParentTreeNextKey=next_key,
    )
    if ids:
        names = Array()
        for name, value in sorted(ids, key=lambda pair: pair[0]):
            names.extend([String(name), value])
        root.IDTree = book.make_indirect(Dictionary(Names=names))
    root = book.make_indirect(root)
    document.P = root
    book.Root.StructTreeRoot = root


def _shell(document) -> list:
    """The elements from ``document`` down to the one that holds the part's sections: the page's
    shell, which every part prints alike. In Material's page that is the article (/Art, the
    only one) and, under it alone, the print-site page's element. Elements with anything but
    structure elements below them end the descent; [] if there is no article."""
    from pikepdf import Array, Dictionary, Name

    def children(element) -> list | None:
        items = element.K if isinstance(element.get(Name.K), Array) else [element.get(Name.K)]
        return items if all(isinstance(k, Dictionary) and Name.S in k for k in items) else None

    shell, element = [], document
    while element is not None:
        shell.append(element)
        below = children(element)
        if element.S == Name.Art:
            return shell + below if below is not None and len(below) == 1 and children(below[0]) else shell
        element = below[0] if below is not None and len(below) == 1 else None
    return []


def table_cells(path: Path) -> list[tuple[int, int]]:
    """The object numbers of the table cells (``TH``, ``TD`` structure elements) of the PDF at
    ``path``: found once, when a part is printed, and kept with it, so that a join of parts from the
    cache renumbers their ids without looking through every object of every part again."""
    from pikepdf import Dictionary, Name, Pdf

    with Pdf.open(path) as source:
        return [
            element.objgen
            for element in source.objects
            if isinstance(element, Dictionary) and element.get(Name.S) in (Name.TH, Name.TD)
        ]


def _renumber_node_ids(source, base: int, book, cells: list[tuple[int, int]] | None = None) -> dict[str, str]:
    """Add ``base`` to every ``nodeNNNNNNNN`` id of ``source`` (a header cell's /ID, a cell's
    /Headers), in ``book``'s copies of its cells; returns old -> new for the ids found. The cells are
    ``cells`` (from :func:`table_cells`), or else found in one pass over the part's objects, not a
    walk of its tree: Python's calls per element are what cost here."""
    from pikepdf import Array, Dictionary, Name, String

    renamed: dict[str, str] = {}

    def new(name):
        found = _NODE_ID.match(str(name))
        if found is None:
            return name
        value = f"node{int(found.group(1)) + base:08d}"
        renamed[str(name)] = value
        return String(value)

    kinds = (Name.TH, Name.TD)
    if cells is None:
        found = (e for e in source.objects if isinstance(e, Dictionary) and e.get(Name.S) in kinds)
    else:
        found = (source.get_object(*objgen) for objgen in cells)
    for element in map(book.copy_foreign, found):
        if Name.ID in element:
            element.ID = new(element.ID)
        attributes = element.get(Name.A)
        for attribute in attributes if isinstance(attributes, Array) else [attributes] if attributes else []:
            if isinstance(attribute, Dictionary) and Name.Headers in attribute:
                attribute.Headers = Array([new(h) for h in attribute.Headers])
    return renamed


def _number_tree(node):
    """(key, value) pairs of a number tree, in order."""
    return ((int(key), value) for key, value in _tree(node, "/Nums"))


def _name_tree(node):
    """(name, value) pairs of a name tree, in order."""
    return ((str(key), value) for key, value in _tree(node, "/Names"))


def _tree(node, leaves: str):
    """(key, value) pairs of a number or name tree (``leaves``: "/Nums" or "/Names"), in order."""
    if node is None:
        return
    pairs = node.get(leaves) or []
    for i in range(0, len(pairs), 2):
        yield pairs[i], pairs[i + 1]
    for kid in node.get("/Kids") or []:
        yield from _tree(kid, leaves)
