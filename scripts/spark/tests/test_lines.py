"""The job's tasks against navreplay itself, without Spark.

Every case reads the files twice: with navreplay directly, and through the job's tasks (each
file routed in splits of a random size, so that splits start and end anywhere in a line, in a
\\r\\n, in a gzip file; the ledger; the partitions folded; the outputs merged in the job's order).
Findings, sessions, quarantine and summary must be identical, byte for byte.
"""

from __future__ import annotations

import gzip
import io
import os
import random
import subprocess

import pytest

import harness
import make_logs

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
    # Splits cut at random places: about 1 to 6 a file.
    size = max(os.path.getsize(path) for path in files)
    actual = harness.without_spark(navreplay, files, LIMIT, split_size=max(1, size // rng.randrange(1, 7)),
                                   partitions=rng.randrange(1, 5), id_buckets=rng.randrange(1, 3),
                                   plain_lines=seed % 4 == 3)  # the lines shuffled as they are, not in shorthand
    assert harness.differences(expected, actual) == [], f"seed {seed}"


def test_the_damaged_sample_log_read_through_the_job_equals_navreplay(navreplay, tmp_path):
    generated = make_logs.generate(str(tmp_path / "log"), repetitions=1, damaged=True)
    # The PoC app's files (no model.json): the directory, the glob and the missing file.
    arguments = [a for a in generated.arguments if "/logs/" not in a or a.endswith("/logs/poc")]
    expected = harness.single_machine(navreplay, arguments, generated.max_line_bytes)
    assert expected.status == 2  # a missing file and damaged gzip files
    for split_size in (1 << 27, 2000):
        actual = harness.without_spark(navreplay, arguments, generated.max_line_bytes, split_size=split_size)
        assert harness.differences(expected, actual) == [], split_size


def test_differences_sees_a_changed_line_number():
    result = harness.Result(b'{"line":1}\n', b"", b"", b"{}\n", 1)
    changed = harness.Result(b'{"line":2}\n', b"", b"", b"{}\n", 1)
    assert harness.differences(result, result) == []
    assert harness.differences(result, changed) != []


def test_splits_cut_anywhere_read_every_line_once(navreplay, tmp_path):
    """navreplay partition route: the splits of a file, cut at every offset, give its lines once each."""
    path = tmp_path / "lines.ndjson"
    path.write_bytes(b"a\r\nbb\n\nccc\r\r\nd" + b"e" * 40 + b"\n\nf")
    data = path.read_bytes()
    for cut in range(len(data) + 1):
        lines = []
        for start, end in ((0, cut), (cut, len(data))):
            command = [navreplay, "partition", "route", str(path), "--range", f"{start}:{end}", "--split-index", "0",
                       "--partitions", "1", "--max-line-bytes", "16"]
            output = subprocess.run(command, capture_output=True, check=True).stdout
            for destination, payload in harness.frames(io.BytesIO(output)):
                if payload[:1] == b"L":
                    lines += [line.split(b"\t", 2) for line in payload[5:].split(b"\n") if line]
        numbers = [line[1] for line in lines]
        assert [line[2] for line in lines] == [b"a", b"bb", b"", b"ccc\r\r", b"d" + b"e" * 15, b"", b"f"], cut
        assert len(numbers) == 7 and numbers[-1].endswith(b"u"), cut


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
    assert harness.differences(expected, harness.without_spark(navreplay, [str(path)], partitions=7)) == []
