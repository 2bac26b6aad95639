"""navreplay on Apache Spark: the same audit as one machine, partitioned by session.

The job reads NDJSON logs (plain or gzip; paths, directories or globs; local or any Hadoop file
system such as s3a://, gs://, hdfs://), numbers every line itself (Spark does not keep line
numbers), keys each line by its ``session_id``, repartitions by session (the sessions that share
an event id with another session all into one partition, where navreplay resolves the conflicts
between them; found by a first pass over the keyed lines, which are kept for the second), sorts
each partition by session and ``seq``, and pipes each partition through ``navreplay`` in its pre-grouped,
located-input mode (``--pre-grouped --located-input PATHS``), so that every finding carries the
original file and line. The per-partition outputs are merged into:

    DIR/findings/           NDJSON part files; concatenated in part order they are byte for byte
                            what ``navreplay audit --format ndjson`` prints for the same inputs
    DIR/findings_parquet/   the same findings as Parquet (expected/found as JSON text)
    DIR/sessions/           NDJSON part files, as ``navreplay sessions --format ndjson``
    DIR/quarantine/         every invalid line, as ``navreplay audit --quarantine``
    DIR/summary.json        the merged summary, as ``navreplay audit --summary``

Entry points: ``navreplay_audit.py`` (findings, sessions, quarantine, summary) and
``navreplay_sessions.py`` (sessions, quarantine, summary). This module holds everything else;
the job ships it to the executors with ``SparkContext.addPyFile``.
"""

from __future__ import annotations

import argparse
import base64
import ctypes
import ctypes.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from typing import Iterator

DEFAULT_MAX_LINE_BYTES = 1_048_576
# navreplay reads located lines with a limit of --max-line-bytes + 64 (the prefix is at most 41 bytes).
LOCATED_EXTRA = 64

# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

# spark-submit options that take a value, and those that do not (Spark 3.4-4.x).
SPARK_SUBMIT_VALUE_OPTIONS = {
    "--master", "--deploy-mode", "--class", "--name", "--jars", "--packages", "--exclude-packages",
    "--repositories", "--py-files", "--files", "--archives", "--conf", "-c", "--properties-file",
    "--driver-memory", "--driver-java-options", "--driver-library-path", "--driver-class-path",
    "--executor-memory", "--proxy-user", "--driver-cores", "--total-executor-cores", "--executor-cores",
    "--num-executors", "--principal", "--keytab", "--queue",
}
SPARK_SUBMIT_FLAGS = {"--verbose", "-v", "--supervise"}


class UsageError(Exception):
    """A command-line mistake: exit status 2, like navreplay."""


def split_spark_arguments(argv: list[str]) -> tuple[list[str], list[str]]:
    """Separates spark-submit options (which pass through to Spark) from the job's own."""
    spark: list[str] = []
    job: list[str] = []
    index = 0
    while index < len(argv):
        argument = argv[index]
        if argument == "--":
            job.extend(argv[index:])
            break
        name = argument.split("=", 1)[0]
        if name in SPARK_SUBMIT_VALUE_OPTIONS:
            if "=" in argument and argument.startswith("--"):
                spark.extend([name, argument.split("=", 1)[1]])
            else:
                if index + 1 >= len(argv):
                    raise UsageError(f"{argument} needs a value")
                spark.extend([argument, argv[index + 1]])
                index += 1
        elif argument in SPARK_SUBMIT_FLAGS:
            spark.append(argument)
        else:
            job.append(argument)
        index += 1
    return spark, job


def build_parser(mode: str) -> argparse.ArgumentParser:
    script = "navreplay_audit.py" if mode == "audit" else "navreplay_sessions.py"
    what = (
        "findings (NDJSON and Parquet), sessions, quarantine and summary"
        if mode == "audit"
        else "sessions, quarantine and summary"
    )
    parser = argparse.ArgumentParser(
        prog=script,
        description=(
            f"Run `navreplay {'audit' if mode == 'audit' else 'sessions'}` on Apache Spark, partitioned by session: "
            f"writes {what} under --output. Any spark-submit option (--master, --conf k=v, --executor-memory, "
            "--num-executors, --files, ...) passes through to Spark."
        ),
        epilog=(
            "Exit status, as navreplay: 0 nothing at or above --fail-on; 1 findings at or above it; "
            "2 a usage error or an input that could not be read completely (the other inputs are still audited); "
            "3 the job itself failed (Spark or navreplay), its outputs are incomplete.\n\n"
            f"Example:\n  {script} --navreplay .build/release/navreplay --output out/ --master 'local[2]' "
            "'logs/2026-11-20/*.ndjson.gz'"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="Log files (.ndjson, .ndjson.gz), directories (their *.ndjson and *.ndjson.gz files, "
                             "recursively), or globs; local paths or URIs (s3a://, gs://, hdfs://, file://).")
    parser.add_argument("--navreplay", required=True, metavar="PATH",
                        help="The navreplay binary: a local path or URI (the job ships it to the executors), "
                             "or the name of a file already shipped with spark-submit --files.")
    parser.add_argument("--output", required=True, metavar="DIR", help="Where the outputs go (local path or URI).")
    parser.add_argument("--overwrite", action="store_true", help="Replace the outputs of an earlier run in --output.")
    parser.add_argument("--model", metavar="model.json",
                        help="The navigation model for every input (local path or URI). Default: the nearest "
                             "model.json of each file under a directory argument, else the built-in PoC model.")
    parser.add_argument("--partitions", type=int, default=0, metavar="N",
                        help="Partitions (= navreplay processes) to fold in. Default: enough for about "
                             "64 MB of decompressed log each, and at least Spark's default parallelism.")
    parser.add_argument("--max-line-bytes", type=int, default=DEFAULT_MAX_LINE_BYTES, metavar="N",
                        help="Lines longer than this many bytes are invalid (navreplay's --max-line-bytes).")
    parser.add_argument("--fail-on", choices=["error", "warning", "never"], default="error",
                        help="Exit 1 when a finding is at or above this severity (default: error).")
    if mode == "audit":
        parser.add_argument("--max-findings-per-session", type=int, default=10_000, metavar="N",
                            help="Keep at most this many findings per session (the rest are counted in the summary).")
        parser.add_argument("--explain", action="store_true",
                            help="Add the witness event and the state before and after to each finding.")
        parser.add_argument("--no-sessions", action="store_true",
                            help="Do not write DIR/sessions/ (one navreplay process per partition instead of two).")
    parser.add_argument("-q", "--quiet", action="store_true", help="No summary on standard error.")
    parser.add_argument("--debug-split-session", metavar="SESSION_ID",
                        help="For tests only: spread this session's lines over several partitions (by seq), "
                             "which breaks the audit on purpose.")
    return parser


# ---------------------------------------------------------------------------------------------
# Lines: splitting, gzip and located input, exactly as navreplay reads a file
# ---------------------------------------------------------------------------------------------


def reader_view(raw: bytes, terminated: bool, max_line_bytes: int) -> tuple[bytes, int | None]:
    """What navreplay's LineReader hands over for one physical line of a file.

    ``raw`` is the line without its ``\\n``. Returns the line's bytes (for an over-long line, the
    first ``max_line_bytes`` of them) and the over-long length, or ``None`` when within the limit.
    Mirrors ``LineSplitter.emitChecked``: a line ended by ``\\n`` loses one trailing ``\\r`` (an
    over-long one from its length only: its bytes were cut before); the last line of a file,
    without ``\\n``, keeps it.
    """
    if terminated and len(raw) <= max_line_bytes + 1:
        content = raw[:-1] if raw.endswith(b"\r") else raw
        if len(content) > max_line_bytes:
            return content[:max_line_bytes], len(content)
        return content, None
    if terminated:
        return raw[:max_line_bytes], len(raw) - (1 if raw.endswith(b"\r") else 0)
    if len(raw) > max_line_bytes:
        return raw[:max_line_bytes], len(raw)
    return raw, None


def located_view(prefix: bytes, sent: bytes, max_line_bytes: int) -> tuple[bytes, int | None]:
    """What navreplay makes of the located line ``prefix + sent + \\n`` (LineReader, then LocatedLine.split)."""
    limit = max_line_bytes + LOCATED_EXTRA
    whole = prefix + sent
    if len(whole) <= limit + 1:
        stripped = whole[:-1] if whole.endswith(b"\r") else whole
        content = stripped[len(prefix):]
        if len(content) > max_line_bytes:
            return content[:max_line_bytes], len(content)
        return content, None
    # Over the reader's limit: the length as read less a final \r, the bytes the reader's first `limit`.
    return whole[:limit][len(prefix):][:max_line_bytes], len(sent) - (1 if whole.endswith(b"\r") else 0)


def located_line(file_index: int, number: int, raw: bytes, terminated: bool, max_line_bytes: int) -> bytes:
    """The located input line (``FILE_INDEX<TAB>LINE[u]<TAB>bytes\\n``) that navreplay reads as this line.

    Most lines are sent as they are. A few are adjusted so that navreplay's reading of the
    located stream gives the same bytes and length as its reading of the original file: an
    unterminated line ending in ``\\r`` gets one more ``\\r`` (the located stream ends it with
    ``\\n``, which would strip it), and lines near the length limit may get a leading zero in
    their file index (navreplay reads ``007`` as 7).
    """
    mark = b"" if terminated else b"u"
    if terminated and len(raw) <= max_line_bytes + 1:
        return b"%d\t%d\t" % (file_index, number) + raw + b"\n"
    if not terminated and len(raw) <= max_line_bytes and not raw.endswith(b"\r"):
        return b"%d\t%du\t" % (file_index, number) + raw + b"\n"
    target = reader_view(raw, terminated, max_line_bytes)
    for padding in (b"", b"0", b"00"):
        prefix = padding + b"%d\t%d" % (file_index, number) + mark + b"\t"
        for sent in (raw, raw + b"\r"):
            if located_view(prefix, sent, max_line_bytes) == target:
                return prefix + sent + b"\n"
    raise AssertionError(f"no located form reproduces line {number} of file {file_index}")  # pragma: no cover


def clamp_quarantine_record(line: bytes, max_line_bytes: int) -> bytes:
    """Keeps at most ``max_line_bytes`` bytes of a quarantined line, as navreplay does for its own files.

    navreplay's located-input mode keeps up to 64 bytes more of an over-long line (its
    ``LocatedLine.split`` does not cut the reader's bytes back to the limit); this restores the
    single-machine record: the first ``max_line_bytes`` bytes, ``raw`` null unless valid UTF-8.
    """
    record = json.loads(line)
    raw = base64.b64decode(record["raw_base64"])
    if len(raw) <= max_line_bytes:
        return line
    raw = raw[:max_line_bytes]
    try:
        text = json_quote(raw.decode("utf-8"))
    except UnicodeDecodeError:
        text = "null"
    field = "null" if record["field"] is None else json_quote(record["field"])
    return (("{" + f'"file":{json_quote(record["file"])},"line":{record["line"]},"field":{field},'
             f'"reason":{json_quote(record["reason"])},"raw":{text},"raw_base64":"{base64.b64encode(raw).decode()}"' + "}")
            .encode("utf-8") + b"\n")


class InputProblem(Exception):
    """A file that could not be read completely: navreplay's InputError code and message."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class _ZStream(ctypes.Structure):
    _fields_ = [
        ("next_in", ctypes.c_void_p), ("avail_in", ctypes.c_uint), ("total_in", ctypes.c_ulong),
        ("next_out", ctypes.c_void_p), ("avail_out", ctypes.c_uint), ("total_out", ctypes.c_ulong),
        ("msg", ctypes.c_char_p), ("state", ctypes.c_void_p), ("zalloc", ctypes.c_void_p),
        ("zfree", ctypes.c_void_p), ("opaque", ctypes.c_void_p), ("data_type", ctypes.c_int),
        ("adler", ctypes.c_ulong), ("reserved", ctypes.c_ulong),
    ]


def _libz():
    name = ctypes.util.find_library("z") or "libz.so.1"
    library = ctypes.CDLL(name)
    library.zlibVersion.restype = ctypes.c_char_p
    library.inflateInit2_.argtypes = [ctypes.POINTER(_ZStream), ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    library.inflate.argtypes = [ctypes.POINTER(_ZStream), ctypes.c_int]
    library.inflateReset.argtypes = [ctypes.POINTER(_ZStream)]
    library.inflateEnd.argtypes = [ctypes.POINTER(_ZStream)]
    return library


def gunzip_exactly(data: bytes) -> Iterator[bytes]:
    """navreplay's GzipInflater loop on the system zlib, through ctypes: on a corrupt stream it
    keeps every byte zlib wrote before the error, which Python's zlib module drops."""
    Z_OK, Z_STREAM_END, Z_BUF_ERROR = 0, 1, -5
    library = _libz()
    stream = _ZStream()
    if library.inflateInit2_(ctypes.byref(stream), 15 + 16, library.zlibVersion(), ctypes.sizeof(_ZStream)) != Z_OK:
        raise InputProblem("unreadable", "zlib could not be initialised")
    source = ctypes.create_string_buffer(data, len(data))
    output = ctypes.create_string_buffer(1 << 18)
    middle = False
    try:
        stream.next_in = ctypes.addressof(source)
        stream.avail_in = len(data)
        while stream.avail_in > 0:
            middle = True
            stream.next_out = ctypes.addressof(output)
            stream.avail_out = len(output)
            status = library.inflate(ctypes.byref(stream), 0)
            produced = len(output) - stream.avail_out
            if produced:
                yield output.raw[:produced]
            if status in (Z_OK, Z_BUF_ERROR):
                continue
            if status == Z_STREAM_END:
                middle = False
                library.inflateReset(ctypes.byref(stream))
                continue
            reason = stream.msg.decode("utf-8", "replace") if stream.msg else f"status {status}"
            raise InputProblem("corrupt_gzip", f"corrupt gzip data: {reason}")
        if middle:
            raise InputProblem("truncated_gzip", "the gzip stream is truncated")
    finally:
        library.inflateEnd(ctypes.byref(stream))


def gunzip_pieces(data: bytes, chunk: int = 1 << 20) -> Iterator[bytes]:
    """Decompresses a gzip file (several members allowed, zero padding after them) as navreplay's
    GzipInflater does; an empty file is a truncated stream.

    Yields the decompressed bytes; on a corrupt or truncated stream, yields what was decoded
    before the error and then raises ``InputProblem`` with navreplay's code and message. Python's
    zlib does the work; at a decompression error the file is decoded again with
    ``gunzip_exactly`` to recover the bytes Python's zlib drops at the error.
    """
    inflater = None
    middle = False
    members_ended = 0
    in_padding = False
    delivered = 0
    for start in range(0, len(data), chunk):
        pending = data[start:start + chunk]
        while pending:
            if inflater is None and members_ended and (in_padding or pending[0] == 0):
                # As navreplay: zero bytes after a member are padding; anything after them is not gzip.
                in_padding = True
                if pending.count(0) != len(pending):
                    raise InputProblem("corrupt_gzip", "corrupt gzip data: bytes other than zeros after the zero padding")
                break
            if inflater is None:
                inflater = zlib.decompressobj(31)
            middle = True
            try:
                piece = inflater.decompress(pending)
            except zlib.error:
                skip = delivered
                for exact in gunzip_exactly(data):  # raises the InputProblem after the last piece
                    if skip >= len(exact):
                        skip -= len(exact)
                        continue
                    yield exact[skip:]
                    skip = 0
                raise AssertionError("zlib failed, then decoded the file without error") from None
            if piece:
                delivered += len(piece)
                yield piece
            if inflater.eof:
                middle = False
                members_ended += 1
                pending = inflater.unused_data
                inflater = None
            else:
                pending = b""
    if middle:
        raise InputProblem("truncated_gzip", "the gzip stream is truncated")
    if not members_ended:
        raise InputProblem("truncated_gzip", "the gzip stream is truncated: the file is empty")


def is_gzip(path: str, data: bytes) -> bool:
    """navreplay's test: the name ends in .gz, or the file begins with the gzip magic bytes."""
    return path.endswith(".gz") or data[:2] == b"\x1f\x8b"


def file_lines(path: str, data: bytes) -> tuple[Iterator[tuple[int, bytes, bool]], list]:
    """The numbered lines of one file, and a one-slot list that receives its InputProblem, if any.

    As navreplay: lines fully decoded before a gzip error are read; the partial line at the
    error is not.
    """
    problem: list = []

    def generate() -> Iterator[tuple[int, bytes, bool]]:
        pieces = gunzip_pieces(data) if is_gzip(path, data) else (data[i:i + (1 << 20)] for i in range(0, len(data), 1 << 20))
        number = 0
        carry = b""
        try:
            for piece in pieces:
                if not piece:
                    continue
                parts = piece.split(b"\n")
                parts[0] = carry + parts[0]
                carry = parts.pop()
                for part in parts:
                    number += 1
                    yield number, part, True
        except InputProblem as error:
            problem.append(error)
            return
        if carry:
            number += 1
            yield number, carry, False

    return generate(), problem


_BLANK = re.compile(rb"[ \t\r]*\Z")
_SESSION_TOKEN = b'"session_id"'
_SESSION_VALUE = re.compile(rb'"session_id"[ \t\r\n]*:[ \t\r\n]*"((?:[^"\\]|\\.)*)"')
_SEQ_VALUE = re.compile(rb'"seq"[ \t\r\n]*:[ \t\r\n]*(-?[0-9]+)[ \t\r\n]*[,}]')


def session_of(content: bytes) -> tuple[str, int] | None:
    """The line's (session_id, seq), or ``None`` when its session cannot be read.

    Must find the session of every line navreplay accepts as an event (lines it rejects may
    land anywhere: they belong to no session). A quick scan handles the usual line, where
    ``"session_id"`` appears once and no ``\\u`` escape could spell the key another way;
    anything else goes through ``json.loads``, which accepts a superset of what navreplay accepts.
    """
    if content.count(_SESSION_TOKEN) == 1 and b"\\u" not in content:
        match = _SESSION_VALUE.search(content)
        if match is not None:
            value = match.group(1)
            try:
                session = value.decode("utf-8") if b"\\" not in value else json.loads(b'"' + value + b'"')
            except (UnicodeDecodeError, ValueError):
                return None
            seq_match = _SEQ_VALUE.search(content)
            return session, int(seq_match.group(1)) if seq_match else -1
    try:
        event = json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(event, dict):
        return None
    session = event.get("session_id")
    if not isinstance(session, str):
        return None
    seq = event.get("seq")
    return session, seq if type(seq) is int else -1


_EVENT_ID_TOKEN = b'"event_id"'
_EVENT_ID_VALUE = re.compile(rb'"event_id"[ \t\r\n]*:[ \t\r\n]*"((?:[^"\\]|\\.)*)"')


def event_id_of(content: bytes) -> str:
    """The line's top-level ``event_id``, or "" when it cannot be read (as ``session_of``).

    Used only to find the sessions that share an event id (CONTRACT §7: a conflict across
    sessions): a line whose id is misread can at worst send a session to the shared partition.
    """
    if content.count(_EVENT_ID_TOKEN) == 1 and b"\\u" not in content:
        match = _EVENT_ID_VALUE.search(content)
        if match is not None:
            value = match.group(1)
            try:
                return value.decode("utf-8") if b"\\" not in value else json.loads(b'"' + value + b'"')
            except (UnicodeDecodeError, ValueError):
                return ""
    try:
        event = json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return ""
    value = event.get("event_id") if isinstance(event, dict) else None
    return value if isinstance(value, str) else ""


def grouping_id(session: str) -> str:
    """The form sessions are grouped by: the id's exact text. navreplay compares ids as bytes, so
    "caf\u00e9" and "cafe\u0301" (canonically equivalent) are two sessions, as the contract's
    "Unicode scalars" make them."""
    return session


def stable_hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


# Record keys: (model, kind, session, seq, file, line, event_id). kind 0: no session (blank or
# unreadable). The event id comes last: it never changes the order (file and line are unique).
NO_SESSION, SESSION = 0, 1
# Sessions that share an event id with another session of their model are all folded by one
# navreplay run, in this partition, which resolves their shared ids as one machine does.
SHARED_PARTITION = 0


def keyed_lines(file_index: int, path: str, model: int, data: bytes, max_line_bytes: int) -> Iterator[tuple]:
    """Every line of one file as ``(key, located line)``, then ``(None, report)`` for the file.

    ``report`` is ``(file_index, lines, unreadable_no_session_lines, problem_code, problem_message, after_line)``.
    """
    lines, problem = file_lines(path, data)
    count = 0
    for number, raw, terminated in lines:
        count = number
        content, overlong = reader_view(raw, terminated, max_line_bytes)
        located = located_line(file_index, number, raw, terminated, max_line_bytes)
        found = None
        if overlong is None and not _BLANK.match(content):
            found = session_of(content)
        if found is None:
            blank = overlong is None and _BLANK.match(content) is not None
            yield (model, NO_SESSION, "", 0 if blank else 1, file_index, number, ""), located
        else:
            session, seq = found
            yield (model, SESSION, grouping_id(session), seq, file_index, number, event_id_of(content)), located
    error = problem[0] if problem else None
    yield None, (file_index, count, error.code if error else None, error.message if error else None)


def partition_hash(split_session: str | None, sharing: frozenset = frozenset()):
    """The partitioner: by (model, session); session-less lines spread by file and line; the
    sessions in ``sharing`` (``(model, session)``) all in ``SHARED_PARTITION``."""

    def hash_key(key: tuple) -> int:
        model, kind, session, seq, file_index, line, _ = key
        if kind == NO_SESSION:
            return file_index * 1_000_003 + line
        if split_session is not None and session == split_session:
            return stable_hash(session) + max(seq, 0)  # debug: consecutive seqs in different partitions
        if sharing and (model, session) in sharing:
            return SHARED_PARTITION
        return stable_hash(session) + model * 7919

    return hash_key


def sessions_sharing_ids(keyed) -> frozenset:
    """The ``(model, session)`` of every session that shares an event id with another session of
    its model (CONTRACT §7: every occurrence after the first, in (session_id, seq) order, is an
    ``event_id.conflict``), from an RDD of ``(key, line)``. Usually none."""
    pairs = keyed.flatMap(
        lambda record: [((record[0][0], record[0][6]), record[0][2])]
        if record[0][0] != -1 and record[0][1] == SESSION and record[0][6] else []).distinct()
    shared = pairs.mapValues(lambda _: 1).reduceByKey(lambda a, b: a + b).filter(lambda pair: pair[1] > 1)
    return frozenset(pairs.join(shared).map(lambda pair: (pair[0][0], pair[1][0])).distinct().collect())


# ---------------------------------------------------------------------------------------------
# One partition through navreplay
# ---------------------------------------------------------------------------------------------


@dataclass
class PartitionPlan:
    """What every task needs to run navreplay (broadcast to the executors)."""

    mode: str
    navreplay: str  # a path, or a SparkFiles name
    shipped: bool
    paths: list[str]  # every input file, as navreplay would print it; index = FILE_INDEX
    models: list[tuple[str, bytes] | None]  # index 0 = the built-in model (None) unless --model
    max_line_bytes: int
    max_findings: int = 10_000
    explain: bool = False
    sessions: bool = True
    file_rank: list[int] = field(default_factory=list)  # FILE_INDEX -> position in sorted order


def _binary(plan: PartitionPlan) -> str:
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


class NavreplayRun:
    """navreplay processes fed one stream of located lines (one model's lines of one partition)."""

    def __init__(self, plan: PartitionPlan, binary: str, workdir: str, model: int, run_id: int):
        self.plan = plan
        self.dir = os.path.join(workdir, f"run{run_id}")
        os.makedirs(self.dir)
        paths_file = os.path.join(workdir, "paths.txt")
        common = ["--quiet", "--located-input", paths_file, "--max-line-bytes", str(plan.max_line_bytes),
                  "--fail-on", "never"]
        spec = plan.models[model]
        if spec is not None:
            model_file = os.path.join(self.dir, "model.json")
            with open(model_file, "wb") as handle:
                handle.write(spec[1])
            common += ["--model", model_file]
        self.outputs = {}
        commands = {}
        if plan.mode == "audit":
            self.outputs.update(findings=self._path("findings.ndjson"), summary=self._path("summary.json"),
                                quarantine=self._path("quarantine.ndjson"))
            audit = [binary, "audit", "--pre-grouped", *common, "--format", "ndjson",
                     "--max-findings-per-session", str(plan.max_findings),
                     "--output", self.outputs["findings"], "--summary", self.outputs["summary"],
                     "--quarantine", self.outputs["quarantine"]]
            if plan.explain:
                audit.append("--explain")
            commands["audit"] = audit + ["-"]
            if plan.sessions:
                self.outputs["sessions"] = self._path("sessions.ndjson")
                commands["sessions"] = [binary, "sessions", "--pre-grouped", *common, "--format", "ndjson",
                                        "--output", self.outputs["sessions"], "-"]
        else:
            self.outputs.update(sessions=self._path("sessions.ndjson"), summary=self._path("summary.json"),
                                quarantine=self._path("quarantine.ndjson"))
            commands["sessions"] = [binary, "sessions", "--pre-grouped", *common, "--format", "ndjson",
                                    "--output", self.outputs["sessions"], "--summary", self.outputs["summary"], "-"]
            commands["validate"] = [binary, "validate", *common, "--format", "ndjson", "--output", os.devnull,
                                    "--quarantine", self.outputs["quarantine"], "-"]
        self.processes = {}
        self.errors = {}
        for name, command in commands.items():
            error_file = open(self._path(f"{name}.stderr"), "wb")
            self.errors[name] = error_file
            self.processes[name] = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                                    stderr=error_file)
        self.buffer: list[bytes] = []
        self.buffered = 0
        self.lines = 0

    def _path(self, name: str) -> str:
        return os.path.join(self.dir, name)

    def write(self, located: bytes) -> None:
        self.buffer.append(located)
        self.buffered += len(located)
        self.lines += 1
        if self.buffered >= 1 << 20:
            self._flush()

    def _flush(self) -> None:
        if not self.buffer:
            return
        block = b"".join(self.buffer)
        self.buffer.clear()
        self.buffered = 0
        for name, process in self.processes.items():
            try:
                process.stdin.write(block)
            except BrokenPipeError:
                self._fail(name)

    def _fail(self, name: str) -> None:
        process = self.processes[name]
        status = process.wait()
        self.errors[name].close()
        with open(self._path(f"{name}.stderr"), "rb") as handle:
            message = handle.read().decode("utf-8", "replace").strip()
        raise RuntimeError(f"navreplay {name} exited with status {status} on a partition: {message}")

    def finish(self) -> dict[str, str]:
        self._flush()
        for name, process in self.processes.items():
            try:
                process.stdin.close()
            except BrokenPipeError:
                pass
        for name, process in self.processes.items():
            if process.wait() != 0:
                self._fail(name)
            self.errors[name].close()
        return self.outputs


def run_partition(plan: PartitionPlan, partition: int, records: Iterator[tuple]) -> Iterator[tuple]:
    """Pipes one sorted partition through navreplay, one run per model; yields tagged outputs.

    Tags: ``F`` finding, ``S`` session, ``Q`` quarantine record (each with its global sort key
    and the NDJSON line), ``M`` a run's summary, ``R`` a file report, ``P`` partition statistics.
    """
    binary = None
    workdir = None
    run = None
    run_model = None
    runs: list[tuple[int, NavreplayRun, set]] = []
    no_session: set = set()
    started = time.monotonic()
    lines = 0
    try:
        for key, located in records:
            if key[0] == -1:  # a file report travelling with the data
                yield ("R", None, located)
                continue
            model = key[0]
            if run is None or model != run_model:
                if binary is None:
                    binary = _binary(plan)
                    workdir = tempfile.mkdtemp(prefix=f"navreplay-p{partition}-")
                    with open(os.path.join(workdir, "paths.txt"), "w", encoding="utf-8", newline="\n") as handle:
                        handle.write("".join(path + "\n" for path in plan.paths))
                if run is not None:
                    runs.append((run_model, run, no_session))
                run = NavreplayRun(plan, binary, workdir, model, len(runs))
                run_model = model
                no_session = set()
            if key[1] == NO_SESSION and key[3] == 1:
                no_session.add((key[4], key[5]))
            run.write(located)
            lines += 1
        if run is not None:
            runs.append((run_model, run, no_session))
        counts = {"F": 0, "S": 0, "Q": 0}
        for model, current, unkeyed in runs:
            for record in _collect(plan, model, current.finish(), unkeyed):
                if record[0] in counts:
                    counts[record[0]] += 1
                yield record
        yield ("P", None, {"partition": partition, "lines": lines, "runs": len(runs), "counts": counts,
                           "seconds": time.monotonic() - started})
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


def _sort_bytes(session: str) -> bytes:
    return session.encode("utf-8", "surrogatepass")


def _collect(plan: PartitionPlan, model: int, outputs: dict[str, str], unkeyed: set) -> Iterator[tuple]:
    rank = plan.file_rank
    index_of = {path: index for index, path in enumerate(plan.paths)}
    if "findings" in outputs:
        with open(outputs["findings"], "rb") as handle:
            for position, line in enumerate(handle):
                finding = json.loads(line)
                if finding["session_id"] is None:
                    file_index = index_of.get(finding["file"], -1)
                    key = (0, rank[file_index] if file_index >= 0 else -1, finding["line"] or 0, b"", 0, 0)
                else:
                    key = (1, 0, 0, _sort_bytes(finding["session_id"]), model, position)
                yield ("F", key, line.rstrip(b"\n").decode("utf-8"))
    if "sessions" in outputs:
        with open(outputs["sessions"], "rb") as handle:
            for position, line in enumerate(handle):
                session = json.loads(line)["session_id"]
                yield ("S", (_sort_bytes(session), model, position), line.rstrip(b"\n").decode("utf-8"))
    quarantined = set()
    with open(outputs["quarantine"], "rb") as handle:
        for line in handle:
            line = clamp_quarantine_record(line, plan.max_line_bytes)
            record = json.loads(line)
            file_index = index_of.get(record["file"], -1)
            quarantined.add((file_index, record["line"]))
            yield ("Q", (rank[file_index] if file_index >= 0 else -1, record["line"]),
                   line.rstrip(b"\n").decode("utf-8"))
    missing = unkeyed - quarantined
    if missing:
        file_index, line = min(missing)
        raise RuntimeError(
            f"navreplay accepted {len(missing)} line(s) whose session the job could not read "
            f"(first: {plan.paths[file_index]}:{line}); the grouping would be wrong: please report this")
    with open(outputs["summary"], "rb") as handle:
        yield ("M", None, json.load(handle))


# ---------------------------------------------------------------------------------------------
# The summary, written as navreplay writes it
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


def merge_summaries(paths: list[str], summaries: list[dict], reports: dict[int, tuple]) -> dict:
    """Adds the runs' summaries up; ``reports`` holds each unreadable file's (code, message)."""
    merged = {"files": len(paths), "unreadable_files": len(reports)}
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
        if index in reports:
            entry["error"], entry["error_code"] = reports[index][1], reports[index][0]
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


# ---------------------------------------------------------------------------------------------
# Inputs: what navreplay would read for the same arguments
# ---------------------------------------------------------------------------------------------

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_GLOB = re.compile(r"[*?\[{]")


@dataclass
class InputFile:
    path: str  # as navreplay prints it
    uri: str  # Hadoop-qualified, as Spark's binaryFile source reports it
    size: int = 0
    model_path: str | None = None  # the model.json that applies (navreplay's nearest-directory rule)
    error: tuple[str, str] | None = None  # (code, message): could not be read at all


def _join(directory: str, relative: str) -> str:
    """NSString.appendingPathComponent, as navreplay joins a directory argument and a file under it."""
    if not directory:
        return relative
    return directory + relative if directory.endswith("/") else directory + "/" + relative


def _wanted(name: str) -> bool:
    return name.endswith(".ndjson") or name.endswith(".ndjson.gz")


class Inputs:
    """Resolves arguments on the driver; local paths with the OS, URIs with Hadoop's FileSystem."""

    def __init__(self, spark):
        self.spark = spark
        self.jvm = spark.sparkContext._jvm
        self.conf = spark.sparkContext._jsc.hadoopConfiguration()

    def _hadoop_path(self, text: str):
        return self.jvm.org.apache.hadoop.fs.Path(text)

    def _local_uri(self, path: str) -> str:
        absolute = os.path.abspath(path)
        hadoop = self._hadoop_path(self.jvm.java.net.URI("file", None, absolute, None))
        return hadoop.getFileSystem(self.conf).makeQualified(hadoop).toString()

    def resolve(self, arguments: list[str], explicit_model: str | None) -> list[InputFile]:
        files: list[InputFile] = []
        seen: set[str] = set()

        def add(item: InputFile) -> None:
            if item.path not in seen:
                seen.add(item.path)
                files.append(item)

        for argument in arguments:
            if argument == "-":
                raise UsageError("the Spark job cannot read standard input; give files, directories or globs")
            if _SCHEME.match(argument):  # s3a://, gs://, hdfs://, file:// ...: Hadoop's FileSystem
                for item in self._resolve_remote(argument):
                    add(item)
            else:
                for item in self._resolve_local(argument):
                    add(item)
        if explicit_model is not None:
            for item in files:
                item.model_path = None
        return files

    def _resolve_local(self, local: str) -> Iterator[InputFile]:
        if os.path.isdir(local):
            yield from self._local_directory(local, local)
            return
        if not os.path.exists(local) and _GLOB.search(local):
            import glob as globbing

            matches = sorted(globbing.glob(local))
            if not matches:
                yield InputFile(path=local, uri="", error=("not_found", "no such file"))
            for match in matches:
                if os.path.isdir(match):
                    yield from self._local_directory(match, match)
                else:
                    yield self._local_file(match)
            return
        yield self._local_file(local)

    def _local_file(self, path: str) -> InputFile:
        try:
            size = os.stat(path).st_size
            with open(path, "rb"):
                pass
        except FileNotFoundError:
            return InputFile(path=path, uri="", error=("not_found", "no such file"))
        except IsADirectoryError:
            return InputFile(path=path, uri="", error=("is_directory", "is a directory"))
        except OSError as error:
            return InputFile(path=path, uri="", error=("unreadable", f"cannot be read: {error.strerror}"))
        return InputFile(path=path, uri=self._local_uri(path), size=size)

    def _local_directory(self, shown: str, directory: str) -> Iterator[InputFile]:
        found = []
        for root, folders, names in os.walk(directory, followlinks=True):
            folders.sort()
            for name in names:
                if _wanted(name):
                    found.append(os.path.relpath(os.path.join(root, name), directory))
        for relative in sorted(found):
            item = self._local_file(_join(shown, relative))
            item.model_path = self._nearest_local_model(shown, relative)
            yield item

    @staticmethod
    def _nearest_local_model(root: str, relative: str) -> str | None:
        components = relative.split("/")[:-1]
        while True:
            folder = root
            for component in components:
                folder = _join(folder, component)
            candidate = _join(folder, "model.json")
            if os.path.isfile(candidate):
                return candidate
            if not components:
                return None
            components.pop()

    def _resolve_remote(self, argument: str) -> Iterator[InputFile]:
        path = self._hadoop_path(argument)
        fs = path.getFileSystem(self.conf)
        statuses = fs.globStatus(path) if _GLOB.search(argument) else None
        if statuses is None:
            if not fs.exists(path):
                yield InputFile(path=argument, uri="", error=("not_found", "no such file"))
                return
            status = fs.getFileStatus(path)
            if status.isDirectory():
                yield from self._remote_directory(argument, fs, status)
            else:
                yield InputFile(path=argument, uri=fs.makeQualified(path).toString(), size=status.getLen())
            return
        if len(statuses) == 0:
            yield InputFile(path=argument, uri="", error=("not_found", "no such file"))
        for status in sorted(statuses, key=lambda s: s.getPath().toString()):
            shown = status.getPath().toString()
            if status.isDirectory():
                yield from self._remote_directory(shown, fs, status)
            else:
                yield InputFile(path=shown, uri=shown, size=status.getLen())

    def _remote_directory(self, shown: str, fs, status) -> Iterator[InputFile]:
        base = status.getPath().toString().rstrip("/") + "/"
        found = []
        models = set()
        iterator = fs.listFiles(status.getPath(), True)
        while iterator.hasNext():
            entry = iterator.next()
            full = entry.getPath().toString()
            relative = full[len(base):] if full.startswith(base) else entry.getPath().getName()
            if _wanted(entry.getPath().getName()):
                found.append((relative, full, entry.getLen()))
            elif entry.getPath().getName() == "model.json":
                models.add(relative)
        for relative, full, size in sorted(found):
            components = relative.split("/")[:-1]
            model = None
            while True:
                candidate = "/".join(components + ["model.json"])
                if candidate in models:
                    model = _join(shown, candidate)
                    break
                if not components:
                    break
                components.pop()
            yield InputFile(path=_join(shown, relative), uri=full, size=size, model_path=model)

    def read_bytes(self, location: str) -> bytes:
        """A whole file through Hadoop's FileSystem on the driver (models, hidden files)."""
        if not _SCHEME.match(location):
            with open(location, "rb") as handle:
                return handle.read()
        path = self._hadoop_path(location)
        stream = path.getFileSystem(self.conf).open(path)
        try:
            return bytes(self.jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
        finally:
            stream.close()


def _hidden(uri: str) -> bool:
    """Names Spark's file sources skip (hidden files): navreplay reads them, so the job reads them itself."""
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    return name.startswith(".") or name.startswith("_")


def _escape_glob(uri: str) -> str:
    return re.sub(r"([{}\[\]*?\\])", r"\\\1", uri)


# ---------------------------------------------------------------------------------------------
# The job
# ---------------------------------------------------------------------------------------------


def _under_spark_submit() -> bool:
    return "PYSPARK_GATEWAY_PORT" in os.environ


def _spark_session(spark_args: list[str], master: str | None):
    if _under_spark_submit():
        if spark_args:
            raise UsageError(
                "under spark-submit, give Spark options to spark-submit, before the script: "
                + " ".join(spark_args))
    else:
        arguments = list(spark_args)
        if "--master" not in arguments:
            arguments = ["--master", master or "local[*]"] + arguments
        if not any(a in ("--conf", "-c") and i + 1 < len(arguments) and arguments[i + 1].startswith(
                "spark.ui.showConsoleProgress=") for i, a in enumerate(arguments)):
            arguments += ["--conf", "spark.ui.showConsoleProgress=false"]
        os.environ["PYSPARK_SUBMIT_ARGS"] = " ".join(shlex.quote(a) for a in arguments) + " pyspark-shell"
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("navreplay").getOrCreate()
    spark.sparkContext.setLogLevel(os.environ.get("NAVREPLAY_SPARK_LOG_LEVEL", "WARN"))
    return spark


class OutputDir:
    """The output directory, on any Hadoop file system."""

    def __init__(self, spark, location: str):
        self.location = location.rstrip("/") or "/"
        jvm = spark.sparkContext._jvm
        if not _SCHEME.match(location):
            location = os.path.abspath(location)
            self.root = jvm.org.apache.hadoop.fs.Path(jvm.java.net.URI("file", None, location, None))
        else:
            self.root = jvm.org.apache.hadoop.fs.Path(location)
        self.fs = self.root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        self.jvm = jvm
        self.uri = self.fs.makeQualified(self.root).toString()

    def child(self, name: str) -> str:
        return self.uri.rstrip("/") + "/" + name

    def prepare(self, names: list[str], overwrite: bool) -> None:
        existing = [n for n in names + ["summary.json"] if self.fs.exists(self.jvm.org.apache.hadoop.fs.Path(self.child(n)))]
        if existing and not overwrite:
            raise UsageError(f"{self.location} already holds {', '.join(existing)}: choose another --output, or --overwrite")
        for name in existing:
            self.fs.delete(self.jvm.org.apache.hadoop.fs.Path(self.child(name)), True)
        self.fs.mkdirs(self.root)

    def write(self, name: str, data: bytes) -> None:
        stream = self.fs.create(self.jvm.org.apache.hadoop.fs.Path(self.child(name)), True)
        try:
            stream.write(bytearray(data))
        finally:
            stream.close()


def _findings_rows(lines: Iterator[str]) -> Iterator[tuple]:
    contract = ("rule", "severity", "session_id", "seq", "event_id", "file", "line", "message")
    for line in lines:
        finding = json.loads(line)
        extra = {k: v for k, v in finding.items() if k not in contract + ("expected", "found", "after_gap")}
        yield (
            finding["rule"], finding["severity"], finding["session_id"], finding["seq"], finding["event_id"],
            finding["file"], finding["line"], finding["message"],
            json.dumps(finding["expected"], ensure_ascii=False, separators=(",", ":")) if "expected" in finding else None,
            json.dumps(finding["found"], ensure_ascii=False, separators=(",", ":")) if "found" in finding else None,
            bool(finding.get("after_gap", False)),
            json.dumps(extra, ensure_ascii=False, separators=(",", ":")) if extra else None,
        )


def _parquet_schema():
    from pyspark.sql.types import BooleanType, LongType, StringType, StructField, StructType

    return StructType([
        StructField("rule", StringType(), False), StructField("severity", StringType(), False),
        StructField("session_id", StringType(), True), StructField("seq", LongType(), True),
        StructField("event_id", StringType(), True), StructField("file", StringType(), True),
        StructField("line", LongType(), True), StructField("message", StringType(), False),
        StructField("expected", StringType(), True), StructField("found", StringType(), True),
        StructField("after_gap", BooleanType(), False), StructField("explanation", StringType(), True),
    ])


def main(mode: str, argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    name = "navreplay_audit" if mode == "audit" else "navreplay_sessions"
    try:
        spark_args, job_args = split_spark_arguments(argv)
        args = build_parser(mode).parse_args(job_args)
        if args.max_line_bytes < 1:
            raise UsageError("please give --max-line-bytes a positive number")
        if args.partitions < 0:
            raise UsageError("please give --partitions a number of 0 or more")
        master = None
        if "--master" in spark_args:
            master = spark_args[spark_args.index("--master") + 1]
        return _run(mode, args, spark_args, master)
    except UsageError as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # Spark or navreplay failed: the outputs are not complete
        import traceback

        traceback.print_exc()
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"{name}: error: the job failed, its outputs are incomplete: {first}", file=sys.stderr)
        return 3


def _run(mode: str, args, spark_args: list[str], master: str | None) -> int:
    name = "navreplay_audit" if mode == "audit" else "navreplay_sessions"
    started = time.monotonic()
    spark = _spark_session(spark_args, master)
    sc = spark.sparkContext
    sc.addPyFile(os.path.abspath(__file__))
    output = OutputDir(spark, args.output)
    outputs = ["sessions", "quarantine"] if mode == "sessions" else ["findings", "findings_parquet", "quarantine"] + (
        [] if args.no_sessions else ["sessions"])
    output.prepare(outputs, args.overwrite)

    inputs = Inputs(spark)
    files = inputs.resolve(args.inputs, args.model)
    paths = [item.path for item in files]
    for path in paths:
        if "\n" in path or "\r" in path:
            raise UsageError(f"an input path holds a line break, which navreplay's paths file cannot list: {path!r}")

    # Models: index 0 is the built-in one, unless --model; then the nearest model.json files in argument order.
    models: list[tuple[str, bytes] | None] = [None]
    model_index: dict[str, int] = {}
    if args.model:
        models = [(args.model, inputs.read_bytes(args.model))]
    file_model = []
    for item in files:
        if item.model_path is None:
            file_model.append(0)
            continue
        if item.model_path not in model_index:
            model_index[item.model_path] = len(models)
            models.append((item.model_path, inputs.read_bytes(item.model_path)))
        file_model.append(model_index[item.model_path])

    # The binary: shipped by the job, or already shipped with spark-submit --files.
    shipped_name = os.path.basename(args.navreplay.rstrip("/"))
    if _SCHEME.match(args.navreplay) or os.path.exists(args.navreplay):
        try:
            sc.addFile(args.navreplay if _SCHEME.match(args.navreplay) else os.path.abspath(args.navreplay))
        except Exception as error:  # already added (e.g. also given to --files)
            if "already" not in str(error).lower():
                raise
    else:
        shipped = [f.rstrip("/").rsplit("/", 1)[-1].split("#")[-1] for f in sc.getConf().get("spark.files", "").split(",") if f]
        if shipped_name not in shipped:
            raise UsageError(f"--navreplay {args.navreplay}: no such file, and no file of that name was shipped with "
                             "--files; give the binary's path or URI, or ship it with spark-submit --files")

    order = sorted(range(len(paths)), key=lambda i: paths[i].encode("utf-8", "surrogateescape"))
    rank = [0] * len(paths)
    for position, index in enumerate(order):
        rank[index] = position
    plan = PartitionPlan(
        mode=mode, navreplay=shipped_name, shipped=True, paths=paths, models=models,
        max_line_bytes=args.max_line_bytes, max_findings=getattr(args, "max_findings_per_session", 10_000),
        explain=getattr(args, "explain", False), sessions=not getattr(args, "no_sessions", False), file_rank=rank)

    unreadable: dict[int, tuple[str, str]] = {}
    for index, item in enumerate(files):
        if item.error is not None:
            unreadable[index] = item.error
        elif item.size == 0 and item.path.endswith(".gz"):
            # Empty files are not read; one named .gz is a truncated stream, as navreplay says.
            unreadable[index] = ("truncated_gzip", "the gzip stream is truncated: the file is empty")
    readable = [(index, item) for index, item in enumerate(files) if item.error is None and item.size > 0]
    estimated = sum(item.size * (6 if item.path.endswith(".gz") else 1) for _, item in readable)
    partitions = args.partitions or max(sc.defaultParallelism, -(-estimated // (64 << 20)))

    # Read: Spark's binaryFile source, except for hidden names, which it skips; those go through the driver.
    max_line_bytes = args.max_line_bytes
    # A file listed under two paths (navreplay reads it twice) is read once by Spark, then by the driver.
    index_of_uri: dict[str, int] = {}
    by_driver = []
    for index, item in readable:
        if _hidden(item.uri) or item.uri in index_of_uri:
            by_driver.append((index, item))
        else:
            index_of_uri[item.uri] = index
    models_of = file_model
    regular = list(index_of_uri)
    hidden = by_driver
    sources = []
    if regular:
        frame = spark.read.format("binaryFile").load([_escape_glob(uri) for uri in regular])
        sources.append(frame.select("path", "content").rdd.map(lambda row: (index_of_uri.get(row[0], -1), bytes(row[1]))))
    if hidden:
        data = [(index, inputs.read_bytes(item.uri)) for index, item in hidden]
        sources.append(sc.parallelize(data, max(1, min(len(data), partitions))))
    contents = sources[0] if len(sources) == 1 else sc.union(sources) if sources else sc.parallelize([], 1)

    def explode(pair):
        file_index, data = pair
        if file_index < 0:
            raise RuntimeError("Spark read a file the job did not list")
        for key, value in keyed_lines(file_index, paths[file_index], models_of[file_index], data, max_line_bytes):
            if key is None:
                yield (-1, 0, "", 0, value[0], 0, ""), value  # the file's report rides along to partition 0
            else:
                yield key, value

    from pyspark import StorageLevel

    # Read once, kept for the two passes: the event ids shared across sessions, then the fold.
    exploded = contents.flatMap(explode)
    exploded.persist(StorageLevel.MEMORY_AND_DISK)
    sharing = sessions_sharing_ids(exploded)
    session_hash = partition_hash(grouping_id(args.debug_split_session) if args.debug_split_session else None, sharing)

    def partitioner(key):
        return 0 if key[0] == -1 else session_hash(key)

    keyed = exploded.repartitionAndSortWithinPartitions(partitions, partitioner)

    results = keyed.mapPartitionsWithIndex(lambda index, records: run_partition(plan, index, records))
    results.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        small = results.filter(lambda t: t[0] in ("M", "R", "P")).collect()
        summaries = [t[2] for t in small if t[0] == "M"]
        reports = [t[2] for t in small if t[0] == "R"]
        stats = [t[2] for t in small if t[0] == "P"]
        seen_files = {report[0] for report in reports}
        expected = {index for index, _ in readable}
        if seen_files != expected:
            missing = sorted(expected - seen_files)
            raise RuntimeError(f"Spark did not read {len(missing)} input file(s), e.g. {paths[missing[0]] if missing else '?'}")
        for file_index, lines, code, message in reports:
            if code is not None:
                unreadable[file_index] = (code, message)

        def write_sorted(tag: str, name: str) -> int:
            selected = results.filter(lambda t: t[0] == tag).map(lambda t: (t[1], t[2]))
            count = sum(s["counts"][tag] for s in stats)
            parts = max(1, min(partitions, -(-count // 500_000)))
            ordered = selected.sortByKey(numPartitions=parts).values() if count else selected.values().coalesce(1)
            ordered.saveAsTextFile(output.child(name))
            return count

        counts = {}
        if mode == "audit":
            counts["findings"] = write_sorted("F", "findings")
            frame = spark.createDataFrame(
                spark.sparkContext.textFile(output.child("findings")).mapPartitions(_findings_rows), _parquet_schema(),
                verifySchema=False)
            frame.write.parquet(output.child("findings_parquet"))
        if "sessions" in outputs:
            counts["sessions"] = write_sorted("S", "sessions")
        counts["quarantine"] = write_sorted("Q", "quarantine")
    finally:
        results.unpersist()
        exploded.unpersist()

    merged = merge_summaries(paths, summaries, unreadable)
    output.write("summary.json", summary_json(merged).encode("utf-8"))
    elapsed = time.monotonic() - started
    if not args.quiet:
        for index in sorted(unreadable, key=lambda i: rank[i]):
            code, message = unreadable[index]
            lines_read = next((r[1] for r in reports if r[0] == index), 0)
            after = f" (after line {lines_read}; the lines before it were audited)" if code in (
                "corrupt_gzip", "truncated_gzip") and lines_read > 0 else ""
            print(f"navreplay: error: {paths[index]}: {message}{after}", file=sys.stderr)
        print("navreplay: " + summary_text(merged), file=sys.stderr)
        busiest = max((s["lines"] for s in stats), default=0)
        print(f"{name}: {len(stats)} partition(s) of {partitions} held lines (largest {busiest} lines); "
              f"{elapsed:.1f} s; outputs in {output.location}/", file=sys.stderr)
    spark.stop()
    if merged["unreadable_files"]:
        return 2
    if args.fail_on == "error" and merged["findings_by_severity"].get("error", 0) > 0:
        return 1
    if args.fail_on == "warning" and merged["findings"] > 0:
        return 1
    return 0


def entry(mode: str) -> None:
    sys.exit(main(mode))
