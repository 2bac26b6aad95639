#!/usr/bin/env python3
"""A seeded multi-file log for the Spark job's tests.

Copies the sessions of SampleLogs/ (every app directory, with its model.json) N times under new
session ids, and spreads each app's lines at random over several files, some plain, some gzip
(one of them several gzip members), so that sessions straddle files. With ``damaged=True`` it
adds the lines and files a log really meets: blank and whitespace lines, CRLF line ends, invalid
UTF-8, lines that are not JSON or not objects, lines without a readable session_id, a session_id
key spelled with an escape, a byte order mark, over-long lines, a torn last line, a valid last
line without a line end, hidden file names, a name with a space and a comma, an empty file, a
plain file named .gz, a gzip file named .ndjson, a corrupt and a truncated gzip file, one session
id used by two apps, and a missing file.

Usage: make_logs.py [--repetitions N] [--seed S] [--damaged] OUT_DIR
prints the input arguments to give both navreplay and the Spark job (one per line): a directory
per app, a glob and an explicit file.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import re
import shutil
from dataclasses import dataclass

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SESSION = re.compile(rb'("session_id":")((?:[^"\\]|\\.)*)(")')
# Over-long lines are built against this limit (the tests pass it as --max-line-bytes).
DAMAGED_MAX_LINE_BYTES = 4096


@dataclass
class Generated:
    arguments: list[str]  # what to pass to navreplay and to the job
    max_line_bytes: int | None  # the --max-line-bytes the log is built for, if any
    lines: int


def _read(path: str) -> tuple[list[bytes], bytes | None]:
    """A file's lines ended by a line feed, and its unterminated last line, if any."""
    with open(path, "rb") as handle:
        data = handle.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    lines = data.split(b"\n")
    last = lines.pop()
    return lines, (last or None)


def _read_lines(path: str) -> list[bytes]:
    lines, last = _read(path)
    return lines + ([last] if last is not None else [])


def _apps(sample_logs: str) -> tuple[dict[str, tuple[str | None, list[bytes]]], list[bytes]]:
    """App name -> (model.json path or None, the lines of its sample files); and the unterminated last lines."""
    apps: dict[str, tuple[str | None, list[bytes]]] = {}
    unterminated: list[bytes] = []
    for root, folders, names in sorted(os.walk(sample_logs)):
        folders.sort()
        if os.path.basename(root) == "expected":
            continue
        logs = sorted(n for n in names if n.endswith(".ndjson") or n.endswith(".ndjson.gz"))
        if not logs:
            continue
        model = os.path.join(root, "model.json") if "model.json" in names else None
        app = "poc" if model is None else os.path.relpath(root, sample_logs).replace(os.sep, "-")
        lines = []
        for name in logs:
            terminated, last = _read(os.path.join(root, name))
            lines += terminated
            if last is not None:
                unterminated.append(last)
        previous = apps.get(app, (model, []))
        apps[app] = (model, previous[1] + lines)
    return apps, unterminated


def _rename(line: bytes, suffix: str) -> bytes:
    return SESSION.sub(lambda m: m.group(1) + m.group(2) + suffix.encode() + m.group(3), line, count=1)


def _write(path: str, lines: list[bytes], *, gz: bool = False, members: int = 1, final_newline: bool = True,
           rng: random.Random | None = None) -> None:
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    if gz:
        if members > 1 and rng is not None and len(data) > members:
            cuts = sorted(rng.sample(range(1, len(data)), members - 1))
            pieces = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
            data = b"".join(gzip.compress(piece, mtime=0) for piece in pieces)
        else:
            data = gzip.compress(data, mtime=0)
    with open(path, "wb") as handle:
        handle.write(data)


def generate(out: str, repetitions: int = 3, seed: int = 7, damaged: bool = False, files_per_app: int = 3,
             sample_logs: str | None = None) -> Generated:
    rng = random.Random(seed)
    sample_logs = sample_logs or os.path.join(REPO, "SampleLogs")
    if os.path.exists(out):
        shutil.rmtree(out)
    logs = os.path.join(out, "logs")
    loose = os.path.join(out, "loose")
    os.makedirs(loose)
    arguments: list[str] = []
    total = 0
    apps, torn_lines = _apps(sample_logs)
    poc_directory = None
    for app, (model, template) in sorted(apps.items()):
        lines: list[bytes] = []
        for repetition in range(repetitions):
            lines += [_rename(line, f"~{repetition}") for line in template]
        if damaged:
            lines = [line + b"\r" if rng.random() < 0.1 else line for line in lines]
        rng.shuffle(lines)
        directory = os.path.join(logs, app)
        os.makedirs(directory)
        if model is not None:
            shutil.copy(model, os.path.join(directory, "model.json"))
        else:
            poc_directory = directory
        parts: list[list[bytes]] = [[] for _ in range(files_per_app + (1 if model is None else 0))]
        for line in lines:
            parts[rng.randrange(len(parts))].append(line)
        if model is None:
            # The PoC app's last part goes to loose files given as a glob and as a path.
            extra = parts.pop()
            half = len(extra) // 2
            _write(os.path.join(loose, "poc-a.ndjson"), extra[:half])
            _write(os.path.join(loose, "poc-b.ndjson.gz"), extra[half:], gz=True)
        for number, part in enumerate(parts):
            gz = number % 2 == 1
            name = f"part-{number}.ndjson" + (".gz" if gz else "")
            _write(os.path.join(directory, name), part, gz=gz, members=3 if number == 1 else 1, rng=rng)
        total += len(lines)
        arguments.append(directory)
    arguments.append(os.path.join(loose, "poc-*.ndjson*"))

    max_line_bytes = None
    if damaged:
        max_line_bytes = DAMAGED_MAX_LINE_BYTES
        assert poc_directory is not None
        arguments += _damage(out, poc_directory, apps, torn_lines, rng)
    return Generated(arguments=arguments, max_line_bytes=max_line_bytes, lines=total)


def _an_event(apps, app: str, name: bytes = b'"session_start"') -> bytes:
    for line in apps[app][1]:
        if name in line and line.endswith(b"}"):
            return line
    raise LookupError(app)


def _damage(out: str, poc: str, apps, torn_lines: list[bytes], rng: random.Random) -> list[str]:
    """Adds the awkward lines and files; returns extra input arguments."""
    event = _an_event(apps, "poc")
    session = SESSION.search(event).group(2).decode()
    limit = DAMAGED_MAX_LINE_BYTES

    def padded(length: int, ending: bytes = b"") -> bytes:
        # A valid-looking event of exactly `length` bytes (before `ending`), by an unknown field.
        base = event[:-1] + b',"pad":"'
        return base + b"x" * max(0, length - len(base) - 2) + b'"}' + ending

    awkward = [
        b"", b"   \t", b"\r", b" \r",
        b"not json at all",
        b"[1,2,3]",
        b'{"schema_version":1,"session_id":"s-bad-utf8-\xff\xfe","seq":0}',
        event.replace(b'"session_id":"' + session.encode() + b'",', b""),  # no session_id
        event.replace(b'"session_id":"' + session.encode() + b'"', b'"session_id":42'),
        event.replace(b'"seq":0', b'"seq":0.0'),  # keyed by session, invalid for navreplay
        b"\xef\xbb\xbf" + event,  # a byte order mark
        event.replace(b'"session_id"', b'"session\\u005fid"').replace(session.encode(), b"s-escaped-key"),
        event.replace(session.encode(), "s-caf\u00e9".encode()),  # a non-ASCII id ...
        event.replace(session.encode(), b"s-caf\\u00e9").replace(b'"event_id":"', b'"event_id":"esc-'),  # ... escaped
        event.replace(b'"session_id":"' + session.encode() + b'"', b'"session_id":"a","session_id":"b"'),
        padded(limit - 1), padded(limit), padded(limit + 1), padded(limit + 2),
        padded(limit - 1, b"\r"), padded(limit, b"\r"), padded(limit + 1, b"\r"), padded(limit + 60, b"\r"),
        padded(limit * 3), padded(limit * 3, b"\r"),
    ]
    lines = _read_lines(os.path.join(poc, "part-0.ndjson")) + awkward
    rng.shuffle(lines)
    # A torn line (a sample's unterminated last line, or a cut event) ends the file.
    torn = torn_lines[0] if torn_lines else event[: len(event) // 2]
    _write(os.path.join(poc, "part-0.ndjson"), lines + [torn], final_newline=False)

    # The same session id in another app (another model): two sessions, not one.
    modular = next((app for app in apps if app != "poc"), None)
    if modular is not None:
        other = _an_event(apps, modular)
        shared = SESSION.sub(lambda m: m.group(1) + session.encode() + b"~0" + m.group(3), other, count=1)
        _write(os.path.join(out, "logs", modular, "shared-id.ndjson"), [shared])

    _write(os.path.join(poc, ".hidden.ndjson"), [_rename(event, "~hidden")])
    _write(os.path.join(poc, "_underscore.ndjson"), [_rename(event, "~underscore")])
    os.makedirs(os.path.join(poc, ".dot-folder"))
    _write(os.path.join(poc, ".dot-folder", "inside.ndjson"), [_rename(event, "~dot-folder")])
    _write(os.path.join(poc, "a name, with comma.ndjson"), [_rename(event, "~comma")])
    _write(os.path.join(poc, "empty.ndjson"), [])
    open(os.path.join(poc, "empty.ndjson.gz"), "wb").close()
    _write(os.path.join(poc, "valid-last-line.ndjson"), [_rename(event, "~unterminated")], final_newline=False)
    _write(os.path.join(poc, "cr-last-line.ndjson"), [_rename(event, "~cr") + b"\r"], final_newline=False)
    with open(os.path.join(poc, "plain-named.ndjson.gz"), "wb") as handle:
        handle.write(_rename(event, "~plain-gz") + b"\n")
    with open(os.path.join(poc, "gzip-named-plain.ndjson"), "wb") as handle:
        handle.write(gzip.compress(_rename(event, "~gz-plain") + b"\n", mtime=0))

    # A corrupt and a truncated gzip file: the lines before the damage are still audited.
    body = b"\n".join(_rename(line, "~damaged") for line in apps["poc"][1] if line.endswith(b"}")) + b"\n"
    compressed = bytearray(gzip.compress(body, mtime=0))
    middle = len(compressed) // 2
    for offset in range(middle, middle + 8):
        compressed[offset] ^= 0x5A
    with open(os.path.join(poc, "corrupt.ndjson.gz"), "wb") as handle:
        handle.write(bytes(compressed))
    with open(os.path.join(poc, "truncated.ndjson.gz"), "wb") as handle:
        handle.write(gzip.compress(body, mtime=0)[: len(compressed) * 2 // 3])
    # A gzip stream that decodes, followed by a CRC error at the end.
    good = bytearray(gzip.compress(body[:2000], mtime=0))
    good[-6] ^= 0xFF
    with open(os.path.join(poc, "bad-crc.ndjson.gz"), "wb") as handle:
        handle.write(bytes(good))

    return [os.path.join(out, "loose", "missing.ndjson")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--damaged", action="store_true")
    args = parser.parse_args()
    generated = generate(args.out, args.repetitions, args.seed, args.damaged)
    for argument in generated.arguments:
        print(argument)


if __name__ == "__main__":
    main()
