#!/usr/bin/env python3
"""`navreplay audit` on Apache Spark, partitioned by session.

Writes DIR/findings/ (NDJSON), DIR/findings_parquet/, DIR/sessions/, DIR/quarantine/ and
DIR/summary.json. Run it with python3 (``--master`` defaults to ``local[*]``; spark-submit options
pass through) or with spark-submit. See ``--help`` and the README's "Running on a cluster".
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import navreplay_job  # noqa: E402

if __name__ == "__main__":
    navreplay_job.entry("audit")
