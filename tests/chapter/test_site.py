"""The real site, built strictly: every page reachable, and the chapter's outputs shown as real output."""

import html
import itertools
import os
import re
from pathlib import Path

import pytest
import yaml
from mkdocs.utils import meta as mkdocs_meta
from real_chapter import DOCS, ROOT

OUTPUT_BLOCK = re.compile(r'<div class="snippet-output[^"]*">(.*?)</div>', re.S)


def nav_pages() -> list[str]:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)

    def walk(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            if isinstance(value, list):
                yield from walk(value)
            else:
                yield value

    return list(walk(config["nav"]))


def html_path(site, page: str):
    """The built file of a page: ``name.html`` (the offline plugin turns directory URLs off)."""
    return site / (page.rsplit(".", 1)[0] + ".html")


def outputs_on(site, page: str) -> str:
    """The text of every real-output block on a built page, joined."""
    text = html_path(site, page).read_text()
    blocks = [re.sub(r"<[^>]+>", "", block) for block in OUTPUT_BLOCK.findall(text)]
    return html.unescape("\n".join(blocks))


def test_every_page_is_in_the_navigation_and_built(built_site):
    pages = nav_pages()
    on_disk = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(p for p in pages if p.endswith(".md")) == on_disk
    for page in pages:
        assert html_path(built_site, page).is_file(), page


# What the chapter states, and the page that must show it as real output.
CHAPTER_OUTPUTS = [
    ("first-gradient.md", "tensor(4.)"),
    ("first-gradient.md", "Before backward(): None"),
    ("first-gradient.md", "After backward():  tensor(8.)"),
    ("chain-rule.md", "tensor(60.)"),
    ("first-gradient.md", "y = 4x at x = 5:  x.grad = tensor(4.)"),
    ("first-gradient.md", "y = x³ at x = 3:  x.grad = tensor(27.)"),
    ("computational-graph.md", "tensor(60.)"),
    ("multiple-variables.md", "dz/dx = tensor(3.)"),
    ("multiple-variables.md", "dz/dy = tensor(2.)"),
    ("multiple-variables.md", "x gradient: tensor(42.)"),
    ("multiple-variables.md", "w gradient: tensor(28.)"),
    ("multiple-variables.md", "b gradient: tensor(14.)"),
    ("gradient-accumulation.md", "tensor(4.)"),
    ("gradient-accumulation.md", "tensor(8.)"),
    ("zeroing-gradients.md", "Before reset: tensor(4.)"),
    ("zeroing-gradients.md", "After reset: tensor(0.)"),
    ("training-loop.md", "Epoch 5, Loss:"),
    ("retain-graph.md", "tensor(8.)"),
    ("retain-graph.md", "RuntimeError: Trying to backward through the graph a second time"),
    ("non-scalar-outputs.md", "RuntimeError: grad can be implicitly created only for scalar outputs"),
    ("non-scalar-outputs.md", "tensor([2., 4., 6.])"),
    ("leaf-tensors.md", "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor"),
    ("leaf-tensors.md", "tensor(12.)"),
    ("linear-regression.md", "tensor(-12.)"),
    ("linear-regression.md", "tensor(-6.)"),
    ("linear-regression.md", "Step 10: Loss="),
    ("common-mistakes.md", "backward through the graph a second time"),
    ("common-mistakes.md", "grad can be implicitly created only for scalar outputs"),
    ("common-mistakes.md", "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor"),
    ("interview-questions.md", "tensor(4.)"),
]


@pytest.mark.parametrize("page, expected", CHAPTER_OUTPUTS)
def test_chapter_output_is_shown_as_real_output(built_site, page, expected):
    assert expected in outputs_on(built_site, page)


def test_tracebacks_are_trimmed_to_the_snippet(built_site):
    shown = outputs_on(built_site, "common-mistakes.md")
    assert "Traceback (most recent call last):" in shown
    assert "site-packages" not in shown and "snippet_runner" not in shown
    # ... and the output's title says so, since the reader's own terminal shows PyTorch's frames too.
    page = html.unescape(html_path(built_site, "common-mistakes.md").read_text())
    assert "Output: raises RuntimeError, as intended; traceback shows this file's frames only" in page


NOTEBOOKS = [p for p in nav_pages() if p.endswith(".ipynb")]


@pytest.mark.parametrize("page", NOTEBOOKS)
def test_exercise_notebook_page(built_site, page):
    text = html_path(built_site, page).read_text()
    name = page.rsplit("/", 1)[1]
    assert f'href="{name}" download' in text
    assert (html_path(built_site, page).parent / name).is_file()
    # One fold holds the solution's text, its code and the explanation after it: the page's last
    # heading (the explanation's) is inside it, and nothing of the solution stays outside.
    assert text.count('<details class="solution">') == 1
    fold = re.search(r'<details class="solution">.*</details>', text, re.S)
    assert fold and fold.start() < text.rindex("<h2") < fold.end()
    assert "celltag_solution" not in text[: fold.start()] + text[fold.end() :]
    assert not re.search(r'<script[^>]+src="https?://', text)
    assert "mathjax" not in text.lower()


def test_the_notebooks_stylesheet_is_one_file_linked_where_a_notebook_shows(built_site):
    """mkdocs-jupyter's template inlines its stylesheets into every notebook page; they are written
    once instead, and linked by exactly the pages that show a notebook: each notebook page and the
    print page, never a Markdown page (its rules, ``table{width:max-content}`` among them, are not
    scoped to the notebooks)."""
    from snippet_runner.markdown.notebooks import STYLESHEET

    stylesheet = (built_site / STYLESHEET).read_text(encoding="utf-8")
    assert ".jupyter-wrapper" in stylesheet and ".highlight-ipynb" in stylesheet
    linking = set()
    for page in built_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        shows = 'class="jupyter-wrapper"' in text
        assert not shows or ".jupyter-wrapper{" not in text, page  # no inline copy left
        link = f'href="{Path(os.path.relpath(built_site / STYLESHEET, page.parent)).as_posix()}"'
        if link in text:
            linking.add(page.relative_to(built_site).as_posix())
        assert (link in text) == shows, page
    notebook_pages = {html_path(built_site, page).relative_to(built_site).as_posix() for page in NOTEBOOKS}
    assert linking == notebook_pages | {"print_page.html"}


def test_no_page_loads_a_script_or_stylesheet_from_another_host(built_site):
    for page in built_site.rglob("*.html"):
        text = page.read_text()
        assert not re.search(r'<(?:script|link)[^>]+(?:src|href)="(?:https?:)?//', text), page


FOOTER_NEXT = re.compile(r'<a href="([^"]+)" class="md-footer__link md-footer__link--next"')
HAND_WRITTEN_NEXT = re.compile(r"^\*\*Next:\*\*", re.M)


def test_every_page_leads_to_the_next_page_in_the_navigation_through_the_footer(built_site):
    """Material's ``navigation.footer`` links each page to the next one in the nav; a hand-written
    "Next:" line at a page's end would repeat that link, and go stale when the nav is reordered."""
    pages = nav_pages()
    for page, following in itertools.pairwise(pages):
        built = html_path(built_site, page)
        links = FOOTER_NEXT.findall(built.read_text())
        assert len(links) == 1, f"{page} has no footer link to the next page"
        target = (built.parent / links[0]).resolve()
        target = target / "index.html" if target.is_dir() else target
        assert target == html_path(built_site, following).resolve(), f"{page}: the footer goes to {links[0]}"
    assert not FOOTER_NEXT.search(html_path(built_site, pages[-1]).read_text())
    assert "Part 3" in (DOCS / "summary.md").read_text()  # the last page of the chapter proper


def test_no_page_writes_its_own_next_link():
    written = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if HAND_WRITTEN_NEXT.search(p.read_text())]
    assert written == []


def test_every_page_opens_by_saying_what_it_teaches():
    for page in nav_pages():
        if page.endswith(".md"):
            # the page's text as MkDocs reads it: after its front matter (a `search: boost:`, say)
            text, _ = mkdocs_meta.get_data((DOCS / page).read_text())
            lines = [line for line in text.splitlines() if line.strip()]
            assert lines[0].startswith("# ") and not lines[1].startswith(("#", "{{", "```", "!!!")), page


LINK = re.compile(r'<a [^>]*href="([^"#:]*\.html)?#([^"]+)"')


def test_every_link_to_a_section_lands_on_an_existing_heading(built_site):
    # The best-practices "Shown on" column, the About page and the debugging guide link to sections;
    # a renamed heading would silently leave such a link at the top of the page.
    broken = []
    for page in nav_pages():
        built = html_path(built_site, page)
        text = built.read_text()
        for target, fragment in LINK.findall(text):
            if "__codelineno" in fragment or fragment.startswith("__"):
                continue
            target_file = (built.parent / target).resolve() if target else built
            if not target_file.is_file() or f'id="{fragment}"' not in target_file.read_text():
                broken.append(f"{page}: {target}#{fragment}")
    assert broken == []


def test_the_chapter_notes_about_the_original_live_on_one_page():
    # "Differs from the original" / "not in the original" notes belong on About this edition only.
    mentions = [
        page.relative_to(DOCS).as_posix()
        for page in DOCS.rglob("*.md")
        if re.search(r"original chapter|not in the original|differs from the original", page.read_text(), re.I)
    ]
    assert mentions == ["about-this-edition.md"], mentions


def test_about_this_edition_links_to_every_correction():
    about = (DOCS / "about-this-edition.md").read_text()
    for anchor in [
        "training-loop.md#the-complete-example",
        "leaf-tensors.md#call-retain_grad-before-backward",
        "retain-graph.md#when-a-second-pass-fails",
        "zeroing-gradients.md#zero_grad-sets-gradients-to-none-by-default",
        "gradient-debugging.md",
        "first-gradient.md#which-tensors-can-require-gradients",
        "computational-graph.md#which-operations-are-recorded",
        "training-loop.md#the-input-is-not-a-node-but-the-graph-keeps-it",
        "non-scalar-outputs.md#in-training-the-loss-is-already-a-scalar",
        "multiple-variables.md#multiple-operations-with-multiple-variables",
        "chain-rule.md#letting-autograd-find-the-60",
        "gradient-debugging.md#the-gradient-is-none",
        "first-gradient.md#one-element-is-enough",
        "first-gradient.md#what-grad-holds",
        "leaf-tensors.md#a-cast-is-not-a-leaf",
        "computational-graph.md#what-each-arrow-carries",
        # the second review of round five's new pages
        "autograd-grad.md#returned-not-accumulated",
        "custom-function.md#double-backward-checked-with-gradgradcheck",
        "vanishing-exploding.md#clipping-an-exploding-gradient",
        "in-place.md#changing-a-leaf-in-place",
        "in-place.md#when-in-place-is-harmless",
        "saving-memory.md#changing-what-is-stored",
    ]:
        assert anchor in about, anchor


# British spellings that crept in before; the site is written in American English throughout.
BRITISH = re.compile(
    r"\b(?:behaviours?|colours?|favou?rite|centred|centre|optimis(?:e|es|ed|ing|ation)|recognis(?:e|es|ed|ing)"
    r"|organis(?:e|es|ed|ing|ation)|normalis(?:e|es|ed|ing|ation)|initialis(?:e|es|ed|ing|ation)"
    r"|summaris(?:e|es|ed|ing)|visualis(?:e|es|ed|ing)|minimis(?:e|es|ed|ing)|maximis(?:e|es|ed|ing)"
    r"|analys(?:e|ed|ing)|utilis(?:e|es|ed|ing)|modelling|labelled|programme)\b",
    re.I,
)


def test_one_spelling_variety_throughout():
    found = []
    for path in [*DOCS.rglob("*.md"), *(ROOT / "snippets").rglob("*.py")]:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            found += [f"{path.relative_to(ROOT)}:{number}: {m}" for m in BRITISH.findall(line)]
    assert found == []


def test_exact_statements_stay_exact():
    # Only leaves (and non-leaves that called retain_grad()) get .grad; the backward() answers say so.
    for page, question in [
        ("interview-questions.md", "What does backward() do?"),
        ("first-gradient.md", "what does backward() do?"),
    ]:
        answer = (DOCS / page).read_text().split(question)[1].split("??? question")[0]
        # The answers are shared files included into both pages (includes/answers/).
        answer = re.sub(r'--8<-- "([^":]+)[^"]*"', lambda m: (ROOT / "includes" / m[1]).read_text(), answer)
        assert "retain_grad()" in answer and "leaf" in answer, page
    # The set_to_none default names its version; the embedding gradient is not called sparse.
    assert "Since PyTorch 2.0" in (DOCS / "zeroing-gradients.md").read_text()
    assert "gradient is sparse" not in (DOCS / "real-world.md").read_text()
    # summary.md's code does not shadow the builtin input.
    assert not re.search(r"\binput\s*=|model\(input\)", (DOCS / "summary.md").read_text())


def test_runs_that_back_the_exact_statements(built_site):
    retain_graph = outputs_on(built_site, "retain-graph.md")
    assert "y = x + 1, two passes: x.grad = tensor(2.)" in retain_graph
    assert "registered after the pass:   y.grad = None" in retain_graph
    assert "after one more pass:         y.grad = tensor(12.)" in retain_graph
    assert "layout=torch.strided" in outputs_on(built_site, "real-world.md")
    # Issue 20: each corrected statement is backed by the run beside it.
    assert "Only Tensors of floating point and complex dtype" in outputs_on(built_site, "first-gradient.md")
    assert "complex64: torch.complex64 True" in outputs_on(built_site, "first-gradient.md")
    graph = outputs_on(built_site, "computational-graph.md")
    assert "c * 2:      requires_grad False  grad_fn None" in graph
    assert "x.argmax(): requires_grad False  grad_fn None" in graph  # issue 49: not every result
    assert "x.grad: tensor(8.)" in graph  # a tensor used twice
    modes = outputs_on(built_site, "grad-modes.md")  # which results are recorded: computational-graph.md
    assert "no_grad                  requires_grad=False  is_inference=False" in modes
    assert "inference_mode           requires_grad=False  is_inference=True" in modes
    assert "same memory as y: True" in outputs_on(built_site, "detach.md")  # detach() is not a copy
    # The second review of round five: each narrowed statement is shown by the run beside it.
    assert "x.grad: None  y.grad: tensor(12.)" in outputs_on(built_site, "autograd-grad.md")
    assert "marked with @once_differentiable" in outputs_on(built_site, "custom-function.md")
    assert "AccumulateGrad  receives [8.0]" in outputs_on(built_site, "hooks.md")  # fan-out: one visit, the sum
    assert "AddmmBackward0 saved x: True" in outputs_on(built_site, "training-loop.md")
    assert "default reduction: mean" in outputs_on(built_site, "non-scalar-outputs.md")
    assert "scale.grad:  None" in outputs_on(built_site, "gradient-debugging.md")
    assert "moved.is_leaf:  False  grad_fn: ToCopyBackward0" in outputs_on(built_site, "gradient-debugging.md")
    leaf = outputs_on(built_site, "leaf-tensors.md")
    assert "cast after:  is_leaf False" in leaf and "cast before: is_leaf True" in leaf
    assert "Adam       refuses" in outputs_on(built_site, "real-world.md")
    assert "unused after step = 1.00" in outputs_on(built_site, "zeroing-gradients.md")
    # Issue 49: the statements a reviewer broke, each now shown by the run beside it.
    leaf = outputs_on(built_site, "leaf-tensors.md")
    assert "d.is_leaf: True  d.grad_fn: None" in leaf  # an operation's result can be a leaf
    assert "v.argmax(): torch.int64  requires_grad: False  is_leaf: True" in leaf
    assert "x.grad: tensor([ 1., 32., 40.])" in outputs_on(built_site, "non-scalar-outputs.md")  # v^T J
    assert "gradient tensor([   nan,    inf, 0.3536])" in outputs_on(built_site, "non-differentiable.md")
    for page, wrong in [
        ("multiple-variables.md", "splits it in two"),
        ("chain-rule.md", "records \\( u \\) and \\( y \\) as nodes"),
        ("chain-rule.md", "the two **operations**"),
        ("computational-graph.md", "is a copy"),
        ("gradient-debugging.md", "is a copy"),
        ("graph-legend.md", "the tensor at the arrow's start"),
        ("computational-graph.md", "output of the node the arrow leaves"),
        ("retain-graph.md", "Its one node"),
        ("gradient-debugging.md", "multiplies that infinity"),
        ("zeroing-gradients.md", "returning a new tensor"),
        ("training-loop.md", "not part of the graph at all"),
        ("computational-graph.md", "Every tensor produced by an operation has a `grad_fn`"),
        ("exercises/index.md", "practise"),
        ("gradient-debugging.md", "a rounding or an argmax"),
        ("gradient-debugging.md", "to find the operation that produced it. |"),
        ("non-scalar-outputs.md", 'calls it the "vector" of the product'),
        ("non-differentiable.md", "always returns a number"),
        ("computational-graph.md", "spreads from inputs to outputs"),
        ("first-gradient.md", "A **leaf** is a tensor you created yourself"),
        ("first-gradient.md", "with respect to every leaf tensor created with"),
        ("cheat-sheet.md", "adds to the `.grad` of every leaf that requires gradients"),
        # The review of 6 December 2026: general sentences one run broke (tests/chapter/test_general_claims.py).
        ("first-gradient.md", "works whenever the output holds exactly one element"),
        ("first-gradient.md", "a call that changes neither returns the tensor itself"),
        ("leaf-tensors.md", "a call that changes nothing returns the tensor itself"),
        ("computational-graph.md", "For a floating-point result, one tracked input is enough"),
        ("multiple-variables.md", "fills the `.grad` of every leaf that requires gradients. Its"),
        ("non-scalar-outputs.md", "Autograd never builds this matrix"),
        ("glossary.md", "Autograd never builds it"),
        ("glossary.md", "Only leaves that require gradients receive"),
        ("in-place.md", "Every tensor carries a version counter"),
        ("common-mistakes.md", "for an output with one element, and for"),
        ("real-world.md", "runs through every operation of the forward pass"),
    ]:
        assert wrong not in (DOCS / page).read_text(), (page, wrong)
    exercise = (ROOT / "snippets/exercises/exercise_4_gradient_accumulation.py").read_text()
    assert "does the same" not in exercise and "None" in exercise
    assert "about 300" not in (ROOT / "snippets/exercises/exercise_12_mini_training_loop.py").read_text()


def test_the_debugging_guide_demonstrates_every_symptom_and_tool(built_site):
    shown = outputs_on(built_site, "gradient-debugging.md")
    for expected in [
        "b.grad:      None",  # None
        "relu:  x.grad = tensor([0., 1.])",  # zero
        "step 2: w.grad = tensor(-32.)",  # doubled
        "a.grad:   tensor([nan, nan])",  # NaN
        "d sqrt(z) / dz at 0: tensor(inf)",  # inf
        "scores[best]: scores.grad: tensor([0., 1., 0.])",  # argmax: None, then one-hot
        "does not require grad and does not have a grad_fn",  # an error
        "gradient arriving at y: tensor(12.)",  # register_hook
        "d loss / d y = tensor(12.)",  # torch.autograd.grad
        "autograd: 0.367879   finite difference: 0.367879",  # a numerical check
        "Error detected in PowBackward0",  # set_detect_anomaly stops at the first NaN
        "under anomaly mode, d sqrt(z) / dz at 0: tensor(inf)",  # and not at an inf
    ]:
        assert expected in shown, expected
    pages = nav_pages()
    assert pages.index("gradient-debugging.md") == pages.index("common-mistakes.md") - 1
