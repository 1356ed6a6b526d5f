"""The PDF stays accessible: tagged (a structure tree, marked content), its language set, and its
reading order, the order of the structure tree, following the chapter page by page.

Read back with pypdf. Chromium builds the structure tree from the print page's DOM (pdf.py prints
with ``tagged=True``); the language comes from ``<html lang>``."""

from __future__ import annotations

import itertools

import pytest
from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, NumberObject

PDF = "pdf/autograd-part2.pdf"


@pytest.fixture(scope="module")
def pdf(built_site) -> PdfReader:
    return PdfReader(built_site / PDF)


def test_the_pdf_is_tagged_and_in_english(pdf):
    catalog = pdf.trailer["/Root"]
    assert bool(catalog["/MarkInfo"]["/Marked"]) is True
    assert "/StructTreeRoot" in catalog
    assert str(catalog.get("/Lang", "")).lower().startswith("en")


def structure(pdf: PdfReader):
    """(structure type, page index) for every element of the structure tree, in its order, the page
    being where the element's first marked content is."""
    pages = {page.indirect_reference.idnum: i for i, page in enumerate(pdf.pages)}
    out = []

    def first_page(node, page):
        node = node.get_object() if isinstance(node, IndirectObject) else node
        if isinstance(node, NumberObject):
            return page
        if isinstance(node, ArrayObject):
            for kid in node:
                found = first_page(kid, page)
                if found is not None:
                    return found
            return None
        if isinstance(node, DictionaryObject):
            if "/Pg" in node:
                page = pages.get(node.raw_get("/Pg").idnum, page)
            if node.get("/Type") == "/MCR":
                return page
            return first_page(node["/K"], page) if "/K" in node else None
        return None

    def walk(node, page):
        node = node.get_object() if isinstance(node, IndirectObject) else node
        if isinstance(node, ArrayObject):
            for kid in node:
                walk(kid, page)
        elif isinstance(node, DictionaryObject) and "/S" in node:
            if "/Pg" in node:
                page = pages.get(node.raw_get("/Pg").idnum, page)
            out.append((str(node["/S"]), first_page(node, page)))
            if "/K" in node:
                walk(node["/K"], page)

    walk(pdf.trailer["/Root"]["/StructTreeRoot"]["/K"], None)
    return out


def test_the_reading_order_follows_the_chapter(pdf):
    elements = structure(pdf)
    headings = [(kind, page) for kind, page in elements if kind in ("/H1", "/H2") and page is not None]
    assert len(headings) > 100, "far fewer headings than the chapter has: the walk is broken"
    pages = [page for _, page in headings]
    assert pages == sorted(pages), "a heading comes later in the reading order than one printed after it"
    assert pages[0] <= 1 and pages[-1] >= len(pdf.pages) - 10, "the headings do not span the document"
    paragraphs = [page for kind, page in elements if kind == "/P" and page is not None]
    backwards = sum(1 for a, b in itertools.pairwise(paragraphs) if b < a)
    assert len(paragraphs) > 300 and backwards == 0


def test_one_document_and_every_link_tied_to_its_element(pdf):
    """One Document and one article (Material's page) holding every page of the chapter, and each
    link annotation found through the parent tree under its key (its /StructParent) in the Link
    element that holds it."""
    kinds = [kind for kind, _ in structure(pdf)]
    assert kinds.count("/Document") == 1 and kinds.count("/Art") == 1
    tree = pdf.trailer["/Root"]["/StructTreeRoot"]
    nums = tree["/ParentTree"]["/Nums"]
    parents = {int(nums[i]): nums[i + 1] for i in range(0, len(nums), 2)}
    assert len(parents) == int(tree["/ParentTreeNextKey"])
    assert sorted(int(page["/StructParents"]) for page in pdf.pages) == sorted(
        set(int(p["/StructParents"]) for p in pdf.pages)
    )
    links, untied = 0, []
    for number, page in enumerate(pdf.pages, 1):
        for annotation in page.get("/Annots") or []:
            element = parents[int(annotation.get_object()["/StructParent"])].get_object()
            kids = element["/K"] if isinstance(element["/K"], ArrayObject) else [element["/K"]]
            tied = [k for k in kids if isinstance(k, DictionaryObject) and k.get("/Type") == "/OBJR"]
            if not any(k.raw_get("/Obj").idnum == annotation.idnum for k in tied):
                untied.append(f"page {number}: {annotation.get_object().get('/Dest')}")
            links += 1
    assert links > 100 and untied == []


def test_every_table_cell_names_header_cells_of_its_own_table(pdf):
    """Chromium numbers the header cells' ids (``nodeNNNNNNNN``) from 1 in each part it prints;
    the join renumbers them so that they stay unique in the book and each cell's /Headers still
    names the header cells of its own table, not those of a table in another part."""

    def cells(node, table):
        node = node.get_object() if isinstance(node, IndirectObject) else node
        if isinstance(node, DictionaryObject):
            kind = str(node.get("/S", ""))
            table = node if kind == "/Table" else table
            if kind in ("/TH", "/TD"):
                yield node, table
            kids = node.get("/K")
            for kid in kids if isinstance(kids, ArrayObject) else [kids] if kids is not None else []:
                yield from cells(kid, table)
        elif isinstance(node, ArrayObject):
            for kid in node:
                yield from cells(kid, table)

    found = list(cells(pdf.trailer["/Root"]["/StructTreeRoot"], None))
    header_ids = [str(cell["/ID"]) for cell, _ in found if "/ID" in cell]
    assert len(found) > 100 and len(header_ids) > 20, "the chapter's tables were not found in the tree"
    assert len(header_ids) == len(set(header_ids)), "a header cell id repeats in the book"
    table_of = {str(cell["/ID"]): id(table) for cell, table in found if "/ID" in cell}
    wrong = []
    for cell, table in found:
        attributes = cell.get("/A")
        for attribute in attributes if isinstance(attributes, ArrayObject) else [attributes] if attributes else []:
            attribute = attribute.get_object()
            for header in attribute.get("/Headers", []):
                if table_of.get(str(header)) != id(table):
                    wrong.append(str(header))
    assert wrong == [], f"cells name header cells outside their table: {wrong[:5]}"


def test_each_contents_page_number_is_an_artifact(pdf):
    """The page numbers written into the contents after the print (site/pdf_contents.py) are no
    element of the structure tree: each is marked as an artifact, which a screen reader skips (it
    reads the entry by its link)."""
    from pypdf.generic import ContentStream

    from .test_pdf import contents_pages, internal_links

    for n in contents_pages(pdf):
        marks, artifacts = [], 0  # the open marked-content sequences' tags; the texts shown in an artifact
        for operands, op in ContentStream(pdf.pages[n - 1].get_contents(), pdf).operations:
            if op in (b"BMC", b"BDC"):
                marks.append(operands[0])
            elif op == b"EMC":
                marks.pop()
            elif op in (b"Tj", b"TJ"):
                artifacts += "/Artifact" in marks
        assert artifacts == len(internal_links(pdf, n)) > 0, f"page {n}: {artifacts} numbers marked as artifacts"
