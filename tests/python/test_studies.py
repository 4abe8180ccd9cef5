"""The layout every study shares: a package under airtcp.studies with
setup, run, measure, report and plots modules, registered under its CLI
name and driven through the Study protocol. No simulation."""

from pathlib import Path

import pytest

from airtcp import studies
from airtcp.runner.study import study_of

STUDIES_DIR = Path(studies.__file__).parent


@pytest.mark.parametrize("name", list(studies.STUDIES))
def test_every_study_is_a_package_behind_the_protocol(name):
    s = studies.study(name)
    assert isinstance(s, studies.Study) and s.name == name and s.about
    pkg = STUDIES_DIR / studies.STUDIES[name]
    assert sorted(m for m in ("setup", "run", "measure", "report", "plots") if not (pkg / f"{m}.py").is_file()) == []


def test_no_study_module_is_left_flat_and_none_looks_like_a_test():
    flat = sorted(p.name for p in STUDIES_DIR.glob("*.py"))
    assert flat == ["__init__.py", "plotting.py", "reporting.py"]
    assert not [p for p in STUDIES_DIR.rglob("*.py") if p.name.startswith("test_") or p.stem.endswith("_test")]


def test_errors_name_the_study_by_its_cli_name():
    def measure(task, result):
        return {}

    measure.__module__ = "airtcp.studies.drive_3g.measure"
    assert study_of(measure) == "drive-test"
    measure.__module__ = "somewhere.else"
    assert study_of(measure) == ""
