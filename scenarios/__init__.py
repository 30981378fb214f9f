"""The bundled scenario corpus (data, read with importlib.resources); see README.md here."""
