"""Pure domain rules: validation, normalisation, redaction and temporal planning."""
