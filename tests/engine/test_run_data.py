"""Everything from a snippet's process is data (issue 48): each field it reports is checked against its
schema where the build reads it, and a field that fails stops the build with one message naming the
snippet; what passes is escaped where it becomes HTML, SVG, the player's data or a notebook; and no
line it writes starts a line of the build's log. Each hostile snippet here runs as a build runs it
(a real worker, a fork per snippet): it rewrites what its own process reports, as a stranger's pull
request could."""

from __future__ import annotations

import json

import markdown
import pytest
from throwaway import new_build

from snippet_runner.errors import SnippetError
from snippet_runner.markdown.notebooks import to_notebook
from snippet_runner.markdown.run_lines import expand

from .test_pictures import chain_rule_data

MARKUP = 'x"><img src=x onerror=alert(1)>'
HOSTILE = MARKUP + "\n"  # a line break too: no field of a picture holds one
BOOM_NAME = 'Boom\n<img src=x onerror="alert(document.domain)">'


def _page_html(engine, rel: str) -> str:
    page = f"{{{{ run {rel} }}}}\n"
    extensions = ["attr_list", "md_in_html", "pymdownx.details", "pymdownx.highlight", "pymdownx.superfences"]
    return markdown.Markdown(extensions=extensions).convert(expand(page, "docs/p.md", engine))  # as mkdocs.yml


def test_an_exception_type_name_holding_markup_stops_the_build_naming_the_snippet(write_snippet, engine):
    """The issue's first case: ``__name__`` with a newline and an ``<img>``, under a declared
    ``raises __main__.Boom: zap`` that its qualified name satisfies. It reached the output block's title."""
    write_snippet(
        "page/boom.py",
        f"""
        # snippet: raises __main__.Boom: zap
        class Boom(Exception):
            pass

        Boom.__name__ = {BOOM_NAME!r}
        raise Boom("zap")
        """,
    )
    with pytest.raises(SnippetError) as caught:
        _page_html(engine, "page/boom.py")
    text = str(caught.value)
    assert "docs/p.md:1" in text and "snippets/page/boom.py" in text
    assert "\n<img" not in text


@pytest.mark.parametrize(
    ("declared", "setter"),
    [
        ("__main__.Boom", "Boom.__name__ = {h!r}"),
        ("__main__.Boom", "Boom.__name__ = '1abc'"),
        ("Boom", "Boom.__module__ = {h!r}"),
        ("Boom", "Boom.__qualname__ = 'A.' + {h!r}"),
    ],
)
def test_every_name_of_a_raised_exception_is_a_dotted_identifier(write_snippet, engine, declared, setter):
    """Each declaration matches the other name, so only the schema stops the run."""
    write_snippet(
        "page/names.py",
        f"""
        # snippet: raises {declared}: zap
        class Boom(Exception):
            pass

        {setter.format(h=HOSTILE)}
        raise Boom("zap")
        """,
    )
    with pytest.raises(SnippetError, match=r"snippets/page/names\.py") as caught:
        engine.run("page/names.py")
    assert "RaisedError." in str(caught.value)


def test_the_step_list_escapes_what_it_puts_in_an_attribute():
    """Behind the schema, the one place a step's ids become the player's data escapes them too."""
    from snippet_runner.pictures import draw, steps

    data = json.loads(json.dumps(chain_rule_data()).replace('"f0"', json.dumps(MARKUP)))
    data["nodes"][0]["name"] = data["title"] = MARKUP  # and the SVG: Graphviz's text, ids, and our words
    shown = steps.html(data, "p")
    assert "data-node" in shown and "<img" not in shown and "&lt;img" in shown
    assert "<img" not in draw.draw(data, "p")


GRAPH = """
import torch

w = torch.tensor(3.0, requires_grad=True)
x = torch.tensor(2.0, requires_grad=True)
u = w * x + 1
loss = u ** 2
loss.backward()
"""
CURVES = """
losses = [3.0, 2.0, 1.5]
accuracy = [0.5, 0.7, 0.9]
"""

# The snippet rewrites its own recorded pictures before its process writes them: what a stranger's
# code can always do, as it runs in that process (here through the recorder's module).
REWRITE = """
import json, sys
_record = sys.modules["snippet_runner.pictures.record"]
_results = _record.Watch.results


def _rewritten(self):
    pictures, errors = _results(self)
    for picture in pictures:
        data = picture["data"]
        nodes = data.get("nodes", [])
        function = next((n for n in nodes if n["type"] == "function"), None)
        tensor = next((n for n in nodes if n["type"] == "tensor"), None)
        steps = data.get("steps", [])
        H = {hostile!r}
        {change}
    return pictures, errors


_record.Watch.results = _rewritten
"""

GRAPH_CHANGES = {
    # the second case: an id rewritten everywhere it is used, so the graph still holds together
    "node id": "data.update(json.loads(json.dumps(data).replace('\"f0\"', json.dumps('f0\"><img src=x onerror=alert(1)>'))))",
    "node id, no markup": "data.update(json.loads(json.dumps(data).replace('\"f0\"', '\"node0\"')))",
    "function name": "function['name'] = H",
    "tensor name": "tensor['name'] = H",
    "tensor value": "tensor['value'] = H",
    "tensor grad": "tensor['grad'] = H",
    "saved name": "function['saved'][0]['name'] = H",
    "saved value": "function['saved'][0]['value'] = H",
    "edge grad": "data['edges'][1]['grad'] = H",
    "edge kind": "data['edges'][1]['kind'] = H",
    "edge to no node": "data['edges'][1]['to'] = 'f99'",
    "step node": "steps[0]['node'] = H",
    "step node, not a node": "steps[0]['node'] = 'f99'",
    "step received": "steps[0]['received'] = [H]",
    "step factor": "next(s for st in steps for s in st['sent'] if 'factor' in s)['factor'] = H",
    "step edge index": "steps[0]['sent'][0]['edge'] = 999",
    "step grad_after": "next(st for st in steps if 'leaf' in st)['grad_after'] = H",
    "root": "data['root'] = H",
    "title": "data['title'] = H",
    "a long name": "tensor['name'] = 'w' * 100_000",
    "a field more": "tensor['extra'] = 1",
    "a bool as text": "tensor['leaf'] = 'yes'",
    "another kind": "data['kind'] = 'curves'",
    "an unknown kind": "picture['kind'] = data['kind'] = 'pie'",
}
CURVES_CHANGES = {
    "series label": "data['series'][0]['label'] = H",
    "xlabel": "data['xlabel'] = H",
    "ylabel": "data['ylabel'] = H",
    "title": "data['title'] = H",
    "a value as text": "data['series'][0]['y'][0] = '3'",
    "more values than x": "data['series'][0]['y'].extend([1.0] * 10)",
    "log as text": "data['log'] = 'yes'",
    "another kind": "data['kind'] = 'graph'",
    "an unknown kind": "picture['kind'] = data['kind'] = 'pie'",
}


def _rewriting(setting: str, body: str, change: str, hostile: str = HOSTILE) -> str:
    return f"{setting}\n" + REWRITE.format(hostile=hostile, change=change) + body


@pytest.mark.parametrize(
    ("kind", "change"), [("graph", c) for c in GRAPH_CHANGES] + [("curves", c) for c in CURVES_CHANGES]
)
def test_a_picture_field_that_fails_its_schema_stops_the_build_naming_the_snippet(write_snippet, engine, kind, change):
    setting, body, changes = (
        ("# snippet: graph loss saved", GRAPH, GRAPH_CHANGES)
        if kind == "graph"
        else ('# snippet: curves losses="train <b>" accuracy', CURVES, CURVES_CHANGES)
    )
    write_snippet("page/rewrites.py", _rewriting(setting, body, changes[change]))
    with pytest.raises(SnippetError) as caught:
        _page_html(engine, "page/rewrites.py")
    text = str(caught.value)
    assert "snippets/page/rewrites.py" in text, change
    assert "reported a field the build does not accept: Picture" in text, text  # the schema, not a later failure
    assert "\n<img" not in text and "Traceback" not in text, text


@pytest.mark.parametrize(
    ("kind", "change"),
    [("graph", "data['title'] = H"), ("curves", "data['series'][0]['label'] = H")]
    + [("curves", f"data[{key!r}] = H") for key in ("title", "xlabel", "ylabel")],
)
def test_free_text_of_a_picture_is_escaped_on_the_page_and_in_the_notebook(write_snippet, engine, kind, change):
    """A title or a label may hold ``<`` (an author may write one): it is text wherever it is shown."""
    setting, body = ("# snippet: graph loss", GRAPH) if kind == "graph" else ("# snippet: curves losses", CURVES)
    write_snippet("page/text.py", _rewriting(setting, body, change, hostile=MARKUP))
    html = _page_html(engine, "page/text.py")
    assert "<img" not in html and MARKUP not in html
    notebook = json.loads(to_notebook(engine.run("page/text.py")))
    svgs = [o["data"]["image/svg+xml"] for c in notebook["cells"] for o in c.get("outputs", []) if "data" in o]
    assert svgs and not any("<img" in svg for svg in svgs)  # text/plain is text: a viewer escapes it


# -- the build's log ----------------------------------------------------------------------------------

FORGED_LOG = (
    "bad\ndocs/other.md:5: snippets/other/innocent.py:1: output differs from the approved snippets/other/innocent.out"
    "\nINFO    -  Documentation built in 0.41 seconds\rINFO    -  again"
)


@pytest.mark.parametrize(
    "code",
    [
        f"import sys\nsys.exit({FORGED_LOG!r})\n",
        f"print({FORGED_LOG!r})\nraise ValueError({FORGED_LOG!r})\n",
        f"# snippet: raises ValueError: nothing like it\nraise ValueError({FORGED_LOG!r})\n",
        f"print({FORGED_LOG!r})\n",  # output differs: its diff is the detail
    ],
)
def test_no_line_a_snippet_writes_starts_a_line_of_the_build_log(write_snippet, engine, code):
    write_snippet("page/forges_log.py", code)
    (write_snippet.snippets / "page/forges_log.out").write_text("something else\n")
    engine.approval_mode = "strict"
    with pytest.raises(SnippetError) as caught:
        expand("{{ run page/forges_log.py }}\n", "docs/p.md", engine)
    text = str(caught.value)
    assert "\r" not in text
    first, *rest = text.split("\n")
    assert first.startswith("docs/p.md:1: snippets/page/forges_log.py:")
    starting = [line for line in rest if line[:1] not in ("", " ", "\t")]
    assert not starting, starting
    assert "Documentation built" in text  # shown, indented, not dropped


# -- picture kinds, registered ------------------------------------------------------------------------


def test_each_kind_of_picture_is_one_schema_one_recorder_and_one_drawer_and_no_other_is_drawn():
    from snippet_runner.pictures import data, draw, record

    assert set(data.SCHEMAS) == set(record.RECORDERS) == set(draw.DRAWERS) == {"graph", "curves"}
    pie = {**chain_rule_data(), "kind": "pie"}
    with pytest.raises(ValueError, match="no picture of kind 'pie'"):
        draw.draw(pie)  # before, any kind but "graph" was drawn as curves, and described as one
    watch = record.Watch([("pie", 3, {"name": "y"})], {}, "x.py")
    assert watch.results() == ([], [(3, "'# snippet: pie' is no kind of picture this engine records")])


def test_what_drawing_cost_belongs_to_the_build_not_the_module(tmp_path, warm_engine):
    from snippet_runner.pictures import draw

    engine = new_build(warm_engine, "warn")
    drawer = draw.Drawer.of(engine)
    assert drawer.drawings is engine.drawings
    engine.drawings.append(0.5)
    assert draw.summary(engine.drawings) == "pictures: 1 drawn in 0.50 s, 0 from cache"
    engine.begin_build()
    assert engine.drawings == [] and not hasattr(draw, "STATS")


def test_a_warning_category_name_is_text_on_the_page_and_indented_in_the_log(write_snippet, engine):
    """Warnings reach the build as part of the output (running/terminal.py): what a category's name
    holds is shown as text, never markup, and no line of it starts a line of the log."""
    write_snippet(
        "page/warns.py",
        f"import warnings\nwarnings.warn('w', type({HOSTILE + 'INFO    -  built'!r}, (UserWarning,), {{}}))\n",
    )
    html = _page_html(engine, "page/warns.py")  # warn mode: unapproved, shown with its diff
    assert "<img" not in html and "&lt;img" in html
    (write_snippet.snippets / "page/warns.out").write_text("something else\n")
    engine.approval_mode = "strict"
    engine.begin_build()
    with pytest.raises(SnippetError) as caught:
        expand("{{ run page/warns.py }}\n", "docs/p.md", engine)
    assert "INFO    -  built" in str(caught.value)
    assert not [line for line in str(caught.value).split("\n")[1:] if line[:1] not in ("", " ")]


def test_a_build_label_taken_from_an_output_is_only_a_version_label():
    from snippet_runner.checking import comparison

    label = comparison._builds("torch 2.13.0+cpu\n", f"torch 2.13.0+cu130{MARKUP}\n")
    assert label == "2.13.0+cu130x (approved under 2.13.0+cpu)"  # letters and digits only: it ends at the quote


# The snippet rewrites the very report its process writes, after the engine's code made it.
REPORT_REWRITE = """
import json, sys
_protocol = sys.modules["snippet_runner.running.protocol"]
_dumps = _protocol.dumps


def _rewritten(message):
    data = json.loads(_dumps(message))
    data[{field!r}] = {value}
    return json.dumps(data)


_protocol.dumps = _rewritten
"""


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("picture_errors", "[[1, 'y' * 100_000]]"),
        ("error", "dict(type='ValueError', qualified='builtins.ValueError', message='x' * 100_000, line=1)"),
    ],
)
def test_what_a_run_says_in_words_is_bounded(write_snippet, engine, field, value):
    """A picture setting's message, or an exception's, is at most protocol.SAID characters (the
    child cuts it): longer, the build stops on it, naming the snippet, before any of it reaches the log."""
    write_snippet(
        "page/long_words.py", "# snippet: curves losses\n" + REPORT_REWRITE.format(field=field, value=value) + CURVES
    )
    with pytest.raises(SnippetError, match=r"snippets/page/long_words\.py") as caught:
        engine.run("page/long_words.py")
    assert len(str(caught.value)) < 5_000 and "not of its grammar" in str(caught.value)


def test_a_long_exception_message_is_cut_by_the_child_not_refused(write_snippet, engine):
    write_snippet("page/long_error.py", "# snippet: raises ValueError: xxx\nraise ValueError('x' * 50_000)\n")
    assert len(engine.run("page/long_error.py").error.message) == 10_000
