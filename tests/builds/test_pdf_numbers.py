"""The contents' page numbers are written into the printed PDF over placeholders (pdf.py), not by a
second print. These check that edit on content streams written the way Skia writes them, without a
browser: each number lands in its own entry's slots, right-aligned, with its underline cut to its
digits; and anything unexpected makes the edit refuse (pdf.py then prints a second time instead).
tests/browser/test_pdf.py checks the real PDF: every printed number is the page its link opens."""

from __future__ import annotations

import pytest

from snippet_runner.site import pdf

# DejaVu Sans as Skia embeds it: "0".."9" are glyphs 0x13..0x1C, each 636.23 thousandths of an em.
DIGITS = ({str(d): 0x13 + d for d in range(10)}, 636.23047)
FONTS = {b"/F5": DIGITS, b"/F9": None}  # /F9: a font without a usable ToUnicode map

# A title, then three placeholders: one glyph per string with moves (Td), all in one string, and
# one underlined (the link's underline, a rectangle drawn just before its text).
STREAM = b"""/NonStruct <</MCID 0 >>BDC
BT
/F5 13.6 Tf
1 0 0 -1 16 990 Tm
<0037> Tj
14.76 0 Td <0044> Tj
ET
EMC
/NonStruct <</MCID 1 >>BDC
BT
/F5 13.6 Tf
1 0 0 -1 700 1056 Tm
<0013> Tj
8.65 0 Td <0013> Tj
8.65 0 Td <0013> Tj
ET
EMC
/NonStruct <</MCID 2 >>BDC
BT
/F5 14 Tf
1 0 0 -1 700 1086 Tm
<001300130013> Tj
ET
EMC
/NonStruct <</MCID 3 >>BDC
700 1120 26.7 1 re
f
BT
/F5 14 Tf
1 0 0 -1 700 1116 Tm
<001300130013> Tj
ET
EMC
"""


def blocks(data: bytes) -> list[bytes]:
    return [m.group(0) for m in pdf._TEXT_BLOCK.finditer(data)]


def test_each_placeholder_gets_its_number_right_aligned_in_order():
    data, replaced = pdf._replace_placeholders(STREAM, FONTS, [7, 42, 128, 5])
    assert replaced == 3  # three placeholders here; the fourth number is for the next sheet
    title, first, second, third = blocks(data)
    assert title == blocks(STREAM)[0]  # text that is not a placeholder is left as it was
    # "  7", one glyph per string: the two leading slots' strings go, the moves (Td) stay.
    assert first.count(b" Td") == 2 and b"<0013>" not in first and first.endswith(b"8.65 0 Td\n[<001A>] TJ\nET")
    # " 42", one string: a leading kerning of one digit's width keeps the digits in place.
    assert b"[-636.23047 <00170015>] TJ" in second
    assert b"[<00140015001B>] TJ" in third  # "128": all three slots
    assert b"MCID 1" in data and b"MCID 3" in data  # still inside Chromium's marked content


def test_the_underline_is_cut_to_the_digits():
    data, _ = pdf._replace_placeholders(STREAM, FONTS, [7, 42, 5])
    underline = blocks(data)[3].split(b"BT")[0]
    x, y, width, height = (float(v) for v in underline.split()[:4])
    assert (y, height) == (1120, 1)
    assert x == pytest.approx(700 + 2 * 26.7 / 3) and width == pytest.approx(26.7 / 3)


def test_an_entry_without_a_page_shows_nothing():
    data, replaced = pdf._replace_placeholders(STREAM, FONTS, [None, None, None])
    assert replaced == 3
    for block in blocks(data)[1:]:
        assert b"Tj" not in block and b"TJ" not in block and b" re\n" not in block


@pytest.mark.parametrize(
    "fonts, numbers",
    [
        ({b"/F5": ({"0": 0x13, "1": 0x14}, 636.23)}, [7, 42, 128]),  # the font lacks a digit
        ({b"/F5": None}, [7, 42, 128]),  # no digits known: no placeholder recognised
    ],
)
def test_it_refuses_rather_than_guess(fonts, numbers):
    data, replaced = pdf._replace_placeholders(STREAM, fonts, numbers)
    assert data == STREAM
    assert replaced in (None, 0)


def test_an_underline_that_is_not_this_texts_refuses():
    moved = STREAM.replace(b"700 1120 26.7 1 re", b"650 1120 26.7 1 re")
    assert pdf._replace_placeholders(moved, FONTS, [7, 42, 5]) == (moved, None)


def test_a_number_wider_than_the_placeholder_refuses():
    assert pdf._write_numbers_into_pdf(reader=None, numbers=[4, 1000]) is None


def test_digit_glyphs_and_width_come_from_the_font():
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, FloatObject, NameObject
    from pypdf.generic import NumberObject as N

    cmap = DecodedStreamObject()
    cmap.set_data(
        b"2 beginbfchar\n<0003> <0020>\n<0020> <003D>\nendbfchar\n1 beginbfrange\n<000A> <001E> <0027>\nendbfrange"
    )
    cid_font = DictionaryObject(
        {NameObject("/W"): ArrayObject([N(0), ArrayObject([FloatObject(600)]), N(19), N(28), FloatObject(636.23)])}
    )
    font = DictionaryObject(
        {
            NameObject("/Subtype"): NameObject("/Type0"),
            NameObject("/Encoding"): NameObject("/Identity-H"),
            NameObject("/ToUnicode"): cmap,
            NameObject("/DescendantFonts"): ArrayObject([cid_font]),
        }
    )
    digits, width = pdf._digits_of(font)
    assert digits == DIGITS[0]
    assert width == pytest.approx(636.23)


def test_the_placeholders_carry_every_digit_and_each_is_matched_in_its_turn():
    # A PDF embeds only the glyphs it prints: the contents printed alone must print every digit.
    shown = pdf.placeholders(4)
    assert shown == ["012", "345", "678", "901"]
    assert set("".join(shown)) == set("0123456789")
    # Each placeholder is recognised only as itself: "000" is not taken for "012".
    stream = STREAM.replace(b"<001300130013> Tj", b"<001300140015> Tj", 1)  # the second one reads "012"
    data, replaced = pdf._replace_placeholders(stream, FONTS, [7, 42], ["000", "012"])
    assert replaced == 2
    assert b"[-636.23047 <00170015>] TJ" in data  # 42 over "012"
    assert pdf._replace_placeholders(stream, FONTS, [7, 42], ["000", "345"])[1] == 1
