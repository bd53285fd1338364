from django.contrib import admin

from pooling.models import StaleTopic
from scoring.models import Score


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ["run", "scope", "topic", "measure", "value", "computed_at"]
    list_filter = ["scope", "measure", "run__evaluation"]
    readonly_fields = ["computed_at"]


@admin.register(StaleTopic)
class StaleTopicAdmin(admin.ModelAdmin):
    list_display = ["topic", "evaluation", "since", "changed_at"]
