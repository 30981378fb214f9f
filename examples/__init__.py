"""The examples, installed as `callproof.examples`: the bundled gateway (`python -m callproof.examples.gateway
--upstream {upstream} --port {port}`), the client adapters (`--client callproof.examples.client_openai:run`, or
`python -m callproof.examples.client_openai` as a `--client-cmd` program) and their baselines (`baselines/*.txt`).
From a clone they are also `examples.*` (`python -m examples.gateway`)."""
