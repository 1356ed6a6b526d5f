"""The contract of a snippet, each part defined once: the table of settings (and the documentation's
tables made from it), the limits as one value on the wire, and "the same output" with its tolerance,
tried on real approved outputs perturbed in their last digits. No worker runs here."""

from __future__ import annotations

import ast
import re
from dataclasses import fields, replace
from pathlib import Path

import pytest

from snippet_runner.checking import comparison, rules
from snippet_runner.errors import SnippetError
from snippet_runner.running import protocol, settings
from snippet_runner.running import snippet as spec
from snippet_runner.running.protocol import RaisedError, RunRequest, RunResult

ROOT = Path(__file__).resolve().parents[2]


def _unindented(path: Path) -> str:
    return "\n".join(line.strip() for line in path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("doc, limits_only", [("README.md", True), ("AUTHORING.md", False)])
def test_the_documentation_tables_are_the_table_of_settings(doc, limits_only):
    """README's Confine table and AUTHORING's list of settings are :func:`settings.table`, to the byte."""
    made = settings.table(limits_only)
    assert made.strip() in _unindented(ROOT / doc), f"{doc}: paste this table in place of the old one:\n{made}"


def test_each_limit_row_is_a_field_of_limits_and_each_setting_is_parsed_from_its_row(tmp_path):
    assert [f.name for f in fields(settings.Limits)] == [s.name for s in settings.SETTINGS if s.limit]
    for row in settings.SETTINGS:
        assert row.name in spec.KNOWN  # the message for an unknown setting lists it
        if not row.limit:
            continue
        (tmp_path / "s.py").write_text(f"# snippet: {row.example}\nprint(1)\n")
        loaded = spec.load(tmp_path, "s.py")
        assert getattr(loaded.limits, row.name) == row.read(row.example.split()[1]) != row.default
        floor, ceiling = row.bounds()
        assert floor <= row.default <= ceiling


def test_a_misspelled_setting_is_recognised_by_any_name_in_the_table():
    for row in settings.SETTINGS:
        found = spec.misspelled_setting(f"# snipet {row.example}\nprint(1)\n")
        assert found is not None and f"# snippet: {row.example}" in found[1], row.name


def test_the_limits_cross_the_pipe_as_one_value_and_nothing_else_is_accepted():
    limits = settings.Limits(timeout=2.5, memory=2 * settings.GB, processes=7)
    request = RunRequest(id=1, path="/x.py", cells=((1, "print(1)\n"),), limits=limits)
    assert protocol.loads(protocol.dumps(request), RunRequest) == request
    wire = protocol.dumps(request).replace('"processes": 7', '"processes": 7, "threads": 1')
    with pytest.raises(protocol.ProtocolError, match="Limits: fields"):
        protocol.loads(wire, RunRequest)


def _result(**given) -> RunResult:
    return RunResult(**{"id": 1, "outputs": ("",), "error": None, "seconds": 0.0, "peak_rss_growth_kb": 0, **given})


def test_the_rules_are_plain_functions_of_the_snippet_and_its_result(tmp_path):
    (tmp_path / "s.py").write_text("# snippet: raises ValueError: bad\n# snippet: disk 1MB\nprint(1)\n")
    snippet = spec.load(tmp_path, "s.py")
    with pytest.raises(rules.DeclaredErrorChanged, match="declared to raise ValueError: bad but finished"):
        rules.check_exception(snippet, _result())
    raised = RaisedError("ValueError", "builtins.ValueError", "a bad value", 3)
    assert rules.check_exception(snippet, _result(error=raised)) == raised
    with pytest.raises(SnippetError, match=r"disk limit of 1MB .* '# snippet: disk 2MB' at the top of the file"):
        rules.check_limits(snippet, _result(limits=("disk",)))
    snippet = replace(snippet, limits=replace(snippet.limits, output=1024))
    with pytest.raises(
        SnippetError, match=r"output limit of 1KB; print less, or raise the limit with '# snippet: output 4KB"
    ):
        rules.check_limits(snippet, _result(outputs=("x" * 1025,)))


# -- the same output, and close ---------------------------------------------------------------------

REAL = sorted((ROOT / "snippets").rglob("*.out"))


def _in_last_digits(text: str) -> tuple[str, int]:
    """``text`` with the last digit of every number of four or more significant digits moved by one."""
    count = 0

    def move(match: re.Match) -> str:
        nonlocal count
        digits = re.sub(r"\D", "", match[0].split("e")[0].split("E")[0]).lstrip("0")
        if len(digits) < 4:
            return match[0]
        mantissa, _, exponent = match[0].partition("e")
        at = max(i for i, c in enumerate(mantissa) if c.isdigit())
        count += 1
        moved = mantissa[:at] + str((int(mantissa[at]) + 1) % 10 or 1) + mantissa[at + 1 :]
        return moved + ("e" + exponent if exponent else "")

    return comparison.NUMBER.sub(move, text), count


@pytest.mark.parametrize("path", [p for p in REAL if _in_last_digits(p.read_text())[1]], ids=lambda p: p.stem)
def test_real_outputs_moved_in_their_last_digits_are_close_within_a_tolerance_and_differ_without(path):
    approved = path.read_text(encoding="utf-8")
    moved, _ = _in_last_digits(approved)
    names = ("approved", "this run")
    assert comparison.same(approved, moved, names).kind == comparison.DIFFERS
    assert comparison.same(approved, moved, names, rtol=1e-6).kind == comparison.DIFFERS
    close = comparison.same(approved, moved, names, rtol=1e-2)
    assert close.kind == comparison.CLOSE and close.approved and close.diff  # the diff says which moved
    assert comparison.same(approved, approved, names, rtol=1e-2).kind == comparison.SAME
    worded = moved.replace("tensor", "tensr", 1) if "tensor" in moved else moved + "x"
    assert comparison.same(approved, worded, names, rtol=0.5).kind == comparison.DIFFERS  # words never pass


def test_the_build_label_rule_is_part_of_the_same_output_and_of_approval_writing(tmp_path):
    verdict = comparison.same("torch 2.13.0+cpu\n", "torch 2.13.0+cu130\n", ("a", "b"))
    assert verdict.kind == comparison.SAME and verdict.builds == "2.13.0+cu130 (approved under 2.13.0+cpu)"
    assert comparison.same("torch 2.13.0\n", "torch 2.14.0\n", ("a", "b"), rtol=0.5).kind == comparison.DIFFERS
    out = tmp_path / "x.out"
    out.write_text("torch 2.13.0+cpu\n")
    assert comparison.write(out, "torch 2.13.0+cu130\n") is False and out.read_text() == "torch 2.13.0+cpu\n"


MUTATORS = {"append", "add", "update", "clear", "pop", "popitem", "discard", "remove", "extend", "insert", "setdefault"}


def _module_state_changed(path: Path) -> list[str]:
    """Where a function of ``path`` rebinds a module's name (``global``) or changes a list, dict or set
    the module made at its top level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    made = {
        target.id
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        and isinstance(node.value, (ast.List, ast.Dict, ast.Set, ast.Call))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    found = []
    for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ast.walk(function):
            if isinstance(node, ast.Global):
                found.append(f"{path.name}:{node.lineno}: global {', '.join(node.names)}")
            elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.value, ast.Name):
                changed = (
                    node.attr in MUTATORS if isinstance(node, ast.Attribute) else not isinstance(node.ctx, ast.Load)
                )
                if changed and node.value.id in made:
                    found.append(f"{path.name}:{node.lineno}: {node.value.id} changed")
    return found


def test_no_module_keeps_state_a_build_changes():
    """What a build changes (its Node process, its scratch folders, what drawing cost) belongs to an
    object the build owns and closes, never to a module, where two builds in one process would share it."""
    package = Path(spec.__file__).resolve().parents[1]
    found = [line for path in sorted(package.rglob("*.py")) for line in _module_state_changed(path)]
    assert not found, found
