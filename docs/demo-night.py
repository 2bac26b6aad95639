#!/usr/bin/env python3
"""Writes a demo "night" of telemetry for the README screenshot of the nightly report.

It copies the sessions of SampleLogs/ (clean ones often, violating ones now and then) under new
session, event and correlation ids, each copy starting at a seeded random time between 22:00 and
06:00 UTC, keeping every event's offset within its session. The lines that are not valid events
are kept once. The output is deterministic for a seed.

    docs/demo-night.py OUT_DIR SampleLogs/clean SampleLogs/violations [--copies 60] [--seed 7]
"""
import argparse, gzip, json, os, random, sys
from datetime import datetime, timedelta, timezone

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("samples", nargs="+")
parser.add_argument("--copies", type=int, default=60)
parser.add_argument("--seed", type=int, default=7)
args = parser.parse_args()

sessions, invalid = {}, []
for root, names in ((root, names) for sample in args.samples for root, _, names in sorted(os.walk(sample))):
    for name in sorted(names):
        path = os.path.join(root, name)
        if name.endswith(".ndjson.gz"):
            lines = gzip.open(path, "rt", encoding="utf-8").read().split("\n")
        elif name.endswith(".ndjson"):
            lines = open(path, encoding="utf-8").read().split("\n")
        else:
            continue
        for line in lines:
            if not line.strip():
                continue
            try:
                event = json.loads(line)
                sessions.setdefault(event["session_id"], []).append(event)
            except (ValueError, KeyError, TypeError):
                invalid.append(line)

def parse(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))

rng = random.Random(args.seed)
night = datetime(2026, 11, 20, 22, 0, tzinfo=timezone.utc)
os.makedirs(args.out, exist_ok=True)
out = open(os.path.join(args.out, "night.ndjson"), "w", encoding="utf-8")
for copy in range(args.copies):
    for session_id in sorted(sessions):
        clean = not session_id.startswith("s-bad")
        if rng.random() > (0.9 if clean else 0.12):
            continue
        events = sessions[session_id]
        origin = min(parse(e["timestamp"]) for e in events)
        # More sessions in the evening, fewer at night, a rise in the morning.
        hour = rng.choice([0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 7, 7])
        start = night + timedelta(hours=hour, seconds=rng.randrange(3600))
        for event in events:
            event = dict(event)
            event["session_id"] = f"{session_id}-{copy:03d}"
            event["event_id"] = f"{event['event_id']}-{copy:03d}"
            event["correlation_id"] = f"{event['correlation_id']}-{copy:03d}"
            moment = start + (parse(event["timestamp"]) - origin)
            event["timestamp"] = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
            out.write(json.dumps(event, separators=(",", ":")) + "\n")
for line in invalid:
    out.write(line + "\n")
out.close()
print(os.path.join(args.out, "night.ndjson"))
