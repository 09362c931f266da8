#!/bin/sh
# make-cloudwatch.sh - the samples' stories as CloudWatch Logs hands them out (EKS).
#
# Usage: samples/make-cloudwatch.sh [CWDIR]   (default samples/cloudwatch)
# Made from samples/audit and samples/logs, byte for byte the same every run:
#   filter-log-events.json  the node-delete story's minute and a half of audit events of
#                           apiserver 1 (05:55:30-05:57:00) as `aws logs filter-log-events`
#                           prints them, in pages of 100 concatenated (cw-export.c)
#   s3-export/TASK/kube-apiserver-audit-STREAM/000000.gz
#                           the same apiserver's events of 05:56:00-05:58:00 as an S3 export
#                           object ("TIME MESSAGE" lines), newest first (an export is not in
#                           time order); they overlap filter-log-events.json by a minute
#   s3-export/TASK/kube-controller-manager-STREAM/000000.gz
#                           control-plane host 0's kube-controller-manager log, two gzip members
#   s3-export/TASK/aws-logs-write-test   the object CloudWatch writes to test the bucket
# Needs: cc (or $CC), gzip, grep, sed, awk, sort.
set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
cw=${1:-"$here/cloudwatch"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
task=$cw/s3-export/5f3c2a9e-7a41-4d0b-9d3c-2b1e8f6a4c10
audit=$task/kube-apiserver-audit-8f2d6c1e5b7a4093a1c2d3e4f5a6b7c8
kcm=$task/kube-controller-manager-1b2c3d4e5f60718293a4b5c6d7e8f901
rm -rf "$cw"
mkdir -p "$audit" "$kcm"

${CC:-cc} -std=c11 -O2 -o "$tmp/cw-export" "$here/cw-export.c"
a1=$here/audit/kube-apiserver-audit.1.log

# 1. filter-log-events output, several pages in one file
grep -E '"stageTimestamp":"2024-04-05T05:5(5:[3-5]|6:)' "$a1" >"$tmp/window1"
"$tmp/cw-export" --page 100 --streams 1 <"$tmp/window1" >"$cw/filter-log-events.json"

# 2. S3 export of audit events: "2024-04-05T05:56:00.198Z {...}", newest first
grep -E '"stageTimestamp":"2024-04-05T05:5[67]:' "$a1" >"$tmp/window2"
sed -E 's/.*"stageTimestamp":"([0-9T:.-]{23})[^"]*".*/\1Z/' "$tmp/window2" >"$tmp/ts2"
paste -d ' ' "$tmp/ts2" "$tmp/window2" | sort -r | gzip -n -9 >"$audit/000000.gz"

# 3. S3 export of the controller-manager's klog lines, one gzip member per half
awk '{ printf "2024-%s-%sT%s.%sZ %s\n", substr($1, 2, 2), substr($1, 4, 2),
       substr($2, 1, 8), substr($2, 10, 3), $0 }' \
	"$here/logs/kube-controller-manager.ip-172-16-33-232.ec2.internal.log" >"$tmp/kcm"
half=$(($(wc -l <"$tmp/kcm") / 2))
{ head -n "$half" "$tmp/kcm" | gzip -n -9; sed -n "$((half + 1)),\$p" "$tmp/kcm" | gzip -n -9; } \
	>"$kcm/000000.gz"

printf 'Permission Check Successful' >"$task/aws-logs-write-test"
ls -lR "$cw"
