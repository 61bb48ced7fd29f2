"""The schema declarations: DDL, Arrow schemas and docs/schema.md agree."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from ingest.schema import ROLLUP_TABLES, TABLES, create_all, render_docs

DOCS = Path(__file__).resolve().parent.parent / "docs" / "schema.md"


def test_ddl_matches_arrow_schemas() -> None:
    con = duckdb.connect()
    create_all(con)
    create_all(con)  # idempotent
    for table in TABLES:
        empty = con.sql(f"SELECT * FROM {table.name}").arrow().read_all()
        assert empty.schema.names == list(table.column_names), table.name
        for field, col in zip(empty.schema, table.columns, strict=True):
            # DuckDB returns strings as large or view strings; compare kinds, not widths
            if pa.types.is_string(col.arrow):
                assert (
                    pa.types.is_string(field.type)
                    or pa.types.is_large_string(field.type)
                    or pa.types.is_string_view(field.type)
                )
            else:
                assert field.type == col.arrow, (table.name, col.name, field.type)


def test_every_table_keyed_and_hand_tables_keyed_by_source_and_hand() -> None:
    for table in TABLES:
        assert set(table.key) <= set(table.column_names)
        if table in ROLLUP_TABLES:  # a rollup groups NULLs too: its key columns may be NULL
            continue
        assert all(c.required for c in table.columns if c.name in table.key), table.name


def test_docs_are_generated_from_the_declarations() -> None:
    text = DOCS.read_text()
    assert render_docs(text) == text, "run `python -m ingest.schema` to regenerate docs/schema.md"
    for table in TABLES:
        for col in table.columns:
            assert f"| `{col.name}` |" in text


def test_primary_keys_are_declared_where_the_schema_says() -> None:
    con = duckdb.connect()
    create_all(con)
    declared = {
        row[0]
        for row in con.execute(
            "SELECT table_name FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'"
        ).fetchall()
    }
    assert declared == {t.name for t in TABLES if t.primary_key}
    # the two big tables carry no index: it would outweigh the table (see ingest/schema.py)
    assert "plays" not in declared and "tricks" not in declared and "hands" in declared
