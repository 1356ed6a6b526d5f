"""The print-page hook gives Material's scripts the page's relative base."""

from __future__ import annotations

from snippet_runner.plugins.print_page.plugin import relative_base


def test_the_print_page_gets_a_relative_base_so_its_scripts_work_from_disk(built_site):
    """print-site gives the print page a base of "/": from disk, Material asked for
    file:///search/search_index.js and its palette toggle stopped (the accessibility audit, which
    switches the print page's palette from disk, fails without this)."""
    config = '<script id="__config" type="application/json">{"annotate": null, "base": "/", "x": "/"}</script>'
    assert relative_base(config) == config.replace('"base": "/"', '"base": "."', 1)
    assert relative_base(relative_base(config)) == relative_base(config)
    built = (built_site / "print_page.html").read_text(encoding="utf-8")
    assert '"base": "."' in built and '"base": "/"' not in built
