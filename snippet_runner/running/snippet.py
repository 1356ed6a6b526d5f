"""Read a snippet file: its code, its ``# snippet:`` settings, its cells and the local modules it imports.

Settings are comments, so the file stays a plain script that ``python file.py`` runs unchanged:

    # snippet: raises RuntimeError: backward through the graph a second time
    # snippet: timeout 60        (and memory, output, processes, disk, shm: running/settings.py)
    # snippet: graph loss saved
    # snippet: curves losses="training loss" xlabel=epoch ylabel="loss (MSE)"

The last two ask for a picture of the run (:mod:`snippet_runner.pictures`). A plain snippet's settings sit at the top,
where the listing hides them (its numbering starts below, so line numbers still match the file); a notebook script's may
sit in their cell. A snippet must be a file inside the snippets folder, symlinks resolved. All static (``ast``): a
syntax error is reported before any worker starts.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from snippet_runner.errors import SnippetError
from snippet_runner.running.settings import BY_NAME, SETTINGS, Limits

SETTING = re.compile(r"^#\s*snippet:\s*(?P<body>.*?)\s*$")
RAISES = re.compile(r"^raises\s+(?P<type>[A-Za-z_][\w.]*)(?::\s*(?P<fragment>.+))?$")
PICTURE = re.compile(r"^(?P<kind>graph|curves)(?:\s+(?P<rest>.*))?$")
KNOWN = ", ".join(f"'{setting.example}'" for setting in SETTINGS)
CELL = re.compile(r"^# %%")


@dataclass(frozen=True)
class ExpectedError:
    """An exception the snippet must raise (``# snippet: raises``)."""

    type_name: str
    fragment: str
    line: int

    def describe(self) -> str:
        return f"{self.type_name}: {self.fragment}" if self.fragment else self.type_name


@dataclass(frozen=True)
class PictureSetting:
    """A picture to capture: "graph" or "curves", its setting's line (messages name it), JSON-ready options."""

    kind: str
    line: int
    options: dict


@dataclass(frozen=True)
class Cell:
    """A run of lines executed in one step; a plain script is one cell starting at line 1."""

    first_line: int
    source: str


def approved_rel(rel: str, suffix: str = ".out") -> str:
    """The one place that decides ``page/example.py`` is approved by ``page/example.out``, and the data
    of the pictures it shows by ``page/example.pictures.json`` (``suffix``)."""
    return rel.removesuffix(".py") + suffix


@dataclass(frozen=True)
class Snippet:
    path: Path  # absolute
    rel: str  # relative to the snippets folder, with forward slashes
    source: str
    limits: Limits = field(default_factory=Limits)
    raises: ExpectedError | None = None
    cells: tuple[Cell, ...] = ()
    local_modules: tuple[Path, ...] = field(default=())
    folder: str = "snippets"  # the snippets folder as messages name it
    pictures: tuple[PictureSetting, ...] = ()

    @property
    def expected_output_path(self) -> Path:
        return self.path.parent / Path(approved_rel(self.rel)).name

    @property
    def approved_name(self) -> str:
        """The approved output as messages name it: ``snippets/page/example.out``."""
        return f"{self.folder}/{approved_rel(self.rel)}"

    @property
    def expected_pictures_path(self) -> Path:
        return self.path.parent / Path(approved_rel(self.rel, ".pictures.json")).name

    @property
    def approved_pictures_name(self) -> str:
        return f"{self.folder}/{approved_rel(self.rel, '.pictures.json')}"

    def loc(self, line: int = 1) -> str:
        return f"{self.folder}/{self.rel}:{line}"


def load(snippets_dir: Path, rel: str, shown_as: str = "snippets") -> Snippet:
    """Parse ``snippets_dir/rel``; raise ``SnippetError`` naming ``file:line`` on any bad input."""
    location = f"{shown_as}/{rel}:1"
    path = inside(snippets_dir, rel, location, f"an include must name a file inside {shown_as}/")
    if not path.is_file():
        raise SnippetError(location, "snippet file does not exist")
    if path.suffix != ".py":
        raise SnippetError(location, "a snippet must be a .py file")
    source = read_text(path, f"{shown_as}/{rel}")
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise SnippetError(f"{shown_as}/{rel}:{exc.lineno or 1}", f"syntax error: {exc.msg}") from None
    cells = split_cells(source)
    settings = _settings(source, f"{shown_as}/{rel}", on_top=len(cells) == 1)
    modules = tuple(_local_modules(tree, path.parent, set()))
    return Snippet(path=path, rel=rel, source=source, cells=cells, local_modules=modules, folder=shown_as, **settings)


def inside(folder: Path, rel: str, location: str, rule: str) -> Path:
    """``folder/rel``, symlinks resolved, if still inside ``folder``: nothing outside is read, run or written."""
    base = Path(folder).resolve()
    path = (base / rel).resolve()
    if Path(rel).is_absolute() or not path.is_relative_to(base):
        raise SnippetError(location, f"{rel!r} resolves to {path}, outside {base}: {rule}")
    return path


def read_text(path: Path, shown: str) -> str:
    """The file as UTF-8; bytes that are not name the file, the line and the byte offset."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SnippetError(
            f"{shown}:{line}",
            f"is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} ({exc.reason}); save the file as UTF-8",
        ) from None


def _settings(source: str, shown: str, on_top: bool) -> dict:
    """The settings, each read by its row of the table (:mod:`snippet_runner.running.settings`). A plain
    snippet's (``on_top``) come before its code: the listing hides only those, and one hidden further
    down would shift every line number after it."""
    settings: dict = {}
    limits: dict = {}  # each value of its row's grammar: an int, or a float for seconds
    in_memory: dict[str, int] = {}  # memory, disk, shm -> the line that set it
    last, code_seen, below = 0, False, 0  # the last setting's line; code yet; the first setting below code
    for number, line in enumerate(source.splitlines(), start=1):
        match = SETTING.match(line.strip())
        if not match:
            code_seen = code_seen or bool(line.strip())
            continue
        below = below or number * code_seen
        body, previous_line, last = match["body"], last, number
        name, value = [*body.split(None, 1), "", ""][:2]
        row = BY_NAME.get(name.lower())
        if m := RAISES.match(body):
            settings["raises"] = ExpectedError(m["type"], (m["fragment"] or "").strip(), number)
        elif row is not None and row.limit and (amount := row.read(value.strip())) is not None:
            floor, ceiling = row.bounds()
            if not floor <= amount <= ceiling:
                raise SnippetError(
                    f"{shown}:{number}",
                    f"'# snippet: {body}' is outside what a snippet may ask for: {row.name} {row.allowed()}",
                )
            limits[row.name] = amount
            if row.name in ("memory", "disk", "shm"):
                in_memory[row.name] = number
        elif m := PICTURE.match(body):
            pictures = settings.get("pictures", ())
            previous = (
                pictures[-1] if pictures and pictures[-1].kind == m["kind"] and previous_line == number - 1 else None
            )
            options = picture_options(m["kind"], m["rest"] or "", f"{shown}:{number}", previous)
            if previous is None or options is not previous.options:  # else it continued the line above
                settings["pictures"] = (*pictures, PictureSetting(m["kind"], number, options))
        else:
            raise SnippetError(f"{shown}:{number}", f"unknown setting '# snippet: {body}' (expected {KNOWN})")
    if on_top and below:  # reported once every setting is known good
        raise SnippetError(
            f"{shown}:{below}",
            "a '# snippet:' setting must be at the top of the file, before the code:"
            " the page hides the settings there and numbers the code from the line after them",
        )
    done = settings["limits"] = Limits(**limits)
    if in_memory and done.disk + done.shm >= done.memory:
        raise SnippetError(
            f"{shown}:{max(in_memory.values())}",
            "its scratch folder (disk) and /dev/shm (shm) are kept in memory and count against its"
            f" memory limit: disk + shm must be below memory ({done.disk + done.shm:,} bytes is not below"
            f" {done.memory:,})",
        )
    return settings


# a comment meant as a setting: "# snipet:", "# Snippets:", "#snippet raises ..."
LOOKS_LIKE_SETTING = re.compile(r"^#\s*(?P<word>s\w{3,9}t?s?)\s*(?P<colon>:?)\s*(?P<body>.*?)\s*$", re.I)


def misspelled_setting(source: str) -> tuple[int, str] | None:
    """(line, message) for the first opening comment that looks like a misspelled setting: a word close
    to "snippet" (difflib's ratio >= 0.8: "snipet", "Snippets"), then a colon or a setting's word."""
    import difflib

    for number, line in enumerate(source.splitlines(), start=1):
        text = line.strip()
        if not text:
            continue
        if not text.startswith("#") or text.startswith("# %%"):
            return None  # the code has started: settings are only read above it
        if SETTING.match(text):
            continue
        match = LOOKS_LIKE_SETTING.match(text)
        if match is None:
            continue
        word, body = match["word"], match["body"]
        close = word == "snippet" or difflib.SequenceMatcher(None, word.lower(), "snippet").ratio() >= 0.8
        starts_a_setting = (body.split() or [""])[0].rstrip(":").lower() in BY_NAME
        if close and (starts_a_setting or match["colon"]) and (word != "snippet" or not match["colon"]):
            meant = f"# snippet: {body}"
            return number, f"'{text}' looks like a misspelled setting, which the build does not read; write '{meant}'"
    return None


OPTIONS = {"graph": ({"saved"}, {"stop_at", "title"}), "curves": ({"log"}, {"xlabel", "ylabel", "title", "x"})}
NAME = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?:\[:,\s*(?P<column>\d+)\])?$")


def picture_options(kind: str, rest: str, where: str, previous: PictureSetting | None = None) -> dict:
    """The options of a ``graph NAME [saved] [stop_at=NAME] [title=...]`` or ``curves NAME[="label"]
    ... [xlabel=...] [ylabel=...] [title=...] [x=NAME] [log]`` setting (``NAME[:,N]``: item N of
    each tuple; AUTHORING.md), checked statically so a typo stops the build at its line. A line
    naming nothing right below one of the same kind adds to ``previous``'s options (returned)."""
    import shlex

    try:
        words = shlex.split(rest)
    except ValueError as error:
        raise SnippetError(where, f"cannot read '# snippet: {kind} {rest}': {error}") from None
    flags, keys = OPTIONS[kind]  # the words alone, and the key=value ones
    options: dict = {"series": []} if kind == "curves" else {}
    for word in words:
        key, has_value, value = word.partition("=")
        if not has_value and key in flags:
            options[key] = True
        elif has_value and key in keys:
            if key in ("stop_at", "x") and not NAME.match(value):
                raise SnippetError(where, f"{key}= must name a variable of the snippet, not {value!r}")
            options[key] = value
        elif kind == "graph" and not has_value and NAME.match(key) and "[" not in key and "name" not in options:
            options["name"] = key
        elif kind == "curves" and (m := NAME.match(key)):
            column = None if m["column"] is None else int(m["column"])
            options["series"].append({"name": m["name"], "column": column, "label": value if has_value else key})
        else:
            allowed = sorted(flags) + [f"{k}=..." for k in sorted(keys)]
            first = "one tensor NAME" if kind == "graph" else 'NAME or NAME="label" per series'
            raise SnippetError(
                where,
                f"'{word}' is not understood in '# snippet: {kind} ...'; expected {first},"
                f" then any of {', '.join(allowed)}",
            )
    if previous is not None and "name" not in options and not options.get("series"):
        options.pop("series", None)
        previous.options.update(options)
        return previous.options
    if not options.get("name" if kind == "graph" else "series"):
        what = "the tensor whose graph to draw" if kind == "graph" else "at least one list of values"
        example = "graph loss" if kind == "graph" else "curves losses"
        raise SnippetError(where, f"'# snippet: {kind}' must name {what}: '# snippet: {example}'")
    return options


def split_cells(source: str) -> tuple[Cell, ...]:
    """Split at jupytext ``# %%`` markers; code before the first marker is a cell of its own."""
    lines = source.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if CELL.match(line)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = list(zip(starts, starts[1:] + [len(lines)]))
    return tuple(Cell(first_line=a + 1, source="".join(lines[a:b])) for a, b in bounds)


def _local_modules(tree: ast.AST, folder: Path, seen: set[Path]) -> list[Path]:
    """Files next to the snippet that it imports, followed transitively, for the cache key."""
    found: list[Path] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            for candidate in (folder / f"{top}.py", folder / top / "__init__.py"):
                if candidate.is_file() and candidate not in seen:
                    seen.add(candidate)
                    found.append(candidate)
                    try:
                        sub = ast.parse(candidate.read_bytes())
                    except (SyntaxError, ValueError):
                        continue  # the run itself reports it, with the right line
                    found.extend(_local_modules(sub, folder, seen))
    return found
