#!/usr/bin/env python3
"""`navreplay sessions` on Apache Spark, partitioned by session.

Writes DIR/sessions/ (NDJSON, one record per session), DIR/quarantine/ and DIR/summary.json:
the same job as navreplay_audit.py without the findings. See ``--help`` and the README's
"Running on a cluster".
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import navreplay_job  # noqa: E402

if __name__ == "__main__":
    navreplay_job.entry("sessions")
