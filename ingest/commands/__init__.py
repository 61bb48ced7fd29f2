"""Subcommands of `shengji` that live on the ingest side: `ingest` and `export`."""
