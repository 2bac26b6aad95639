"""The Spark job's plan and tasks, which run on the executors: navreplay does the work on
lines, these functions move the bytes. They need no Spark (the tests run them alone).

- ``route_split`` (the map): one split of a log through ``navreplay partition route``, which
  sends each line, as located input (``SPLIT<TAB>LINE<TAB>line``), to the partition of its
  session, in blocks; and each line's event id to a ledger bucket.
- ``shared_sessions`` (a ledger bucket): the splits' reports, and through ``navreplay partition
  shared`` the sessions that share an event id with another session (usually none).
- ``fold_partition`` (the reduce): one partition's lines through ``navreplay partition audit``,
  which groups and folds its sessions within --memory-limit; yields its outputs in blocks.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator

MB = 1 << 20

# ---------------------------------------------------------------------------------------------
# The plan: files, splits, partitions
# ---------------------------------------------------------------------------------------------

@dataclass
class InputFile:
    path: str  # as navreplay prints it
    uri: str  # Hadoop-qualified
    local: str | None = None  # where a task opens it; None: read through Spark (another file system)
    size: int = 0
    model_path: str | None = None  # the model.json that applies (navreplay's nearest-directory rule)
    error: tuple[str, str] | None = None  # (code, message): could not be read at all


@dataclass
class Split:
    file: int  # index into Plan.paths
    start: int
    end: int


@dataclass
class Plan:
    """What every task needs (shipped to the executors with the tasks)."""

    mode: str
    navreplay: str  # a path, or a SparkFiles name
    shipped: bool
    paths: list[str]  # every input file, as navreplay prints it
    local: list[str | None]  # where a task opens each file; None: Spark reads it
    gzip_named: list[bool]
    models: list[bytes | None]  # index 0: the built-in model (None), unless --model
    file_model: list[int]
    splits: list[Split]
    partitions: int
    id_buckets: int
    max_line_bytes: int
    memory_limit: int
    jobs: int
    explicit_model: bool = False
    max_findings: int = 10_000
    explain: bool = False
    sessions: bool = True
    split_sessions: bool = False  # --debug-split-sessions
    # A route's blocks (it holds one per partition), and whether they hold shorthand records.
    block_bytes: int = 256 << 10
    shorthand: bool = True
    # Known after the ledger: each split's first line number less one, and the shared sessions.
    offsets: list[int] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)


def plan_splits(files: list[InputFile], split_size: int) -> list[Split]:
    """Plain local files in ranges of about ``split_size``; gzip and remote files whole."""
    splits = []
    for index, item in enumerate(files):
        if item.error is not None:
            continue
        count = max(1, round(item.size / split_size))
        if item.local is None or item.path.endswith(".gz") or count == 1:
            splits.append(Split(index, 0, item.size))
            continue
        bounds = [item.size * k // count for k in range(count + 1)]
        splits.extend(Split(index, bounds[k], bounds[k + 1]) for k in range(count))
    return splits


def partition_count(files: list[InputFile], partition_size: int, parallelism: int) -> int:
    """Partitions of about ``partition_size`` of decompressed log each (gzip counts six times its
    size), a multiple of Spark's default parallelism (no core idle in the last wave), two
    waves at least."""
    estimated = sum(item.size * (6 if item.path.endswith(".gz") else 1) for item in files if item.error is None)
    waves = max(2, -(-estimated // (partition_size * max(1, parallelism))))
    return waves * max(1, parallelism)


# ---------------------------------------------------------------------------------------------
# The tasks: navreplay does the work, Python moves the bytes
# ---------------------------------------------------------------------------------------------


def _binary(plan: Plan) -> str:
    if not plan.shipped:
        return plan.navreplay
    from pyspark import SparkFiles

    path = SparkFiles.get(plan.navreplay)
    if not os.access(path, os.X_OK):
        try:
            os.chmod(path, 0o755)
        except OSError:
            copy = os.path.join(tempfile.mkdtemp(prefix="navreplay-bin-"), "navreplay")
            shutil.copy(path, copy)
            os.chmod(copy, 0o755)
            path = copy
    return path


class NavreplayFailed(RuntimeError):
    """navreplay ended with an unexpected status: the task fails (and Spark retries it)."""


class Process:
    """A navreplay process: standard output a pipe, standard error a file, standard input
    ``stdin_data`` (written on a thread of its own), a pipe to ``write`` to (``streaming``), or
    nothing."""

    def __init__(self, command: list[str], what: str, stdin_data: bytes | None = None, streaming: bool = False):
        self.what = what
        self.errors = tempfile.TemporaryFile()
        piped = stdin_data is not None or streaming
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=self.errors)
        self.stdout = self.process.stdout
        self.feeder = None
        if stdin_data is not None:
            self.feeder = threading.Thread(target=self._feed, args=(stdin_data,), daemon=True)
            self.feeder.start()

    def _feed(self, data: bytes) -> None:
        try:
            self.process.stdin.write(data)
        except BrokenPipeError:
            pass
        finally:
            try:
                self.process.stdin.close()
            except BrokenPipeError:
                pass

    def write(self, data) -> None:
        try:
            self.process.stdin.write(data)
        except BrokenPipeError:
            self.finish()  # it ended early: its status says why
            raise

    def finish(self, ok: tuple[int, ...] = (0,)) -> int:
        """Waits for the end; returns the peak memory in bytes. Another status than ``ok`` fails."""
        if self.process.stdin and not self.feeder and not self.process.stdin.closed:
            self.process.stdin.close()
        self.stdout.close()
        _, status, usage = os.wait4(self.process.pid, 0)
        self.process.returncode = os.waitstatus_to_exitcode(status)
        if self.feeder:
            self.feeder.join()
        self.errors.seek(0)
        self.message = self.errors.read().decode("utf-8", "replace").strip()
        self.errors.close()
        self.cpu_seconds = usage.ru_utime + usage.ru_stime
        if self.process.returncode not in ok:
            self.fail()
        return usage.ru_maxrss * 1024

    def fail(self, why: str = "") -> None:
        raise NavreplayFailed(
            f"navreplay {self.what} exited with status {self.process.returncode}{why}: {self.message}")

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            self.process.wait()
        self.errors.close()


def frames(stream) -> Iterator[tuple[int, bytes]]:
    """``navreplay partition route``'s frames: (destination, payload)."""
    while header := stream.read(8):
        if len(header) != 8:
            raise NavreplayFailed("navreplay's output ended in the middle of a frame header")
        destination, length = struct.unpack("<II", header)
        payload = stream.read(length)
        if len(payload) != length:
            raise NavreplayFailed(f"navreplay's output ended in the middle of a frame ({len(payload)} of {length} bytes)")
        yield destination, payload


def route_split(plan: Plan, index: int, data: bytes | None = None) -> Iterator[tuple[int, bytes]]:
    """The map: one split through ``navreplay partition route``; yields (destination, block).
    ``data`` is the whole file when Spark read it (another file system than the executors')."""
    split = plan.splits[index]
    partitions = plan.partitions - (1 if plan.split_sessions and index % 2 and plan.partitions > 1 else 0)
    command = [_binary(plan), "partition", "route", plan.local[split.file] if data is None else "-",
               "--split-index", str(index), "--partitions", str(partitions), "--id-buckets", str(plan.id_buckets),
               "--model-index", str(plan.file_model[split.file]), "--max-line-bytes", str(plan.max_line_bytes),
               "--block-bytes", str(plan.block_bytes)]
    if plan.shorthand:
        command.append("--shorthand")
    if data is None:
        command += ["--range", f"{split.start}:{split.end}"]
    elif plan.gzip_named[split.file]:
        command.append("--gzip")
    started, python_cpu = time.monotonic(), time.process_time()
    process = Process(command, "partition route", stdin_data=data)
    reported = False
    try:
        for destination, payload in frames(process.stdout):
            reported = reported or payload[:1] == b"E"
            # The ledger's buckets follow the partitions (fewer with --debug-split-sessions).
            yield destination if destination < partitions else destination + plan.partitions - partitions, payload
    except BaseException:
        process.kill()
        raise
    peak = process.finish(ok=(0, 2))  # 2: the file could not be read completely, as its report says
    if not reported:
        process.fail(f" and no report for split {index}")
    stats = {"split": index, "peak_bytes": peak, "cpu_seconds": round(process.cpu_seconds, 3),
             "python_cpu_seconds": round(time.process_time() - python_cpu, 3), "seconds": round(time.monotonic() - started, 3)}
    yield plan.partitions, b"S" + json.dumps(stats).encode()


def shared_sessions(plan: Plan, payloads: Iterable[bytes]) -> Iterator[tuple[str, object]]:
    """A ledger bucket's reduce: the splits' reports and statistics, and through ``navreplay
    partition shared`` the session hashes that share an event id with another session."""
    entries = []
    for payload in payloads:
        kind = payload[:1]
        if kind == b"I":
            entries.append(memoryview(payload)[1:])
        elif kind == b"E":
            yield "report", json.loads(payload[1:])
        elif kind == b"S":
            yield "route", json.loads(payload[1:])
    if entries:
        process = Process([_binary(plan), "partition", "shared", "-"], "partition shared", stdin_data=b"".join(entries))
        output = process.stdout.read()
        yield "peak", process.finish()
        for line in output.decode().split():
            yield "shared", line


# Output blocks of a partition: findings rows, sessions, quarantine records; its summary, its
# statistics, and the lines of shared sessions set apart.
FINDINGS, SESSIONS, QUARANTINE, SUMMARY, STATS, SET_APART = "F", "S", "Q", "M", "P", "X"


def fold_partition(plan: Plan, partition: int, payloads: Iterable[bytes]) -> Iterator[tuple[str, int, int, bytes]]:
    """The reduce: one partition's located lines through ``navreplay partition audit``; yields
    (kind, partition, block number, bytes). The lines of shared sessions are set apart (X)."""

    def blocks():
        for payload in payloads:
            if payload[:1] in (b"L", b"H"):
                split = struct.unpack_from("<I", payload, 1)[0]
                yield plan.file_model[plan.splits[split].file], memoryview(payload)[5:]

    return _fold(plan, partition, blocks(), set_apart=bool(plan.shared), shorthand=plan.shorthand)


def fold_set_apart(plan: Plan, blocks: Iterable[tuple[int, bytes]]) -> Iterator[tuple[str, int, int, bytes]]:
    """The sessions that share event ids with other partitions' (X blocks: model, lines), folded
    together, as partition number ``plan.partitions``."""
    return _fold(plan, plan.partitions, blocks, set_apart=False, shorthand=False)


def _fold(plan: Plan, partition: int, blocks: Iterable[tuple[int, bytes]], set_apart: bool, shorthand: bool):
    """Each model's lines to a file (through ``navreplay partition expand`` when they come as
    shorthand records), then the audit."""
    started, python_cpu = time.monotonic(), time.process_time()
    workdir = tempfile.mkdtemp(prefix=f"navreplay-p{partition}-")
    try:
        files: dict[int, object] = {}
        received = 0
        for model, block in blocks:
            if model not in files:
                path = _lines_path(plan, workdir, model)
                files[model] = Process([_binary(plan), "partition", "expand", "--output", path, "-"], "partition expand",
                                       streaming=True) if shorthand else open(path, "wb")
            files[model].write(block)
            received += len(block)
        peaks = [0]
        cpu = [0.0]
        for handle in files.values():
            if shorthand:
                peaks.append(handle.finish())
                cpu.append(handle.cpu_seconds)
            else:
                handle.close()
        if set_apart and files:
            yield from _set_apart(plan, workdir, sorted(files), peaks, cpu)
        sizes = {}
        for kind, number, block in _audit(plan, workdir, peaks, cpu):
            sizes[kind] = sizes.get(kind, 0) + len(block)
            yield kind, partition, number, block
        stats = {"partition": partition, "bytes": received, "outputs": sizes, "peak_bytes": max(peaks),
                 "cpu_seconds": round(sum(cpu), 3), "python_cpu_seconds": round(time.process_time() - python_cpu, 3),
                 "seconds": round(time.monotonic() - started, 3)}
        yield STATS, partition, 0, json.dumps(stats).encode()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _lines_path(plan: Plan, workdir: str, model: int) -> str:
    """Each model's lines in a directory of their own, with its model.json: one navreplay run
    folds them all, each file with its nearest model, numbered in path order as on one machine."""
    directory = os.path.join(workdir, "lines", f"m{model:06d}")
    os.makedirs(directory, exist_ok=True)
    if plan.models[model] is not None and not plan.explicit_model:
        with open(os.path.join(directory, "model.json"), "wb") as handle:
            handle.write(plan.models[model])
    return os.path.join(directory, "lines.ndjson")


def _set_apart(plan: Plan, workdir: str, models: list[int], peaks: list[int], cpu: list[float]):
    shared = os.path.join(workdir, "shared.txt")
    with open(shared, "w") as handle:
        handle.write("".join(line + "\n" for line in plan.shared))
    for model in models:
        path = _lines_path(plan, workdir, model)
        kept = path + ".kept"
        process = Process([_binary(plan), "partition", "route", path, "--sessions", shared, "--partitions", "2",
                           "--split-index", str(model), "--max-line-bytes", str(plan.max_line_bytes)],
                          "partition route --sessions")
        number = 0
        with open(kept, "wb") as out:
            for destination, payload in frames(process.stdout):
                if payload[:1] == b"L" and destination == 0:
                    out.write(memoryview(payload)[5:])
                elif payload[:1] == b"L":
                    yield SET_APART, model, number, payload[5:]
                    number += 1
        peaks.append(process.finish())
        cpu.append(process.cpu_seconds)
        os.replace(kept, path)


def _audit(plan: Plan, workdir: str, peaks: list[int], cpu: list[float]):
    lines = os.path.join(workdir, "lines")
    if not os.path.isdir(lines):
        return
    listed = os.path.join(workdir, "paths.txt")
    with open(listed, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("".join(plan.paths[split.file] + "\n" for split in plan.splits))
    offsets = os.path.join(workdir, "offsets.txt")
    with open(offsets, "w") as handle:
        handle.write("".join(f"{offset}\n" for offset in plan.offsets))
    outputs = {kind: os.path.join(workdir, name) for kind, name in
               ((FINDINGS, "findings.ndjson"), (SESSIONS, "sessions.ndjson"), (QUARANTINE, "quarantine.ndjson"),
                (SUMMARY, "summary.json"))}
    command = [_binary(plan), "partition", "audit", "--quiet", "--located-input", listed, "--line-offsets", offsets,
               "--max-line-bytes", str(plan.max_line_bytes), "--memory-limit", str(plan.memory_limit),
               "--jobs", str(plan.jobs), "--temp-dir", workdir, "--max-findings-per-session", str(plan.max_findings),
               "--findings", outputs[FINDINGS], "--quarantine", outputs[QUARANTINE], "--summary", outputs[SUMMARY]]
    if plan.mode == "sessions" or plan.sessions:
        command += ["--sessions", outputs[SESSIONS]]
    if plan.explain:
        command.append("--explain")
    if plan.explicit_model and plan.models[0] is not None:
        model_file = os.path.join(workdir, "model.json")
        with open(model_file, "wb") as handle:
            handle.write(plan.models[0])
        command += ["--model", model_file]
    process = Process(command + [lines], "partition audit")
    peaks.append(process.finish())
    cpu.append(process.cpu_seconds)
    for kind, path in outputs.items():
        if os.path.exists(path):
            for number, block in enumerate(_blocks(path)):
                yield kind, number, block


def _blocks(path: str, size: int = 4 * MB) -> Iterator[bytes]:
    """A file's whole lines in blocks of about ``size``."""
    with open(path, "rb") as handle:
        carry = b""
        while True:
            chunk = handle.read(size)
            if not chunk:
                break
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            if cut:
                yield data[:cut]
            carry = data[cut:]
        if carry:
            yield carry


# ---------------------------------------------------------------------------------------------
# The summary, merged as navreplay writes it
# ---------------------------------------------------------------------------------------------


def json_quote(text: str) -> str:
    """A JSON string literal escaped as navreplay's JSONWriter does."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029):
            out.append("\\u%04x" % code)
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


SUMMARY_COUNTS = ["lines", "blank_lines", "invalid_lines", "redeliveries", "duplicates", "events", "sessions",
                  "findings"]


def merge_summaries(paths: list[str], summaries: list[dict], unreadable: dict[int, tuple]) -> dict:
    """Adds the partitions' summaries up; ``unreadable`` holds each unreadable file's (code, message)."""
    merged = {"files": len(paths), "unreadable_files": len(unreadable)}
    for name in SUMMARY_COUNTS:
        merged[name] = sum(summary.get(name, 0) for summary in summaries)
    by_rule: dict[str, int] = {}
    by_severity = {"error": 0, "warning": 0}
    per_file: dict[str, list[int]] = {path: [0, 0] for path in paths}
    for summary in summaries:
        for rule, count in summary.get("findings_by_rule", {}).items():
            by_rule[rule] = by_rule.get(rule, 0) + count
        for severity, count in summary.get("findings_by_severity", {}).items():
            by_severity[severity] = by_severity.get(severity, 0) + count
        for report in summary.get("inputs", []):
            totals = per_file.setdefault(report["file"], [0, 0])
            totals[0] += report["lines"]
            totals[1] += report["bytes"]
    merged["findings_by_rule"] = {rule: by_rule[rule] for rule in sorted(by_rule)}
    merged["findings_by_severity"] = by_severity
    inputs = []
    for index in sorted(range(len(paths)), key=lambda i: paths[i].encode("utf-8", "surrogateescape")):
        path = paths[index]
        entry = {"file": path, "lines": per_file[path][0], "bytes": per_file[path][1]}
        if index in unreadable:
            entry["error"], entry["error_code"] = unreadable[index][1], unreadable[index][0]
        inputs.append(entry)
    merged["inputs"] = inputs
    return merged


def summary_json(summary: dict) -> str:
    """The merged summary, in navreplay's key order and escaping (one line)."""

    def value(item) -> str:
        if isinstance(item, dict):
            return "{" + ",".join(json_quote(k) + ":" + value(v) for k, v in item.items()) + "}"
        if isinstance(item, list):
            return "[" + ",".join(value(v) for v in item) + "]"
        if isinstance(item, str):
            return json_quote(item)
        if isinstance(item, bool):
            return "true" if item else "false"
        return str(item)

    return value(summary) + "\n"


def summary_text(summary: dict) -> str:
    """navreplay's one or two lines for people."""
    errors = summary["findings_by_severity"].get("error", 0)
    text = (f"{summary['files']} file(s), {summary['lines']} line(s): {summary['events']} event(s) folded, "
            f"{summary['blank_lines']} blank, {summary['invalid_lines']} invalid, "
            f"{summary['redeliveries']} redelivered, {summary['duplicates']} duplicate; "
            f"{summary['sessions']} session(s); {summary['findings']} finding(s) "
            f"({errors} error(s), {summary['findings'] - errors} warning(s))")
    if summary["findings_by_rule"]:
        text += "\n  by rule: " + ", ".join(f"{rule} {count}" for rule, count in summary["findings_by_rule"].items())
    return text


def line_offsets(plan: Plan, reports: list[dict]) -> tuple[list[int], dict[int, tuple[str, str, int | None]]]:
    """Each split's first line number less one (the lines of the file's splits before it), and
    each file's read error, from the splits' reports."""
    lines = [0] * len(plan.splits)
    errors: dict[int, tuple[str, str, int | None]] = {}
    for report in reports:
        lines[report["split"]] = report["lines"]
        if "error_code" in report:
            errors[plan.splits[report["split"]].file] = (report["error_code"], report["error"], report["after_line"])
    offsets = []
    before = {}
    for index, split in enumerate(plan.splits):
        offsets.append(before.get(split.file, 0))
        before[split.file] = offsets[-1] + lines[index]
    return offsets, errors

