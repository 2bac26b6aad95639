#!/usr/bin/env python3
"""An independent count of `navreplay paths` and `navreplay funnel` over an NDJSON log, for the
tests: DuckDB SQL over the log's screen_view events, numpy for the percentiles.

  journeys_oracle.py LOG [STEP ...]

STEPs are screen labels (`tab1/detail`, `tab1/(root)`, `modal:paywall`): a funnel of screens,
each step the first view of its screen after the previous step's view. Prints one JSON document:
sessions; screens (sessions, views); transitions between consecutive screen_views of different
screens (sessions, count, and count by the operation of the arriving view's correlation group:
its first event that is not a screen_view); and the funnel (sessions per step, time from the
previous step at p50, p90, p99 by numpy.percentile's default method (as text: repr of each
float, which reads back exactly, as a JSON parser's number may not), and where the sessions that
dropped went next).
"""
import json
import sys

import duckdb
import numpy

OPERATIONS = {
    "route_push": "push", "route_pop": "pop", "route_pop_to": "pop_to", "route_replace": "replace",
    "route_insert": "insert", "route_remove": "remove", "tab_switch": "tab", "flow_switch": "flow",
    "modal_present": "modal_present", "modal_dismiss": "modal_dismiss", "command_applied": "command",
    "deep_link": "deep_link",
}


def main(log, steps):
    db = duckdb.connect()
    columns = {
        "session_id": "VARCHAR", "seq": "BIGINT", "timestamp": "VARCHAR", "event_name": "VARCHAR",
        "correlation_id": "VARCHAR", "stack": "VARCHAR", "to_route": "VARCHAR", "modal": "VARCHAR", "snapshot": "JSON",
    }
    db.execute(f"CREATE TABLE events AS SELECT * FROM read_json(?, format='newline_delimited', columns={columns!r})", [log])
    operation = "CASE e.event_name WHEN 'session_start' THEN (CASE WHEN e.snapshot IS NULL THEN 'start' ELSE 'restore' END) "
    operation += " ".join(f"WHEN '{name}' THEN '{op}'" for name, op in OPERATIONS.items()) + " END"
    db.execute(f"""
        CREATE TABLE views AS
        SELECT v.session_id, v.seq,
               epoch_ms(v.timestamp::TIMESTAMPTZ) AS ms,
               CASE WHEN v.modal IS NOT NULL THEN 'modal:' || v.modal ELSE v.stack || '/' || coalesce(v.to_route, '(root)') END AS screen,
               coalesce((SELECT {operation} FROM events e
                         WHERE e.session_id = v.session_id AND e.correlation_id = v.correlation_id
                           AND e.seq < v.seq AND e.event_name <> 'screen_view'
                         ORDER BY e.seq LIMIT 1), 'none') AS operation
        FROM events v WHERE v.event_name = 'screen_view'""")
    db.execute("""
        CREATE TABLE pairs AS
        SELECT * FROM (
          SELECT session_id, seq, ms, lag(screen) OVER w AS source, screen AS target, operation
          FROM views WINDOW w AS (PARTITION BY session_id ORDER BY seq))
        WHERE source IS NOT NULL AND source <> target""")
    result = {"sessions": db.execute("SELECT count(DISTINCT session_id) FROM events").fetchone()[0]}
    result["screens"] = [
        {"screen": screen, "sessions": sessions, "views": views}
        for screen, sessions, views in db.execute(
            "SELECT screen, count(DISTINCT session_id), count(*) FROM views GROUP BY screen").fetchall()
    ]
    transitions = {}
    for source, target, sessions, count in db.execute(
            "SELECT source, target, count(DISTINCT session_id), count(*) FROM pairs GROUP BY source, target").fetchall():
        transitions[(source, target)] = {"from": source, "to": target, "sessions": sessions, "count": count, "operations": {}}
    for source, target, op, count in db.execute(
            "SELECT source, target, operation, count(*) FROM pairs GROUP BY source, target, operation").fetchall():
        transitions[(source, target)]["operations"][op] = count
    result["transitions"] = list(transitions.values())
    if steps:
        result["funnel"] = funnel(db, steps)
    json.dump(result, sys.stdout, sort_keys=True)


def funnel(db, steps):
    """Each step at the first view of its screen after the previous step's view."""
    db.execute("CREATE TABLE s0 AS SELECT session_id, min(seq) AS seq FROM views WHERE screen = ? GROUP BY session_id",
               [steps[0]])
    for index in range(1, len(steps)):
        db.execute(f"""CREATE TABLE s{index} AS
            SELECT v.session_id, min(v.seq) AS seq FROM views v JOIN s{index - 1} p USING (session_id)
            WHERE v.screen = ? AND v.seq > p.seq GROUP BY v.session_id""", [steps[index]])
    reached, times, dropped = [], [], []
    for index in range(len(steps)):
        reached.append(db.execute(f"SELECT count(*) FROM s{index}").fetchone()[0])
        if index == 0:
            times.append(None)
            dropped.append({})
            continue
        deltas = [row[0] for row in db.execute(f"""
            SELECT b.ms - a.ms FROM s{index} c JOIN s{index - 1} p USING (session_id)
            JOIN views b ON b.session_id = c.session_id AND b.seq = c.seq
            JOIN views a ON a.session_id = p.session_id AND a.seq = p.seq""").fetchall()]
        times.append([repr(float(value)) for value in numpy.percentile(numpy.array(deltas, dtype=numpy.int64), [50, 90, 99])]
                     if deltas else None)
        rows = db.execute(f"""
            SELECT coalesce((SELECT n.screen FROM views n WHERE n.session_id = p.session_id AND n.seq > p.seq
                               AND n.screen <> last.screen ORDER BY n.seq LIMIT 1), '(exit)') AS next, count(*)
            FROM s{index - 1} p JOIN views last ON last.session_id = p.session_id AND last.seq = p.seq
            WHERE p.session_id NOT IN (SELECT session_id FROM s{index}) GROUP BY next""").fetchall()
        dropped.append({next_screen: count for next_screen, count in rows})
    return {"reached": reached, "times": times, "dropped": dropped}


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
