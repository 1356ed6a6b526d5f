"""The print-page hook keeps one copy of each large stylesheet the print page repeats (mkdocs-jupyter
inlines its whole stylesheet into every notebook), the last one, so the cascade is unchanged: where
identical rules compete, the last copy decided before too. And it asks the browser to lay the page
out only once it has read all of it, and gives Material's scripts the page's relative base."""

from __future__ import annotations

from snippet_runner.plugins.print_page.plugin import (
    END_MARK,
    LARGE_STYLESHEET,
    RENDER_BLOCKING,
    last_copy_of_stylesheets,
    relative_base,
    render_when_parsed,
)

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


def test_the_print_page_is_laid_out_once_it_is_read_to_its_end():
    page = "<html><head><title>t</title></head><body><p>a</p><script>x()</script></body></html>"
    blocked = render_when_parsed(page)
    assert blocked.index(RENDER_BLOCKING) < blocked.index("</head>")
    # the mark is the body's last element, after every script, so nothing is laid out before it
    assert blocked.endswith(f'<script>x()</script><div id="{END_MARK}"></div>\n</body></html>')
    assert render_when_parsed(blocked) == blocked


def test_the_print_page_gets_a_relative_base_so_its_scripts_work_from_disk(built_site):
    """print-site gives the print page a base of "/": from disk, Material asked for
    file:///search/search_index.js and its palette toggle stopped (the accessibility audit, which
    switches the print page's palette from disk, fails without this)."""
    config = '<script id="__config" type="application/json">{"annotate": null, "base": "/", "x": "/"}</script>'
    assert relative_base(config) == config.replace('"base": "/"', '"base": "."', 1)
    assert relative_base(relative_base(config)) == relative_base(config)
    built = (built_site / "print_page.html").read_text(encoding="utf-8")
    assert '"base": "."' in built and '"base": "/"' not in built
