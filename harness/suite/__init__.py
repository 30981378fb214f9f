"""The bundled conformance suite: `pytest --pyargs callproof.suite --callproof-launch '...'` (or `callproof run`).

One test item per scenario x rule group, with ids such as `parallel_interleaved::identity`."""
