"""Drift: run every example under another torch and record, per example, what would change.

``make drift TORCH=2.15.0`` installs that torch (and the project's numpy) in a virtualenv of its own
under ``.cache/drift/``, runs every example fresh through the build's engine, classes each output
against the approved one (``RESULTS``), and writes ``drift/torch-<version>.json`` (nothing if it
fails). Each entry carries a fingerprint of the example's source and approved output, so the site
can say when it is *stale*, and the record a checksum, so a hand-edited one is caught, not shown.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import snippet_runner
from snippet_runner.checking.comparison import same
from snippet_runner.checking.engine import Engine
from snippet_runner.checking.rules import DeclaredErrorChanged
from snippet_runner.errors import SnippetError
from snippet_runner.files import write_atomic
from snippet_runner.machine import installed_version, required_version
from snippet_runner.project import Project
from snippet_runner.running import snippet as spec

# The record's layout, apart from the package's version (``engine``), so a new release reads old records.
FORMAT = 1
RECORDS_DIR = "drift"
VENVS_DIR = Path(".cache") / "drift"
# What can happen to an example under another torch, in the order the page lists them:
RESULTS = {
    "identical": "identical",
    "differs": "output differs",
    "error-changed": "declared error changed",  # it must raise; the message (or the exception) is not the approved one
    "new-error": "new error",  # it raised, hung or crashed where the approved run did not
}
VERSION = re.compile(r"^[0-9]+(?:\.[0-9]+)*(?:[a-z]+[0-9]*)?(?:\.post[0-9]+|\.dev[0-9]+)?(?:\+[A-Za-z0-9.]+)?$")
_REQUIRED = {"format", "torch", "torch_build", "cuda_available", "python", "engine", "compared_with", "summary"}
_REQUIRED |= {"snippets", "checksum"}  # the keys every record holds


class DriftError(Exception):
    """One line that says what went wrong and what to do; ``make drift`` and the build print it."""


@dataclass
class Record:
    """A record read back and checked against the project as it is now."""

    path: Path
    data: dict
    stale: set[str] = field(default_factory=set)  # examples whose source or approved output changed since
    unchecked: list[str] = field(default_factory=list)  # examples the project has now but the record lacks

    @property
    def torch(self) -> str:
        return self.data["torch"]

    def result(self, rel: str) -> str | None:
        """The class of ``rel`` under this torch, or None when it is stale or was never checked."""
        if rel in self.stale or rel not in self.data["snippets"]:
            return None
        return self.data["snippets"][rel]["result"]


def fingerprint(snippets_dir: Path, rel: str) -> dict:
    """Hashes of the example's code (and local modules) and approved output: stale when they change."""
    snippet = spec.load(snippets_dir, rel)
    source = hashlib.sha256(snippet.source.encode())
    for module in snippet.local_modules:
        source.update(module.name.encode() + b"\0" + module.read_bytes())
    try:
        approved = hashlib.sha256(snippet.expected_output_path.read_bytes()).hexdigest()
    except FileNotFoundError:
        approved = None
    return {"source_sha256": source.hexdigest(), "approved_sha256": approved}


def classify(engine: Engine, rel: str, label: str) -> dict:
    """Run ``rel`` through ``engine`` (approval mode ``warn``) and class what happened from the
    rules' own verdict: the output's comparison, or which rule the run broke."""
    snippet = spec.load(engine.snippets_dir, rel)
    approved_path = snippet.expected_output_path
    if not approved_path.is_file():
        raise DriftError(
            f"{snippet.approved_name} is missing: run `python -m snippet_runner accept {snippet.rel}` first, then record drift"
        )
    approved = approved_path.read_text(encoding="utf-8")
    try:
        outcome = engine.run(rel)
    except SnippetError as error:  # the engine's own verdict, as the build would print it
        entry: dict[str, str | list[str]] = {
            "result": "error-changed" if isinstance(error, DeclaredErrorChanged) else "new-error",
            "message": error.message,
        }
        if error.detail:
            entry["output"] = error.detail.splitlines()
        return entry
    verdict = same(approved, outcome.output, (f"{snippet.approved_name} (approved)", f"under torch {label}"))
    if verdict.approved:
        return {"result": "identical"}
    # one string per line, so the committed record reads (and diffs) like the outputs themselves
    diff = verdict.diff.splitlines()
    entry = {"result": "differs", "diff": diff}
    if outcome.error is not None:
        # It raised what it declares, but is the message still the approved one?
        line = f"{outcome.error.type}: {outcome.error.message}"
        if line not in approved:
            entry = {"result": "error-changed", "message": line, "diff": diff}
    return entry


def record(root: Path, python: str, label: str, project: Project | None = None) -> dict:
    """Run every example under ``python`` and return the record for torch ``label`` (not yet written)."""
    root = Path(root).resolve()
    project = project or Project.load(root / "mkdocs.yml")
    rels = list(project.shown())
    probe = _probe(python, load=False)
    engine = project.engine(approval="warn", cached=False, python=python)
    entries: dict[str, dict] = {}
    try:
        engine.prefetch(rels)
        for rel in rels:
            entries[rel] = {**classify(engine, rel, label), **fingerprint(project.snippets_dir, rel)}
    finally:
        engine.close()
    data = {
        "format": FORMAT,
        "torch": label,
        "torch_build": probe.get("torch"),
        "cuda_available": probe.get("cuda_available"),  # the examples run on the CPU; this says whether a GPU was there
        "python": probe["python"],
        "engine": snippet_runner.__version__,
        "compared_with": installed_version("torch"),
        "summary": {name: sum(entry["result"] == name for entry in entries.values()) for name in RESULTS},
        "snippets": dict(sorted(entries.items())),
    }
    data["checksum"] = checksum(data)
    return data


def checksum(data: dict) -> str:
    body = {key: value for key, value in data.items() if key != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def record_path(records_dir: Path, label: str) -> Path:
    return Path(records_dir) / f"torch-{label}.json"


def write_record(records_dir: Path, data: dict) -> Path:
    """Write atomically: a reader (or a crash) never sees half a record."""
    path = record_path(records_dir, data["torch"])
    write_atomic(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return path


_PROBE = """
import json, platform, sys
info = {'python': platform.python_version()}
try:
    from importlib.metadata import version
    build = version('torch')
    if '+cpu' in build and sys.argv[1] == 'read':
        info['torch'], info['cuda_available'] = build, False
    else:
        import torch
        info['torch'] = torch.__version__
        info['cuda_available'] = torch.cuda.is_available()
except Exception as e:
    info['error'] = f'{type(e).__name__}: {e}'
print(json.dumps(info))
"""


def _probe(python: str, load: bool = True) -> dict:
    """``python``'s version, torch build and CUDA; without ``load``, a ``+cpu`` build is not imported."""
    result = subprocess.run([python, "-c", _PROBE, "import" if load else "read"], capture_output=True, text=True)
    if result.returncode != 0:
        raise DriftError(f"{python} does not run: {_last_line(result.stderr)}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


def ensure_environment(root: Path, version: str, index_url: str | None = None) -> Path:
    """The Python of ``.cache/drift/venv-<version>``, with torch==version installed; made once."""
    venv = Path(root) / VENVS_DIR / f"venv-{version}"
    python = venv / "bin" / "python"
    ready = venv / ".drift-ready"
    if ready.is_file() and python.exists():
        return python
    created = not venv.exists()
    log = Path(root) / VENVS_DIR / f"pip-{version}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        if created:
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, text=True)
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"]
        numpy = required_version(root, "numpy")  # the project's: torch imports as in .venv, and only torch differs
        command = [*pip, f"torch=={version}", f"numpy=={numpy}" if numpy else "numpy"]
        if index_url:
            command += ["--index-url", index_url]
        print(f"drift: installing torch=={version} into {venv.relative_to(root)} (pip's log: {log.relative_to(root)})")
        if not index_url:
            print("drift: PyPI's Linux torch is a CUDA build: expect about 3 GB of downloads the first time")
        started = time.perf_counter()
        code, text = _run_logged(command, log)
        if code != 0:
            raise DriftError(_install_failure(version, text, log.relative_to(root)))
        probe = _probe(str(python))
        if "torch" not in probe:
            raise DriftError(
                f"torch {version} installed into {venv.relative_to(root)} but does not import: {probe['error']}"
            )
        if probe["torch"].split("+")[0] != version.split("+")[0]:
            raise DriftError(f"asked for torch {version} but pip installed {probe['torch']}")
        print(f"drift: installed torch {probe['torch']} in {time.perf_counter() - started:.0f} s")
    except BaseException:
        if created:
            shutil.rmtree(venv, ignore_errors=True)  # a half-made environment is not reused
        raise
    ready.write_text(probe["torch"] + "\n")
    return python


def _run_logged(command: list[str], log: Path) -> tuple[int, str]:
    """Run pip, keep its whole output in ``log``, and echo the lines that show progress."""
    lines = []
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert proc.stdout is not None  # stdout=PIPE
        for line in proc.stdout:
            out.write(line)
            lines.append(line)
            if line.lstrip().startswith(("Downloading", "Installing collected", "Successfully installed")):
                print("  " + line.strip()[:160], flush=True)
        code = proc.wait()
    return code, "".join(lines)


def _install_failure(version: str, text: str, log: Path) -> str:
    lines = [line.strip() for line in text.splitlines()]
    errors = [line.removeprefix("ERROR:").strip() for line in lines if line.startswith("ERROR:")]
    telling = [line for line in errors if "ResolutionImpossible" not in line]  # that one only links to pip's docs
    why = (telling or errors or [_last_line(text)])[-1]
    capped = [line for line in lines if "(constraint)" in line]
    if capped:
        why = (
            f"pip's configuration caps it ({capped[0]}; see `pip config list`). To ignore that configuration"
            f" for this environment only: PIP_CONFIG_FILE=/dev/null python -m snippet_runner.drift {version}"
        )
    return f"cannot install torch=={version}: {why}. No record was written (pip's full log: {log})."


def load_records(root: Path, records_dir: str = RECORDS_DIR, project: Project | None = None) -> list[Record]:
    """Every ``drift/torch-*.json``, checked: ``DriftError`` names the first bad one (not JSON, a wrong checksum or
    name, an example gone). Examples changed since are *stale*, missing ones *unchecked*: not fatal."""
    root = Path(root)
    folder = root / records_dir
    project = project or Project.load(root / "mkdocs.yml")
    current = list(project.shown())
    fingerprints: dict[str, dict | None] = {}  # each example's hashes, computed once for every record
    records = []
    for path in sorted(folder.glob("torch-*.json")) if folder.is_dir() else []:
        shown = path.relative_to(root).as_posix()
        redo = f"re-run `python -m snippet_runner.drift {path.stem.removeprefix('torch-')}`"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise DriftError(f"{shown}: drift record is not valid JSON ({error}); {redo}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not all(k in data for k in _REQUIRED):
            raise DriftError(f"{shown}: not a drift record of format {FORMAT}; {redo}")
        if data["checksum"] != checksum(data):
            raise DriftError(
                f"{shown}: drift record was edited by hand or is damaged (its checksum does not match its content);"
                f" {redo} instead of editing it"
            )
        if path.name != record_path(folder, data["torch"]).name:
            raise DriftError(
                f"{shown}: holds a record for torch {data['torch']}; it must be named torch-{data['torch']}.json"
            )
        entries = data["snippets"]
        if not isinstance(entries, dict) or not all(
            isinstance(e, dict)
            and e.get("result") in RESULTS
            and _lines(e.get("diff", []))
            and _lines(e.get("output", []))
            for e in entries.values()
        ):
            raise DriftError(f"{shown}: an entry has no known result ({', '.join(RESULTS)}); {redo}")
        if gone := sorted(rel for rel in entries if rel not in current):
            raise DriftError(f"{shown}: records snippets/{gone[0]}, which the site no longer runs; {redo}")
        item = Record(path, data, unchecked=[rel for rel in current if rel not in entries])
        for rel, entry in entries.items():
            if rel not in fingerprints:
                try:
                    fingerprints[rel] = fingerprint(project.snippets_dir, rel)
                except SnippetError:  # unreadable now: the build reports that itself, with the page
                    fingerprints[rel] = None
            now = fingerprints[rel]
            if now is None or any(entry.get(key) != value for key, value in now.items()):
                item.stale.add(rel)
        records.append(item)
    return sorted(records, key=lambda r: version_key(r.torch), reverse=True)


def _lines(value) -> bool:
    return isinstance(value, list) and all(isinstance(line, str) for line in value)


def version_key(label: str) -> tuple:
    return tuple(int(part) if part.isdigit() else -1 for part in re.split(r"[.+]", label))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m snippet_runner.drift",
        description="Run every example under another torch and write drift/torch-<version>.json.",
    )
    parser.add_argument("version", help="a torch release pip can install, such as 2.15.0")
    parser.add_argument("--index-url", help="where pip finds torch (a smaller CPU build, for example)")
    parser.add_argument(
        "--python",
        help="use this interpreter instead of installing torch (it must have torch); "
        "the record is named after VERSION, as given",
    )
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the project (default: here)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        if not VERSION.match(args.version):
            raise DriftError(f"TORCH must be a release number such as 2.15.0, not {args.version!r}")
        project = Project.load(root / "mkdocs.yml")  # a broken one is told before torch is installed
        python = args.python or str(ensure_environment(root, args.version, args.index_url))
        started = time.perf_counter()
        data = record(root, python, args.version, project)
        path = write_record(root / RECORDS_DIR, data)
    except (DriftError, SnippetError) as error:
        print(f"drift: {error}", file=sys.stderr)
        return 2
    print(
        f"drift: ran {len(data['snippets'])} examples under torch {data['torch_build']} in {time.perf_counter() - started:.1f} s"
    )
    print("drift: " + ", ".join(f"{n} {RESULTS[k]}" for k, n in data["summary"].items()))
    for rel, entry in data["snippets"].items():
        if entry["result"] != "identical":
            print(f"  {RESULTS[entry['result']]:<22} snippets/{rel}")
    print(f"drift: wrote {path.relative_to(root)}; the site's Which PyTorch page shows it")
    return 0
