"""Demo step: a small QA4MRE 2012 evaluation (1 topic, 2 reading tests, 10 questions, 3 runs), gold loaded,
scored and released so the demo participants can open their reports. Idempotent: a second call reloads the test
set and the gold standard; the runs, frozen once the scores are released, are loaded only while it is open."""

from pathlib import Path

from django.conf import settings

from pooling.evaluations import create_evaluation, set_state
from pooling.models import Evaluation
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tracks.qa4mre.loading import load_gold

SLUG = "qa4mre-2012-demo"
FILES = Path(settings.BASE_DIR) / "tests" / "fixtures" / "qa4mre"
RUNS = [("alph12011enen.xml", "Team Alpha"), ("alph12022enen.xml", "Team Alpha"), ("beta12013enen.xml", "Team Beta")]


def load_qa4mre_demo(out):
    evaluation = Evaluation.objects.filter(slug=SLUG).first()
    created = evaluation is None
    if created:
        evaluation = create_evaluation(SLUG, "qa4mre-2012", title="QA4MRE 2012 demo (Alzheimer)")
    load_topics(evaluation, (FILES / "test_set.xml").read_bytes(), "test_set.xml")
    files = [RunFile(filename=name, data=(FILES / name).read_bytes(), team=team) for name, team in RUNS]
    for result in load_run_files(evaluation, files) if evaluation.state == Evaluation.OPEN else []:
        if result.problems:
            raise RuntimeError("\n".join(result.problems))
    load_gold(evaluation, (FILES / "gold.xml").read_bytes(), "gold.xml")
    if created:
        set_state(evaluation, Evaluation.RELEASED)
    out(f"QA4MRE demo: evaluation {SLUG} with 2 reading tests, 10 questions, {len(RUNS)} runs scored (/qa4mre/{SLUG}/)")
