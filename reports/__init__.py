"""callproof.reports: every report format, rendered from the JSON report alone (schemas/report.schema.json)."""
