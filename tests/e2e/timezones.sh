#!/usr/bin/env bash
# Times as people read them: --tz ZONE shows every time of every command, in every format, in
# that zone with its offset (JSON and CSV keep RFC 3339); --utc forces UTC; $LEASETRAIL_TZ is
# the default, $TZ alone changes nothing; --since/--until written without a zone are wall times
# of the zone, a time of day is on the day of the store's last event.  Across Europe/Berlin's
# daylight saving changes of 2024 (clusters made by lt-gen around 2024-03-31T01:00Z and
# 2024-10-27T01:00Z): the offset changes mid-episode, a skipped wall time is a usage error
# that says so, a doubled one is its first occurrence.
#   bash tests/e2e/timezones.sh LEASETRAIL LT_GEN SAMPLES TMP
set -eu # no pipefail: `leasetrail ... | grep -q` stops the writer early (SIGPIPE)
bin=$1 gen=$2 samples=$3 tmp=$4
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
unset LEASETRAIL_TZ TZ COLUMNS
node=ip-10-0-241-171.ec2.internal
lt() { "$bin" "$@"; }
lt ingest -q --db s.db "$samples/audit" "$samples/logs" >/dev/null

# ---- every command, every format: the zone and its offset, the same instants
lt timeline --db s.db "$node" -o csv >utc.csv
lt timeline --db s.db "$node" -o csv --tz Europe/Berlin >berlin.csv
[ "$(wc -l <utc.csv)" = "$(wc -l <berlin.csv)" ] || fail "--tz changed the rows"
sed -n 2p berlin.csv | grep -q '^2024-04-05T07:50:04.164703+02:00,2024-04-05T07:55:59.291197+02:00,audit,RENEWING,' ||
	fail "timeline --tz Europe/Berlin -o csv: $(sed -n 2p berlin.csv)"
! grep -q 'Z,' berlin.csv || fail "a UTC time left in --tz's CSV"
# the same instants: each time read back (date -d) is the UTC one
paste -d' ' <(cut -d, -f1 utc.csv | sed 1d) <(cut -d, -f1 berlin.csv | sed 1d) | head -50 |
	while read -r u b; do
		[ "$(date -u -d "$u" +%s.%N)" = "$(date -u -d "$b" +%s.%N)" ] || fail "$u is not $b"
	done
lt query --db s.db who-deleted -o json --tz America/New_York >ny.json
grep -q '"ts":"2024-04-05T01:56:00.198927-04:00"' ny.json || fail "json --tz: $(head -c 300 ny.json)"
lt query --db s.db who-deleted -o jsonl --tz Asia/Kolkata | grep -q '"ts":"2024-04-05T11:26:00.198927+05:30"' ||
	fail "jsonl --tz Asia/Kolkata"
lt nodes --db s.db --tz +05:30 | grep -q "2024-04-05T11:34:53.289776+05:30" || fail "nodes --tz +05:30"
lt stats --db s.db --tz Europe/Berlin | grep -q '^Time range:  2024-04-05T07:50:0.*+02:00 .. 2024-04-05T08:04:5.*+02:00' ||
	fail "stats --tz: $(lt stats --db s.db --tz Europe/Berlin | grep 'Time range')"
lt stats --db s.db -o json --tz Europe/Berlin | grep -q '"first":"2024-04-05T07:50:0[0-9.]*+02:00"' ||
	fail "stats -o json --tz"
lt query --db s.db renew-gaps --emit cwli --since 2024-04-05T05:56:00Z --tz Europe/Berlin |
	grep -q '^# time range: 2024-04-05T07:56:00.000000+02:00 .. now (aws logs start-query --start-time 1712296560)' ||
	fail "--emit cwli --tz: the range"

# ---- which zone: --utc wins, then --tz, then $LEASETRAIL_TZ; $TZ alone is no choice
LEASETRAIL_TZ=Asia/Tokyo lt nodes --db s.db -o csv | grep -q '+09:00' || fail "LEASETRAIL_TZ is not the default"
LEASETRAIL_TZ=Asia/Tokyo lt nodes --db s.db -o csv --tz Europe/Berlin | grep -q '+02:00' || fail "--tz over LEASETRAIL_TZ"
LEASETRAIL_TZ=Asia/Tokyo lt nodes --db s.db -o csv --tz Europe/Berlin --utc >u.csv
cmp -s u.csv <(lt nodes --db s.db -o csv) || fail "--utc is not plain UTC"
TZ=Asia/Tokyo lt nodes --db s.db -o csv >tz.csv
cmp -s tz.csv u.csv || fail "TZ alone changed the output"
TZ=Asia/Tokyo lt nodes --db s.db -o csv --tz local | grep -q '+09:00' || fail "--tz local does not read TZ"
lt timeline --db s.db "$node" --tz UTC >a.out && lt timeline --db s.db "$node" >b.out
cmp -s a.out b.out || fail "--tz UTC is not the default"
for bad in Nowhere/Atlantis ../../etc/passwd "Europe/Berlin;x" +25:00; do
	st=0
	lt nodes --db s.db --tz "$bad" >out 2>err || st=$?
	[ "$st" = 2 ] || fail "--tz '$bad': exit $st, want 2"
	grep -qF "no such zone in tzdata" err || fail "--tz '$bad': $(cat err)"
done
st=0
LEASETRAIL_TZ=Mars/Olympus lt nodes --db s.db >out 2>err || st=$?
[ "$st" = 2 ] && grep -qF "LEASETRAIL_TZ 'Mars/Olympus'" err || fail "a bad LEASETRAIL_TZ: $st $(cat err)"
st=0
lt nodes --db s.db --tz >out 2>err || st=$?
[ "$st" = 2 ] && grep -qF "option '--tz' needs an argument" err || fail "--tz alone: $(cat err)"

# ---- --since/--until in the zone: the same range as its UTC form
lt timeline --db s.db "$node" --since 2024-04-05T05:56:00Z --until 2024-04-05T06:00:00Z -o csv >r-utc.csv
for since in "2024-04-05 07:56" "2024-04-05T07:56:00" "07:56" "07:56:00.000000" "2024-04-05 05:56Z" \
	"2024-04-05 08:56+03:00" 1712296560 @1712296560; do
	lt timeline --db s.db "$node" --tz Europe/Berlin --since "$since" --until "08:00" -o csv >r-loc.csv
	cut -d, -f3- r-loc.csv | cmp -s - <(cut -d, -f3- r-utc.csv) ||
		fail "--tz Europe/Berlin --since '$since' --until 08:00: not the rows of 05:56Z..06:00Z"
done
# a date is its midnight in the zone: 2024-04-05 in Tokyo began at 2024-04-04T15:00Z
lt timeline --db s.db "$node" --tz Asia/Tokyo --until 2024-04-05 >out
[ "$(wc -l <out)" = 1 ] || fail "--until 2024-04-05 in Tokyo is before the logs: $(cat out)"
lt timeline --db s.db "$node" --tz Pacific/Honolulu --since 2024-04-05 --until 2024-04-06 -o csv >out
[ "$(wc -l <out)" = 1 ] || fail "2024-04-05 in Honolulu (-10:00) starts after the logs"
lt timeline --db s.db "$node" --tz Pacific/Honolulu --since 2024-04-04 -o csv | cut -d, -f3- >out
cmp -s out <(lt timeline --db s.db "$node" -o csv | cut -d, -f3-) || fail "2024-04-04 in Honolulu holds all"
# a time of day is on the day of the store's last event, in the zone: 2024-04-05 (UTC, Berlin)
lt timeline --db s.db "$node" --since 05:56 --until 06:00 -o csv >tod.csv
cmp -s tod.csv r-utc.csv || fail "--since 05:56 --until 06:00 (UTC) is not 2024-04-05's"

# ---- daylight saving in Berlin: spring forward (01:00Z, 02:00 -> 03:00 local)
"$gen" --nodes 1 --minutes 20 --stories none --start 2024-03-31T00:50:00Z -o spring.log
lt ingest -q --db spring.db spring.log >/dev/null
sn=$(lt nodes --db spring.db -o csv | sed -n '2s/,.*//p')
lt timeline --db spring.db "$sn" -o csv --tz Europe/Berlin >sp.csv
grep -q '^2024-03-31T01:5[0-9]:[0-9.]*+01:00,2024-03-31T03:09:[0-9.]*+02:00,audit,RENEWING,' sp.csv ||
	fail "the offset across spring forward: $(sed -n 2p sp.csv)"
st=0
lt timeline --db spring.db "$sn" --tz Europe/Berlin --since "2024-03-31 02:30" >out 2>err || st=$?
[ "$st" = 2 ] || fail "--since a skipped wall time: exit $st"
grep -qF -- "--since 2024-03-31 02:30: no such time in Europe/Berlin (the clocks skipped it" err ||
	fail "the skipped time is not named: $(cat err)"
lt timeline --db spring.db "$sn" --tz Europe/Berlin --since "2024-03-31 03:00" -o csv | cut -d, -f3- >a.out
lt timeline --db spring.db "$sn" --since 2024-03-31T01:00:00Z -o csv | cut -d, -f3- >b.out
cmp -s a.out b.out || fail "03:00 CEST on 2024-03-31 is not 01:00Z"
# fall back (01:00Z, 03:00 -> 02:00 local): 02:30 happens twice, the first is 00:30Z
"$gen" --nodes 1 --minutes 80 --stories none --start 2024-10-27T00:10:00Z -o fall.log
lt ingest -q --db fall.db fall.log >/dev/null
fn=$(lt nodes --db fall.db -o csv | sed -n '2s/,.*//p')
lt timeline --db fall.db "$fn" --tz Europe/Berlin --since "2024-10-27 02:30" --until "2024-10-27 02:31" -o csv |
	cut -d, -f3- >a.out
lt timeline --db fall.db "$fn" --since 2024-10-27T00:30:00Z --until 2024-10-27T00:31:00Z -o csv | cut -d, -f3- >b.out
cmp -s a.out b.out || fail "02:30 on 2024-10-27 in Berlin is not its first occurrence (00:30Z)"
lt timeline --db fall.db "$fn" --tz Europe/Berlin -o csv | sed -n 2p |
	grep -q '^2024-10-27T02:1[0-9]:[0-9.]*+02:00,2024-10-27T02:2[0-9]:[0-9.]*+01:00,audit,RENEWING,' ||
	fail "the offset across fall back: $(lt timeline --db fall.db "$fn" --tz Europe/Berlin -o csv | sed -n 2p)"

echo "e2e timezones: ok (--tz, --utc, LEASETRAIL_TZ in every format; since/until forms; both DST changes)"
