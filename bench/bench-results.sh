#!/usr/bin/env bash
# Ingest throughput of the query engines' result exports (issue 18, "narrow there, analyse
# here") against the same audit events as plain JSON lines, in one run:
#
#   bench/bench-results.sh [NODES [MINUTES]]     (default 500 nodes, 30 minutes: ~125 MB)
#
# bench/bench-envelopes.sh with the result shapes of samples/cloud-export.c: Log Analytics
# AKSAudit rows as `az monitor log-analytics query` JSON and portal CSV, AzureDiagnostics rows
# (JSON, CSV), BigQuery rows of a Cloud Logging sink (JSON array, JSON lines, CSV), Athena rows
# (CSV).  Prints a Markdown block for bench/RESULTS.md (bench/out/results.md).  Target: every
# shape at >= 0.6x the plain rate (events/s).
set -euo pipefail
SHAPES="la-json la-csv la-rest azdiag-json azdiag-csv bq-json bq-ndjson bq-csv athena-csv" \
  TITLE="Query engines' result exports" OUT_NAME=results \
  exec bash "$(dirname "$0")/bench-envelopes.sh" "$@"
