"""Work a build used to do after reading the last page is done while the pages are read, when a
cold build's worker still runs snippets and a core is free: print-site's rewriting of each page's
links for the print page (``links_cache.fix_ahead``) and Material's search entries of each page
(``PageCache.index_ahead``). Either is then only taken, and the site is the same as without."""

from __future__ import annotations

import json
import shutil

from tests.builds.test_fast_builds import PAGES

# What both scripts below share: counts of calls made while the pages are read, and after.
COUNTING = r"""
import json, sys

phase, counts = ["reading"], {"reading": 0, "after": 0}

def count_calls(owner, name):
    wrapped = getattr(owner, name)
    def counted(*args, **kwargs):
        counts[phase[0]] += 1
        return wrapped(*args, **kwargs)
    setattr(owner, name, counted)

def after_the_reading(owner, name):
    wrapped = getattr(owner, name)
    def switched(*args, **kwargs):
        phase[0] = "after"
        return wrapped(*args, **kwargs)
    setattr(owner, name, switched)
"""

# The end of both: the build, in this process, then the counts as JSON on the last line.
BUILD_AND_COUNT = r"""
from snippet_runner.__main__ import main
code = main(["site", "--force"])
print(json.dumps({"code": code, **counts}))
"""

NAV = "nav:\n  - index.md\n  - A part:\n      - other.md\n      - third.md\n"

# Counts the pages print-site rewrote while the pages were read, and in its post-build step;
# with "off", fix_ahead does nothing.
COUNT_REWRITES = (
    COUNTING
    + r"""
from mkdocs_print_site_plugin import plugin as print_site, urls
from snippet_runner.plugins.print_page import plugin as print_page

count_calls(urls, "fix_href_links")  # one call per page rewritten (anchor_ids.py replaces update_anchor_ids)
after_the_reading(print_site.PrintSitePlugin, "on_post_build")
if sys.argv[1] == "off":
    print_page.fix_ahead = lambda config, page: False
"""
    + BUILD_AND_COUNT
)


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


# Counts the pages Material's search plugin indexed while the pages were read, and after (the
# templates, where it indexes them itself); with "off", index_ahead does nothing.
COUNT_INDEXING = (
    COUNTING
    + r"""
from material.plugins.search import plugin as search
from snippet_runner.plugins.runner import page_cache, plugin as runner

count_calls(search.SearchIndex, "add_entry_from_context")
after_the_reading(runner.SnippetRunnerPlugin, "on_env")
if sys.argv[1] == "off":
    page_cache.PageCache.index_ahead = lambda self, page, content: None
"""
    + BUILD_AND_COUNT
)


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
