"""`python -m callproof.examples.gateway --upstream URL [--upstream-dialect chat|anthropic|responses] [--port N]`."""

from .app import main

raise SystemExit(main())
