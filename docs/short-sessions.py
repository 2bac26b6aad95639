#!/usr/bin/env python3
"""Writes a log of many short, clean sessions, for measuring what grows with the number of sessions.

Each session is five valid events of the PoC router (session_start, a screen view, two pushes on the
onboarding stack with their screen view), with random UUIDs for session, event and correlation ids;
sessions follow one another, each one's lines together (so the log also suits --pre-grouped). About
1.7 KB a session: 200,000 sessions are about 333 MB. The output is deterministic for a seed.

With --counter-ids, each event's id is `e-<seq>`, as a client with a per-session counter writes
it: every session then shares its ids with every other one, and each later use of an id is an
event_id.conflict (the worst case for the sessions that must be folded again).

    docs/short-sessions.py OUT.ndjson --sessions 200000 [--seed 1] [--counter-ids]
"""
import argparse
import random
import uuid
from datetime import datetime, timedelta, timezone

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--sessions", type=int, default=200_000)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--counter-ids", action="store_true")
args = parser.parse_args()

rng = random.Random(args.seed)
start = datetime(2026, 11, 20, 22, 0, tzinfo=timezone.utc)


def new_id():
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def stamp(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def line(session, seq, moment, correlation, name, fields):
    event_id = f"e-{seq}" if args.counter_ids else new_id()
    head = (f'{{"schema_version":1,"event_id":"{event_id}","event_name":"{name}","session_id":"{session}",'
            f'"seq":{seq},"timestamp":"{stamp(moment)}","correlation_id":"{correlation}",'
            f'"app_version":"3.2.0","platform":"ios"')
    return head + "".join(f',"{key}":{value}' for key, value in fields) + "}\n"


with open(args.out, "w") as out:
    for _ in range(args.sessions):
        session = new_id()
        moment = start + timedelta(milliseconds=rng.randrange(8 * 3600 * 1000))
        first, second, third = new_id(), new_id(), new_id()
        steps = [
            (first, "session_start", []),
            (first, "screen_view", [("stack", '"onboarding"'), ("to_route", "null")]),
            (second, "route_push", [("stack", '"onboarding"'), ("from_route", "null"), ("to_route", '"welcome"')]),
            (second, "screen_view", [("stack", '"onboarding"'), ("to_route", '"welcome"')]),
            (third, "route_push", [("stack", '"onboarding"'), ("from_route", '"welcome"'), ("to_route", '"signup"')]),
        ]
        for seq, (correlation, name, fields) in enumerate(steps):
            out.write(line(session, seq, moment, correlation, name, fields))
            moment += timedelta(milliseconds=rng.randrange(400, 6000))
