"""The documentation shipped with callproof (data, read with importlib.resources): `callproof docs TOPIC` prints it
on an installed callproof, which has no checkout."""
