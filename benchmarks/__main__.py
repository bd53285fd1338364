"""Run a benchmark: `python -m benchmarks NAME [options]`, or `python -m benchmarks` to list them."""

import argparse
import importlib
import os
import pkgutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from benchmarks.harness import report  # noqa: E402

NOT_BENCHMARKS = {"harness", "__main__"}


def available():
    here = Path(__file__).resolve().parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name not in NOT_BENCHMARKS)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in available():
        print("usage: python -m benchmarks NAME [options]\nbenchmarks: " + ", ".join(available()))
        return 2
    module = importlib.import_module(f"benchmarks.{argv[0]}")
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {argv[0]}", description=module.__doc__)
    if hasattr(module, "add_arguments"):
        module.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    results = module.run(args)
    report(argv[0], results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
