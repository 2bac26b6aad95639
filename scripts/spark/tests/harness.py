"""Runs navreplay on the original files and on the job's located, grouped stream, and compares.

``single_machine`` is the reference: what ``navreplay audit`` / ``navreplay sessions`` print for
the files themselves. ``located_without_spark`` reads the same files with the job's own code
(line splitting, gzip, keys, located lines), sorts the records as one Spark partition would, and
pipes them through navreplay's pre-grouped, located-input mode: no Spark involved, so the line
handling can be checked on many small cases quickly. ``differences`` compares two results.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass

import navreplay_job as job


@dataclass
class Result:
    findings: bytes
    sessions: bytes
    quarantine: bytes
    summary: bytes
    status: int
    stderr: str = ""


def expand(arguments: list[str]) -> list[str]:
    """What a shell gives navreplay for the job's arguments (globs expanded, sorted)."""
    expanded = []
    for argument in arguments:
        if not os.path.exists(argument) and any(c in argument for c in "*?["):
            expanded += sorted(glob.glob(argument)) or [argument]
        else:
            expanded.append(argument)
    return expanded


def single_machine(navreplay: str, arguments: list[str], max_line_bytes: int | None = None,
                   mode: str = "audit") -> Result:
    files = expand(arguments)
    limit = ["--max-line-bytes", str(max_line_bytes)] if max_line_bytes else []
    with tempfile.TemporaryDirectory() as scratch:
        summary = os.path.join(scratch, "summary.json")
        quarantine = os.path.join(scratch, "quarantine.ndjson")
        if mode == "audit":
            audit = subprocess.run([navreplay, "audit", "-q", "--format", "ndjson", "--summary", summary,
                                    "--quarantine", quarantine, *limit, *files], capture_output=True)
            sessions = subprocess.run([navreplay, "sessions", "-q", "--format", "ndjson", *limit, *files],
                                      capture_output=True)
            findings, status, stderr = audit.stdout, audit.returncode, audit.stderr.decode()
        else:
            sessions = subprocess.run([navreplay, "sessions", "-q", "--format", "ndjson", "--summary", summary,
                                       *limit, *files], capture_output=True)
            subprocess.run([navreplay, "validate", "-q", "--format", "ndjson", "--quarantine", quarantine,
                            *limit, *files], capture_output=True)
            findings, status, stderr = b"", sessions.returncode, sessions.stderr.decode()
        with open(summary, "rb") as handle:
            summary_bytes = handle.read()
        with open(quarantine, "rb") as handle:
            quarantine_bytes = handle.read()
    return Result(findings, sessions.stdout, quarantine_bytes, summary_bytes, status, stderr)


def located_without_spark(navreplay: str, arguments: list[str], max_line_bytes: int | None = None) -> Result:
    """The job's reading of PoC-model files (no model.json), through navreplay's located mode."""
    limit = max_line_bytes or job.DEFAULT_MAX_LINE_BYTES
    reference = json.loads(single_machine(navreplay, arguments, max_line_bytes).summary)
    paths = [entry["file"] for entry in reference["inputs"]]
    records = []
    unreadable = {}
    for index, path in enumerate(paths):
        if not os.path.exists(path):
            unreadable[index] = ("not_found", "no such file")
            continue
        with open(path, "rb") as handle:
            data = handle.read()
        for key, value in job.keyed_lines(index, path, 0, data, limit):
            if key is None:
                if value[2] is not None:
                    unreadable[index] = (value[2], value[3])
            else:
                records.append((key, value))
    records.sort(key=lambda record: record[0])
    stream = b"".join(value for _, value in records)
    with tempfile.TemporaryDirectory() as scratch:
        paths_file = os.path.join(scratch, "paths.txt")
        with open(paths_file, "w", encoding="utf-8") as handle:
            handle.write("".join(p + "\n" for p in paths))
        summary = os.path.join(scratch, "summary.json")
        quarantine = os.path.join(scratch, "quarantine.ndjson")
        common = ["-q", "--pre-grouped", "--located-input", paths_file, "--max-line-bytes", str(limit),
                  "--format", "ndjson", "--fail-on", "never"]
        audit = subprocess.run([navreplay, "audit", *common, "--summary", summary, "--quarantine", quarantine, "-"],
                               input=stream, capture_output=True)
        sessions = subprocess.run([navreplay, "sessions", *common, "-"], input=stream, capture_output=True)
        if audit.returncode != 0 or sessions.returncode != 0:
            raise AssertionError(f"navreplay failed on the located stream: {audit.stderr!r} {sessions.stderr!r}")
        with open(summary, "rb") as handle:
            located_summary = json.load(handle)
        with open(quarantine, "rb") as handle:
            quarantine_bytes = handle.read()
    merged = job.merge_summaries(paths, [located_summary], unreadable)
    # Findings in navreplay's order: session-less by file and line, then as navreplay printed them.
    rank = {path: position for position, path in enumerate(sorted(paths, key=lambda p: p.encode()))}
    lines = audit.stdout.splitlines(keepends=True)

    def order(item):
        position, line = item
        finding = json.loads(line)
        if finding["session_id"] is None:
            return (0, rank[finding["file"]], finding["line"], position)
        return (1, 0, 0, position)

    findings = b"".join(line for _, line in sorted(enumerate(lines), key=order))
    quarantine_lines = [job.clamp_quarantine_record(line, limit) for line in quarantine_bytes.splitlines(keepends=True)]
    quarantine_sorted = b"".join(sorted(quarantine_lines, key=lambda l: (rank[json.loads(l)["file"]], json.loads(l)["line"])))
    status = 2 if unreadable else (1 if merged["findings_by_severity"]["error"] else 0)
    return Result(findings, sessions.stdout, quarantine_sorted, job.summary_json(merged).encode(), status)


def without_known_navreplay_difference(expected: Result, actual: Result) -> Result:
    """navreplay's single-machine summary reports ``lines: 0`` for a file with a gzip error, though
    the lines before the error are read and counted in the total (AuditEngine.run assigns
    ``report.lines`` from ``readLines``, which throws). The job reports the lines it read. Only that
    field of those files is taken from the job's summary; everything else must match as is."""
    try:
        want, got = json.loads(expected.summary), json.loads(actual.summary)
    except ValueError:
        return expected
    got_inputs = {entry["file"]: entry for entry in got.get("inputs", [])}
    changed = False
    for entry in want.get("inputs", []):
        other = got_inputs.get(entry["file"])
        if entry.get("error_code") in ("corrupt_gzip", "truncated_gzip") and entry["lines"] == 0 and other:
            entry["lines"] = other["lines"]
            changed = True
    if not changed:
        return expected
    return Result(expected.findings, expected.sessions, expected.quarantine, job.summary_json(want).encode(),
                  expected.status, expected.stderr)


def differences(expected: Result, actual: Result, compare_findings: bool = True) -> list[str]:
    """What differs, line for line after sorting and byte for byte; empty when they agree."""
    found = []
    expected = without_known_navreplay_difference(expected, actual)
    summary = json.loads(actual.summary) if actual.summary else {}
    if "lines" in summary:
        parts = sum(summary[k] for k in ("blank_lines", "invalid_lines", "redeliveries", "duplicates", "events"))
        if summary["lines"] != parts or summary["lines"] != sum(e["lines"] for e in summary["inputs"]):
            found.append("summary: lines do not add up")
    names = (["findings"] if compare_findings else []) + ["sessions", "quarantine", "summary"]
    for name in names:
        want, got = getattr(expected, name), getattr(actual, name)
        if sorted(want.splitlines()) != sorted(got.splitlines()):
            missing = sorted(set(want.splitlines()) - set(got.splitlines()))[:2]
            extra = sorted(set(got.splitlines()) - set(want.splitlines()))[:2]
            found.append(f"{name}: not the same lines; only expected: {missing!r}; only actual: {extra!r}")
        elif want != got:
            found.append(f"{name}: the same lines in another order")
    if expected.status != actual.status:
        found.append(f"exit status: expected {expected.status}, got {actual.status}")
    return found
