"""The claims record (dev/claims.md) names, beside each claim, the run that shows it and the test
that tries to break it. A run or a test that is renamed or deleted leaves the claim unbacked
without anyone noticing, so every name the record gives must exist."""

import re

from real_chapter import ROOT, SNIPPETS

RECORD = ROOT / "dev" / "claims.md"
TEST_NAME = re.compile(r"(tests/chapter/\w+\.py)::(\w+)")
RUN_NAME = re.compile(r"`([a-z_]+/[a-z_0-9]+\.py)`")


def test_every_counter_example_test_the_record_names_exists():
    record = RECORD.read_text(encoding="utf-8")
    named = set(TEST_NAME.findall(record))
    assert named, "the record names no test: has its format changed?"
    missing = [
        f"{path}::{name}"
        for path, name in sorted(named)
        if not (ROOT / path).exists() or f"def {name}(" not in (ROOT / path).read_text(encoding="utf-8")
    ]
    assert not missing, f"dev/claims.md names tests that do not exist: {missing}"


def test_every_run_the_record_names_exists():
    record = RECORD.read_text(encoding="utf-8")
    named = set(RUN_NAME.findall(record))
    assert named, "the record names no run: has its format changed?"
    missing = sorted(run for run in named if not (SNIPPETS / run).exists())
    assert not missing, f"dev/claims.md names runs that do not exist: {missing}"
