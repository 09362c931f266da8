/*
 * base-fault.c - fault injection for tests: the Nth allocation or the Nth
 * SQLite allocation fails.
 *
 * Built in with -DLT_FAULT=ON (tests/run-all.sh does); otherwise lt_fault()
 * is always 0.  LEASETRAIL_FAULT=KIND:N makes the Nth call of that kind fail
 * once (KIND alloc: the lt_xmalloc family, which then exits as on a real
 * exhaustion; sqlite: an allocation inside SQLite, which the failing SQLite
 * call reports as "out of memory"; io: a write of SQLite's, which fails as on
 * a full disk, index-fault.c; zstd: an allocation of zstd's, which the
 * store reports as an out-of-memory error, index-raw.c); KIND:count prints how many calls of the
 * kind a run made, at exit, so a test can sweep N over all of them.
 */
#include "lt_base.h"

#include <stdlib.h>
#include <string.h>

#ifdef LT_FAULT
#include <pthread.h>
#include <stdatomic.h>

static const char *const fault_names[] = {"alloc", "sqlite", "io", "zstd"};
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;
static int fault_kind = -1; /* the armed kind */
static long fault_at;	    /* the call that fails, 1-based; 0 = count only */
static atomic_long fault_calls;

static void fault_report(void)
{
	fprintf(stderr, "leasetrail-fault: %s calls: %ld\n", fault_names[fault_kind],
		(long)atomic_load(&fault_calls));
}

/* Reads LEASETRAIL_FAULT once: KIND:N or KIND:count. */
static void fault_parse(void)
{
	const char *env = getenv("LEASETRAIL_FAULT"), *colon;
	char *end;

	if (env == NULL || (colon = strchr(env, ':')) == NULL)
		return;
	for (int k = 0; k < (int)(sizeof fault_names / sizeof *fault_names); k++)
		if (strlen(fault_names[k]) == (size_t)(colon - env) &&
		    memcmp(env, fault_names[k], (size_t)(colon - env)) == 0)
			fault_kind = k;
	if (fault_kind < 0)
		return;
	if (strcmp(colon + 1, "count") == 0) {
		atexit(fault_report);
		return;
	}
	fault_at = strtol(colon + 1, &end, 10);
	if (*end != '\0' || fault_at <= 0)
		fault_kind = -1;
}

int lt_fault(enum lt_fault_kind kind)
{
	pthread_once(&fault_once, fault_parse);
	if ((int)kind != fault_kind)
		return 0;
	return atomic_fetch_add(&fault_calls, 1) + 1 == fault_at;
}

int lt_fault_armed(enum lt_fault_kind kind)
{
	pthread_once(&fault_once, fault_parse);
	return (int)kind == fault_kind;
}
#else
int lt_fault(enum lt_fault_kind kind)
{
	(void)kind;
	return 0;
}

int lt_fault_armed(enum lt_fault_kind kind)
{
	(void)kind;
	return 0;
}
#endif
