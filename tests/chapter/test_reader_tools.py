"""The reader's tools (issue 20): glossary tooltips, the cheat sheet's error table, "predict, then
run", the legend under every graph picture, interview answers written once, and the nav's end.
Expected values come from the files the site is built from (the approved outputs, the glossary's
abbreviation file, the shared answers), never from numbers typed here."""

import html
import re

import yaml
from real_chapter import DOCS, ROOT, SNIPPETS


def nav_pages() -> list[str]:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)

    def walk(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from walk(value) if isinstance(value, list) else [value]

    return list(walk(config["nav"]))


def html_path(site, page: str):
    return site / (page.rsplit(".", 1)[0] + ".html")


INCLUDES = ROOT / "includes"
ABBREVIATION = re.compile(r"^\*\[(?P<term>[^\]]+)\]:\s*(?P<definition>.+)$")


def abbreviations() -> dict[str, str]:
    lines = (INCLUDES / "abbreviations.md").read_text().splitlines()
    return {m["term"]: m["definition"] for m in map(ABBREVIATION.match, lines) if m}


def test_the_abbreviation_file_is_appended_to_every_page_with_missing_files_an_error():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    extensions = {next(iter(e)) if isinstance(e, dict) else e: e for e in config["markdown_extensions"]}
    assert "abbr" in extensions
    snippets = extensions["pymdownx.snippets"]["pymdownx.snippets"]
    assert snippets["check_paths"] == "true" and snippets["auto_append"] == ["abbreviations.md"]
    assert abbreviations(), "no *[term]: definition lines"


def test_glossary_terms_show_as_tooltips_with_their_definitions(built_site):
    terms = abbreviations()
    for term in ["leaf", "saved tensor", "upstream gradient", "seed gradient", "Jacobian", "vector-Jacobian product"]:
        assert term in terms, term
    shown = {}
    for page in built_site.glob("*.html"):
        for title, text in re.findall(r'<abbr title="([^"]*)">([^<]*)</abbr>', page.read_text()):
            shown.setdefault(text, set()).add(html.unescape(title))
    for term, definition in terms.items():
        if term in shown:
            assert shown[term] == {definition}, term
    glossary = html_path(built_site, "glossary.md").read_text()
    # Every glossary entry's term appears as a tooltip somewhere on the site, and the glossary
    # page defines the terms that live in code (no tooltip inside code spans).
    missing = [
        t
        for t in ["leaf", "saved tensor", "upstream gradient", "Jacobian", "vector-Jacobian product"]
        if t not in shown
    ]
    assert missing == []
    headings = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<h2[^>]*>(.*?)</h2>", glossary, re.S)]
    for heading in ["Leaf", "Backward node", "AccumulateGrad", "Saved tensor", "seed gradient", "Jacobian"]:
        assert any(heading.lower() in h.lower() for h in headings), heading
    # grad_fn is defined under "Backward node", not in a heading of its own: search sends a reader
    # looking for grad_fn to the page that teaches it (tests/browser/test_search.py).
    assert "<code>grad_fn</code>" in glossary
    # No tooltip inside code or math: the abbreviation pass leaves them alone.
    for page in built_site.glob("*.html"):
        for block in re.findall(r"<code>(.*?)</code>", page.read_text(), re.S):
            assert "<abbr" not in block, page.name


ERROR_ROW = re.compile(r"^\| `(?P<message>[^`]+)` \|", re.M)


def approved_lines() -> list[str]:
    return [line for out in SNIPPETS.rglob("*.out") for line in out.read_text().splitlines()]


def cheat_sheet_errors() -> list[str]:
    text = (DOCS / "cheat-sheet.md").read_text()
    table = text.split("## Error messages and their fixes", 1)[1].split("\n## ", 1)[0]
    return ERROR_ROW.findall(table)


def test_every_error_in_the_cheat_sheet_is_printed_by_an_approved_run():
    messages = cheat_sheet_errors()
    assert messages
    lines = approved_lines()
    for message in messages:
        assert any(message in line for line in lines), f"no approved output prints {message!r}"


def test_every_error_a_snippet_is_declared_to_raise_is_in_the_cheat_sheet():
    messages = cheat_sheet_errors()
    declared = [p for p in SNIPPETS.rglob("*.py") if re.search(r"^# snippet: raises ", p.read_text(), re.M)]
    assert declared
    for script in declared:
        out = script.with_suffix(".out").read_text().splitlines()
        raised = next(line for line in reversed(out) if re.match(r"^\w+(Error|Exception|Warning)\b", line))
        assert any(raised.startswith(message) for message in messages), f"{script.name}: {raised[:80]}"


PREDICT = re.compile(r'\{\{ run (?P<rel>\S+) predict="(?P<question>[^"]+)" \}\}')


def test_predict_then_run_folds_the_output_under_its_question(built_site):
    found = [(page, m) for page in DOCS.glob("*.md") for m in PREDICT.finditer(page.read_text())]
    assert len(found) >= 8, len(found)
    for page, match in found:
        built = html_path(built_site, page.name).read_text()
        question = html.escape(match["question"], quote=False)
        folded = re.search(
            rf'<details class="question">\s*<summary>Predict, then run: {re.escape(question)}</summary>(.*?)</details>',
            built,
            re.S,
        )
        assert folded, f"{page.name}: {match['question']}"
        output = (SNIPPETS / match["rel"]).with_suffix(".out").read_text().splitlines()[0]
        assert html.escape(output, quote=False).strip() in folded[1], page.name


def test_every_graph_picture_links_to_the_legend(built_site):
    pictures = 0
    for page in nav_pages():
        if not page.endswith(".md") or page == "graph-legend.md":
            continue
        text = html_path(built_site, page).read_text()
        for figure in re.finditer(r'<figure class="snippet-picture snippet-picture-graph"', text):
            pictures += 1
            section = re.split(r"<h[23]", text[figure.end() :], maxsplit=1)[0]
            assert 'href="graph-legend.html"' in section, f"{page}: a graph picture without a link to the legend"
    assert pictures >= 10


def test_interview_answers_are_written_once_and_shown_on_two_pages(built_site):
    answers = sorted((INCLUDES / "answers").glob("*.md"))
    interview = (DOCS / "interview-questions.md").read_text()
    assert interview.count("??? question") == len(answers) == 8
    for answer in answers:
        name = f'"answers/{answer.name}'
        pages = [p.name for p in DOCS.glob("*.md") if name in p.read_text()]
        assert "interview-questions.md" in pages and len(pages) >= 2, (answer.name, pages)
        first = re.sub(r"<!--.*?-->", "", answer.read_text(), flags=re.S).strip().split("\n\n")[0]
        words = re.sub(r"[`*]", "", first.split("\n")[0]).split()[:6]
        for page in pages:
            shown = re.sub(r"<[^>]+>", "", html_path(built_site, page).read_text())
            assert " ".join(words) in html.unescape(shown), (answer.name, page)
    # No topic page keeps an answer of its own beside the shared ones.
    for page in DOCS.glob("*.md"):
        for body in re.findall(
            r'^\?\?\? question "Interview question[^"]*"\n((?:    .*\n|\n)*)', page.read_text(), re.M
        ):
            assert all(line.strip().startswith("--8<--") for line in body.splitlines() if line.strip()), page.name


def test_which_pytorch_and_about_this_edition_end_the_navigation():
    pages = nav_pages()
    assert pages[-2:] == ["about-this-edition.md", "which-pytorch.md"]
    for page in ["glossary.md", "cheat-sheet.md", "graph-legend.md"]:
        assert page in pages


def test_teaching_pages_link_to_pytorchs_documentation_without_loading_from_it(built_site):
    for page in ["computational-graph.md", "retain-graph.md", "gradient-debugging.md", "zeroing-gradients.md"]:
        text = html_path(built_site, page).read_text()
        assert re.search(r'<a [^>]*href="https://docs\.pytorch\.org/', text), page
        assert not re.search(r'<(?:script|link|img|iframe)[^>]+(?:src|href)="https://docs\.pytorch', text), page
