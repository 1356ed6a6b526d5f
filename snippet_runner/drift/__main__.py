"""``python -m snippet_runner.drift <version>``: what ``make drift`` runs."""

import sys

from snippet_runner.drift.check import main

sys.exit(main())
