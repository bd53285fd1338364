"""QA judging pages: a series with its questions, and instance judging one pool item at a time.

Pages are server-rendered; after the first load everything is htmx partials: the item panel (question, answer,
document frame, judgment bar) is swapped as a whole when moving on, and only the judgment bar after a save.
All writes go through tracks.qa.instance_judging (on assess.judging).
"""

from functools import lru_cache

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template import Context
from django.template.loader import get_template, render_to_string
from django.urls import get_script_prefix, get_urlconf, reverse
from django.views.decorators.http import require_POST

from assess import documents, fastsave, judging, keymap, progress
from assess.models import AnswerClass, Assignment, Judgment
from config import params, prepared
from config.auth import read_with_session
from config.roles import assessor_required
from pooling.models import PoolItem
from tracks.qa import instance_judging, questions
from tracks.qa.access import my_assignment, question_of, series_questions
from tracks.qa.panels import changed_classes_context, classes_context, workspace_context


def visible_questions(assignment):
    """A second assessor judges instances only; nugget questions are the primary's."""
    qs = series_questions(assignment)
    for q in qs:
        q.is_nugget = questions.is_nugget_question(q)
    if assignment.role == Assignment.SECONDARY:
        qs = [q for q in qs if questions.is_instance_question(q)]
    return qs


@assessor_required
def assignment_detail(request, pk):
    """Who: the assessor of this assignment only. The series' questions with progress."""
    assignment = my_assignment(request, pk)
    qs = visible_questions(assignment)
    kinds = {q.pk: q.kind for q in qs}
    done = progress.question_progress(request.user, [q.pk for q in qs], kinds, assignment.role)
    for q in qs:
        q.judged, q.total = done[q.pk]
        q.progress = progress.Progress(*done[q.pk])
        q.is_nugget = questions.is_nugget_question(q)
    series = sum((q.progress for q in qs), progress.Progress())
    series.seconds_per_item = (progress.my_time(request.user).get(assignment.topic_id) or {}).get("per_item")
    # the "next unjudged" key opens the first question with items left; with none left it has nothing to open
    first_open = next((q for q in qs if q.judged < q.total), None)
    return render(
        request,
        "qa/assignment.html",
        {
            "assignment": assignment,
            "questions": qs,
            "first_open": first_open,
            "series_progress": series,
            "closed": judging.is_closed(assignment.topic),
            "top_docs_url": _document_prefix(assignment.evaluation),
        },
    )


def _document_prefix(evaluation):
    """URL prefix that opens a docid of the top-documents list in the viewer (the evaluation's first collection)."""
    collection = evaluation.collections.order_by("name").first()
    if collection is None:
        return ""
    return reverse("corpus:document", args=[collection.name, "_"])[:-2]


@assessor_required
def question_page(request, pk, qid):
    """Who: the assessor of this assignment only. Instance judging or, for nugget questions, the nugget
    workspace (primary only)."""
    assignment = my_assignment(request, pk)
    question = question_of(assignment, qid)
    if questions.is_nugget_question(question):
        if assignment.role != Assignment.PRIMARY:
            raise Http404("nugget questions are judged by the primary assessor")
        return render(request, "qa/nuggets.html", workspace_context(request, assignment, question))
    item_id = params.optional_integer(request.GET.get("item"), "item")
    context = item_panel_context(request, assignment, question, item_id)
    return render(request, "qa/judge.html", context)


@assessor_required
def item_panel(request, pk, qid, item_id):
    """Who: the assessor of this assignment only. The item panel partial (htmx) for one pool item."""
    assignment = my_assignment(request, pk)
    question = question_of(assignment, qid)
    if item_id == 0:
        item_id = None
    return render(
        request,
        "qa/_item_panel.html",
        item_panel_context(request, assignment, question, item_id, want=request.GET.get("want")),
    )


def _next_instance_question(assignment, question):
    qs = visible_questions(assignment)
    after = [q for q in qs if (q.position, q.pk) > (question.position, question.pk)]
    return after[0] if after else None


def _next_open_question(request, assignment, question):
    """The question auto-advance goes on to once this one's last item is judged: the next of the series with items
    left to judge, wrapping round to the ones before (this one last); None when the whole series is judged."""
    qs = visible_questions(assignment)
    done = progress.question_progress(request.user, [q.pk for q in qs], {q.pk: q.kind for q in qs}, assignment.role)
    at = next((i for i, q in enumerate(qs) if q.pk == question.pk), -1)
    for q in qs[at + 1 :] + qs[: at + 1]:
        judged, total = done[q.pk]
        if judged < total:
            return q
    return None


def item_panel_context(request, assignment, question, item_id=None, want=None):
    """Everything the item panel shows. `want` = "unjudged" picks the first unjudged item at or after item_id."""
    evaluation = assignment.evaluation
    order = list(PoolItem.objects.filter(topic=question).order_by("position", "id").values_list("pk", flat=True))
    mine = dict(
        Judgment.objects.filter(topic=question, kind="instance", assessor=request.user).values_list(
            "item_id", "version"
        )
    )
    if item_id is None or item_id not in order:
        unjudged = [i for i in order if i not in mine]
        item_id = unjudged[0] if unjudged else (order[0] if order else None)
    if want == "unjudged" and item_id is not None:
        start = order.index(item_id)
        rest = [i for i in order[start:] + order[:start] if i not in mine]
        item_id = rest[0] if rest else item_id
    context = {
        "assignment": assignment,
        "question": question,
        "evaluation": evaluation,
        "total": len(order),
        "judged": len(mine),
        "next_question": _next_instance_question(assignment, question),
        "closed": judging.is_closed(question),
    }
    if assignment.role == Assignment.PRIMARY:
        context["classes_panel"] = classes_context(assignment, question)
    if item_id is None or want == "end":
        return context | {"item": None, "next_open": _next_open_question(request, assignment, question)}
    index = order.index(item_id)
    item = PoolItem.objects.select_related("topic").get(pk=item_id)
    item.evaluation = evaluation
    item.topic = question
    judgment = Judgment.objects.filter(kind="instance", item=item, assessor=request.user).first()
    base = reverse("qa:item_panel", args=[assignment.pk, question.pk, 0])[:-2]
    context |= {
        "item": item,
        "index": index + 1,
        "prev_url": f"{base}{order[index - 1]}/" if index > 0 else None,
        "next_url": f"{base}{order[index + 1]}/" if index + 1 < len(order) else None,
        "unjudged_url": f"{base}{item_id}/?want=unjudged",
        "frame_url": documents.frame_url(evaluation, item.docid, marks=(item.text,)),
        "is_nil": questions.is_nil(item),
        # how many runs returned it, not which: run identities could bias the judgment
        "run_count": item.sources.values("run_id").distinct().count(),
    }
    return context | bar_context(item, assignment.role, judgment)


_BAR_CLASSES = f"SELECT id, label FROM {AnswerClass._meta.db_table} WHERE topic_id = %(topic)s::bigint ORDER BY id"


def bar_classes(question):
    """The question's answer classes in the order they were made (ids and labels: what the bar shows). On
    PostgreSQL a prepared statement: the ORM's query (its default ordering joins the topic) cost a list save
    ~1 ms of web CPU and 0.3 ms of the database's, about a fifth of the whole save (issue 32)."""
    if not fastsave.available():
        return list(AnswerClass.objects.filter(topic=question).order_by("id"))
    rows = prepared.fetchall(_BAR_CLASSES, {"topic": question.pk})
    return [AnswerClass(id=pk, topic_id=question.pk, label=label) for pk, label in rows]


def labels_html(names, current):
    """The bar's label buttons (qa/_judge_labels.html), rendered once per set of labels and current label and
    then reused: they are the same for every item of an evaluation, and rendering them was a third of a save's
    template time (issue 32). Keyed on the compiled template too (the loader's cached one), so a template
    reloaded in development is used."""
    return _labels_html(get_template("qa/_judge_labels.html").template, names, current)


@lru_cache(maxsize=256)
def _labels_html(template, names, current):
    labels = [{"name": name, "key": keymap.number(i + 1), "current": current == name} for i, name in enumerate(names)]
    return template.render(Context({"labels": labels}))


def _label_of(value):
    label = value.get("label")
    return label if isinstance(label, str) else None  # (a stored value is checked; this keeps the key hashable)


_MARK = 918273645546372819  # an id no URL holds otherwise


@lru_cache(maxsize=16)
def _judge_url_parts(prefix, urlconf):
    head, _, tail = reverse("qa:judge", args=[_MARK]).partition(str(_MARK))
    return head, tail


def judge_url(item_id):
    """reverse("qa:judge", args=[item_id]), its text around the id found once per script prefix and URL conf:
    Django's reverse was ~25 µs of each save (issue 32). The arguments of the parts only key their cache."""
    head, tail = _judge_url_parts(get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)
    return f"{head}{int(item_id)}{tail}"


def bar_context(item, role, judgment, message=None, error=None):
    """The judgment bar: label buttons with their keys (assess.keymap: the digits), the current value, and on a
    list question (primary) the answer classes, numbered for ⇧digits: putting an answer into a class also judges
    it correct (instance_judging.assign_class), so a correct answer is one key too. `complete` tells static/qa/assess.js
    (tracks/qa/static) that the judgment needs nothing more (auto-advance may move on)."""
    question, evaluation = item.topic, item.evaluation
    value = judgment.value if judgment is not None else {}
    labels = [
        {"name": name, "key": keymap.number(i + 1), "current": value.get("label") == name}
        for i, name in enumerate(questions.labels_for(item, evaluation))
    ]
    context = {
        "item": item,
        "judge_url": judge_url(item.pk),
        "judgment": judgment,
        "version": judgment.version if judgment else 0,
        "labels": labels,
        "labels_html": labels_html(tuple(label["name"] for label in labels), _label_of(value)),
        "message": message,
        "error": error,
        "role": role,
        "classes": None,
        "complete": judgment is not None,
    }
    classed = questions.is_list_question(question) and role == Assignment.PRIMARY
    if classed:
        correct = value.get("label") == questions.class_label(evaluation)
        classes = bar_classes(question)
        for i, c in enumerate(classes, start=1):
            c.number = i
            c.current = correct and c.pk == value.get("answer_class")
        context["classes"] = classes
        context["needs_class"] = correct and value.get("answer_class") is None
        context["complete"] = judgment is not None and not context["needs_class"]
    return context


@read_with_session(fastsave.ITEM_WITH_SESSION, "item_id")  # the item is read in the session's statement
@assessor_required
@require_POST
def judge(request, item_id):
    """Who: the assessor assigned to the item's series (primary or second). Save a label, or put the item into
    an answer class (existing or new); answers with the judgment bar partial."""
    item = judging.item_to_save(request, item_id)  # (any QA track: the role below says whose it is)
    if item.my_role is None:
        raise Http404("no such pool item among your assignments")
    post = request.POST
    try:
        version = params.version(post.get("version"))
    except params.BadParameter:
        return _bar(request, item, error="the form did not say which version you saw; reload the item", status=400)
    try:
        if post.get("new_class"):
            instance_judging.create_class(
                request.user,
                item.topic,
                params.text(post.get("class_label"), "class_label"),
                item=item,
                expected_version=version,
            )
            saved = None
        elif post.get("answer_class"):
            saved = instance_judging.assign_class(
                request.user, item, params.integer(post["answer_class"], "answer_class"), version
            )
        else:
            saved = instance_judging.judge_instance(
                request.user, item, params.text(post.get("label"), "label"), version
            )
    except params.BadParameter as bad:
        return _bar(request, item, error=str(bad), status=400)
    except judging.StaleJudgment as stale:
        return _bar(request, item, judgment=stale.current, error=str(stale), status=409)
    except judging.JudgingError as refused:
        return _bar(request, item, error=str(refused), status=refused.status)
    if saved is None:
        return _bar(request, item, message="saved")
    # The classes panel lists each class's members: it changes only when this save moved the item into, out of
    # or between classes (re-rendering it after every label cost a list save several times a factoid's).
    before, after = ((value or {}).get("answer_class") for value in (saved.before, saved.judgment.value))
    return _bar(
        request,
        item,
        judgment=saved.judgment,
        message="saved" if saved.changed else "unchanged",
        classes_changed=saved.changed and before != after,
        classes_touched={before, after} - {None},
    )


_UNSET = object()


def _bar(
    request, item, judgment=_UNSET, message=None, error=None, status=200, classes_changed=True, classes_touched=()
):
    """The judgment bar; with `classes_changed`, the classes panel out of band (only the entries of the classes
    in `classes_touched`, ids, when given), so it always shows what this save left behind."""
    if judgment is _UNSET:
        judgment = Judgment.objects.filter(kind="instance", item=item, assessor=request.user).first()
    context = bar_context(item, item.my_role, judgment, message, error)
    if classes_changed and item.my_role == Assignment.PRIMARY and questions.is_list_question(item.topic):
        assignment = Assignment.objects.get(assessor=request.user, topic_id=judging.series_id(item.topic))
        changed = changed_classes_context(assignment, item.topic, classes_touched) if classes_touched else None
        if changed is not None:
            context["changed_classes_oob"] = changed
        else:
            context["classes_oob"] = classes_context(assignment, item.topic)
    # No context processors: the bar and its classes use only this context (not request, user, csrf_token or
    # messages), and running the five of them was a tenth of the partial's rendering (issue 32).
    return HttpResponse(render_to_string("qa/_judge_bar.html", context), status=status)
