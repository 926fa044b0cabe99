"""Shared helpers for the package's tests: the analyze CLI beside it.

CTest (tests/python/CMakeLists.txt) sets PYTHONPATH to the package in the
build tree and RIDGELINE_ANALYZE to the CLI built with it; the tests compare
the package's numbers with that CLI's output on the same arguments.
"""

import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def fixture(name):
    return os.path.join(FIXTURES, name)


@pytest.fixture(scope="session")
def cli():
    """cli(*args) -> (exit status, stdout, stderr) of the analyze CLI."""
    path = os.environ.get("RIDGELINE_ANALYZE")
    if not path or not os.path.exists(path):
        pytest.skip("RIDGELINE_ANALYZE (the analyze binary) not set; run "
                    "through ctest")

    def run(*args):
        p = subprocess.run([path, *args], capture_output=True, text=True,
                           check=False)
        return p.returncode, p.stdout, p.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    """cli_json(*args) -> the CLI's JSON report as Python objects."""

    def run(*args):
        rc, out, err = cli(*args, "--format", "json")
        assert rc == 0, err
        return json.loads(out)

    return run
