"""The ciQA submission rules (seed 001 3.2.2): at most 2 initial runs, 2 URL files and 2 final runs per team; a
final run names its team's initial run."""

from tracks.qa.ciqa.rules import Submission, check_submission, pairs

I1 = Submission("UMDi1", "UMD", "initial")
I2 = Submission("UMDi2", "UMD", "initial")
F1 = Submission("UMDf1", "UMD", "final", "UMDi1")
OTHER = Submission("MITi1", "MIT", "initial")


def test_a_final_run_names_an_initial_run_of_its_own_team():
    assert check_submission(F1, [I1]) == []
    assert check_submission(Submission("UMDf1", "UMD", "final"), [I1]) == [
        "a final run must name the run tag of its initial run"
    ]
    assert check_submission(Submission("UMDf1", "UMD", "final", "nope"), [I1]) == [
        "initial run 'nope' has not been submitted"
    ]
    assert check_submission(Submission("UMDf2", "UMD", "final", "UMDf1"), [I1, F1]) == [
        "run 'UMDf1' is a final run, not an initial run"
    ]
    assert check_submission(Submission("UMDf1", "UMD", "final", "MITi1"), [OTHER]) == [
        "initial run 'MITi1' is team MIT's, not UMD's"
    ]
    assert check_submission(Submission("UMDi3", "UMD", "initial", "UMDi1"), [I1]) == [
        "an initial run names no initial run (got 'UMDi1')"
    ]


def test_at_most_two_of_each_per_team_and_a_replacement_does_not_count():
    assert check_submission(Submission("UMDi3", "UMD", "initial"), [I1, I2, OTHER]) == [
        "team UMD already has 2 initial runs (UMDi1, UMDi2); at most 2 per team"
    ]
    assert check_submission(I2, [I1, I2]) == []  # the same tag again replaces it
    assert check_submission(Submission("MITi2", "MIT", "initial"), [I1, I2, OTHER]) == []
    finals = [I1, F1, Submission("UMDf2", "UMD", "final", "UMDi1")]
    assert check_submission(Submission("UMDf3", "UMD", "final", "UMDi1"), finals) == [
        "team UMD already has 2 final runs (UMDf1, UMDf2); at most 2 per team"
    ]
    urls = [Submission("u1", "UMD", "urls"), Submission("u2", "UMD", "urls")]
    assert check_submission(Submission("u3", "UMD", "urls"), urls) == [
        "team UMD already has 2 URL files (u1, u2); at most 2 per team"
    ]
    assert check_submission(Submission("u3", "UMD", "urls"), urls, {"max_url_files": 3}) == []


def test_an_initial_run_with_finals_stays_initial_and_tags_stay_with_their_team():
    assert check_submission(Submission("UMDi1", "UMD", "final", "UMDi2"), [I1, I2, F1]) == [
        "run 'UMDi1' is the initial run of UMDf1; it stays an initial run"
    ]
    assert check_submission(Submission("UMDi1", "MIT", "initial"), [I1]) == [
        "tag 'UMDi1' already belongs to team 'UMD'"
    ]


def test_pairs_several_finals_may_follow_one_initial():
    msu = [
        Submission("MSUciQAIHeu", "MSU", "initial"),
        Submission("MSUciQAFCol", "MSU", "final", "MSUciQAIHeu"),
        Submission("MSUciQAFInt", "MSU", "final", "MSUciQAIHeu"),
    ]
    assert check_submission(msu[2], msu[:2]) == []
    assert pairs(msu) == [("MSUciQAIHeu", "MSUciQAFCol"), ("MSUciQAIHeu", "MSUciQAFInt")]
