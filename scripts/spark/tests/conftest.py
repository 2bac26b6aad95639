"""Shared fixtures: the navreplay binary and the job's module."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SPARK_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(SPARK_DIR))
sys.path.insert(0, SPARK_DIR)
sys.path.insert(0, HERE)


@pytest.fixture(scope="session")
def navreplay() -> str:
    """The navreplay binary: $NAVREPLAY (scripts/test-spark sets it), else the default debug build."""
    path = os.environ.get("NAVREPLAY") or os.path.join(REPO, ".build", "debug", "navreplay")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no navreplay binary at {path}: build it (swift build) or set NAVREPLAY")
    return path


@pytest.fixture(scope="session", autouse=True)
def cache_home(tmp_path_factory) -> str:
    """The jobs' cache directory (XDG_CACHE_HOME): in local mode, the first job writes the JVM's
    class-data archive there, and the others read it."""
    path = str(tmp_path_factory.mktemp("cache"))
    os.environ["XDG_CACHE_HOME"] = path
    return path
