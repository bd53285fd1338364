"""Raw pages and their text are stored compressed with lz4 on PostgreSQL (14+), several times faster than the
default pglz, so that loading is bound by parsing rather than by the server compressing TOAST values."""
from django.db import migrations


def use_lz4(apps, schema_editor):
    conn = schema_editor.connection
    if conn.vendor != "postgresql" or conn.pg_version < 140000:
        return
    with conn.cursor() as cur:
        try:
            cur.execute("SAVEPOINT corpus_lz4")
            cur.execute("ALTER TABLE corpus_document ALTER COLUMN raw SET COMPRESSION lz4, "
                        "ALTER COLUMN text SET COMPRESSION lz4")
            cur.execute("RELEASE SAVEPOINT corpus_lz4")
        except Exception:  # a server built without lz4 keeps pglz
            cur.execute("ROLLBACK TO SAVEPOINT corpus_lz4")


class Migration(migrations.Migration):
    dependencies = [("corpus", "0001_initial")]
    operations = [migrations.RunPython(use_lz4, migrations.RunPython.noop)]
