"""Real requests for QA4MRE's pages (tests/samples.py): the QA4MRE demo and the gold standard fixture. QA4MRE has
no judging pages, so no key pages."""

from django.conf import settings

from pooling.models import Evaluation, Run, Topic
from tests.samples import Route


def routes(world):
    qa4mre = Evaluation.objects.get(slug="qa4mre-2012-demo")
    q_slug = qa4mre.slug
    gold = (settings.BASE_DIR / "tests" / "fixtures" / "qa4mre" / "gold.xml").read_bytes()
    return {
        "qa4mre:overview": [Route({"slug": q_slug})],
        "qa4mre:upload_gold": [Route({"slug": q_slug}, ("POST",), files={"gold": ("gold.xml", gold)})],
        "qa4mre:results": [Route({"slug": q_slug})],
        "qa4mre:questions": [Route({"slug": q_slug})],
        "qa4mre:reading_test": [
            Route({"slug": q_slug, "ident": Topic.objects.filter(evaluation=qa4mre, kind="reading-test").first().ident})
        ],
        "qa4mre:run_report": [
            Route({"slug": q_slug, "tag": Run.objects.filter(evaluation=qa4mre, team__name="Team Alpha").first().tag})
        ],
    }


def key_pages(world):
    return {}
