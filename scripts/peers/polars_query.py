#!/usr/bin/env python3
"""The query of `scripts/bench`'s DuckDB peer, in Polars (PyPI `polars`).

  polars_query.py [--threads N] FILE

Reads the NDJSON log (`scan_ndjson`, the six columns the query names, bad lines ignored) into a
frame once, then in one collection: the events, the distinct sessions, the events by name, and the
route_push, route_pop and route_replace events whose from_route differs (null-aware) from the
previous to_route of their session's stack in seq order (`shift().over(..., order_by="seq")`,
DuckDB's `lag` window). Prints one `what n` line per row, as the DuckDB query's rows.
"""
import argparse
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=None, help="Polars' thread pool (default: every core)")
    parser.add_argument("file")
    args = parser.parse_args()
    if args.threads:
        # Read by Polars when it is imported, not after.
        os.environ["POLARS_MAX_THREADS"] = str(args.threads)
    import polars as pl

    schema = {"session_id": pl.String, "seq": pl.Int64, "event_name": pl.String, "stack": pl.String,
              "from_route": pl.String, "to_route": pl.String}
    # The scan is collected once, as DuckDB's CTE is read once; four lazy queries over the scan
    # in one collect_all read the file once each.
    events = pl.scan_ndjson(args.file, schema=schema, ignore_errors=True).collect().lazy()
    count = events.select(pl.len().alias("n"))
    sessions = events.select(pl.col("session_id").drop_nulls().n_unique().alias("n"))
    by_event = events.group_by("event_name").len("n").sort("event_name")
    mismatches = (
        events.filter(pl.col("stack").is_not_null())
        .with_columns(previous_to=pl.col("to_route").shift().over("session_id", "stack", order_by="seq"))
        .filter(pl.col("event_name").is_in(["route_push", "route_pop", "route_replace"])
                & pl.col("from_route").ne_missing(pl.col("previous_to")))
        .select(pl.len().alias("n"))
    )
    count, sessions, by_event, mismatches = pl.collect_all([count, sessions, by_event, mismatches])
    out = sys.stdout
    out.write(f"events {count['n'][0]}\n")
    out.write(f"sessions {sessions['n'][0]}\n")
    for name, n in by_event.iter_rows():
        out.write(f"by_event:{name} {n}\n")
    out.write(f"from_route_mismatch {mismatches['n'][0]}\n")


if __name__ == "__main__":
    main()
