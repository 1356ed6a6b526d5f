"""The build as an author meets it: `python -m snippet_runner site` on a small throwaway project.

Each bad input must stop the build with one message naming the page line and the snippet's
file:line, and leave the previous site/ untouched.
"""

import re
import sys

import pytest
from browser.player import approved, expected, figure_id, listed_steps
from throwaway import GRAPH_SNIPPET

from devtools.scratch import MINIMAL_CONFIG, serving


def test_good_build_shows_code_and_output(built_minimal):
    """The build every ``built`` copy below starts from (conftest.py), checked here once."""
    html = (built_minimal.root / "site" / "index.html").read_text()
    assert "snippets/page/hello.py" in html and "snippet-output" in html
    assert "snippets: 1 run, 0 from cache" in built_minimal.log


def test_second_build_runs_nothing_and_an_edit_reruns_one(scratch):
    scratch.write("docs/index.md", "# Page\n\n{{ run page/hello.py }}\n\n{{ run page/other.py }}\n")
    scratch.write("snippets/page/other.py", "print('other')\n")
    scratch.write("snippets/page/other.out", "other\n")
    assert scratch.build()[0] == 0
    code, log = scratch.build(force=True)  # a real build (unforced, nothing changed means none)
    assert code == 0 and "snippets: 0 run, 2 from cache" in log
    scratch.write("snippets/page/other.py", "print('other')  # a comment changes the bytes\n")
    code, log = scratch.build()
    assert code == 0 and "snippets: 1 run, 1 from cache" in log


BAD_INPUTS = {
    "missing snippet": (
        "{{ run page/nope.py }}",
        None,
        "docs/index.md:3: snippets/page/nope.py:1: snippet file does not exist",
    ),
    "syntax error": (
        "{{ run page/bad.py }}",
        "x = 1\nif x\n    print(x)\n",
        "docs/index.md:3: snippets/page/bad.py:2: syntax error",
    ),
    "unexpected exception": (
        "{{ run page/bad.py }}",
        "print('start')\nraise ValueError('nope')\n",
        "docs/index.md:3: snippets/page/bad.py:2: raised an unexpected ValueError: nope",
    ),
    "timeout": (
        "{{ run page/bad.py }}",
        "# snippet: timeout 1\nwhile True: pass  # one line, so the line named is always 2\n",
        "docs/index.md:3: snippets/page/bad.py:2: timed out after 1 s",
    ),
    "malformed include": (
        "{{ run page/bad.py",
        None,
        "docs/index.md:3: malformed include '{{ run page/bad.py'",
    ),
    "declared error missing": (
        "{{ run page/bad.py }}",
        "# snippet: raises RuntimeError: boom\nprint('no boom')\n",
        "docs/index.md:3: snippets/page/bad.py:1: was declared to raise RuntimeError: boom",
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_fails_with_one_clear_message_and_keeps_the_old_site(built, case):
    scratch = built  # a good site/ built
    before = (scratch.root / "site" / "index.html").read_text()
    include, code, expected = BAD_INPUTS[case]
    if code is not None:
        scratch.write("snippets/page/bad.py", code)
    scratch.write("docs/index.md", f"# Page\n\n{include}\n")
    status, log = scratch.build()
    assert status != 0
    assert expected in log
    assert "site/ was left as it was" in log
    assert (scratch.root / "site" / "index.html").read_text() == before
    assert not list(scratch.root.glob("site.staging-*"))


def test_changed_output_fails_the_build_with_a_diff_and_reverting_the_cause_is_enough(built):
    """A failure is never cached: once the cause is reverted the build passes, no ``rm -rf .cache``
    needed (this was test_safety.py's test_a_failure_is_never_cached_so_reverting_the_cause_is_enough)."""
    scratch = built  # a good site/ built
    scratch.write("snippets/page/hello.py", "print('hello, changed')\n")
    status, log = scratch.build()
    assert status != 0
    assert "docs/index.md:5: snippets/page/hello.py:1: output differs from the approved snippets/page/hello.out" in log
    assert "    -hello\n    +hello, changed" in log  # indented: no line of a diff starts a line of the log
    scratch.write("snippets/page/hello.py", "print('hello')\n")
    code, log = scratch.build()
    assert code == 0, log


def test_serve_mode_shows_unapproved_output_with_a_warning(scratch):
    scratch.write("snippets/page/hello.py", "print('hello, changed')\n")
    status, log = scratch.build(SNIPPETS_APPROVAL="warn")
    assert status == 0, log
    html = (scratch.root / "site" / "index.html").read_text()
    assert "Output not yet approved" in html
    assert "hello, changed" in html


def test_a_build_cannot_approve_only_make_accept_can(scratch):
    """The one way to approve runs each snippet twice; a build that was asked to approve after one run
    fails at once, naming the setting, and leaves the approved file as it was."""
    scratch.write("snippets/page/hello.py", "import random\nprint(random.random())\n")
    status, log = scratch.build(SNIPPETS_APPROVAL="accept")
    assert status != 0
    assert "SNIPPETS_APPROVAL=accept: a build can only check outputs" in log and "Traceback" not in log
    assert (scratch.root / "snippets" / "page" / "hello.out").read_text() == "hello\n"


def test_execution_off_shows_code_only(scratch):
    status, log = scratch.build(SNIPPETS_EXECUTE="0")
    assert status == 0, log
    html = (scratch.root / "site" / "index.html").read_text()
    assert "snippets/page/hello.py" in html and "snippet-output" not in html


def test_serve_watches_snippets_and_reuses_one_warm_worker_across_rebuilds(scratch):
    """What `mkdocs serve` does on an edit: reload the config, rebuild in the same process."""
    with serving(scratch.root, scratch.root / "served") as served:
        plugin = served.rebuild()
        assert str(scratch.root / "snippets") in served.config.watch
        scratch.write("snippets/page/hello.py", "print('hello, edited')\n")
        assert served.rebuild() is plugin
        assert [(r.rel, r.cached) for r in plugin.engine.records] == [("page/hello.py", False)]
        assert plugin.engine.runner.workers_started == 1
        html = (scratch.root / "served" / "index.html").read_text()
        assert "hello, edited" in html and "Output not yet approved" in html


def test_a_dirty_serve_renders_again_exactly_the_pages_whose_snippets_or_settings_changed(scratch):
    """`make serve` serves with --dirty: MkDocs renders again only pages whose Markdown changed;
    the plugin adds the pages whose snippets now show something else, and every page when a
    setting changed."""
    scratch.write("docs/other.md", "# Other\n\nNo snippet here.\n")
    scratch.write("overrides/main.html", '{% extends "base.html" %}\n')
    config = (scratch.root / "mkdocs.yml").read_text()
    scratch.write("mkdocs.yml", config.replace("theme: mkdocs", "theme:\n  name: mkdocs\n  custom_dir: overrides"))
    served_dir = scratch.root / "served"
    stamp = lambda: {p: (served_dir / p).stat().st_mtime_ns for p in ("index.html", "other/index.html")}  # noqa: E731
    with serving(scratch.root, served_dir, dirty=True) as served:
        served.rebuild()
        first = stamp()
        scratch.write("snippets/page/hello.py", "print('hello, edited')\n")  # index.md itself is unchanged
        served.rebuild()
        assert "hello, edited" in (served_dir / "index.html").read_text()
        second = stamp()
        assert second["index.html"] != first["index.html"] and second["other/index.html"] == first["other/index.html"]
        served.config_file = "mkdocs.yml"  # as `mkdocs serve` reloads it: by the path it was given
        served.rebuild()  # nothing changed: nothing rendered
        assert stamp() == second
        scratch.write("mkdocs.yml", (scratch.root / "mkdocs.yml").read_text() + "site_description: new\n")
        served.rebuild()
        assert all(stamp()[p] != second[p] for p in second), "a setting changed: every page is rendered"


def test_make_accept_rewrites_expectations_from_fresh_runs(scratch):
    scratch.write("snippets/page/hello.py", "print('hello, accepted')\n")
    code, log = scratch.accept()
    assert code == 0, log
    assert "updated snippets/page/hello.out" in log
    assert (scratch.root / "snippets" / "page" / "hello.out").read_text() == "hello, accepted\n"
    assert scratch.build()[0] == 0


# A page that shows one picture twice, indented: inside a tab and inside an admonition. The worker
# imports torch once (preload), not each of the project's snippets in turn.
TABS_CONFIG = (
    MINIMAL_CONFIG.replace("preload: []", "preload: [torch]")
    + "markdown_extensions:\n  - admonition\n  - pymdownx.superfences\n"
    + "  - pymdownx.tabbed:\n      alternate_style: true\n"
)
TABS_PAGE = '# Boxes\n\n=== "Tab"\n\n    {{ run boxes/curve.py }}\n\n!!! note\n\n    {{ run boxes/curve.py }}\n'
CURVE_SNIPPET = "# snippet: curves loss\n\nloss = [2.0, 1.0]\n"


def test_a_graph_picture_shows_the_new_gradient_after_its_input_changes(scratch):
    """The picture on the built page is drawn from the run: change x, and the page's graph (its
    SVG text and its caption) and the steps listed under it, which the player steps through, show
    the new gradient, once approved; a warm build draws nothing.

    The same builds show, on a page of their own, that a picture inside a tab or an admonition stays
    a picture: pictures pass through Python-Markdown's HTML stash, so indentation cannot turn them
    into a code block or escaped text (this was test_a_picture_inside_a_tab_or_an_admonition_stays_a_picture).

    And on a third page, an example that gains a picture has no approved picture data: serve's build
    (warn) draws it from the run under the notice, which names the file ``make accept`` writes;
    ``make site`` fails (this was test_author_serve.py's
    test_a_new_picture_previews_under_the_notice_and_make_site_refuses_it). And a build draws pictures
    from their approved data, never from a ``.pictures.json`` that an include pointing outside
    ``snippets/`` would name (this was test_safety.py's test_pictures_come_only_from_inside_the_snippets_folder)."""
    scratch.write("mkdocs.yml", TABS_CONFIG)
    scratch.write("docs/boxes.md", TABS_PAGE)
    scratch.write("snippets/boxes/curve.py", CURVE_SNIPPET)
    scratch.write("docs/index.md", "# Page\n\n{{ run page/graph.py }}\n")
    scratch.write("snippets/page/graph.py", GRAPH_SNIPPET.format(x="2.0"))
    scratch.write("docs/new.md", "# New\n\n{{ run new/graph.py }}\n")
    scratch.write("snippets/new/graph.py", GRAPH_SNIPPET.replace("# snippet: graph y\n", "").format(x="2.0"))
    code, log = scratch.accept()
    assert code == 0 and not (scratch.root / "snippets/new/graph.pictures.json").exists(), log
    code, log = scratch.build()
    assert code == 0, log
    assert "pictures: 2 drawn" in log  # the graph and the curves (drawn once, shown twice)
    boxes = (scratch.root / "site" / "boxes" / "index.html").read_text()
    assert boxes.count('<figure class="snippet-picture snippet-picture-curves"') == 2
    assert "&lt;svg" not in boxes and "&lt;figure" not in boxes
    tab = boxes[boxes.index('class="tabbed-block"') :]
    assert tab.index("<figure") < tab.index('class="admonition note"')  # the first one is inside the tab
    page = (scratch.root / "site" / "index.html").read_text()
    figure = page[page.index('<figure class="snippet-picture') : page.index("</figure>")]
    assert ">x = 2</text>" in figure and ">leaf · .grad = 60</text>" in figure and "x.grad = 60" in figure
    before = steps_as_approved(scratch, page)
    code, log = scratch.build(force=True)  # the pictures come from the drawing cache: nothing is drawn
    assert code == 0 and "snippets: 0 run, 3 from cache" in log and "pictures: 0 drawn" in log

    scratch.write("snippets/page/graph.py", GRAPH_SNIPPET.format(x="3.0"))
    scratch.write("snippets/new/graph.py", GRAPH_SNIPPET.format(x="2.0"))  # its output stays the same
    code, log = scratch.build(SNIPPETS_APPROVAL="warn")
    assert code == 0, log
    new = (scratch.root / "site" / "new" / "index.html").read_text()
    assert "x.grad = 60" in new and 'class="snippet-picture-svg"' in new  # drawn from this run
    notice = new[new.index('<p class="admonition-title">Output not yet approved</p>') :]
    assert "no approved <code>snippets/new/graph.pictures.json</code> yet" in notice
    assert "writes <code>snippets/new/graph.pictures.json</code>" in notice
    assert "graph.out" not in notice[: notice.index("</div>")]  # the output itself is approved
    # a page that includes a file outside snippets/ with drawable picture data beside it
    approved = (scratch.root / "snippets/boxes/curve.pictures.json").read_text()
    scratch.write("outside.pictures.json", approved.replace("2.0", "7.0"))
    scratch.write("outside.py", "# snippet: curves loss\n\nloss = [7.0, 1.0]\n")
    scratch.write("docs/outside.md", "# Outside\n\n{{ run ../outside.py }}\n")
    code, log = scratch.build()
    assert code != 0
    assert "docs/index.md:3: snippets/page/graph.py:1: output differs from the approved snippets/page/graph.out" in log
    assert "snippets/new/graph.py:1: no approved picture data yet: snippets/new/graph.pictures.json is missing" in log
    assert "docs/outside.md:3: snippets/../outside.py:1: '../outside.py' resolves to" in log, log[-3000:]
    # every picture drawn but the graphs (labelled after their snippets; their layout's coordinates hold "7.0")
    svgs = [svg.read_text() for svg in (scratch.root / ".cache").rglob("*.svg")]
    drawn = [svg for svg in svgs if not re.search(r'aria-labelledby="pic-(page|new)-graph-\d+-title', svg)]
    assert len(svgs) - len(drawn) == 3 and drawn, svgs  # graph.py at x = 2 and x = 3, new/graph.py; the curves
    assert not any(">7<" in svg or "7.0" in svg for svg in drawn), drawn
    (scratch.root / "docs/outside.md").unlink()
    code, log = scratch.accept()
    assert code == 0, log
    assert '"grad": "78"' in (scratch.root / "snippets/page/graph.pictures.json").read_text()
    code, log = scratch.build()
    assert code == 0, log
    page = (scratch.root / "site" / "index.html").read_text()
    assert ">leaf · .grad = 78</text>" in page and "x.grad = 78" in page and ".grad = 60" not in page
    after = steps_as_approved(scratch, page)
    assert before != after and before[-1] != after[-1]  # the leaf's .grad moved with x


def steps_as_approved(scratch, page: str) -> list[str]:
    """The steps the page lists under the graph light up what the approved data says, and their
    sentences hold its numbers (the player shows each item's text as the step's sentence); returns
    the sentences."""
    want = expected(approved("page/graph", scratch.root / "snippets"))
    listed = listed_steps(page, figure_id("page/graph"))
    assert len(listed) == len(want) >= 3, listed
    for number, (seen, step) in enumerate(zip(listed, want, strict=True), 1):
        assert {k: sorted(seen[k]) for k in ("node", "in", "out")} == {
            k: sorted(step[k]) for k in ("node", "in", "out")
        }, number
        assert [w for w in step["words"] if w not in seen["text"]] == [], (number, seen["text"])
    return [seen["text"] for seen in listed]


BAD_CONFIGS = {  # mkdocs.yml as written -> what every command says of it, after its own prefix
    "bad YAML": (
        "site_name: x\nplugins: [\n",
        "mkdocs.yml: MkDocs encountered an error parsing the configuration file",
    ),
    "no plugin": ("site_name: x\n", "mkdocs.yml: does not list the snippet-runner plugin"),
}
COMMANDS = {  # python -m ... -> (its exit code, its prefix)
    ("snippet_runner", "site"): (1, "error: "),
    ("snippet_runner", "accept"): (1, "error: "),
    ("snippet_runner", "verify"): (2, "verify: "),
    ("snippet_runner.drift", "2.13.0", "--python", sys.executable): (2, "drift: "),
}


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_a_broken_mkdocs_yml_stops_every_command_with_one_message_and_keeps_the_old_site(built, case):
    """mkdocs.yml is input like a page: YAML MkDocs cannot parse, or a config without the plugin,
    gives `make site`, `make accept`, `make verify` and `make drift` one line naming the file, not a
    traceback of the engine (drift says so before it would install a torch)."""
    before = (built.root / "site" / "index.html").read_text()
    text, expected = BAD_CONFIGS[case]
    built.write("mkdocs.yml", text)
    for command, (code, prefix) in COMMANDS.items():
        status, out, err = built.run_split("-m", *command)
        assert status == code and err.startswith(prefix) and "Traceback" not in out + err, (command, out, err)
        assert expected in err.splitlines()[0], (command, err)
    assert (built.root / "site" / "index.html").read_text() == before
