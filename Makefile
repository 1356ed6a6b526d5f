# The two commands a newcomer needs are `make serve` and `make test`; the rest are for authors.
# Every target first creates or refreshes .venv from requirements.txt and constraints.txt (only when they changed).
# What they need on the machine: Python 3.11 to 3.14, make, Node.js and npm. `make site` and `make test` install a
# Chromium (the PDF, the browser tests) where none is found (devtools/chromium_install.py).

# The Python .venv is made with: python3.11, else the newest python3.x up to 3.14, else python3 if it is
# one of those (tools/choose-python says why, and what to install where there is none); or the one
# named with make PYTHON=/path/to/python. An existing .venv of one of those is kept. Worked out once,
# and only when .venv is (re)made or refreshed.
BASE_PYTHON = $(eval BASE_PYTHON := $(shell tools/choose-python $(PYTHON)))$(BASE_PYTHON)
VENV   := .venv
PY     := $(VENV)/bin/python
READY  := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1
# Caches of results that depend only on their inputs live outside the checkout, as uv's and npm's do,
# so a fresh clone reuses them: mypy's (one per checkout path, so that two clones never take turns
# rewriting it) and the accessibility audit's (tests/browser/audit_cache.py).
MACHINE_CACHE := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/autograd-part2
export MYPY_CACHE_DIR ?= $(MACHINE_CACHE)/mypy/$(shell printf %s "$(CURDIR)" | sha256sum | cut -c1-16)

VENDOR := docs/assets/vendor
ASSETS := $(VENDOR)/.copied
TEST_VENDOR := tests/browser/vendor

.PHONY: serve site test lint accept verify bench bench-scale drift clean

# uv installs requirements.txt (pip installs uv: the base Python's pip, into the venv, with `pip --python`,
# so the venv needs no pip of its own, whose ensurepip was a quarter of the set-up; a base pip older
# than 22.3 or none at all, and the venv gets its own first): it links each package's files from its own cache,
# where pip unpacked every wheel again, torch's gigabyte included (a fresh clone's set-up took 40 s,
# now about 20, half of it compiling the bytecode). It compiles the bytecode, as pip did: without it every `import torch` compiled
# torch's modules again wherever PYTHONDONTWRITEBYTECODE is set. uv reads no pip configuration, so
# the places pip is told to find wheels in (`pip config list`: find-links, such as a machine's own
# copy of the CPU torch wheel) are handed to it; read before .venv exists, so from $(BASE_PYTHON)'s pip.
UV_VERSION := 0.13.9
UV := $(VENV)/bin/uv
FIND_LINKS = $(if $(BASE_PYTHON),$(shell $(BASE_PYTHON) -m pip config list 2>/dev/null | sed -n "s/^[^=]*find-links='\(.*\)'$$/\1/p" | tr ' ' '\n' | sort -u))

# An existing .venv made with another Python (one out of range, one that no longer runs, or not the
# PYTHON named) is not kept: one message says so.
MINOR := import sys; print("%d.%d" % sys.version_info[:2])

$(READY): requirements.txt constraints.txt pyproject.toml
	@test -n "$(BASE_PYTHON)" || exit 1
	@test ! -e $(VENV) || { venv=$$($(PY) -c '$(MINOR)' 2>/dev/null); base=$$($(BASE_PYTHON) -c '$(MINOR)'); \
	  test "$$venv" = "$$base" || { echo "error: $(VENV) was made with $${venv:+Python }$${venv:-a Python that no" \
	  "longer runs}, and make now uses $(BASE_PYTHON) (Python $$base): remove it (rm -rf $(VENV)) and run make" \
	  "again$${venv:+, or keep it with make PYTHON=python$$venv}" >&2; exit 1; }; }
	test -x $(PY) || $(BASE_PYTHON) -m venv --without-pip $(VENV)
	$(UV) --version 2>/dev/null | grep -q '^uv $(UV_VERSION) ' \
	  || $(BASE_PYTHON) -m pip --python $(PY) install --quiet uv==$(UV_VERSION) 2>/dev/null \
	  || { $(PY) -m ensurepip --upgrade >/dev/null && $(PY) -m pip install --quiet uv==$(UV_VERSION); }
	$(UV) pip install --quiet --python $(PY) --compile-bytecode $(addprefix --find-links ,$(FIND_LINKS)) -r requirements.txt -c constraints.txt
	$(UV) pip install --quiet --python $(PY) --no-deps --editable .
	touch $@

# Math, diagrams, the offline search shim and the DejaVu fonts come from the npm registry (package-lock.json),
# are copied into the site's own assets, and are never committed or loaded from a CDN.
# axe-core, the accessibility engine the browser tests inject into each page, comes the same way
# but goes next to those tests, never into the site.
$(ASSETS): package-lock.json
	@command -v npm >/dev/null || { echo "error: npm is not on PATH: install Node.js and npm (Debian/Ubuntu: apt-get install nodejs npm; macOS: brew install node)" >&2; exit 1; }
	npm ci --no-audit --no-fund --silent
	rm -rf $(VENDOR)
	mkdir -p $(VENDOR)/katex/contrib $(VENDOR)/mermaid $(VENDOR)/iframe-worker $(VENDOR)/dejavu
	cp node_modules/katex/dist/katex.min.css node_modules/katex/dist/katex.min.js $(VENDOR)/katex/
	cp -r node_modules/katex/dist/fonts $(VENDOR)/katex/
	cp node_modules/katex/dist/contrib/auto-render.min.js $(VENDOR)/katex/contrib/
	cp node_modules/mermaid/dist/mermaid.min.js $(VENDOR)/mermaid/
	cp node_modules/iframe-worker/shim/index.js $(VENDOR)/iframe-worker/shim.js
	cp node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf node_modules/dejavu-fonts-ttf/ttf/DejaVuSans-*Bold*.ttf \
	   node_modules/dejavu-fonts-ttf/ttf/DejaVuSans-Oblique.ttf node_modules/dejavu-fonts-ttf/ttf/DejaVuSansMono*.ttf \
	   node_modules/dejavu-fonts-ttf/LICENSE $(VENDOR)/dejavu/
	rm -rf $(TEST_VENDOR) && mkdir -p $(TEST_VENDOR)
	cp node_modules/axe-core/axe.min.js $(TEST_VENDOR)/
	touch $@

serve: $(READY) $(ASSETS)  ## serve at http://127.0.0.1:8000; rebuilds on edits, shows unapproved outputs with a warning (no print page, no PDF, no Chromium: make site)
	$(PY) -m snippet_runner serve --dev-addr 127.0.0.1:8000

site: $(READY) $(ASSETS)  ## build site/ and site/pdf/autograd-part2.pdf (replaces the old site only if all succeeds)
	$(PY) -m devtools.chromium_install
	$(PY) -m snippet_runner site

# The virtualenv (then the lint checks) and the npm packages are set up side by side.
test:  ## the whole test suite, after the lint checks (and a Chromium, installed if missing); ends with its 15 slowest steps
	$(MAKE) --no-print-directory -j2 lint $(ASSETS)
	$(PY) -m devtools.chromium_install --required
	$(PY) -m pytest -n auto --dist worksteal --durations=15

lint: $(READY)  ## ruff's lint and format checks, mypy, the package's layer contracts, actionlint on the workflow
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(VENV)/bin/actionlint

accept: $(READY)  ## re-run every snippet and approve its output; review with `git diff snippets/`
	$(PY) -m snippet_runner accept

verify: $(READY)  ## run every example here, compare with the approved outputs: make verify [WITH_PYTHON=path/to/python] [RTOL=1e-4]
	$(PY) -m snippet_runner verify $(if $(WITH_PYTHON),--python $(WITH_PYTHON)) $(if $(RTOL),--rtol $(RTOL))

bench: $(READY) $(ASSETS)  ## time cold, warm and one-edit builds against a plain build
	$(PY) -m devtools.bench

bench-scale: $(READY)  ## only the scale part: 1,000 snippets cold, overhead and CPU per snippet, peak memory
	$(PY) -m devtools.bench --scale

# Another torch in its own cached venv (.cache/drift/venv-<version>, never .venv): every example is run
# and compared, and drift/torch-<version>.json is (re)written. TORCH_INDEX: where pip finds torch.
drift: $(READY)  ## check every output under another torch: make drift TORCH=2.15.0
	@test -n "$(TORCH)" || { echo "usage: make drift TORCH=<version> [TORCH_INDEX=<pip index URL>]" >&2; exit 2; }
	$(PY) -m snippet_runner.drift $(TORCH) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))

clean:  ## remove builds and caches (keeps .venv)
	rm -rf site site.staging-* site.retired-* .cache .pytest_cache $(VENDOR) $(TEST_VENDOR) node_modules
