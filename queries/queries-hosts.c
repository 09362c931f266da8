/*
 * queries-hosts.c - which node a log line's host is, once the store knows the nodes.
 *
 * A journal names its host ("ip-10-0-1-10", "node-1.example"); the store
 * knows nodes by their lease and Node object names.  After the lease
 * lifecycle is built, the nodes it found are handed to the store
 * (lt_store_map_hosts), which moves each host's lines to its node.  It is
 * a step of the registry (queries-registry.c): re-done whenever the events
 * or lines moved on, and recorded like a lifecycle.
 */
#include "queries-int.h"

#include <stdlib.h>

/* The node names the store knows, sorted as strcmp sorts (BINARY collation). */
enum hosts_col { HC_ID, HC_NAME };
static const char hosts_nodes_sql[] =
    "SELECT l.name_id, s.s FROM lt_leases AS l JOIN strs AS s ON s.id = l.name_id"
    " WHERE l.kind = 'node' UNION"
    " SELECT a.name_id, s.s FROM audit AS a INDEXED BY audit_object"
    " JOIN strs AS s ON s.id = a.name_id"
    " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"
    " AND a.namespace_id IS NULL AND a.name_id IS NOT NULL ORDER BY 2";

const struct lt_derived queries_hosts_derived = {
    .name = "hosts",
    .version = 1,
};

int queries_hosts_rebuild(struct lt_store *st, int64_t since_id, struct lt_error *err)
{
	struct lt_node_name *v = NULL;
	char **own = NULL; /* the names, to free */
	size_t n = 0, vcap = 0, ocap = 0;
	struct lt_stmt *q;
	int rc;

	(void)since_id; /* every host again: they are few */
	if ((rc = lt_store_prepare(st, &q, hosts_nodes_sql, err)) != 0)
		return rc;
	while ((rc = lt_stmt_step(q, err)) == 1) {
		LT_GROW(v, vcap, n + 1);
		LT_GROW(own, ocap, n + 1);
		own[n] = lt_xstrdup(lt_stmt_text(q, HC_NAME, NULL));
		v[n] = (struct lt_node_name){.id = lt_stmt_int(q, HC_ID), .name = own[n]};
		n++;
	}
	lt_stmt_free(q);
	if (rc == 0)
		rc = lt_store_map_hosts(st, v, n, err);
	for (size_t i = 0; i < n; i++)
		free(own[i]);
	free(own);
	free(v);
	return rc < 0 ? LT_ERR_DB : rc;
}
