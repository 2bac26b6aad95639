"""Runs navreplay on the original files and on the job's located, grouped stream, and compares.

``single_machine`` is the reference: what ``navreplay audit`` / ``navreplay sessions`` print for
the files themselves. ``without_spark`` runs the job's tasks on the same files (routed in splits
of any size, ledger, folded partitions) and merges their outputs in the job's order: no Spark
job, only the JVM's part of the tasks called through py4j (one JVM for the whole test session),
so the line handling can be checked on many small cases quickly. ``differences`` compares two
results.
"""

from __future__ import annotations

import argparse
import glob
import io
import json
import os
import shlex
import struct
import subprocess
import tempfile
from dataclasses import dataclass

import navreplay_job as job
import navreplay_tasks as tasks

DEFAULT_MAX_LINE_BYTES = 1_048_576


@dataclass
class Result:
    findings: bytes
    sessions: bytes
    quarantine: bytes
    summary: bytes
    status: int
    stderr: str = ""


def frames(stream):
    """``navreplay partition route``'s frames (what the JVM part reads): (destination, payload)."""
    while header := stream.read(8):
        assert len(header) == 8, "navreplay's output ended in the middle of a frame header"
        destination, length = struct.unpack("<II", header)
        payload = stream.read(length)
        assert len(payload) == length, f"navreplay's output ended in the middle of a frame ({len(payload)} of {length} bytes)"
        yield destination, payload


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


def without_spark(navreplay: str, arguments: list[str], max_line_bytes: int | None = None,
                  split_size: int = 1 << 27, partitions: int = 3, id_buckets: int = 2, plain_lines: bool = False) -> Result:
    """The job's plan and tasks on local files without Spark: every split routed, the ledger's
    buckets reduced, every partition folded, the outputs merged in the job's order."""
    inputs = job.Inputs.__new__(job.Inputs)  # local paths only: no JVM needed
    files = inputs.resolve(arguments, None)
    models, file_model = job._models(inputs, files, None)
    options = argparse.Namespace(
        partitions=partitions, partition_size=1, split_size=split_size, max_line_bytes=max_line_bytes or DEFAULT_MAX_LINE_BYTES,
        memory_limit=64 << 20, jobs=1, model=None, debug_split_sessions=False,
        debug_plain_lines=plain_lines)
    plan = job.make_plan("audit", options, files, models, file_model, navreplay, False, 1)
    plan.id_buckets = id_buckets
    pipes = jvm_pipes()
    shuffled: dict[int, list[bytes]] = {}
    routing = tasks.pipes_plan(plan)
    for index in range(len(plan.splits)):
        for destination, payload in frames(io.BytesIO(bytes(pipes.routeFrames(routing, index)))):
            shuffled.setdefault(destination, []).append(payload)
    ledger = [item for bucket in range(id_buckets) for item in tasks.ledger_items(pipes.ledgerLines(
        routing, b"".join(struct.pack("<II", partitions + bucket, len(block)) + block
                          for block in shuffled.get(partitions + bucket, []))))]
    plan.offsets, errors = tasks.line_offsets(plan, [value for kind, value in ledger if kind == "report"])
    plan.shared = sorted({value for kind, value in ledger if kind == "shared"})
    folding = tasks.pipes_plan(plan)
    results = [r for p in range(partitions) for r in fold_frames(pipes, folding, p, [(p, b) for b in shuffled.get(p, [])])]
    if plan.shared:
        apart = [(model, block) for kind, model, _, block in results if kind == tasks.SET_APART]
        results = [r for r in results if r[0] != tasks.SET_APART] + fold_frames(pipes, folding, partitions, apart, True)
    return merged_outputs(plan, results, errors, {i: f.error for i, f in enumerate(files) if f.error})


_GATEWAY: list = []


def jvm_pipes():
    """The JVM's part of the job (navreplay.spark.NavreplayPipes) in a JVM of its own, with
    Spark's jars and the job's, started once (no Spark context)."""
    if not _GATEWAY:
        from pyspark.java_gateway import launch_gateway

        saved = os.environ.get("PYSPARK_SUBMIT_ARGS")
        os.environ["PYSPARK_SUBMIT_ARGS"] = f"--driver-class-path {shlex.quote(job.pipes_jar())} pyspark-shell"
        try:
            _GATEWAY.append(launch_gateway())
        finally:
            if saved is None:
                os.environ.pop("PYSPARK_SUBMIT_ARGS", None)
            else:
                os.environ["PYSPARK_SUBMIT_ARGS"] = saved
    return _GATEWAY[0].jvm.navreplay.spark.NavreplayPipes


def fold_frames(pipes, plan_json: str, partition: int, blocks: list[tuple[int, bytes]], apart: bool = False) -> list:
    """One partition's blocks through the JVM's fold: (kind, partition, block number, data)."""
    framed = b"".join(struct.pack("<II", key, len(block)) + block for key, block in blocks)
    output = bytes(pipes.foldFrames(plan_json, partition, framed, apart))
    return [(payload[:1].decode(), destination, struct.unpack_from("<I", payload, 1)[0], payload[5:])
            for destination, payload in frames(io.BytesIO(output))]


def merged_outputs(plan, results, errors: dict, unreadable: dict) -> Result:
    """The partitions' outputs in the job's order (what its Spark sorts do)."""

    def lines(kind):
        for _, partition, block, data in sorted(r for r in results if r[0] == kind):
            for position, line in enumerate(data.split(b"\n")):
                if line:
                    yield (partition, block, position), line

    def keyed(kind):  # navreplay's sort key, then the place
        return sorted((line.split(b"\t")[0], place, line.split(b"\t")[1]) for place, line in lines(kind))

    findings = b"".join(line + b"\n" for _, _, line in keyed("F"))
    sessions = b"".join(line + b"\n" for _, _, line in keyed("S"))
    quarantine = b"".join(line + b"\n" for _, line in sorted(
        lines("Q"), key=lambda i: (json.loads(i[1])["file"], json.loads(i[1])["line"])))
    summaries = [json.loads(data) for kind, _, _, data in results if kind == tasks.SUMMARY]
    for index, (code, message, _) in errors.items():
        unreadable[index] = (code, message)
    merged = tasks.merge_summaries(plan.paths, summaries, unreadable)
    # As navreplay audit: an input that holds no line that is not blank is exit status 2.
    empty = merged["lines"] == merged["blank_lines"]
    status = 2 if unreadable or empty else (1 if merged["findings_by_severity"]["error"] else 0)
    return Result(findings, sessions, quarantine, tasks.summary_json(merged).encode(), status)


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
    return Result(expected.findings, expected.sessions, expected.quarantine, tasks.summary_json(want).encode(),
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
