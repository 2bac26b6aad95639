#!/usr/bin/env python3
"""Check NDJSON navigation logs (or model files) against NavReplay's JSON Schemas, independently
of the Swift decoder.

Usage:
    scripts/schema_conformance.py --schema Schemas/navigation-event.v1.schema.json FILE...
    scripts/schema_conformance.py --model-schema Schemas/navigation-model.v1.schema.json FILE...

Event mode prints one verdict per non-blank input line, tab-separated, line numbers 1-based
(blank lines are skipped but counted, as docs/events-and-rules.md counts them):

    LINE<TAB>valid
    LINE<TAB>invalid<TAB>reason

With more than one FILE each verdict is prefixed with the file path and a tab (as grep does).
Model mode prints `FILE<TAB>valid` or `FILE<TAB>invalid<TAB>reason` per file. FILE may be `-`
for standard input; gzip input (name ending in .gz, or gzip magic bytes) is decompressed.

Verdicts are data: the exit status is 0 whatever they are, 2 for a usage error or an input that
cannot be read (missing file, corrupt gzip; the other inputs are still checked).

The only dependency beyond the standard library is `jsonschema` (Draft 2020-12). RFC 3339
date-times are checked by this script's own strict check, not by an optional package.
"""

import argparse
import gzip
import json
import re
import sys
import zlib

try:
    import jsonschema
    from jsonschema import Draft202012Validator, FormatChecker
    from jsonschema.exceptions import ValidationError, best_match
except ImportError:  # pragma: no cover - environment problem
    sys.stderr.write("schema_conformance.py needs the 'jsonschema' package (pip install jsonschema)\n")
    sys.exit(2)

# docs/events-and-rules.md: a line whose bytes, without its line end, exceed this is invalid.
DEFAULT_MAX_LINE_BYTES = 1_048_576
# docs/events-and-rules.md: arrays and objects nested more than 64 deep are invalid; the event object is depth 1.
MAX_DEPTH = 64

# Large integers are valid JSON (in unknown fields, say) and must stay exact: lift Python's
# guard against converting very long digit strings to int (Python >= 3.11).
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)


class TextRuleError(Exception):
    """A docs/events-and-rules.md rule about the text of a line that JSON Schema cannot express."""


# ---------------------------------------------------------------------------------------------
# Text-level rules (docs/events-and-rules.md), applied before the schema.
# ---------------------------------------------------------------------------------------------

def _reject_constant(name):
    # NaN, Infinity and -Infinity are not JSON (RFC 8259); Python's json accepts them unless
    # parse_constant raises.
    raise TextRuleError(f"{name} is not a JSON number")


def _pairs_without_duplicates(pairs):
    # Duplicate keys, at any depth, make the line invalid. Keys are compared after unescaping,
    # so {"a":1,"\u0061":2} is a duplicate too. object_pairs_hook sees every object's pairs.
    result = {}
    for key, value in pairs:
        if key in result:
            raise TextRuleError(f"duplicate key {json.dumps(key)}")
        result[key] = value
    return result


def _check_strings_and_depth(value):
    """Rejects lone surrogates in any string (keys included) and nesting deeper than MAX_DEPTH.

    Python's json decodes an unpaired escape such as \\ud800 into a surrogate code point instead
    of failing; a proper pair \\ud83d\\ude00 becomes one scalar. So after parsing, any code point
    in U+D800..U+DFFF comes from a lone surrogate escape (raw surrogates are already rejected by
    strict UTF-8 decoding). Depth: the top-level value is depth 1; arrays and objects both count.
    Iterative, so a pathological value cannot exhaust the Python stack.
    """
    surrogate = re.compile("[\ud800-\udfff]")
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise TextRuleError(f"nested more than {MAX_DEPTH} deep")
            if isinstance(item, dict):
                for key, member in item.items():
                    if surrogate.search(key):
                        raise TextRuleError(f"lone surrogate escape in key {ascii(key)}")
                    stack.append((member, depth + 1))
            else:
                for member in item:
                    stack.append((member, depth + 1))
        elif isinstance(item, str):
            if surrogate.search(item):
                raise TextRuleError(f"lone surrogate escape in string {ascii(item)[:80]}")


def parse_strict(raw, check_depth=True):
    """Parses one JSON text (bytes) under the rules; raises TextRuleError.

    - A UTF-8 byte order mark is rejected (RFC 8259 §8.1: must not be added; docs/events-and-rules.md).
    - Invalid UTF-8 is rejected: decoding with errors='strict' refuses overlong forms (C0 AF),
      UTF-8 encoded surrogates (ED A0 80), code points above U+10FFFF and truncated sequences.
    - Anything that is not well-formed RFC 8259 JSON is rejected by json.loads (strict=True also
      refuses unescaped control characters U+0000..U+001F inside strings). Trailing garbage after
      the value is "Extra data". Whitespace around the value is the RFC's (space, tab, LF, CR).
    - Numbers: an integer literal (no fraction, no exponent) becomes a Python int, exact at any
      size; anything with a fraction or exponent (1.0, 1e0, 1e2) becomes a float, which the
      integer type check below refuses.
    - NaN/Infinity/-Infinity, duplicate keys, lone surrogate escapes and deep nesting: see the
      helpers above.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raise TextRuleError("UTF-8 byte order mark")
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        raise TextRuleError(f"invalid UTF-8 at byte {error.start}: {error.reason}") from None
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs_without_duplicates,
            parse_constant=_reject_constant,
            parse_int=int,
            parse_float=float,
            strict=True,
        )
    except TextRuleError:
        raise
    except json.JSONDecodeError as error:
        raise TextRuleError(f"not JSON: {error.msg} (column {error.colno})") from None
    except RecursionError:
        # Far deeper than MAX_DEPTH anyway.
        raise TextRuleError(f"nested more than {MAX_DEPTH} deep") from None
    except ValueError as error:
        raise TextRuleError(f"not JSON: {error}") from None
    if check_depth:
        _check_strings_and_depth(value)
    else:
        _check_strings_only(value)
    return value


def _check_strings_only(value):
    """Lone surrogates only (model files have no depth limit)."""
    surrogate = re.compile("[\ud800-\udfff]")
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, member in item.items():
                if surrogate.search(key):
                    raise TextRuleError(f"lone surrogate escape in key {ascii(key)}")
                stack.append(member)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and surrogate.search(item):
            raise TextRuleError(f"lone surrogate escape in string {ascii(item)[:80]}")


# ---------------------------------------------------------------------------------------------
# The schema validator: Draft 2020-12 with three NavReplay adjustments.
# ---------------------------------------------------------------------------------------------

def _is_integer(_checker, instance):
    # docs/events-and-rules.md: "a non-integer where an integer is required (1.0 included)". jsonschema's
    # default integer type accepts 1.0 (JSON Schema says a number with a zero fractional part is
    # an integer); here only an integer literal, parsed to a Python int, is one. bool is an int
    # subclass in Python but true/false are not integers.
    return isinstance(instance, int) and not isinstance(instance, bool)


_TYPE_CHECKER = Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer)

_END_ANCHOR = re.compile(r"(?<!\\)((?:\\\\)*)\$")


def _ecma_pattern(pattern):
    # JSON Schema patterns are ECMA-262 regular expressions, where '$' (without the multiline
    # flag) matches only at the end of the string. Python's '$' also matches before a final
    # "\n", so "abc\n" would pass "^[^\\u0000-\\u001f]*$". Translate an unescaped '$' to '\Z'.
    # (The schemas use no '$' inside character classes.)
    return re.compile(_END_ANCHOR.sub(lambda m: m.group(1) + r"\Z", pattern))


_PATTERN_CACHE = {}


def _pattern_keyword(validator, pattern, instance, schema):
    if not validator.is_type(instance, "string"):
        return
    compiled = _PATTERN_CACHE.get(pattern)
    if compiled is None:
        compiled = _PATTERN_CACHE[pattern] = _ecma_pattern(pattern)
    if not compiled.search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"([Zz]|([+-])([0-9]{2}):([0-9]{2}))",
    re.ASCII,
)


def is_rfc3339_date_time(text):
    """the RFC 3339 date-time: offset required, T/Z in either case, any number of
    fraction digits, a real calendar date (Feb 29 only in leap years), hour <= 23, minute <= 59,
    second <= 59 (no leap second), offset hours <= 23 and minutes <= 59. Own check (fullmatch,
    ASCII digits), so the verdict does not depend on an optional format package."""
    if not isinstance(text, str):
        return True  # format applies to strings only; the type keyword handles the rest
    match = _RFC3339.fullmatch(text)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if day > days or hour > 23 or minute > 59 or second > 59:
        return False
    if match.group(9) is not None:
        if int(match.group(10)) > 23 or int(match.group(11)) > 59:
            return False
    return True


def _properties_keyword(validator, properties, instance, schema):
    # The standard "properties", except that a field whose subschema is `false` (a field the
    # event may not carry, such as route_params on route_pop) is reported with its path and a
    # readable message; jsonschema's own false-schema error loses the field name.
    if not validator.is_type(instance, "object"):
        return
    for name, subschema in properties.items():
        if name not in instance:
            continue
        if subschema is False:
            yield ValidationError(f"{name!r} is not allowed on this event", path=[name])
        else:
            yield from validator.descend(instance[name], subschema, path=name, schema_path=name)


def make_validator(schema):
    Draft202012Validator.check_schema(schema)
    validator_class = jsonschema.validators.extend(
        Draft202012Validator,
        validators={"pattern": _pattern_keyword, "properties": _properties_keyword},
        type_checker=_TYPE_CHECKER,
    )
    format_checker = FormatChecker()
    # Replaces whatever date-time checker jsonschema registered (it depends on an optional
    # package when one is installed at all).
    format_checker.checks("date-time")(is_rfc3339_date_time)
    return validator_class(schema, format_checker=format_checker)


def _path(error):
    return error.json_path if hasattr(error, "json_path") else "$"


def schema_reason(validator, value):
    errors = list(validator.iter_errors(value))
    if not errors:
        return None
    error = best_match(errors)
    return f"{_path(error)}: {error.message}"


# ---------------------------------------------------------------------------------------------
# Reading lines.
# ---------------------------------------------------------------------------------------------

def open_input(path):
    """Opens a file (or '-') for binary reading, decompressing gzip."""
    if path == "-":
        stream = sys.stdin.buffer
        head = stream.peek(2)[:2] if hasattr(stream, "peek") else b""
    else:
        stream = open(path, "rb")
        head = stream.read(2)
        stream.seek(0)
    if path.endswith(".gz") or head == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=stream, mode="rb")
    return stream


def iter_lines(stream, max_bytes, chunk_size=1 << 16):
    """Yields (line_number, bytes or None) for every line; None means over max_bytes.

    Lines end with "\\n" (a "\\r" before it is part of the line end). A final line without
    "\\n" is yielded too. An over-long line is never held whole: only the first max_bytes + 1
    bytes are kept while scanning for its end.
    """
    number = 0
    buffer = bytearray()
    over = False
    while True:
        chunk = stream.read(chunk_size)
        if not chunk:
            break
        start = 0
        while start <= len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not over:
                buffer += piece
                if len(buffer) > max_bytes + 1:  # + 1: a "\r" of the line end
                    over = True
                    buffer.clear()
            if end < 0:
                break
            number += 1
            yield number, _finish(buffer, over, max_bytes)
            buffer.clear()
            over = False
            start = end + 1
    if buffer or over:
        number += 1
        yield number, _finish(buffer, over, max_bytes)


def _finish(buffer, over, max_bytes):
    if over:
        return None
    line = bytes(buffer)
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) > max_bytes:
        return None
    return line


def is_blank(line):
    # docs/events-and-rules.md: a blank line is empty or only spaces, tabs and "\r".
    return line.strip(b" \t\r") == b""


def clean(reason):
    return reason.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def check_events(validator, paths, max_bytes, out):
    status = 0
    prefix_files = len(paths) > 1
    for path in paths:
        prefix = f"{path}\t" if prefix_files else ""
        try:
            stream = open_input(path)
        except OSError as error:
            sys.stderr.write(f"schema_conformance.py: cannot read {path}: {error}\n")
            status = 2
            continue
        try:
            for number, line in iter_lines(stream, max_bytes):
                if line is None:
                    out.write(f"{prefix}{number}\tinvalid\tline longer than {max_bytes} bytes\n")
                    continue
                if is_blank(line):
                    continue
                try:
                    value = parse_strict(line)
                except TextRuleError as error:
                    out.write(f"{prefix}{number}\tinvalid\t{clean(str(error))}\n")
                    continue
                reason = schema_reason(validator, value)
                if reason is None:
                    out.write(f"{prefix}{number}\tvalid\n")
                else:
                    out.write(f"{prefix}{number}\tinvalid\t{clean(reason)}\n")
        except BrokenPipeError:
            raise
        except (OSError, EOFError, zlib.error) as error:
            # gzip.BadGzipFile is an OSError; zlib.error (corrupt deflate data) is not.
            sys.stderr.write(f"schema_conformance.py: cannot read {path} completely: {error}\n")
            status = 2
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    return status


def check_models(validator, paths, out):
    status = 0
    for path in paths:
        try:
            with open_input(path) as stream:
                raw = stream.read()
        except (OSError, EOFError, zlib.error) as error:
            sys.stderr.write(f"schema_conformance.py: cannot read {path}: {error}\n")
            status = 2
            continue
        try:
            # Same text rules as for events, except the nesting limit (a model is not an event).
            value = parse_strict(raw, check_depth=False)
        except TextRuleError as error:
            out.write(f"{path}\tinvalid\t{clean(str(error))}\n")
            continue
        reason = schema_reason(validator, value)
        out.write(f"{path}\tvalid\n" if reason is None else f"{path}\tinvalid\t{clean(reason)}\n")
    return status


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Check NavReplay NDJSON event logs or model files against the JSON Schemas.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--schema", help="the event schema; FILEs are NDJSON logs, one verdict per line")
    mode.add_argument("--model-schema", help="the model schema; FILEs are model files, one verdict per file")
    parser.add_argument("--max-line-bytes", type=int, default=DEFAULT_MAX_LINE_BYTES,
                        help="longest line accepted, without its line end (default 1048576)")
    parser.add_argument("files", nargs="+", metavar="FILE", help="inputs ('-' for standard input)")
    args = parser.parse_args(argv)
    if args.max_line_bytes < 1:
        parser.error("--max-line-bytes must be at least 1")

    schema_path = args.schema or args.model_schema
    try:
        with open(schema_path, "rb") as handle:
            schema = json.loads(handle.read().decode("utf-8"))
        validator = make_validator(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as error:
        parser.error(f"cannot use schema {schema_path}: {error}")

    out = sys.stdout
    if args.schema:
        return check_events(validator, args.files, args.max_line_bytes, out)
    return check_models(validator, args.files, out)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of the inputs.
        sys.stderr.close()
        sys.exit(0)
