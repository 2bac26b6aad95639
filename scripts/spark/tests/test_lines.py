"""The job's line handling against navreplay itself, without Spark.

Every case reads the files twice: with navreplay directly, and with the job's own code (split
on \\n only, one \\r stripped, gzip members, decompression errors, over-long and torn lines,
session keys, located lines) piped through navreplay's located, pre-grouped mode. Findings,
sessions, quarantine and summary must be identical, byte for byte.
"""

from __future__ import annotations

import gzip
import os
import random

import pytest

import harness
import make_logs
import navreplay_job as job

LIMIT = 512  # --max-line-bytes for the random cases: near-limit lines stay cheap


def _events() -> list[bytes]:
    lines = make_logs._read_lines(os.path.join(make_logs.REPO, "SampleLogs", "clean", "app-2026-11-20-upload1.ndjson"))
    return [line for line in lines if line.endswith(b"}") and len(line) < LIMIT - 40]


def _random_line(rng: random.Random, events: list[bytes]) -> bytes:
    kind = rng.random()
    if kind < 0.55:
        return rng.choice(events)
    if kind < 0.65:
        return rng.choice([b"", b" ", b"\t", b" \t ", b"\r", b"\r\r"])
    if kind < 0.75:
        return bytes(rng.choice(b"ab{}\":,\r\t \xff\xc3\xa9") for _ in range(rng.randrange(0, 40)))
    event = rng.choice(events)
    length = LIMIT + rng.choice([-2, -1, 0, 1, 2, 3, 60, 63, 64, 65, 70, 200])
    padded = event[:-1] + b',"pad":"' + b"x" * max(0, length - len(event) - 9) + b'"}'
    return padded


def _random_file(rng: random.Random, events: list[bytes], directory: str, number: int) -> str:
    lines = [_random_line(rng, events) for _ in range(rng.randrange(0, 30))]
    ending = [b"\n", b"\r\n"]
    data = b"".join(line + rng.choice(ending) for line in lines)
    if rng.random() < 0.5 and lines:
        data = data[: -1] if data.endswith(b"\n") else data  # no final line feed
        if data.endswith(b"\r") and rng.random() < 0.5:
            data = data[:-1]
    kind = rng.choice(["plain", "plain", "gzip", "gzip-members", "gzip-magic", "corrupt", "truncated", "padded"])
    name = f"f{number}.ndjson"
    if kind == "gzip":
        data, name = gzip.compress(data, mtime=0), name + ".gz"
    elif kind == "gzip-members":
        cut = rng.randrange(0, len(data) + 1)
        data, name = gzip.compress(data[:cut], mtime=0) + gzip.compress(data[cut:], mtime=0), name + ".gz"
    elif kind == "gzip-magic":
        data = gzip.compress(data, mtime=0)
    elif kind == "corrupt":
        compressed = bytearray(gzip.compress(data, mtime=0))
        offset = rng.randrange(10, max(11, len(compressed)))
        compressed[min(offset, len(compressed) - 1)] ^= 1 << rng.randrange(8)
        data, name = bytes(compressed), name + ".gz"
    elif kind == "truncated":
        compressed = gzip.compress(data, mtime=0)
        data, name = compressed[: rng.randrange(0, len(compressed))], name + ".gz"
    elif kind == "padded":
        # Zero padding after the member, sometimes followed by other bytes (not gzip).
        padding = b"\0" * rng.randrange(1, 3000)
        data = gzip.compress(data, mtime=0) + padding + (b"x" if rng.random() < 0.3 else b"")
        name += ".gz"
    path = os.path.join(directory, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


@pytest.mark.parametrize("seed", range(int(os.environ.get("NAVREPLAY_LINE_SEEDS", "40"))))
def test_random_files_read_through_the_job_equal_navreplay(navreplay, tmp_path, seed):
    rng = random.Random(seed)
    events = _events()
    files = [_random_file(rng, events, str(tmp_path), number) for number in range(rng.randrange(1, 4))]
    expected = harness.single_machine(navreplay, files, LIMIT)
    actual = harness.located_without_spark(navreplay, files, LIMIT)
    assert harness.differences(expected, actual) == [], f"seed {seed}"


def test_the_damaged_sample_log_read_through_the_job_equals_navreplay(navreplay, tmp_path):
    generated = make_logs.generate(str(tmp_path / "log"), repetitions=1, damaged=True)
    # The PoC app's files (no model.json): the directory, the glob and the missing file.
    arguments = [a for a in generated.arguments if "/logs/" not in a or a.endswith("/logs/poc")]
    expected = harness.single_machine(navreplay, arguments, generated.max_line_bytes)
    actual = harness.located_without_spark(navreplay, arguments, generated.max_line_bytes)
    assert expected.status == 2  # a missing file and damaged gzip files
    assert harness.differences(expected, actual) == []


def test_differences_sees_a_changed_line_number():
    result = harness.Result(b'{"line":1}\n', b"", b"", b"{}\n", 1)
    changed = harness.Result(b'{"line":2}\n', b"", b"", b"{}\n", 1)
    assert harness.differences(result, result) == []
    assert harness.differences(result, changed) != []


@pytest.mark.parametrize("raw, terminated", [
    (b"x" * 10, True), (b"x" * 10 + b"\r", True), (b"x" * 10 + b"\r", False), (b"x" * 10, False),
    (b"x" * 16, True), (b"x" * 16 + b"\r", True), (b"x" * 17, True), (b"x" * 17 + b"\r", True),
    (b"x" * 16 + b"\r", False), (b"x" * 17, False), (b"x" * 200 + b"\r", True), (b"x" * 200 + b"\r", False),
])
def test_a_located_line_reads_back_as_the_original(raw, terminated):
    limit = 16
    for file_index, number in [(0, 1), (12, 123456)]:
        located = job.located_line(file_index, number, raw, terminated, limit)
        assert located.endswith(b"\n")
        prefix_end = located.index(b"\t", located.index(b"\t") + 1) + 1
        prefix, sent = located[:prefix_end], located[prefix_end:-1]
        assert int(prefix.split(b"\t")[0]) == file_index
        assert prefix.split(b"\t")[1].rstrip(b"u") == str(number).encode()
        assert prefix.split(b"\t")[1].endswith(b"u") == (not terminated)
        assert job.located_view(prefix, sent, limit) == job.reader_view(raw, terminated, limit)


@pytest.mark.parametrize("line, session", [
    (b'{"session_id":"s1","seq":3}', ("s1", 3)),
    (b'{"seq":3, "session_id" : "s\\"1"}', ('s"1', 3)),
    (b'{"session\\u005fid":"s2","seq":1}', ("s2", 1)),
    (b'{"route_params":{"session_id":"inner"},"session_id":"outer","seq":0}', ("outer", 0)),
    (b'{"session_id":"caf\\u00e9","seq":0}', ("caf\u00e9", 0)),
    (b'{"session_id":42}', None),
    (b'[1]', None),
    (b'not json', None),
    (b'{"session_id":"\xff"}', None),
])
def test_session_of(line, session):
    assert job.session_of(line) == session


@pytest.mark.parametrize("line, event_id", [
    (b'{"event_id":"e1","session_id":"s1"}', "e1"),
    (b'{"event_id" : "e\\"1"}', 'e"1'),
    (b'{"event\\u005fid":"e2"}', "e2"),
    (b'{"route_params":{"event_id":"inner"},"event_id":"outer"}', "outer"),
    (b'{"event_id":42}', ""),
    (b'not json', ""),
])
def test_event_id_of(line, event_id):
    assert job.event_id_of(line) == event_id


def test_sessions_that_share_an_event_id_go_to_one_partition():
    key = lambda model, session, event_id: (model, job.SESSION, session, 0, 0, 1, event_id)
    hash_key = job.partition_hash(None, frozenset({(0, "a"), (0, "b")}))
    assert hash_key(key(0, "a", "x")) == hash_key(key(0, "b", "y")) == job.SHARED_PARTITION
    assert hash_key(key(1, "a", "x")) == job.partition_hash(None)(key(1, "a", "x"))  # another model's "a"


def test_canonically_equivalent_ids_are_two_ids():
    assert job.grouping_id("cafe\u0301") != job.grouping_id("caf\u00e9")
    assert job.grouping_id("s-1") == "s-1"


def test_canonically_equivalent_session_ids_are_two_sessions_for_both(navreplay, tmp_path):
    """navreplay compares ids as bytes: "café" and "cafe\\u0301" are two sessions; so for the job."""
    lines = [line for line in _events() if b'"session_start"' not in line][:12]
    path = tmp_path / "forms.ndjson"
    forms = ["caf\u00e9", "cafe\u0301"]
    with open(path, "wb") as handle:
        for number, line in enumerate(lines):
            handle.write(make_logs.SESSION.sub(
                lambda m: m.group(1) + forms[number % 2].encode() + m.group(3), line, count=1) + b"\n")
    expected = harness.single_machine(navreplay, [str(path)])
    assert len(expected.sessions.splitlines()) == 2
    assert harness.differences(expected, harness.located_without_spark(navreplay, [str(path)])) == []
    # ... and Spark groups the two spellings apart.
    keys = [key for key, _ in job.keyed_lines(0, str(path), 0, path.read_bytes(), job.DEFAULT_MAX_LINE_BYTES) if key]
    assert len({key[2] for key in keys}) == 2
