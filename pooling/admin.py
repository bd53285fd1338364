from django.contrib import admin

from pooling.models import Evaluation, PoolItem, Run, Topic


@admin.register(Evaluation)
class EvaluationAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "track", "state"]
    list_filter = ["track", "state"]
    search_fields = ["slug", "title"]


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["ident", "kind", "evaluation", "position"]
    list_filter = ["evaluation", "kind"]
    search_fields = ["ident", "text"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["tag", "team", "evaluation", "priority", "is_manual"]
    list_filter = ["evaluation", "team"]
    search_fields = ["tag"]


@admin.register(PoolItem)
class PoolItemAdmin(admin.ModelAdmin):
    list_display = ["pool_id", "topic", "docid", "origin"]
    list_filter = ["evaluation", "origin"]
    search_fields = ["docid", "text", "pool_id"]
    raw_id_fields = ["sources"]
