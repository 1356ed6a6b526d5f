"""The real chapter's drift records (drift/*.json) and the pages built from them."""

import re

from real_chapter import ROOT, chapter_snippets

from snippet_runner.drift import check as drift


def test_records_load_and_cover_the_newest_and_an_older_release():
    records = {r.torch: r for r in drift.load_records(ROOT)}  # raises, naming the file, on a bad one
    assert "2.15.0" in records
    assert any(drift.version_key(v) < drift.version_key("2.13.0") for v in records), sorted(records)
    for record in records.values():
        assert sum(record.data["summary"].values()) == len(record.data["snippets"])


def test_which_pytorch_page_reports_every_record(built_site):
    html = (built_site / "which-pytorch.html").read_text()
    total = len(chapter_snippets())  # examples added since a check count, as "not current"
    for record in drift.load_records(ROOT):
        identical = sum(1 for rel in record.data["snippets"] if record.result(rel) == "identical")
        assert f'id="torch-{record.torch.replace(".", "-")}"' in html
        assert f"{identical} of {total}" in html
        for rel, entry in record.data["snippets"].items():
            if entry["result"] != "identical":
                assert f"snippets/{rel}</code>: " in html, rel


def test_each_page_with_examples_names_the_torch_that_printed_them(built_site):
    line = re.compile(r'<p class="torch-line">Outputs on this page printed by PyTorch 2\.13\.0[;.]')
    for page in ["chain-rule.html", "index.html", "exercises/exercise_1_basic_gradient.html"]:
        assert line.search((built_site / page).read_text()), page
    assert "torch-line" not in (built_site / "which-pytorch.html").read_text()
