"""`python -m callproof.harness.cli`: the `callproof` command."""

from __future__ import annotations

from . import main

raise SystemExit(main())
