"""Where PostgreSQL has the RUM access method (Debian/PGDG package postgresql-NN-rum), full-text search ranks
inside the index: RUM keeps each lexeme's positions, so `ORDER BY vector <=> query LIMIT 20` reads the top of the
ranking without fetching every match's tsvector from the table, and checks phrases from the index. The shared GIN
index gives way to one RUM index per collection (corpus.search_rum, which build_index creates from then on).
Without RUM the GIN index stays; corpus.search reads which is there."""

from django.db import migrations


def to_rum(apps, schema_editor):
    conn = schema_editor.connection
    if conn.vendor != "postgresql":
        return
    with conn.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'rum'")
        if cur.fetchone() is None:
            return
        cur.execute("CREATE EXTENSION IF NOT EXISTS rum")
        cur.execute("SELECT DISTINCT collection_id FROM corpus_searchentry")
        for (pk,) in cur.fetchall():  # the same index as corpus.search_rum.create
            cur.execute(
                f"CREATE INDEX IF NOT EXISTS corpus_search_rum_{int(pk)} ON corpus_searchentry "
                f"USING rum (vector rum_tsvector_ops) WHERE collection_id + 0 = {int(pk)}"
            )
        cur.execute("DROP INDEX IF EXISTS corpus_search_vector")


def to_gin(apps, schema_editor):
    conn = schema_editor.connection
    if conn.vendor != "postgresql":
        return
    with conn.cursor() as cur:
        cur.execute("CREATE INDEX IF NOT EXISTS corpus_search_vector ON corpus_searchentry USING gin (vector)")
        cur.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE %s", [r"corpus\_search\_rum\_%"])
        for (name,) in cur.fetchall():
            cur.execute(f'DROP INDEX IF EXISTS "{name}"')


class Migration(migrations.Migration):
    dependencies = [("corpus", "0003_search_index")]

    operations = [migrations.RunPython(to_rum, to_gin)]
