"""Work a build used to do after reading the last page is done while the pages are read, when a
cold build's worker still runs snippets and a core is free: print-site's rewriting of each page's
links for the print page (``links_cache.fix_ahead``) and Material's search entries of each page
(``PageCache.index_ahead``). Either is then only taken, and the site is the same as without."""

from __future__ import annotations

import json
import shutil

from tests.builds.test_fast_builds import PAGES

NAV = "nav:\n  - index.md\n  - A part:\n      - other.md\n      - third.md\n"

# Builds the project in this process and prints, as JSON, how many pages print-site rewrote while
# the pages were read and how many after (its post-build step); with "off", fix_ahead does nothing.
COUNT_REWRITES = r"""
import json, sys
from mkdocs_print_site_plugin import plugin as print_site, urls
from snippet_runner.plugins.print_page import plugin as print_page

phase, counts = ["reading"], {"reading": 0, "after": 0}
rewrite = urls.update_anchor_ids
def counted(page_html, page_key):
    counts[phase[0]] += 1
    return rewrite(page_html, page_key)
urls.update_anchor_ids = counted

post_build = print_site.PrintSitePlugin.on_post_build
def after(self, config, **kwargs):
    phase[0] = "after"
    return post_build(self, config, **kwargs)
print_site.PrintSitePlugin.on_post_build = after

if sys.argv[1] == "off":
    print_page.fix_ahead = lambda config, page: False

from snippet_runner.__main__ import main
code = main(["site", "--force"])
print(json.dumps({"code": code, **counts}))
"""


def _build(scratch, mode: str) -> tuple[dict, bytes]:
    shutil.rmtree(scratch.root / ".cache", ignore_errors=True)
    code, out, err = scratch.run_split("-c", COUNT_REWRITES, mode)
    assert code == 0, err
    return json.loads(out.splitlines()[-1]), (scratch.root / "site" / "print_page" / "index.html").read_bytes()


def test_the_links_are_rewritten_while_the_pages_are_read_into_the_same_print_page(scratch):
    scratch.write("mkdocs.yml", PAGES + NAV)
    scratch.write("includes/terms.md", "*[Intro]: the opening words\n")
    scratch.write("docs/other.md", "# Other\n\nSee [the page](index.md#page) and [below](#more).\n\n## More\n\nText.\n")
    scratch.write("docs/third.md", "# Third\n\nBack to [the other](other.md#more).\n")
    counts, ahead = _build(scratch, "ahead")
    assert counts == {"code": 0, "reading": 3, "after": 0}
    counts, alone = _build(scratch, "off")
    assert counts == {"code": 0, "reading": 0, "after": 3}  # the control: print-site's own step did them
    assert ahead == alone
    assert b'href="#other-more"' in ahead  # a rewritten link, as print-site writes it


# Builds the project in this process and prints, as JSON, how many pages Material's search plugin
# indexed while the pages were read and how many after; with "off", index_ahead does nothing.
COUNT_INDEXING = r"""
import json, sys
from material.plugins.search import plugin as search
from snippet_runner.plugins.runner import page_cache, plugin as runner

phase, counts = ["reading"], {"reading": 0, "after": 0}
index = search.SearchIndex.add_entry_from_context
def counted(self, page):
    counts[phase[0]] += 1
    return index(self, page)
search.SearchIndex.add_entry_from_context = counted

on_env = runner.SnippetRunnerPlugin.on_env
def templates_next(self, env, **kwargs):
    phase[0] = "after"
    return on_env(self, env, **kwargs)
runner.SnippetRunnerPlugin.on_env = templates_next

if sys.argv[1] == "off":
    page_cache.PageCache.index_ahead = lambda self, page, content: None

from snippet_runner.__main__ import main
code = main(["site", "--force"])
print(json.dumps({"code": code, **counts}))
"""


def test_the_search_entries_are_made_while_the_pages_are_read_into_the_same_index(scratch):
    scratch.write("mkdocs.yml", PAGES)
    scratch.write("includes/terms.md", "*[Intro]: the opening words\n")
    scratch.write("docs/other.md", "# Other\n\n## A section\n\nText to find.\n")
    index = scratch.root / "site" / "search" / "search_index.json"
    shutil.rmtree(scratch.root / ".cache", ignore_errors=True)
    code, out, err = scratch.run_split("-c", COUNT_INDEXING, "ahead")
    assert code == 0, err
    assert json.loads(out.splitlines()[-1]) == {"code": 0, "reading": 2, "after": 0}
    ahead = index.read_bytes()
    shutil.rmtree(scratch.root / ".cache")
    code, out, err = scratch.run_split("-c", COUNT_INDEXING, "off")
    assert code == 0, err
    assert json.loads(out.splitlines()[-1]) == {"code": 0, "reading": 0, "after": 2}  # the control
    assert index.read_bytes() == ahead and b"Text to find." in ahead
