from django.db.models import Count
from django.shortcuts import render

from config.roles import organizer_required
from corpus.models import Collection


@organizer_required
def collection_list(request):
    """Who: organizers. The loaded collections and their sizes."""
    collections = Collection.objects.annotate(size=Count("documents"))
    return render(request, "corpus/collection_list.html", {"collections": collections})
