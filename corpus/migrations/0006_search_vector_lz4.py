"""Search entries' tsvectors are stored compressed with lz4 on PostgreSQL (14+), as documents' raw and text are
(0002): a load writes one per document, and lz4 compresses it in about half the CPU time of the default pglz, to
a slightly smaller size (benchmarks collection, issue 32). Values written before keep pglz until rewritten."""

from django.db import migrations


def use_lz4(apps, schema_editor):
    conn = schema_editor.connection
    if conn.vendor != "postgresql" or conn.pg_version < 140000:
        return
    with conn.cursor() as cur:
        try:
            cur.execute("SAVEPOINT corpus_vector_lz4")
            cur.execute("ALTER TABLE corpus_searchentry ALTER COLUMN vector SET COMPRESSION lz4")
            cur.execute("RELEASE SAVEPOINT corpus_vector_lz4")
        except Exception:  # a server built without lz4 keeps pglz
            cur.execute("ROLLBACK TO SAVEPOINT corpus_vector_lz4")


class Migration(migrations.Migration):
    dependencies = [("corpus", "0005_format_by_track")]
    operations = [migrations.RunPython(use_lz4, migrations.RunPython.noop)]
