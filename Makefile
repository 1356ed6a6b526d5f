# The two commands a newcomer needs are `make serve` and `make test`; the rest are for authors.
# Every target first creates or refreshes .venv from requirements.txt (only when that file changed).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
READY  := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve site test accept bench clean

$(READY): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --editable .
	touch $@

serve: $(READY)  ## build and serve at http://127.0.0.1:8000, rebuilding on every edit
	SNIPPETS_APPROVAL=warn $(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8000

site: $(READY)  ## build site/ (only replaces the old site if the whole build succeeds)
	$(PY) -m snippet_runner site

test: $(READY)  ## the whole test suite
	$(PY) -m pytest

accept: $(READY)  ## re-run every snippet and approve its output; review with `git diff snippets/`
	$(PY) -m snippet_runner accept

bench: $(READY)  ## time cold, warm and one-edit builds against a plain build
	$(PY) -m snippet_runner.bench

clean:  ## remove builds and caches (keeps .venv)
	rm -rf site site.staging-* site.retired-* .cache .pytest_cache
