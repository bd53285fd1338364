"""mypy's file list ([tool.mypy] files in pyproject.toml, run by scripts/test) covers every pure module and the
tracks' contracts, so a new track's formats or measures cannot escape the type check."""

import glob
import tomllib

from tests import test_import_boundaries as boundaries
from tests.test_import_boundaries import ROOT, pure_modules

# The modules every track plugs into (issue 27): typed, though not all of them pure.
CONTRACTS = ["core/extension_points.py", "scoring/registry.py", "pooling/formats/base.py", "assess/kinds.py"]


def mypy_config(root=ROOT):
    return tomllib.loads((root / "pyproject.toml").read_text())["tool"]["mypy"]


def checked_files(root=ROOT):
    """{entry: the .py files it names}, each entry expanded as mypy does (a glob, a folder taken whole, the
    `exclude` patterns, here only migrations, left out)."""
    config = mypy_config(root)
    assert config.get("exclude") == ["/migrations/"]  # the one exclusion this function knows how to apply
    found = {}
    for entry in config["files"]:
        paths = set()
        for match in glob.glob(entry, root_dir=root, recursive=True):
            path = root / match
            paths |= set(path.rglob("*.py")) if path.is_dir() else {path}
        found[entry] = {p for p in paths if "migrations" not in p.relative_to(root).parts}
    return found


def unchecked(root=ROOT):
    """The pure modules (PURE_GLOBS under the boundary test's ROOT) no entry of the list names."""
    covered = set().union(*checked_files(root).values())
    return sorted(p.relative_to(root).as_posix() for p in pure_modules() if p not in covered)


def test_mypy_checks_every_pure_module_and_contract():
    covered = set().union(*checked_files().values())
    missing = unchecked() + [c for c in CONTRACTS if ROOT / c not in covered]
    assert missing == [], "add these to [tool.mypy] files in pyproject.toml"


def test_every_mypy_entry_names_files():
    """mypy stops on an entry that matches nothing (a module moved away): say which here too."""
    assert [entry for entry, paths in checked_files().items() if not paths] == []


def test_the_coverage_check_sees_a_new_track(tmp_path, monkeypatch):
    """A track's measures outside the list are found, its migrations are not checked (so the first test cannot
    pass vacuously)."""
    monkeypatch.setattr(boundaries, "ROOT", tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.mypy]\nfiles = ["tracks/*/formats/"]\nexclude = ["/migrations/"]\n')
    for name in ("tracks/old/formats/runs.py", "tracks/new/measures.py", "tracks/old/formats/migrations/x.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert checked_files(tmp_path) == {"tracks/*/formats/": {tmp_path / "tracks/old/formats/runs.py"}}
    assert unchecked(tmp_path) == ["tracks/new/measures.py"]
