"""The shape of the code: dependencies run one way, config ← core ← accounts ← corpus ← pooling ← assess ← scoring ← tracks/*, and
formats and measures are pure Python. Every import statement counts, those inside function bodies too (that is
where backward imports used to hide)."""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STAGES = [
    "config",
    "core",
    "accounts",
    "corpus",
    "pooling",
    "assess",
    "scoring",
    "api",
]  # api: the REST API, after the stages
PROJECT = set(STAGES) | {"tracks"}
# Pure modules: plain data and functions over it, importable and testable without Django.
PURE_GLOBS = [
    "assess/formats/*.py",
    "corpus/formats/*.py",
    "pooling/formats/*.py",
    "scoring/measures/*.py",
    "scoring/formats/*.py",
    "core/tracks.py",
    "core/submission_rules.py",
    "core/extension_points.py",
    "tracks/*/formats/*.py",
    "tracks/*/formats.py",
    "tracks/*/measures.py",
    "tracks/*/measures/*.py",
]


def imports_of(path):
    """(line, module, names) of every absolute import in the file, anywhere in it (names: those of a `from`)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module, tuple(alias.name for alias in node.names)


def python_files(folder):
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "migrations" not in p.parts)


def backward_imports(stage):
    """Imports in `stage` of a later stage or of any track."""
    later = set(STAGES[STAGES.index(stage) + 1 :]) | {"tracks"}
    found = set()
    for path in python_files(stage):
        for line, module, _ in imports_of(path):
            if module.split(".")[0] in later:
                found.add(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return sorted(found)


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_imports_no_later_stage_and_no_track(stage):
    assert backward_imports(stage) == []


def test_the_check_sees_imports_inside_function_bodies(tmp_path):
    """The walk must find what a module-level scan would miss (the test above cannot pass vacuously)."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from scoring.rescore import rescore_evaluation\n    import tracks.bolt\n")
    assert {m for _, m, _ in imports_of(sample)} == {"scoring.rescore", "tracks.bolt"}


def pure_modules():
    return sorted({p for pattern in PURE_GLOBS for p in ROOT.glob(pattern) if p.name != "__init__.py"})


def module_path(module):
    """The file of a project module, or None (a name imported from a package is not a module)."""
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def impure_imports(path, seen=None):
    """Imports of Django (or Celery, DRF) by the module or by any project module it imports, transitively: a
    formats module may use a helper module, as long as that one is plain Python too."""
    seen = set() if seen is None else seen
    if path in seen:
        return []
    seen.add(path)
    bad = []
    for line, module, names in imports_of(path):
        top = module.split(".")[0]
        if top in ("django", "rest_framework", "celery"):
            bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
        elif top in PROJECT:
            targets = [module_path(f"{module}.{n}") for n in names] + [module_path(module)]
            for target in {t for t in targets if t is not None}:
                bad += impure_imports(target, seen)
    return bad


def test_formats_and_measures_are_pure():
    modules = pure_modules()
    assert len(modules) > 10  # the globs still find the formats and measures
    bad = sorted({problem for path in modules for problem in impure_imports(path)})
    assert bad == []


def test_the_purity_check_follows_helper_modules(tmp_path, monkeypatch):
    """A format importing a helper that imports Django is caught (so the test above cannot pass vacuously)."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "tracks" / "demo").mkdir(parents=True)
    (tmp_path / "tracks" / "demo" / "helper.py").write_text("from django.db import models\n")
    fmt = tmp_path / "tracks" / "demo" / "formats.py"
    fmt.write_text("def f():\n    from tracks.demo.helper import models\n")
    assert impure_imports(fmt) == ["tracks/demo/helper.py:1 imports django.db"]


def track_module_graph(track_dir):
    """{module file: {module files of the same track it imports}}, imports inside function bodies included; a
    name imported from a package counts as its submodule when there is one."""
    prefix = ".".join(track_dir.relative_to(ROOT).parts)
    graph = {}
    for path in sorted(p for p in track_dir.rglob("*.py") if "migrations" not in p.parts):
        graph[path] = set()
        for _, module, names in imports_of(path):
            if module != prefix and not module.startswith(prefix + "."):
                continue
            targets = {module_path(f"{module}.{n}") for n in names} - {None} or {module_path(module)}
            graph[path] |= {t for t in targets if t is not None and t != path}
    return graph


def import_cycles(graph):
    """The import cycles of a module graph, each as the files on it (in import order, the first file again at the
    end); empty when the modules can be ordered so that each imports only earlier ones."""
    cycles, state = [], {}  # state: 1 while on the walk's path, 2 when done

    def walk(node, path):
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                walk(target, path + [target])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    return cycles


@pytest.mark.parametrize("track", sorted(p.name for p in (ROOT / "tracks").iterdir() if (p / "__init__.py").exists()))
def test_no_import_cycle_within_a_track(track):
    """Modules of a track that import each other (even inside a function) are one module cut in two: shared
    pieces go to a module of their own (as tracks/qa/access.py and panels.py for the QA pages)."""
    cycles = import_cycles(track_module_graph(ROOT / "tracks" / track))
    assert [" -> ".join(str(p.relative_to(ROOT)) for p in cycle) for cycle in cycles] == []


def test_the_cycle_check_finds_a_cycle_through_a_function_body(tmp_path, monkeypatch):
    """Two view modules importing each other, one of them inside a function, are a cycle (so the test above
    cannot pass vacuously); a shared module both import is none."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    track = tmp_path / "tracks" / "demo"
    track.mkdir(parents=True)
    (track / "__init__.py").write_text("")
    (track / "shared.py").write_text("X = 1\n")
    (track / "a.py").write_text("from tracks.demo import shared\nfrom tracks.demo.b import g\n")
    (track / "b.py").write_text("from tracks.demo.shared import X\n\ndef g():\n    from tracks.demo import a\n")
    cycles = import_cycles(track_module_graph(track))
    assert [[p.name for p in cycle] for cycle in cycles] == [["a.py", "b.py", "a.py"]]
    (track / "b.py").write_text("from tracks.demo.shared import X\n")
    assert import_cycles(track_module_graph(track)) == []


def imports_of_other_tracks(track_dir):
    """Imports in a track's folder of another track (tracks.<other>), anywhere in its files."""
    own = f"tracks.{track_dir.name}"
    found = set()
    for path in python_files(track_dir.relative_to(ROOT)):
        for line, module, _ in imports_of(path):
            if module.startswith("tracks.") and module != own and not module.startswith(own + "."):
                found.add(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return sorted(found)


TRACK_DIRS = sorted(p for p in (ROOT / "tracks").iterdir() if (p / "__init__.py").exists())


@pytest.mark.parametrize("track_dir", TRACK_DIRS, ids=lambda p: p.name)
def test_a_track_imports_no_other_track(track_dir):
    """Tracks share code only through the stages: what two tracks have in common belongs to a stage (as BOLT's and
    BioGen's adjudication went to assess.adjudication)."""
    assert imports_of_other_tracks(track_dir) == []


def test_the_track_check_finds_an_import_of_another_track(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    track = tmp_path / "tracks" / "one"
    track.mkdir(parents=True)
    (track / "__init__.py").write_text("")
    (track / "views.py").write_text("from tracks.one import x\n\ndef f():\n    from tracks.other.judging import y\n")
    assert imports_of_other_tracks(track) == ["tracks/one/views.py:4 imports tracks.other.judging"]
