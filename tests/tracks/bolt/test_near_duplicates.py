"""Near-duplicate citations (seed 004: 95 % overlap of word bigrams; SPEC-NOTES: of the shorter's bigrams)."""

from tracks.bolt.near_duplicates import bigrams, carry_relspans, features, leader_judgment, leaders, near_duplicates

WORDS = [f"w{i}" for i in range(60)]


def test_bigrams_ignore_case_and_punctuation():
    assert bigrams("The cat sat.") == {("the", "cat"), ("cat", "sat")}
    assert features("The cat sat.") == {hash(b) for b in bigrams("The cat sat.")}
    assert near_duplicates("The cat sat on the mat", "the CAT sat, on the mat!")


def test_the_95_percent_boundary_is_inclusive():
    # 21 words give 20 bigrams; changing the last word changes one: 19/20 = 95 % -> near-duplicates.
    a = " ".join(WORDS[:21])
    b = " ".join(WORDS[:20] + ["other"])
    assert near_duplicates(a, b)
    # 20 words give 19 bigrams; one changed: 18/19 = 94.7 % -> not.
    a = " ".join(WORDS[:20])
    b = " ".join(WORDS[:19] + ["other"])
    assert not near_duplicates(a, b)


def test_a_quoted_passage_inside_a_longer_one_is_a_near_duplicate():
    quoted = "Taxi drivers lost half their customers since the metro line opened."
    longer = "As he said: " + quoted + " That is progress and the metro is cheap."
    assert near_duplicates(quoted, longer) and near_duplicates(longer, quoted)


def test_short_passages_match_only_the_same_words():
    assert near_duplicates("Yes!", "yes")
    assert not near_duplicates("yes", "yes indeed")
    assert not near_duplicates("yes", "no")


def test_leaders_take_the_highest_ranked_and_do_not_chain():
    x = " ".join(WORDS[0:40])  # 39 bigrams
    y = " ".join(WORDS[0:42])  # holds all of x's bigrams
    z = " ".join(WORDS[2:42])  # 39 bigrams: all in y, but only 37 in x (94.9 %)
    assert near_duplicates(x, y) and near_duplicates(y, z) and not near_duplicates(x, z)
    other = "something else entirely different here"
    assert leaders([x, y, other, z, x]) == [0, 0, 2, 3, 0]


def test_leaders_prefer_the_earliest_of_several_matching_leaders():
    a = " ".join(WORDS[0:30])
    b = "completely unrelated words in this one"
    c = a + " " + b  # holds all of a's bigrams and all of b's
    assert leaders([b, a, c]) == [0, 1, 0]
    assert leaders([]) == []


def test_leaders_at_thresholds_outside_the_usual_range():
    # The leaders' shortcut (a leader missing too many of its first features is passed over) must not decide
    # where no count of shared features can: above 100 % nothing matches, at 0 % everything does.
    a = " ".join(WORDS[0:30])
    b = " ".join(WORDS[30:60])
    assert leaders([a, a, b], threshold=101) == [0, 1, 2]
    assert leaders([a, b, a], threshold=0) == [0, 0, 0]
    assert leaders([a, b, a], threshold=100) == [0, 1, 0]


def test_bolt_formats_and_measures_import_no_django():
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys; import tracks.bolt.formats.topics, tracks.bolt.formats.citations, "
        "tracks.bolt.formats.groups, tracks.bolt.formats.export, tracks.bolt.near_duplicates, "
        "tracks.bolt.measures; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[3],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_relspans_carry_to_a_near_duplicate_by_alignment():
    leader = "Taxi drivers lost half their customers since the metro line opened."
    assert carry_relspans(leader, leader, [[13, 25]]) == [[13, 25]]  # the same text: the same positions
    quoted = "As he said: " + leader + " That is progress."
    (span,) = carry_relspans(leader, quoted, [[13, 25]])
    assert quoted[span[0] : span[0] + span[1]] == "lost half their customers"
    # A word changed inside the marked part: the part still runs from its first to its last character found.
    changed = leader.replace("half", "most of")
    (span,) = carry_relspans(leader, changed, [[13, 25]])
    assert changed[span[0] : span[0] + span[1]] == "lost most of their customers"
    assert carry_relspans(leader, "Nothing alike at all.", [[0, 4]]) == []


def test_a_near_duplicate_takes_its_leaders_judgment_with_its_parts():
    leader = "Taxi drivers lost half their customers since the metro line opened."
    quoted = "As he said: " + leader
    judgment = {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[0, 12]]}
    assert leader_judgment(leader, quoted, judgment) == judgment | {"relspans": [[12, 12]]}
    assert leader_judgment(leader, quoted, {"rel": "maybe", "relspans": []}) == {"rel": "maybe", "relspans": []}
    assert leader_judgment(leader, quoted, None) is None
    # Marked parts none of which is in the near-duplicate: nothing of it is relevant.
    assert (
        leader_judgment(leader, "Nothing alike.", {"rel": "yes", "trans": "accept", "relspans": [[0, 4]]})["rel"]
        == "no"
    )


def _reference_leaders(passages):
    """The seed's rule written out with bigram tuples and no shortcuts: each passage against every earlier leader,
    in rank order."""
    import re

    def grams(text):
        words = re.findall(r"\w+", text.lower())
        return {tuple(words)} if len(words) < 2 else set(zip(words, words[1:]))

    found, result = [], []
    for i, text in enumerate(passages):
        mine = grams(text)
        lead = next(
            (j for j, theirs in found if 100 * len(mine & theirs) >= 95 * min(len(mine), len(theirs))),
            None,
        )
        if lead is None:
            found.append((i, mine))
            lead = i
        result.append(lead)
    return result


def test_shared_features_give_the_brute_force_classes_across_many_lists():
    import random

    from tracks.bolt.near_duplicates import shared_features

    rng = random.Random(19)
    vocab = [f"v{i}" for i in range(40)]  # few words: many overlapping bigrams, so the prefilter often passes
    base = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 30))) for _ in range(60)]

    def variant(text):
        words = text.split()
        roll = rng.random()
        if roll < 0.3 and words:  # one word changed: a near-duplicate of a long passage, not of a short one
            words[rng.randrange(len(words))] = rng.choice(vocab)
        elif roll < 0.5:  # quoted inside a longer passage
            words = ["she", "said"] + words + ["end"]
        elif roll < 0.6:
            return text.upper() + "!"  # the same words: always a near-duplicate
        return " ".join(words)

    lists = [[variant(rng.choice(base)) for _ in range(rng.randint(0, 40))] for _ in range(80)]
    expected = [_reference_leaders(ps) for ps in lists]
    assert sum(lead != i for ps in expected for i, lead in enumerate(ps)) > 150  # many near-duplicates to get right
    assert [leaders(ps) for ps in lists] == expected
    with shared_features():
        # Passages repeat across lists, so most features come from the batch's store the second time round.
        assert [leaders(ps) for ps in lists] == expected
        assert [leaders(ps) for ps in reversed(lists)] == expected[::-1]


def test_the_bolt_run_format_checks_a_batch_with_shared_features():
    from core import extension_points as ep
    from tracks.bolt.near_duplicates import shared_features

    assert ep.batch_context.get("bolt-ir-p2") is shared_features
