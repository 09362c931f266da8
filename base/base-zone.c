/*
 * base-zone.c - the zone times are shown in and local times are read in.
 *
 * One zone for the whole process, UTC until lt_zone_set names another (the
 * command line's --tz): an IANA name read from tzdata, the system's own zone
 * ("local": $TZ, else /etc/localtime), or a fixed offset ("+05:30").  A
 * named zone is handed to the C library (TZ set, tzset) which reads its
 * rules, daylight saving included; UTC and fixed offsets never ask it, so
 * the default output costs nothing and depends on no file.
 *
 * Local wall times go back to UTC with the offsets in force a day either
 * side: a time the clocks skipped (spring forward) does not exist, one they
 * went through twice (fall back) is its first occurrence.
 */
#include "lt_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ZONE_MAX_NAME  128
#define ZONE_DAY_US    (86400LL * 1000000)
#define ZONE_TZDIR     "/usr/share/zoneinfo"
#define ZONE_LOCALTIME "/etc/localtime"

enum zone_kind { ZONE_UTC, ZONE_FIXED, ZONE_NAMED };

static struct {
	enum zone_kind kind;
	int64_t fixed_us; /* ZONE_FIXED: east of UTC */
	char name[ZONE_MAX_NAME];
} zone = {.kind = ZONE_UTC, .name = "UTC"};

/* Names that mean UTC: no tzdata asked. */
static int zone_is_utc_name(const char *name)
{
	static const char *const utc[] = {
	    "UTC", "utc",  "Z",	  "z",	     "Etc/UTC",	  "Etc/UCT",	  "Etc/Zulu",
	    "UCT", "Zulu", "GMT", "Etc/GMT", "Universal", "Etc/Universal"};

	for (size_t i = 0; i < sizeof utc / sizeof *utc; i++)
		if (strcmp(name, utc[i]) == 0)
			return 1;
	return 0;
}

/* An IANA name: letters, digits, "_+-./", no empty or ".." component, not absolute. */
static int zone_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len >= ZONE_MAX_NAME - 1 || name[0] == '/' || name[0] == '.')
		return 0;
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+-./") !=
	    len)
		return 0;
	return strstr(name, "..") == NULL && strstr(name, "//") == NULL && name[len - 1] != '/';
}

/* 1 when dir/name is a compiled zone file (its first bytes "TZif"). */
static int zone_file_ok(const char *name)
{
	const char *dir = getenv("TZDIR");
	char path[ZONE_MAX_NAME + 256], magic[4];
	FILE *f;
	int ok;

	if (dir == NULL || dir[0] == '\0')
		dir = ZONE_TZDIR;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
		return 0;
	if ((f = fopen(path, "rb")) == NULL)
		return 0;
	ok = fread(magic, 1, 4, f) == 4 && memcmp(magic, "TZif", 4) == 0;
	fclose(f);
	return ok;
}

/* The C library's zone made name's: TZ set to it (NULL: left as the environment has it). */
static void zone_use_libc(const char *tz, const char *shown)
{
	if (tz != NULL)
		setenv("TZ", tz, 1);
	tzset();
	zone.kind = ZONE_NAMED;
	snprintf(zone.name, sizeof zone.name, "%s", shown);
}

/* "local": $TZ as the environment gives it, else /etc/localtime, named after its link. */
static int zone_local(struct lt_error *err)
{
	const char *tz = getenv("TZ");
	char link[ZONE_MAX_NAME + 64];
	ssize_t n;

	if (tz != NULL && tz[0] == '\0')
		return lt_zone_set("UTC", err); /* the C library reads an empty TZ so */
	if (tz != NULL) {
		const char *name = tz + (tz[0] == ':');

		if (zone_is_utc_name(name))
			return lt_zone_set(name, err);
		if (strchr(name, '/') != NULL && (!zone_name_ok(name) || !zone_file_ok(name)))
			return lt_error_set(err, LT_ERR_USAGE, "TZ=%s: no such zone in tzdata", tz);
		zone_use_libc(NULL, name);
		return 0;
	}
	n = readlink(ZONE_LOCALTIME, link, sizeof link - 1);
	link[n > 0 ? n : 0] = '\0';
	zone_use_libc(NULL, strstr(link, "zoneinfo/") ? strstr(link, "zoneinfo/") + 9 : "local");
	return 0;
}

int lt_zone_set(const char *name, struct lt_error *err)
{
	int64_t off;

	if (name == NULL || zone_is_utc_name(name)) {
		zone.kind = ZONE_UTC;
		snprintf(zone.name, sizeof zone.name, "UTC");
		return 0;
	}
	if (strcmp(name, "local") == 0)
		return zone_local(err);
	if ((name[0] == '+' || name[0] == '-') && lt_time_zone(&off, name, strlen(name)) == 0) {
		zone.kind = ZONE_FIXED;
		zone.fixed_us = off;
		snprintf(zone.name, sizeof zone.name, "%.6s", name);
		return 0;
	}
	if (!zone_name_ok(name) || !zone_file_ok(name))
		return lt_error_set(err, LT_ERR_USAGE,
				    "no such zone in tzdata (an IANA name like Europe/Berlin or "
				    "America/New_York, UTC, local, or an offset like +05:30)");
	zone_use_libc(name, name);
	return 0;
}

const char *lt_zone_name(void)
{
	return zone.name;
}

int lt_zone_is_utc(void)
{
	return zone.kind == ZONE_UTC;
}

int64_t lt_zone_offset(int64_t utc_us)
{
	struct tm tm;
	time_t t;

	switch (zone.kind) {
	case ZONE_UTC:
		return 0;
	case ZONE_FIXED:
		return zone.fixed_us;
	case ZONE_NAMED:
		break;
	}
	t = (time_t)(utc_us >= 0 ? utc_us / 1000000 : (utc_us - 999999) / 1000000);
	if (localtime_r(&t, &tm) == NULL)
		return 0;
	return (int64_t)tm.tm_gmtoff * 1000000;
}

int lt_zone_to_utc(int64_t *out, int64_t local_us)
{
	/* the offsets in force a day before and after: at most one change between them */
	int64_t offs[2] = {lt_zone_offset(local_us - ZONE_DAY_US),
			   lt_zone_offset(local_us + ZONE_DAY_US)};
	int found = 0;

	for (int i = 0; i < 2; i++) {
		int64_t utc = local_us - offs[i];

		if (lt_zone_offset(utc) != offs[i] || (found && utc >= *out))
			continue;
		*out = utc; /* the earlier of two: the first time the clocks showed it */
		found = 1;
	}
	return found ? 0 : LT_ERR_NOTFOUND;
}

void lt_time_format_zone(char *buf, size_t size, int64_t us)
{
	int64_t off, a;
	size_t len;

	if (zone.kind == ZONE_UTC) {
		lt_time_format(buf, size, us);
		return;
	}
	off = lt_zone_offset(us);
	lt_time_format(buf, size, us + off);
	a = (off < 0 ? -off : off) / 60000000;
	len = strlen(buf);
	/* "...Z" becomes "...+02:00": the wall time, then its offset */
	if (len >= 1 && size >= len + 6)
		snprintf(buf + len - 1, size - len + 1, "%c%02d:%02d", off < 0 ? '-' : '+',
			 (int)(a / 60), (int)(a % 60));
}
