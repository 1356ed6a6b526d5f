"""The printed contents' page numbers, written into the PDF after its one print (Chromium has no CSS
``target-counter()``; printing twice to fill them in cost as much again). An entry is a link whose
named destination gives its sheet; the number ends where the link does, on the baseline of its last
line, in its font if that subset has the digits (fontTools reads it), else in another of the sheet's
(the footers print every sheet's number), as an artifact, which tagged-PDF readers skip. pikepdf's
``canvas`` writes only simple fonts, and Chromium embeds Type0 ones: hence the operators here."""

from __future__ import annotations

import io

import pikepdf
from fontTools.ttLib import TTFont


def number_contents(pdf: pikepdf.Pdf, ids: list[str]) -> None:
    """Write at the right end of each link to one of ``ids`` (the contents' entries) its target's sheet."""
    sheet = {page.obj.objgen: n for n, page in enumerate(pdf.pages, start=1)}
    dests = pdf.Root.get("/Dests", pikepdf.Dictionary())
    targets = {f"/{id}": str(sheet[dests[f"/{id}"][0].objgen]) for id in ids if f"/{id}" in dests}
    for page in pdf.pages[: min(map(int, targets.values()), default=1) - 1]:  # the contents come first
        runs, shown = _runs(page), []
        fonts = page.Resources.get("/Font", {}).items()
        digits = {name: found for name, font in fonts if (found := _digits(font))}  # the footers': every digit
        for link in page.get("/Annots", []):
            x0, y0, x1, y1 = (float(v) for v in link.get("/Rect", (0, 0, 0, 0)))
            inside = [run for run in runs if x0 - 2 <= run[0] <= x1 and y0 <= run[1] <= y1]  # glyphs overhang
            if str(link.get("/Dest")) not in targets or not inside:
                continue
            _, y, font, size = min(inside, key=lambda run: run[1])  # the entry's last line
            name = next((name for name in [font, *digits] if name in digits), None)
            number = [digits[name][digit] for digit in targets[str(link.Dest)]] if name else []
            x = x1 - sum(width for _, width in number) * size
            shown.append(f"BT {name} {size:.2f} Tf {x:.2f} {y:.2f} Td <{''.join(c for c, _ in number)}> Tj ET")
        if shown:  # the sheet's stream leaves its coordinates scaled and flipped: it goes between q and Q
            page.contents_add(pikepdf.Stream(pdf, b"q\n"), prepend=True)
            page.contents_add(pikepdf.Stream(pdf, "\n".join(["Q /Artifact BMC", *shown, "EMC\n"]).encode()))


def _runs(page: pikepdf.Page) -> list[tuple[float, float, str, float]]:
    """(x, y, font, size) where each run of text on the sheet starts, in the sheet's space: Chromium
    sets the font and the text matrix at each start; its moves within a run are along the line."""
    ctm, saved, font, runs = pikepdf.Matrix(), [], ("", 0.0), []
    for step in pikepdf.parse_content_stream(page, "q Q cm Tf Tm"):
        op, operands = str(step.operator), step.operands
        matrix = pikepdf.Matrix(*map(float, operands)) @ ctm if op in ("cm", "Tm") else ctm
        if op == "Tf":
            font = (str(operands[0]), float(operands[1]))
        elif op == "Tm":
            runs.append((matrix.e, matrix.f, font[0], font[1] * abs(matrix.d)))
        elif op == "q":
            saved.append(ctm)
        else:
            ctm = saved.pop() if op == "Q" else matrix
    return runs


def _digits(font: pikepdf.Object) -> dict[str, tuple[str, float]] | None:
    """Each digit's code and width per unit of size, if ``font`` is a Type0 font whose embedded
    TrueType subset (its cmap lists what it kept) has all ten, addressed by glyph id; else None."""
    try:
        (descendant,) = font.DescendantFonts
        if font.Encoding != "/Identity-H" or descendant.CIDToGIDMap != "/Identity":
            return None
        embedded = TTFont(io.BytesIO(descendant.FontDescriptor.FontFile2.read_bytes()))
        glyphs = {digit: embedded.getBestCmap()[ord(digit)] for digit in "0123456789"}
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    per_em = embedded["head"].unitsPerEm
    return {d: (f"{embedded.getGlyphID(g):04x}", embedded["hmtx"][g][0] / per_em) for d, g in glyphs.items()}
