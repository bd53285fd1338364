"""QA4MRE 2012 test set (seed 003): topics > reading tests (one document each) > questions with five answers.

Plain data, no Django import. Every problem is reported with its line (lxml's sourceline).

Idents are built from the file's ids so that they stay unique even where an id is only unique inside its
parent: topic "1", reading test "1.2" (t_id.r_id), question "1.2.7" (t_id.r_id.q_id).
Kinds: "topic", "reading-test", "question".

The gold standard has the same shape with correct="Yes" on the right answer; it is read by the same walker
(`walk(..., gold=True)`, see formats.gold) so the two files can never be parsed differently.
"""

from typing import Any

from lxml import etree
from lxml.etree import _Element

from pooling.formats.base import ParsedTopic, Problem

TOPIC, READING_TEST, QUESTION = "topic", "reading-test", "question"
FILE_LABEL = "Test set (QA4MRE XML: topics, reading tests, questions)"  # the topic upload's label
# A question's element: the guidelines' prose writes <question>; the 2012 test sets and gold standards CLEF
# distributed write <q q_id="…"> (with the same <q_str> and <answer a_id> inside). Both are read alike.
QUESTION_TAGS = ("question", "q")
ANSWER_IDS = ("1", "2", "3", "4", "5")


def parse_xml(data: bytes, problems: list[Problem]) -> _Element | None:
    """The root element of `data`, or None after adding the syntax error to `problems`.

    Entities are not resolved and nothing is fetched: the file is untrusted."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True, remove_pis=True, huge_tree=True
    )
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        problems.append(Problem(exc.lineno or None, f"not well-formed XML: {exc.msg}"))
        return None


def element_children(element: _Element) -> list[_Element]:
    """Child elements only (comments and processing instructions are removed by the parser anyway)."""
    return [child for child in element if isinstance(child.tag, str)]


def require_id(element: _Element, name: str, problems: list[Problem], label: str) -> str | None:
    """The stripped value of id attribute `name`, or None after reporting it missing or empty."""
    value = (element.get(name) or "").strip()
    if not value:
        problems.append(Problem(element.sourceline, f"<{label}> without its {name} attribute"))
        return None
    return value


def text_of(element: _Element) -> str:
    return "".join(element.itertext()).strip()


def walk(root: _Element, problems: list[Problem], gold: bool = False) -> list[ParsedTopic]:
    """ParsedTopics for a <test-set> tree, appending every problem found. With gold=True each question's data
    gets "correct": the a_id marked correct="Yes" (None when no answer is marked)."""
    topics: list[ParsedTopic] = []
    if root.tag != "test-set":
        problems.append(Problem(root.sourceline, f"the root element must be <test-set>, not <{root.tag!s}>"))
        return topics
    seen: dict[str, int | None] = {}
    for topic_el in element_children(root):
        if topic_el.tag != TOPIC:
            problems.append(Problem(topic_el.sourceline, f"unexpected <{topic_el.tag!s}> in <test-set>"))
            continue
        t_id = require_id(topic_el, "t_id", problems, TOPIC)
        if t_id is None:
            continue
        if _duplicate(t_id, topic_el, seen, problems, f"topic t_id={t_id}"):
            continue
        t_name = (topic_el.get("t_name") or "").strip()
        topics.append(
            ParsedTopic(
                ident=t_id, kind=TOPIC, text=t_name, line=topic_el.sourceline, data={"t_id": t_id, "t_name": t_name}
            )
        )
        tests = [el for el in element_children(topic_el) if el.tag == READING_TEST]
        for other in element_children(topic_el):
            if other.tag != READING_TEST:
                problems.append(Problem(other.sourceline, f"unexpected <{other.tag!s}> in <topic t_id={t_id}>"))
        if not tests:
            problems.append(Problem(topic_el.sourceline, f"topic t_id={t_id} has no <reading-test>"))
        for test_el in tests:
            _walk_reading_test(test_el, t_id, seen, topics, problems, gold)
    if not topics and not problems:
        problems.append(Problem(root.sourceline, "the test set holds no <topic>"))
    return topics


def _duplicate(ident: str, element: _Element, seen: dict[str, int | None], problems: list[Problem], label: str) -> bool:
    if ident in seen:
        problems.append(Problem(element.sourceline, f"{label} appears twice (first on line {seen[ident]})"))
        return True
    seen[ident] = element.sourceline
    return False


def _walk_reading_test(
    test_el: _Element,
    t_id: str,
    seen: dict[str, int | None],
    topics: list[ParsedTopic],
    problems: list[Problem],
    gold: bool,
) -> None:
    r_id = require_id(test_el, "r_id", problems, READING_TEST)
    if r_id is None:
        return
    ident = f"{t_id}.{r_id}"
    if _duplicate(ident, test_el, seen, problems, f"reading test r_id={r_id} of topic {t_id}"):
        return
    docs = [el for el in element_children(test_el) if el.tag == "doc"]
    questions = [el for el in element_children(test_el) if el.tag in QUESTION_TAGS]
    for other in element_children(test_el):
        if other.tag != "doc" and other.tag not in QUESTION_TAGS:
            problems.append(Problem(other.sourceline, f"unexpected <{other.tag!s}> in reading test {ident}"))
    d_id, doc_text = "", ""
    if len(docs) != 1:
        problems.append(
            Problem(test_el.sourceline, f"reading test {ident} must hold exactly one <doc>, found {len(docs)}")
        )
    if docs:
        d_id = (docs[0].get("d_id") or "").strip()
        if not d_id:
            problems.append(Problem(docs[0].sourceline, f"<doc> of reading test {ident} without its d_id"))
        doc_text = text_of(docs[0])
        if not gold and not doc_text:
            problems.append(Problem(docs[0].sourceline, f"the <doc> of reading test {ident} is empty"))
    if not questions:
        problems.append(Problem(test_el.sourceline, f"reading test {ident} has no <q> (or <question>)"))
    topics.append(
        ParsedTopic(
            ident=ident,
            kind=READING_TEST,
            text=f"Reading test {r_id}",
            parent=t_id,
            line=test_el.sourceline,
            data={"t_id": t_id, "r_id": r_id, "d_id": d_id, "doc": doc_text},
        )
    )
    for q_el in questions:
        _walk_question(q_el, t_id, r_id, ident, seen, topics, problems, gold)


def _walk_question(
    q_el: _Element,
    t_id: str,
    r_id: str,
    test_ident: str,
    seen: dict[str, int | None],
    topics: list[ParsedTopic],
    problems: list[Problem],
    gold: bool,
) -> None:
    q_id = require_id(q_el, "q_id", problems, str(q_el.tag))
    if q_id is None:
        return
    ident = f"{test_ident}.{q_id}"
    if _duplicate(ident, q_el, seen, problems, f"question q_id={q_id} of reading test {test_ident}"):
        return
    q_strs = [el for el in element_children(q_el) if el.tag == "q_str"]
    answer_els = [el for el in element_children(q_el) if el.tag == "answer"]
    for other in element_children(q_el):
        if other.tag not in ("q_str", "answer"):
            problems.append(Problem(other.sourceline, f"unexpected <{other.tag!s}> in question {ident}"))
    if len(q_strs) != 1:
        problems.append(
            Problem(q_el.sourceline, f"question {ident} must hold exactly one <q_str>, found {len(q_strs)}")
        )
    answers: list[dict[str, Any]]
    correct: list[tuple[int, int | None]]  # (a_id, line)
    answers, correct = [], []
    for a_el in answer_els:
        a_id = require_id(a_el, "a_id", problems, "answer")
        if a_id is None:
            continue
        if a_id not in ANSWER_IDS:
            problems.append(Problem(a_el.sourceline, f"a_id={a_id!r} of question {ident} is not within 1-5"))
            continue
        if any(a["a_id"] == int(a_id) for a in answers):
            problems.append(Problem(a_el.sourceline, f"a_id={a_id} appears twice in question {ident}"))
            continue
        answers.append({"a_id": int(a_id), "text": text_of(a_el)})
        if gold:
            mark = a_el.get("correct")
            if mark is not None:
                if mark.strip().lower() not in ("yes", "no"):
                    problems.append(
                        Problem(
                            a_el.sourceline,
                            f'correct="{mark}" on question {ident} answer {a_id}: must be "Yes" or "No"',
                        )
                    )
                elif mark.strip().lower() == "yes":
                    correct.append((int(a_id), a_el.sourceline))
    if len(answers) != len(ANSWER_IDS) and len(answers) == len(answer_els):
        problems.append(
            Problem(q_el.sourceline, f"question {ident} must offer five answers (a_id 1-5), found {len(answers)}")
        )
    if len(correct) > 1:
        problems.append(
            Problem(correct[1][1], f'question {ident} has {len(correct)} answers marked correct="Yes" (at most one)')
        )
    data: dict[str, Any] = {
        "t_id": t_id,
        "r_id": r_id,
        "q_id": q_id,
        "answers": sorted(answers, key=lambda a: a["a_id"]),
    }
    if gold:
        data["correct"] = correct[0][0] if len(correct) == 1 else None
    topics.append(
        ParsedTopic(
            ident=ident,
            kind=QUESTION,
            text=text_of(q_strs[0]) if q_strs else "",
            parent=test_ident,
            line=q_el.sourceline,
            data=data,
        )
    )


def parse_topics(data: bytes, filename: str) -> tuple[list[Problem], list[ParsedTopic]]:
    """(problems, topics) for a test-set file: topics, then each reading test followed by its questions."""
    problems: list[Problem] = []
    root = parse_xml(data, problems)
    if root is None:
        return problems, []
    topics = walk(root, problems)
    return problems, topics
