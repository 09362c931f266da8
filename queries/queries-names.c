/*
 * queries-names.c - the names `leasetrail timeline` takes, for shell completion.
 *
 * Nodes (by the name of their node lease) and the other leases as
 * NAMESPACE/NAME, those starting with a prefix, in name order, at most a
 * limit of them.  The prefix is bound, never spliced into the SQL.  A name
 * holding anything but the characters of a Kubernetes name (letters, digits,
 * '.', '-', '_', ':', '@', '/') is skipped: a completion word goes back into
 * the user's shell, so hostile log text never becomes one.
 */
#include "queries-int.h"

#include <assert.h>
#include <string.h>

/* ?1 the prefix, ?2 how many. */
static const char names_sql[] = "SELECT DISTINCT name FROM (SELECT CASE WHEN l.kind = 'node' THEN "
				"n.s ELSE ns.s || '/' || n.s END"
				"  AS name FROM lt_leases AS l JOIN strs AS n ON n.id = l.name_id"
				"  LEFT JOIN strs AS ns ON ns.id = l.namespace_id)"
				" WHERE substr(name, 1, length(?1)) = ?1 ORDER BY name LIMIT ?2";

/* True when every byte of s[0..len) may stand in a shell word unquoted. */
static int names_plain(const char *s, size_t len)
{
	static const char extra[] = ".-_:@/";

	if (len == 0)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      (c != '\0' && memchr(extra, c, sizeof extra - 1) != NULL)))
			return 0;
	}
	return 1;
}

int lt_query_names(struct lt_store *st, const char *prefix, int64_t limit,
		   void (*fn)(const char *name, size_t len, void *ctx), void *ctx,
		   struct lt_error *err)
{
	struct lt_stmt *q;
	int rc;

	assert(prefix != NULL && fn != NULL);
	if ((rc = lt_store_prepare(st, &q, names_sql, err)) != 0)
		return rc;
	lt_stmt_bind_text(q, 1, prefix, (size_t)-1);
	lt_stmt_bind_int(q, 2, limit);
	while ((rc = lt_stmt_step(q, err)) == 1) {
		size_t len;
		const char *name = lt_stmt_text(q, 0, &len);

		if (names_plain(name, len))
			fn(name, len, ctx);
	}
	lt_stmt_free(q);
	return rc < 0 ? rc : 0;
}
