"""The job's JVM part (java/NavreplayPipes.java): its jar, built once and cached, and its tasks
against a navreplay that misbehaves (called through py4j, without Spark)."""

from __future__ import annotations

import json
import os
import stat

import pytest

import harness
import navreplay_job as job


def _fake(tmp_path, script: str) -> str:
    """A stand-in for navreplay: a shell script."""
    path = tmp_path / "navreplay"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _plan(binary: str, audit: list[str] | None = None) -> str:
    return json.dumps({"binary": binary, "shipped": False, "partitions": 1, "shorthand": False,
                       "routes": [{"arguments": ["partition", "route"], "partitions": 1, "uri": None, "model": 0}],
                       "models": [None], "explicit_model": None, "audit": audit or ["partition", "audit"],
                       "max_line_bytes": 1024, "paths_text": "a\n", "offsets_text": "0\n", "shared": []})


def _error(call) -> str:
    with pytest.raises(Exception) as raised:
        call()
    return str(raised.value)


def test_the_jar_is_built_once_and_cached_by_the_sources_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    jar = job.pipes_jar()
    assert os.path.dirname(jar) == str(tmp_path / "navreplay-spark") and jar.endswith(".jar")
    built = os.path.getmtime(jar)
    assert job.pipes_jar() == jar and os.path.getmtime(jar) == built
    assert os.listdir(tmp_path / "navreplay-spark") == [os.path.basename(jar)]  # no temporary left
    import zipfile

    assert "navreplay/spark/NavreplayPipes.class" in zipfile.ZipFile(jar).namelist()


def test_without_javac_the_job_says_it_needs_a_jdk(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(job.UsageError, match=r"needs a JDK \(javac\)"):
        job.pipes_jar()


def test_a_route_that_fails_fails_the_task_with_navreplays_message(tmp_path):
    binary = _fake(tmp_path, "echo 'navreplay: error: broken on purpose' >&2\nexit 3\n")
    message = _error(lambda: harness.jvm_pipes().routeFrames(_plan(binary), 0))
    assert "navreplay partition route exited with status 3: navreplay: error: broken on purpose" in message


def test_a_route_without_its_report_fails_the_task(tmp_path):
    binary = _fake(tmp_path, "printf '\\000\\000\\000\\000\\001\\000\\000\\000L'\nexit 0\n")
    message = _error(lambda: harness.jvm_pipes().routeFrames(_plan(binary), 0))
    assert "exited with status 0 and no report for split 0" in message


def test_frames_cut_short_fail_the_task(tmp_path):
    binary = _fake(tmp_path, "printf '\\001\\000\\000\\000\\010\\000\\000\\000abc'\n")
    message = _error(lambda: harness.jvm_pipes().routeFrames(_plan(binary), 0))
    assert "ended in the middle of a frame (3 of 8 bytes)" in message
    binary = _fake(tmp_path, "printf '\\001\\000\\000'\n")
    message = _error(lambda: harness.jvm_pipes().routeFrames(_plan(binary), 0))
    assert "ended in the middle of a frame header" in message


def test_an_audit_that_fails_fails_the_task_and_leaves_no_directory(tmp_path):
    binary = _fake(tmp_path, "echo \"navreplay: error: audit broken: $*\" >&2\nexit 1\n")
    before = set(os.listdir("/tmp"))
    message = _error(lambda: harness.fold_frames(harness.jvm_pipes(), _plan(binary), 0,
                                                  [(0, b"L\x00\x00\x00\x000\t1\t{}\n")]))
    assert "navreplay partition audit exited with status 1: navreplay: error: audit broken: partition audit" in message
    assert not {name for name in set(os.listdir("/tmp")) - before if name.startswith("navreplay-p0-")}


def test_a_route_is_given_its_command_line_and_its_frames_are_remapped(tmp_path):
    """The split's arguments as the plan gives them; destinations past the split's partitions
    go to the ledger's buckets, after the plan's partitions; the statistics frame comes last."""
    binary = _fake(tmp_path, "echo \"$*\" > " + str(tmp_path / "args") + "\n"
                   "printf '\\001\\000\\000\\000\\001\\000\\000\\000E'\n")
    plan = json.loads(_plan(binary))
    plan["partitions"] = 3
    plan["routes"][0].update(arguments=["partition", "route", "x y", "--range", "0:9"], partitions=1)
    import io
    import navreplay_tasks as tasks

    frames = list(harness.frames(io.BytesIO(bytes(harness.jvm_pipes().routeFrames(json.dumps(plan), 0)))))
    assert (tmp_path / "args").read_text() == "partition route x y --range 0:9\n"
    assert frames[0] == (3, b"E")  # bucket 0 of the split, after the plan's 3 partitions
    assert frames[1][0] == 3 and json.loads(frames[1][1][1:])["split"] == 0


def test_a_ledger_bucket_gives_reports_statistics_and_shared_sessions(tmp_path):
    """E and S blocks pass as they are; the I blocks' entries go to navreplay partition shared,
    whose session hashes come back; a bucket without entries runs no navreplay."""
    import struct
    import navreplay_tasks as tasks

    binary = _fake(tmp_path, "cat > " + str(tmp_path / "entries") + "\nprintf 'h1\\nh2\\n'\n")
    blocks = [b'E{"split": 0, "lines": 3}', b"Iab", b'S{"split": 0}', b"Icd"]
    frames = b"".join(struct.pack("<II", 1, len(block)) + block for block in blocks)
    items = tasks.ledger_items(harness.jvm_pipes().ledgerLines(_plan(binary), frames))
    assert (tmp_path / "entries").read_bytes() == b"abcd"
    assert [(k, v) for k, v in items if k not in ("peak", "cpu")] == [
        ("report", {"split": 0, "lines": 3}), ("route", {"split": 0}), ("shared", "h1"), ("shared", "h2")]
    (tmp_path / "entries").unlink()
    frames = struct.pack("<II", 1, 3) + b"E{}"
    assert tasks.ledger_items(harness.jvm_pipes().ledgerLines(_plan(binary), frames)) == [("report", {})]
    assert not (tmp_path / "entries").exists()


def test_a_ledger_bucket_whose_navreplay_fails_fails_the_task(tmp_path):
    import struct

    binary = _fake(tmp_path, "cat > /dev/null\necho 'navreplay: error: bad entry' >&2\nexit 1\n")
    frames = struct.pack("<II", 1, 3) + b"Iab"
    message = _error(lambda: harness.jvm_pipes().ledgerLines(_plan(binary), frames))
    assert "navreplay partition shared exited with status 1: navreplay: error: bad entry" in message
