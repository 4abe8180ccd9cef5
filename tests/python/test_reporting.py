"""The statistics and Markdown helpers every study's report is built on
(airtcp.studies.reporting): Student's t, intervals, ratio intervals,
tables. No simulation."""

import math

import pytest

from airtcp.studies import reporting as report


@pytest.mark.parametrize(
    "df, t",
    [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (19, 2.0930), (30, 2.0423), (1e7, 1.9600)],
)
def test_t_quantile_matches_tables(df, t):
    assert report.t_quantile(0.975, df) == pytest.approx(t, abs=1e-4)


def test_t_cdf_is_symmetric_and_inverts_the_quantile():
    assert report.t_cdf(0.0, 5) == pytest.approx(0.5)
    assert report.t_cdf(-1.3, 7) == pytest.approx(1 - report.t_cdf(1.3, 7))
    assert report.t_cdf(report.t_quantile(0.9, 3), 3) == pytest.approx(0.9)


def test_summarize_gives_student_t_interval_and_skips_missing():
    st = report.summarize([1.0, 2.0, 3.0, None, float("nan"), ""])
    assert (st.n, st.mean, st.sd) == (3, 2.0, 1.0)
    h = 4.302652729911275 / math.sqrt(3)
    assert st.lo == pytest.approx(2 - h) and st.hi == pytest.approx(2 + h)
    one = report.summarize([5.0])
    assert (one.n, one.mean, one.sd) == (1, 5.0, 0.0) and math.isnan(one.lo)
    assert report.summarize([]).n == 0 and math.isnan(report.summarize([]).mean)


def test_ratio_stats_brackets_the_ratio():
    r = report.ratio_stats(report.summarize([10, 12, 14]), report.summarize([1.0, 1.2, 0.8]))
    assert r.mean == pytest.approx(12.0)
    assert r.lo < 12.0 < r.hi
    assert math.isnan(report.ratio_stats(report.summarize([1.0]), report.summarize([])).mean)


def test_mean_sd_is_drive_tests_definition():
    assert report.mean_sd([2.0, 4.0, float("nan")]) == (3.0, pytest.approx(math.sqrt(2)))
    assert report.mean_sd([7]) == (7, 0.0)


def test_markdown_and_claims_tables():
    assert report.md_table(["a", "b"], [[1, "x"]]) == ["| a | b |", "|---|---|", "| 1 | x |"]
    c = report.Claim("speed-up", "~68 times", 68.0, report.summarize([30.0, 40.0]), "tcp/snoop")
    lines = report.claims_table([c])
    assert lines[0].startswith("| claim | seed | measured")
    assert lines[2].startswith("| speed-up | ~68 times | 35.00 [") and "| 0.515 | tcp/snoop |" in lines[2]
    assert report.fmt(None) == "-" and report.fmt(float("nan")) == "-" and report.fmt(1.234) == "1.23"
