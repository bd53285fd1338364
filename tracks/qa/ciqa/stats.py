"""ciQA summaries over plain data (no Django): the questionnaire's mean ratings per interaction (seed 001 Figure 4,
'Mean assessors' ratings for each interaction') and the initial-versus-final table (seed 001 Table 7)."""

from dataclasses import dataclass


def mean_ratings(answers, scale_ids):
    """`answers` is [(interaction, question id, value text)]; returns {interaction: {question id: (mean, n)}}
    over the answers that are ratings (1..5) of the scale questions; unanswered ones do not count."""
    sums: dict = {}
    for interaction, qid, value in answers:
        if qid not in scale_ids or not str(value).isdigit():
            continue
        total, n = sums.setdefault(interaction, {}).get(qid, (0, 0))
        sums[interaction][qid] = (total + int(value), n + 1)
    return {i: {q: (t / n, n) for q, (t, n) in per.items()} for i, per in sums.items()}


@dataclass
class PairRow:
    team: str
    manual: bool
    initial: str
    final: str
    initial_score: float | None
    final_score: float | None

    @property
    def change(self):
        if self.initial_score is None or self.final_score is None:
            return None
        return self.final_score - self.initial_score


def pair_rows(pairs, runs, scores):
    """`pairs` [(initial tag, final tag)], `runs` {tag: (team, manual)}, `scores` {tag: run score or None}:
    one row per pair, ordered by team then initial then final (as Table 7)."""
    rows = [
        PairRow(runs[f][0], runs[f][1], i, f, scores.get(i), scores.get(f)) for i, f in pairs if i in runs and f in runs
    ]
    return sorted(rows, key=lambda r: (r.team, r.initial, r.final))
