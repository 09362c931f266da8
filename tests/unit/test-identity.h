/*
 * test-identity.h - who a cloud's audit record says acted: one table-driven
 * check for every envelope that carries audit Events (GKE's LogEntries in
 * test-clouds.c, BigQuery rows of a Cloud Logging sink in test-results.c).
 * Each case goes through the envelope's decoder, then the audit decoder, and
 * the Event's user and identity (lt_audit_event.identity) are compared.
 * Include after <cmocka.h> and "parser-int.h".  Inline, like the other
 * test-*.h helpers.
 */
#ifndef LT_TEST_IDENTITY_H
#define LT_TEST_IDENTITY_H

#include <string.h>

struct identity_case {
	const char *record;   /* one record of the envelope, as read */
	const char *user;     /* the Event's user.username; NULL: not checked */
	const char *identity; /* what it says is behind the user */
};

/* The Event's field is want, or fail naming the case and the field. */
static inline void identity_want(size_t i, const char *field, struct lt_str got, const char *want)
{
	if (!lt_str_eq(got, want))
		fail_msg("case %zu: %s '%.*s', want '%s'", i, field, (int)got.len,
			 got.ptr ? got.ptr : "", want);
}

/* Every case of cases[n] through env and the audit decoder. */
static inline void identity_check(const struct parser_envelope *env,
				  const struct identity_case *cases, size_t n)
{
	struct parser_audit_decoder *ad = parser_audit_decoder_new();
	void *d = env->decoder_new();
	struct parser_env_record rec;
	struct lt_audit_event ev;
	char reason[256];

	for (size_t i = 0; i < n; i++) {
		const struct identity_case *c = &cases[i];

		if (env->decode(d, &rec, c->record, strlen(c->record), reason, sizeof reason) != 0)
			fail_msg("case %zu (%s): %s", i, env->name, reason);
		if (rec.kind != PARSER_ENV_AUDIT ||
		    parser_audit_decode(ad, &ev, rec.event.ptr, rec.event.len, reason,
					sizeof reason) != 0)
			fail_msg("case %zu: not an Event (%s): %.*s", i, reason, (int)rec.event.len,
				 rec.event.ptr);
		if (c->user != NULL)
			identity_want(i, "user", ev.username, c->user);
		identity_want(i, "identity", ev.identity, c->identity);
	}
	env->decoder_free(d);
	parser_audit_decoder_free(ad);
}

#endif
