"""The print-page hook keeps one copy of each large stylesheet the print page repeats (mkdocs-jupyter
inlines its whole stylesheet into every notebook), the last one, so the cascade is unchanged: where
identical rules compete, the last copy decided before too."""

from __future__ import annotations

from snippet_runner.print_page import LARGE_STYLESHEET, last_copy_of_stylesheets

BIG = "<style>" + ".jupyter-wrapper p { color: red }\n" * (LARGE_STYLESHEET // 30) + "</style>"
SMALL = "<style>svg text { fill: currentColor }</style>"


def test_only_the_last_copy_of_a_large_repeated_stylesheet_stays():
    page = f"<section>a{BIG}{SMALL}</section><section>b{BIG}{SMALL}</section><section>c{BIG}</section>"
    kept, dropped = last_copy_of_stylesheets(page)
    assert dropped == 2
    assert kept == f"<section>a{SMALL}</section><section>b{SMALL}</section><section>c{BIG}</section>"


def test_a_page_without_repeats_is_left_as_it_is():
    page = f"<section>{BIG}</section><section>{SMALL}{SMALL}</section>"
    assert last_copy_of_stylesheets(page) == (page, 0)
