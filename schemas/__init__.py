"""JSON Schemas shipped with callproof (data, read with importlib.resources)."""
