/*
 * index-hosts.c - a journal's hosts mapped to the cluster's node names.
 *
 * A journal names its host as the machine calls itself ("ip-10-0-1-7"); the
 * audit log names the node as the cluster does ("ip-10-0-1-7.ec2.internal").
 * Once the layer above knows the nodes (lt_store_map_hosts), each host takes
 * the node of its exact name, of its name without the domain, or of the one
 * node whose first label it is, and its lines move to that node.  A line
 * stored later under a mapped host goes to its node at once (index-logs.c).
 */
#include "index-int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct hosts_nodes {
	const struct lt_node_name *v; /* sorted by name */
	size_t n;
};

/* The id of the node named exactly name (its first len bytes), 0 if none. */
static int64_t hosts_find(const struct hosts_nodes *ns, const char *name, size_t len)
{
	size_t lo = 0, hi = ns->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(ns->v[mid].name, name, len);

		if (c == 0 && ns->v[mid].name[len] != '\0')
			c = 1;
		if (c == 0)
			return ns->v[mid].id;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The one node named "HOST.something", 0 if none or several. */
static int64_t hosts_find_long(const struct hosts_nodes *ns, const char *host)
{
	size_t len = strlen(host), lo = 0, hi = ns->n;
	int64_t found = 0;

	while (lo < hi) { /* first name >= host */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ns->v[mid].name, host) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ns->n && strncmp(ns->v[lo].name, host, len) == 0; lo++) {
		if (ns->v[lo].name[len] != '.')
			continue;
		if (found != 0)
			return 0;
		found = ns->v[lo].id;
	}
	return found;
}

/*
 * The node host goes to: the one of its exact name, of its first label, or the one node it is
 * the first label of; none, its own id (an unmapped host's lines stand under the host).
 */
static int64_t hosts_resolve(const struct hosts_nodes *ns, int64_t host_id, const char *host)
{
	const char *dot = strchr(host, '.');
	int64_t id;

	if ((id = hosts_find(ns, host, strlen(host))) != 0)
		return id;
	if (dot != NULL && (id = hosts_find(ns, host, (size_t)(dot - host))) != 0)
		return id;
	if (dot == NULL && (id = hosts_find_long(ns, host)) != 0)
		return id;
	return host_id;
}

/* Moves the lines of host from node old to node new. */
static int hosts_remap(struct lt_store *st, int64_t host, int64_t old, int64_t new,
		       struct lt_error *err)
{
	sqlite3_stmt *u;
	int rc;

	if (index_store_prepare_raw(
		st, &u, "UPDATE lines_row SET node_id = ?3 WHERE node_id = ?2 AND host_id = ?1;",
		err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(u, 1, host);
	sqlite3_bind_int64(u, 2, old);
	sqlite3_bind_int64(u, 3, new);
	rc = sqlite3_step(u);
	sqlite3_finalize(u);
	if (rc != SQLITE_DONE || index_store_prepare_raw(st, &u,
							 "UPDATE hosts SET node_id = ?2"
							 " WHERE host_id = ?1",
							 err) != 0)
		return index_store_db_error(st, err, "cannot map a host to its node");
	sqlite3_bind_int64(u, 1, host);
	sqlite3_bind_int64(u, 2, new);
	rc = sqlite3_step(u);
	sqlite3_finalize(u);
	return rc == SQLITE_DONE ? 0
				 : index_store_db_error(st, err, "cannot map a host to its node");
}

/* A host whose node changes: found first, applied once the scan of hosts is over. */
struct hosts_move {
	int64_t host, old, new;
};

static int hosts_map_all(struct lt_store *st, const struct hosts_nodes *ns, struct lt_error *err)
{
	struct hosts_move *mv = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *q;
	int rc = 0, step;

	if (index_store_prepare_raw(st, &q,
				    "SELECT h.host_id, h.node_id, s.s FROM hosts AS h"
				    " JOIN strs AS s ON s.id = h.host_id",
				    err) != 0)
		return LT_ERR_DB;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct hosts_move m = {sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1), 0};

		m.new = hosts_resolve(ns, m.host, (const char *)sqlite3_column_text(q, 2));
		if (m.new == m.old)
			continue;
		LT_GROW(mv, cap, n + 1);
		mv[n++] = m;
	}
	sqlite3_finalize(q);
	if (step != SQLITE_DONE)
		rc = index_store_db_error(st, err, "cannot read hosts");
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = hosts_remap(st, mv[i].host, mv[i].old, mv[i].new, err);
	free(mv);
	return rc;
}

int lt_store_map_hosts(struct lt_store *st, const struct lt_node_name *names, size_t n,
		       struct lt_error *err)
{
	const struct hosts_nodes ns = {names, n};

	for (size_t i = 1; i < n; i++)
		assert(strcmp(names[i - 1].name, names[i].name) <= 0);
	return hosts_map_all(st, &ns, err);
}
