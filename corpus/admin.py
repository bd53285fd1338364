from django.contrib import admin

from corpus.models import Collection, Document


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ["name", "format", "created_at"]
    search_fields = ["name"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["docno", "collection", "charset"]
    list_filter = ["collection"]
    search_fields = ["docno"]
    exclude = ["raw"]  # raw bytes are kept as received and never edited by hand
