"""The Spark job's plan: navreplay does the work on lines, the JVM's tasks
(``java/NavreplayPipes.java``) run it and move the bytes; these functions, on the driver, say
what they run, and need no Spark (the tests run them alone).

- ``route_arguments``, ``audit_arguments``, ``pipes_plan``: the navreplay command lines the JVM's
  tasks run, and what else they need, as JSON. The map runs ``navreplay partition route`` on each
  split, which sends each line, as located input (``SPLIT<TAB>LINE<TAB>line``), to the partition
  of its session, in blocks, and each line's event id to a ledger bucket; the reduce runs
  ``navreplay partition audit`` on each partition, which groups and folds its sessions within
  --memory-limit; the ledger's buckets give the splits' reports, and through ``navreplay partition shared``
  the sessions that share an event id with another session (usually none): ``ledger_items``
  reads them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

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
# The tasks' command lines: navreplay does the work, the JVM moves the bytes
# ---------------------------------------------------------------------------------------------


def split_partitions(plan: Plan, index: int) -> int:
    """The partitions a split routes to (one fewer for odd splits with --debug-split-sessions)."""
    return plan.partitions - (1 if plan.split_sessions and index % 2 and plan.partitions > 1 else 0)


def route_arguments(plan: Plan, index: int) -> list[str]:
    """``navreplay partition route``'s arguments for one split: the file's byte range, or the whole
    file on standard input when the task reads it through Hadoop (another file system)."""
    split = plan.splits[index]
    local = plan.local[split.file]
    arguments = ["partition", "route", local if local is not None else "-", "--split-index", str(index),
                 "--partitions", str(split_partitions(plan, index)), "--id-buckets", str(plan.id_buckets),
                 "--model-index", str(plan.file_model[split.file]), "--max-line-bytes", str(plan.max_line_bytes),
                 "--block-bytes", str(plan.block_bytes)]
    if plan.shorthand:
        arguments.append("--shorthand")
    if local is not None:
        arguments += ["--range", f"{split.start}:{split.end}"]
    elif plan.gzip_named[split.file]:
        arguments.append("--gzip")
    return arguments


def audit_arguments(plan: Plan) -> list[str]:
    """``navreplay partition audit``'s arguments for a partition (its lines last); ``@WORK@`` stands
    for the task's directory, which holds the lines and the outputs."""
    arguments = ["partition", "audit", "--quiet", "--located-input", "@WORK@/paths.txt", "--line-offsets",
                 "@WORK@/offsets.txt", "--max-line-bytes", str(plan.max_line_bytes), "--memory-limit",
                 str(plan.memory_limit), "--jobs", str(plan.jobs), "--temp-dir", "@WORK@", "--max-findings-per-session",
                 str(plan.max_findings), "--findings", "@WORK@/findings.ndjson", "--quarantine",
                 "@WORK@/quarantine.ndjson", "--summary", "@WORK@/summary.json"]
    if plan.mode == "sessions" or plan.sessions:
        arguments += ["--sessions", "@WORK@/sessions.ndjson"]
    if plan.explain:
        arguments.append("--explain")
    return arguments


def pipes_plan(plan: Plan, uris: list[str | None] | None = None) -> str:
    """What the JVM's tasks (java/NavreplayPipes.java) need, as JSON: each split's navreplay
    arguments (``uris``: each file's URI when the task reads it through Hadoop, else None), the
    models, the audit's arguments; after the ledger, the line offsets and the shared sessions."""
    import base64

    def encoded(model: bytes | None):
        return base64.b64encode(model).decode() if model is not None else None

    uris = uris or [None] * len(plan.paths)
    return json.dumps({
        "binary": plan.navreplay, "shipped": plan.shipped, "partitions": plan.partitions,
        "routes": [{"arguments": route_arguments(plan, index), "partitions": split_partitions(plan, index),
                    "uri": uris[split.file] if plan.local[split.file] is None else None,
                    "model": plan.file_model[split.file]} for index, split in enumerate(plan.splits)],
        "models": [encoded(model) for model in plan.models],
        "explicit_model": encoded(plan.models[0]) if plan.explicit_model else None,
        "shorthand": plan.shorthand, "audit": audit_arguments(plan), "max_line_bytes": plan.max_line_bytes,
        "paths_text": "".join(plan.paths[split.file] + "\n" for split in plan.splits),
        "offsets_text": "".join(f"{offset}\n" for offset in plan.offsets), "shared": plan.shared})


def ledger_items(lines) -> list[tuple[str, object]]:
    """The ledger buckets' lines (a kind, a tab, a value): the splits' reports and statistics
    (JSON), navreplay partition shared's peak memory (bytes), CPU time (s) and session hashes."""
    items: list[tuple[str, object]] = []
    for line in lines:
        kind, value = line.split("\t", 1)
        items.append((kind, json.loads(value) if kind in ("report", "route") else
                      int(value) if kind == "peak" else float(value) if kind == "cpu" else value))
    return items


# Output blocks of a partition: findings rows, sessions, quarantine records; its summary, its
# statistics, and the lines of shared sessions set apart.
FINDINGS, SESSIONS, QUARANTINE, SUMMARY, STATS, SET_APART = "F", "S", "Q", "M", "P", "X"


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

