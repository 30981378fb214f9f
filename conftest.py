"""The repository's own test configuration. The callproof plugin is registered by its pytest11 entry point
only; our suite disables it (`-p no:callproof` in pyproject) and tests it explicitly with pytester."""
