"""QA4MRE 2012 gold standard: the test set's shape with correct="Yes" on the right answer of each question.

Plain data, no Django import. A question may have no answer marked (then no answer can be right); more than one
mark is an error. Checked against the loaded test set so that a gold file for another test set is refused.
"""

from collections.abc import Collection

from pooling.formats.base import Problem
from tracks.qa4mre.formats.test_set import QUESTION, parse_xml, walk


def parse_gold(
    data: bytes, filename: str, expected_questions: Collection[str] | None = None
) -> tuple[list[Problem], dict[str, int | None]]:
    """(problems, {question ident: correct a_id or None}).

    `expected_questions`: the question idents of the loaded test set; when given, every one must be in the gold
    file and the file may hold no other question."""
    problems: list[Problem] = []
    root = parse_xml(data, problems)
    if root is None:
        return problems, {}
    parsed = walk(root, problems, gold=True)
    questions = [t for t in parsed if t.kind == QUESTION]
    correct = {q.ident: q.data["correct"] for q in questions}
    if expected_questions is not None:
        expected = set(expected_questions)
        for q in questions:
            if q.ident not in expected:
                problems.append(Problem(q.line, f"question {q.ident} is not in the evaluation's test set"))
        missing = [ident for ident in expected_questions if ident not in correct]
        if missing:
            shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
            problems.append(
                Problem(
                    root.sourceline,
                    f"{len(missing)} question(s) of the test set are missing from the gold standard: {shown}",
                )
            )
    return problems, correct
