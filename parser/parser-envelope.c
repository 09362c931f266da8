/*
 * parser-envelope.c - what a JSON record is, from its top-level keys.
 *
 * The envelopes of cloud logs (an AKS diagnostic record, a GKE LogEntry)
 * and the audit Event itself are told apart by the keys of their outermost
 * object, whatever their order and whatever the values hold: an escaped
 * Event inside a string is not a key, nor is a key of a nested object.
 * yajl walks the record and stops as soon as the answer is known (an audit
 * Event says so in its first keys), so a probe costs a few keys, not a
 * record.  A record cut off or damaged is judged on the keys before the
 * damage: its decoder then says what is wrong with it.
 */
#include "parser-json.h"

#include <string.h>

/* The keys wanted, and which of them the walk has met so far. */
struct envelope_probe {
	const char *const *all, *const *any;
	unsigned long seen_all; /* bit i: all[i] was met */
	unsigned long want_all;
	int seen_any;
	int depth;
};

/* Bits for the first (at most) sizeof(long)*8 keys of a NULL-terminated list. */
static unsigned long envelope_mask(const char *const *keys)
{
	unsigned long m = 0;

	for (size_t i = 0; keys != NULL && keys[i] != NULL && i < sizeof m * 8; i++)
		m |= 1UL << i;
	return m;
}

static int envelope_done(const struct envelope_probe *p)
{
	return p->seen_all == p->want_all && (p->any == NULL || p->seen_any);
}

static int envelope_key(void *ctx, const unsigned char *k, size_t n)
{
	struct envelope_probe *p = ctx;

	if (p->depth != 1)
		return 1;
	for (size_t i = 0; p->all != NULL && p->all[i] != NULL && i < sizeof(long) * 8; i++)
		if (strlen(p->all[i]) == n && memcmp(p->all[i], k, n) == 0)
			p->seen_all |= 1UL << i;
	for (size_t i = 0; p->any != NULL && p->any[i] != NULL; i++)
		if (strlen(p->any[i]) == n && memcmp(p->any[i], k, n) == 0)
			p->seen_any = 1;
	return !envelope_done(p); /* 0 stops yajl: the answer is known */
}

static int envelope_open(void *ctx)
{
	((struct envelope_probe *)ctx)->depth++;
	return 1;
}

static int envelope_close(void *ctx)
{
	((struct envelope_probe *)ctx)->depth--;
	return 1;
}

static const yajl_callbacks envelope_callbacks = {
    .yajl_start_map = envelope_open,
    .yajl_map_key = envelope_key,
    .yajl_end_map = envelope_close,
    .yajl_start_array = envelope_open,
    .yajl_end_array = envelope_close,
};

int parser_json_keys(const char *json, size_t len, const char *const *all, const char *const *any)
{
	struct envelope_probe p = {.all = all, .any = any, .want_all = envelope_mask(all)};
	size_t i = 0;

	while (i < len && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r'))
		i++;
	if (i == len || json[i] != '{')
		return 0;
	/* a stop, damage or the end: the keys met decide either way */
	(void)parser_json_run(&envelope_callbacks, &p, NULL, "JSON", json, len, NULL, 0);
	return envelope_done(&p);
}

int parser_audit_probe(const char *json, size_t len)
{
	static const char *const audit_keys[] = {
	    "auditID",	  "stageTimestamp", "requestReceivedTimestamp",
	    "requestURI", "objectRef",	    NULL,
	};

	return parser_json_keys(json, len, NULL, audit_keys);
}
