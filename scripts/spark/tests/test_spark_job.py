"""The Spark job for real: Spark in local mode (local[2]), pyspark from PyPI, the machine's Java.

On a generated multi-file log (every SampleLogs app with its model, sessions spread over plain
and gzip files, and the damaged lines and files of make_logs.py), the job's findings, sessions,
quarantine and summary must equal a single-machine navreplay run on the same files, line for
line after sorting and byte for byte in part order; and splitting a single session over two
partitions must make that comparison fail.

The size of the log: NAVREPLAY_SPARK_REPETITIONS copies of the sample sessions (default 3, about
1,500 lines; scripts/test-spark documents a larger run).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

import harness
import make_logs
from conftest import SPARK_DIR

REPETITIONS = int(os.environ.get("NAVREPLAY_SPARK_REPETITIONS", "3"))
AUDIT = os.path.join(SPARK_DIR, "navreplay_audit.py")
SESSIONS = os.path.join(SPARK_DIR, "navreplay_sessions.py")
SPARK_CONF = ["--master", "local[2]", "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=4"]


def run_job(script: str, navreplay: str, output: str, arguments: list[str], *extra: str,
            cwd: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, script, "--navreplay", navreplay, "--output", output, "--partitions", "4",
               *SPARK_CONF, *extra, *arguments]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=900)


def read_parts(directory: str) -> bytes:
    """The part files of one output, concatenated in part order."""
    data = b""
    for part in sorted(glob.glob(os.path.join(directory, "part-*"))):
        with open(part, "rb") as handle:
            data += handle.read()
    return data


def job_result(output: str, status: int) -> harness.Result:
    summary = os.path.join(output, "summary.json")
    return harness.Result(
        findings=read_parts(os.path.join(output, "findings")),
        sessions=read_parts(os.path.join(output, "sessions")),
        quarantine=read_parts(os.path.join(output, "quarantine")),
        summary=open(summary, "rb").read() if os.path.exists(summary) else b"",
        status=status)


@pytest.fixture(scope="module")
def damaged_log(tmp_path_factory) -> make_logs.Generated:
    return make_logs.generate(str(tmp_path_factory.mktemp("log") / "log"), repetitions=REPETITIONS, damaged=True)


@pytest.fixture(scope="module")
def reference(navreplay, damaged_log) -> harness.Result:
    return harness.single_machine(navreplay, damaged_log.arguments, damaged_log.max_line_bytes)


@pytest.fixture(scope="module")
def audit_run(navreplay, damaged_log, tmp_path_factory):
    output = str(tmp_path_factory.mktemp("audit") / "out")
    completed = run_job(AUDIT, navreplay, output, damaged_log.arguments,
                        "--max-line-bytes", str(damaged_log.max_line_bytes))
    return output, completed


def test_the_generated_log_is_what_the_test_needs(reference, damaged_log):
    summary = json.loads(reference.summary)
    assert reference.status == 2  # the missing file and the damaged gzip files
    assert summary["files"] >= 30 and summary["lines"] > 400 * REPETITIONS
    assert summary["blank_lines"] > 0 and summary["invalid_lines"] > 10 and summary["redeliveries"] > 0
    assert {entry.get("error_code") for entry in summary["inputs"]} >= {"not_found", "corrupt_gzip", "truncated_gzip"}
    rules = set(summary["findings_by_rule"])
    assert {"schema.invalid", "seq.gap", "state.mismatch", "route.unknown", "command.postcondition"} <= rules
    # An event id shared by two sessions (the job must fold them in one partition).
    assert any(b"was first seen in session" in line for line in reference.findings.splitlines())
    # One session spread over several files.
    files_of = {}
    for line in reference.findings.splitlines():
        finding = json.loads(line)
        if finding["session_id"]:
            files_of.setdefault(finding["session_id"], set()).add(finding["file"])
    assert max(len(files) for files in files_of.values()) >= 2


def test_the_spark_audit_equals_navreplay_on_a_multi_file_log(audit_run, reference):
    output, completed = audit_run
    assert completed.returncode == reference.status, completed.stderr[-3000:]
    actual = job_result(output, completed.returncode)
    assert harness.differences(reference, actual) == []
    # Findings carry the original file and line, unreadable lines included.
    invalid = [json.loads(line) for line in actual.findings.splitlines() if b'"schema.invalid"' in line]
    assert invalid and all(finding["file"] and finding["line"] for finding in invalid)
    assert any("torn line" in finding["message"] for finding in invalid)
    assert any("over the limit" in finding["message"] for finding in invalid)
    # The job reports unreadable inputs as navreplay does.
    assert "corrupt gzip data" in completed.stderr and "no such file" in completed.stderr


def test_local_mode_keeps_sparks_classes_in_an_archive_for_the_next_runs(audit_run, cache_home):
    """A job in local mode leaves the JVM's class-data archive in the cache, complete (the later
    jobs of this suite read it, and their results are checked as the others')."""
    archives = os.listdir(os.path.join(cache_home, "navreplay"))
    assert len(archives) == 1 and archives[0].startswith("spark-classes-") and archives[0].endswith(".jsa"), archives
    assert os.path.getsize(os.path.join(cache_home, "navreplay", archives[0])) > 1 << 20


def test_the_quarantine_holds_every_line_whose_session_cannot_be_read(audit_run):
    output, _ = audit_run
    records = [json.loads(line) for line in read_parts(os.path.join(output, "quarantine")).splitlines()]
    reasons = {record["reason"] for record in records}
    assert any("session_id" in reason for reason in reasons)  # missing or ill-typed session_id
    assert any(record["raw"] is None for record in records)  # invalid UTF-8 kept as base64 only
    assert all(record["file"] and record["line"] and record["raw_base64"] is not None for record in records)
    summary = json.load(open(os.path.join(output, "summary.json")))
    assert len(records) == summary["invalid_lines"]


def test_the_findings_parquet_holds_the_same_findings(audit_run):
    output, _ = audit_run
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .appName("navreplay-test-parquet").getOrCreate())
    try:
        rows = spark.read.parquet(os.path.join(output, "findings_parquet")).collect()
    finally:
        spark.stop()
    findings = [json.loads(line) for line in read_parts(os.path.join(output, "findings")).splitlines()]
    key = lambda item: (item["file"] or "", item["line"] or 0, item["session_id"] or "", item["seq"] or -1, item["rule"], item["message"])
    from_parquet = sorted((row.asDict() for row in rows), key=key)
    assert len(from_parquet) == len(findings)
    for row, finding in zip(from_parquet, sorted(findings, key=key)):
        for name in ("rule", "severity", "session_id", "seq", "event_id", "file", "line", "message"):
            assert row[name] == finding[name]
        assert row["after_gap"] == finding.get("after_gap", False)
        assert (json.loads(row["expected"]) if row["expected"] else None) == finding.get("expected")


def test_splitting_sessions_over_partitions_makes_the_comparison_fail(navreplay, damaged_log, reference, tmp_path):
    output = str(tmp_path / "split")
    completed = run_job(AUDIT, navreplay, output, damaged_log.arguments,
                        "--max-line-bytes", str(damaged_log.max_line_bytes), "--debug-split-sessions")
    actual = job_result(output, completed.returncode)
    found = harness.differences(reference, actual)
    assert any(difference.startswith("sessions") for difference in found), found
    assert any(difference.startswith("findings") for difference in found), found
    ids = [json.loads(line)["session_id"] for line in actual.sessions.splitlines()]
    assert len(ids) > len(set(ids))  # sessions came back as pieces


def test_the_spark_sessions_job_equals_navreplay_sessions(navreplay, damaged_log, tmp_path):
    expected = harness.single_machine(navreplay, damaged_log.arguments, damaged_log.max_line_bytes, mode="sessions")
    output = str(tmp_path / "sessions")
    completed = run_job(SESSIONS, navreplay, output, damaged_log.arguments,
                        "--max-line-bytes", str(damaged_log.max_line_bytes))
    assert completed.returncode == expected.status, completed.stderr[-3000:]
    assert not os.path.exists(os.path.join(output, "findings"))
    assert harness.differences(expected, job_result(output, completed.returncode), compare_findings=False) == []


def test_spark_submit_with_the_binary_shipped_by_files(navreplay, tmp_path):
    """The README's cluster recipe: spark-submit --files navreplay, then --navreplay navreplay."""
    import pyspark

    logs = tmp_path / "logs"
    shutil.copytree(os.path.join(make_logs.REPO, "SampleLogs"), logs, ignore=shutil.ignore_patterns("expected"))
    expected = harness.single_machine(navreplay, [str(logs)])
    submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    output = str(tmp_path / "out")
    environment = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    completed = subprocess.run(
        [submit, *SPARK_CONF, "--files", navreplay, "--py-files", os.path.join(SPARK_DIR, "navreplay_job.py"),
         AUDIT, "--navreplay", os.path.basename(navreplay), "--output", output, str(logs)],
        capture_output=True, text=True, cwd=str(tmp_path), env=environment, timeout=900)
    assert completed.returncode == expected.status, completed.stderr[-3000:]
    assert harness.differences(expected, job_result(output, completed.returncode)) == []


def test_an_earlier_output_is_kept_unless_overwrite(audit_run, navreplay, tmp_path):
    output, _ = audit_run
    before = read_parts(os.path.join(output, "findings"))
    completed = run_job(AUDIT, navreplay, output, [str(tmp_path)])
    assert completed.returncode == 2
    assert "--overwrite" in completed.stderr
    assert read_parts(os.path.join(output, "findings")) == before


def test_spark_options_are_told_apart_from_inputs():
    import navreplay_job as job

    spark, rest = job.split_spark_arguments(
        ["--conf", "spark.x=1", "logs/", "--executor-memory=4g", "--navreplay", "nr", "--verbose", "b.ndjson"])
    assert spark == ["--conf", "spark.x=1", "--executor-memory", "4g", "--verbose"]
    assert rest == ["logs/", "--navreplay", "nr", "b.ndjson"]


def _as_plain_paths(data: bytes) -> bytes:
    """The job's output for file:// arguments, with the paths written back as plain paths."""
    return data.replace(b'"file":"file:///', b'"file":"/').replace(b'"file":"file:/', b'"file":"/')


@pytest.mark.parametrize("read_by", ["the tasks", "Spark"])
def test_uris_go_through_hadoops_file_system(navreplay, damaged_log, reference, tmp_path, read_by):
    """URIs are listed with Hadoop's FileSystem; file:// ones are read by the tasks in splits, those
    of other file systems (s3a://, gs://, hdfs://) whole by Spark, as --debug-read-by-spark does."""
    uris = ["file://" + os.path.abspath(argument) for argument in damaged_log.arguments]
    output = str(tmp_path / "uris")
    extra = ["--debug-read-by-spark"] if read_by == "Spark" else []
    completed = run_job(AUDIT, navreplay, "file://" + output, uris, "--max-line-bytes", str(damaged_log.max_line_bytes),
                        *extra)
    assert completed.returncode == reference.status, completed.stderr[-3000:]
    result = job_result(output, completed.returncode)
    actual = harness.Result(*(_as_plain_paths(getattr(result, name)) for name in
                              ("findings", "sessions", "quarantine", "summary")), status=result.status)
    # The paths sort differently as URIs: compare lines after sorting, and the summaries as objects.
    expected = harness.without_known_navreplay_difference(reference, actual)
    found = [d for d in harness.differences(expected, actual) if "in another order" not in d]
    assert found == []
    want, got = json.loads(expected.summary), json.loads(actual.summary)
    for summary in (want, got):
        summary["inputs"].sort(key=lambda entry: entry["file"])
    assert got == want


def test_a_failing_navreplay_fails_the_job_with_status_3(tmp_path):
    broken = tmp_path / "navreplay"
    broken.write_text("#!/bin/sh\necho 'navreplay: error: broken on purpose' >&2\nexit 2\n")
    broken.chmod(0o755)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.ndjson").write_bytes(b'{"session_id":"s"}\n')
    completed = run_job(AUDIT, str(broken), str(tmp_path / "out"), [str(logs)])
    assert completed.returncode == 3
    assert "broken on purpose" in completed.stderr
    assert completed.stderr.strip().splitlines()[-1].startswith("navreplay_audit: error: the job failed")


def test_a_binary_that_is_neither_a_file_nor_shipped_is_a_usage_error(tmp_path):
    completed = run_job(AUDIT, "no-such-navreplay", str(tmp_path / "out"), [str(tmp_path)], cwd=str(tmp_path))
    assert completed.returncode == 2
    assert "--files" in completed.stderr
