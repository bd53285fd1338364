"""A collection's format may be one a track brings (core.extension_points.collection_formats: TREC RAG's
"msmarco-v2.1-segmented", 22 characters): the choices are read from corpus.formats when asked, and the name may
be longer."""

import corpus.formats
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("corpus", "0004_search_rum"),
    ]

    operations = [
        migrations.AlterField(
            model_name="collection",
            name="format",
            field=models.CharField(choices=corpus.formats.format_choices, max_length=40),
        ),
    ]
