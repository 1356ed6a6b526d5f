"""The print page's heading ids are renamed as print-site renames them, by a pattern that does not
backtrack over a whole line at every tag (``plugins/print_page/anchor_ids.py``)."""

import importlib.util

import mkdocs_print_site_plugin
import pytest

from snippet_runner.plugins.print_page import anchor_ids

# Quirks of print-site's pattern and replacement that a rewrite could lose: the id's text replaced
# wherever it appears in the tag, every copy of a tag replaced at once, case-insensitive names, an
# id on the next line (not renamed), a tag name swallowing what follows it up to a space, and long
# lines of tags with no id, where the old pattern backtracked.
TRICKY = [
    '<li id="a" class="a b">one</li><li id="a" class="a b">again</li>',
    '<H2 ID="Upper">x</H2><h3 Id="mixed" >y</h3>',
    '<li\nid="next-line">z</li><li class="x"\n id="later">w</li>',
    '<span>text<li id="glued">q</li><sup id="fnref:1"><a href="#fn:1">1</a></sup>',
    '<li title="a > b" id="after-gt">v</li><h1 id="">empty</h1>',
    "<p>" + '<span class="k">x</span>' * 200 + '</p>\n<h4 id="end">e</h4>',
    '<li id="no-end-on-this-line"\n>t</li><div id="untouched">u</div>',
]


def print_sites_own():
    """print-site's update_anchor_ids as it ships, from a fresh copy of its module (a build in
    this process may have put ours in its place)."""
    path = mkdocs_print_site_plugin.__path__[0] + "/urls.py"
    spec = importlib.util.spec_from_file_location("print_site_urls_as_shipped", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.update_anchor_ids


@pytest.mark.parametrize("html", TRICKY)
def test_tricky_tags_are_renamed_as_print_site_renames_them(html):
    assert anchor_ids.update_anchor_ids(html, "page") == print_sites_own()(html, "page")


def test_every_page_of_the_chapter_is_renamed_as_print_site_renames_it(built_site):
    theirs = print_sites_own()
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 20
    renamed = 0
    for page in pages:
        html = page.read_text(encoding="utf-8")
        ours = anchor_ids.update_anchor_ids(html, "some-page")
        assert ours == theirs(html, "some-page"), page.name
        renamed += ours != html
    assert renamed > 20  # the comparison saw real renaming, not pages with nothing to rename


def test_used_only_with_the_print_site_version_it_was_checked_against(monkeypatch):
    from mkdocs_print_site_plugin import urls

    monkeypatch.setattr(urls, "update_anchor_ids", urls.update_anchor_ids)  # put back after the test
    monkeypatch.setattr(anchor_ids, "CHECKED_WITH", ("0.0",))
    assert anchor_ids.use() is False
    assert urls.update_anchor_ids is not anchor_ids.update_anchor_ids
    monkeypatch.setattr(anchor_ids, "CHECKED_WITH", (anchor_ids.metadata.version("mkdocs-print-site-plugin"),))
    assert anchor_ids.use() is True
    assert urls.update_anchor_ids is anchor_ids.update_anchor_ids
