"""The print-page hook asks the browser to lay the page out only once it has read all of it, and
gives Material's scripts the page's relative base."""

from __future__ import annotations

from snippet_runner.plugins.print_page.plugin import (
    END_MARK,
    RENDER_BLOCKING,
    relative_base,
    render_when_parsed,
)


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
