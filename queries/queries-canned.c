/*
 * queries-canned.c - the canned troubleshooting queries.
 *
 * Each one is a row of a const table: a name, what it answers, its SQL and
 * its columns.  The SQL reads the derived episodes (fast on any store size)
 * or, for node objects, the per-object index of audit events.  ?1 and ?2 are
 * the --since/--until bounds.  A row is kept when its span overlaps them, as
 * in `timeline`: an incident that began before --since and goes on into the
 * window (an orphaned kubelet's 404s, a gap, auth failures) is what "what is
 * wrong now" asks for.  Single requests and log lines are kept when inside.
 */
#include "queries-int.h"

#include <string.h>

/* start before the window ends, end after it begins; start_us keeps lt_episodes_kind usable */
#define CANNED_RANGE " AND e.start_us <= ?2 AND e.end_us >= ?1"

struct canned {
	struct lt_canned head;
	const char *sql;
	struct lt_col cols[LT_MAX_COLS];
	int ncols;
};

/* Node object events of one verb, through the audit_object index. */
#define CANNED_NODE_EVENTS(verb)                                                                   \
	" FROM events AS v WHERE v.id IN (SELECT a.id FROM audit AS a INDEXED BY audit_rtv"        \
	" WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"                           \
	" AND a.namespace_id IS NULL AND a.stage_us BETWEEN ?1 AND ?2"                             \
	" AND a.verb_id = (SELECT id FROM strs WHERE s = '" verb "') AND a.superseded = 0)"

static const struct canned canned_queries[] = {
    {{"renew-gaps", "leases not renewed for longer than their gap threshold, longest first"
		    " (no next_renew: still not renewed at the end of the logs)"},
     "SELECT e.namespace, e.name, e.lease_kind, e.start_us, e.end_us, e.max_us, l.gap_us,"
     " e.user FROM episodes AS e JOIN lt_leases AS l ON l.id = e.lease_id"
     " WHERE e.kind = 'GAP'" CANNED_RANGE
     /* a stale lease: a gap no renew has ended yet, up to the end of the logs */
     " UNION ALL SELECT l.namespace, l.name, l.kind, l.last_renew_us, NULL,"
     " ?3 - l.last_renew_us, l.gap_threshold_us, (SELECT e.user FROM episodes AS e"
     "  WHERE e.lease_id = l.id AND e.kind = 'RENEWING' ORDER BY e.end_us DESC LIMIT 1)"
     " FROM leases AS l WHERE l.state = 'stale' AND l.last_renew_us BETWEEN ?1 AND ?2"
     " ORDER BY 6 DESC, 4",
     {{"namespace", 't'},
      {"lease", 't'},
      {"kind", 't'},
      {"last_renew", 'T'},
      {"next_renew", 'T'},
      {"gap", 'D'},
      {"threshold", 'D'},
      {"renewer", 't'}},
     8},
    {{"orphaned-kubelets",
      "kubelets still asking for their lease after their node was deleted (404 runs)"},
     "SELECT e.name, e.start_us, e.end_us, e.count, e.user, e.source_ip,"
     " (SELECT min(r.start_us) FROM lt_episodes AS r WHERE r.lease_id = e.lease_id"
     "  AND r.kind = 'RE-CREATED' AND r.start_us >= e.end_us),"
     " CASE WHEN l.state = 'orphaned' AND e.end_us = (SELECT max(x.end_us) FROM lt_episodes AS x"
     "  WHERE x.lease_id = e.lease_id) THEN 'yes' ELSE 'no' END,"
     " 'audit' || CASE WHEN EXISTS (SELECT 1 FROM lines INDEXED BY lines_notable"
     "  WHERE node_id = l.name_id AND " LT_LINE_NOTABLE " AND not_found = 1"
     "  AND ts_us BETWEEN e.start_us - 60000000 AND e.end_us + 60000000)"
     "  THEN ', kubelet log' ELSE '' END"
     " FROM episodes AS e JOIN lt_leases AS l ON l.id = e.lease_id"
     " WHERE e.kind = 'NOT_FOUND' AND e.lease_kind = 'node' AND e.end_us - e.start_us > "
     "l.gap_us" CANNED_RANGE
     /* the node's own kubelet asked in the run: an admin's kubectl get is no orphan */
     " AND EXISTS (SELECT 1 FROM audit AS k INDEXED BY audit_object"
     "  WHERE k.resource_id = (SELECT id FROM strs WHERE s = 'leases')"
     "  AND k.namespace_id = l.namespace_id AND k.name_id = l.name_id"
     "  AND k.stage_us BETWEEN e.start_us AND e.end_us AND k.code = 404"
     "  AND k.user_id = (SELECT id FROM strs WHERE s = 'system:node:' || e.name))"
     /* with no audit log at hand: the kubelet's own "node ... not found" errors */
     " UNION ALL SELECT (SELECT s FROM strs WHERE id = t.node_id), t.first, t.last, t.n, NULL,"
     " NULL, t.back, CASE WHEN t.back IS NULL THEN 'yes' ELSE 'no' END, 'kubelet log'"
     " FROM (SELECT u.*, (SELECT min(r.ts_us) FROM lines AS r INDEXED BY lines_kind"
     "  WHERE r.kind_id = (SELECT id FROM strs WHERE s = 'register-success')"
     "  AND r.node_id = u.node_id AND r.ts_us > u.last) AS back FROM (SELECT g.node_id AS"
     " node_id, min(g.ts_us) AS first, max(g.ts_us) AS last, count(*) AS n"
     " FROM lines AS g INDEXED BY lines_notable"
     " WHERE " LT_LINE_NOTABLE " AND g.not_found = 1 AND g.node_id IS NOT NULL"
     " AND g.component_id = (SELECT id FROM strs WHERE s = 'kubelet')"
     " AND NOT EXISTS (SELECT 1 FROM lt_leases AS y"
     "  JOIN lt_episodes AS x ON x.lease_id = y.id WHERE y.kind = 'node'"
     "  AND y.name_id = g.node_id AND x.kind = 'NOT_FOUND')"
     /* the node's whole run of errors, kept when it overlaps the window */
     " GROUP BY g.node_id HAVING min(g.ts_us) <= ?2 AND max(g.ts_us) >= ?1) AS u) AS t"
     " ORDER BY 2",
     {{"node", 't'},
      {"first_404", 'T'},
      {"last_404", 'T'},
      {"requests", 'n'},
      {"kubelet_user", 't'},
      {"source_ip", 't'},
      {"re_registered", 'T'},
      {"still_orphaned", 't'},
      {"evidence", 't'}},
     9},
    {{"who-deleted", "every delete of a lease or a node: actor, groups, source IP, user agent"},
     "SELECT v.ts_us, v.resource, v.namespace, v.name, v.code, v.user, v.groups, v.source_ip,"
     " v.user_agent, v.id" CANNED_NODE_EVENTS(
	 "delete") " UNION ALL SELECT a.stage_us, 'leases', e.namespace, e.name, a.code, e.user, "
		   "e.groups,"
		   " e.source_ip, e.user_agent, e.first_event FROM episodes AS e"
		   " JOIN audit AS a ON a.id = e.first_event WHERE e.kind = 'DELETED'" CANNED_RANGE
		   " ORDER BY 1",
     {{"ts", 'T'},
      {"resource", 't'},
      {"namespace", 't'},
      {"name", 't'},
      {"code", 'n'},
      {"user", 't'},
      {"groups", 't'},
      {"source_ip", 't'},
      {"user_agent", 't'},
      {"event", 'n'}},
     10},
    {{"gc-deletes", "leases deleted by the garbage collector, with the node deletion behind it"},
     "SELECT e.namespace, e.name, e.start_us, c.ts_us, c.user, c.source_ip, c.user_agent,"
     " e.start_us - c.ts_us, 'audit' || CASE WHEN EXISTS (SELECT 1 FROM lines AS g"
     "  INDEXED BY lines_kind WHERE g.kind_id = (SELECT id FROM strs WHERE s = 'gc-deleting')"
     "  AND g.subject_id = (SELECT name_id FROM lt_leases WHERE id = e.lease_id)"
     "  AND g.ts_us BETWEEN e.start_us - 60000000 AND e.start_us + 60000000)"
     "  THEN ', kcm log' ELSE '' END"
     " FROM episodes AS e LEFT JOIN events AS c ON c.id = e.cause_event"
     " WHERE e.kind = 'DELETED'" CANNED_RANGE
     " AND e.user = 'system:serviceaccount:kube-system:generic-garbage-collector'"
     /* with no audit log at hand: the garbage collector's own "Deleting item" line */
     " UNION ALL SELECT (SELECT s FROM strs WHERE id = g.obj_namespace_id),"
     " (SELECT s FROM strs WHERE id = g.subject_id), g.ts_us,"
     " (SELECT max(d.ts_us) FROM lines AS d INDEXED BY lines_kind"
     "  WHERE d.kind_id = (SELECT id FROM strs WHERE s = 'nlc-node-deleted')"
     "  AND d.subject_id = g.subject_id AND d.ts_us BETWEEN g.ts_us - 300000000"
     "  AND g.ts_us + 300000000), NULL, NULL, NULL, NULL, 'kcm log'"
     " FROM lines AS g INDEXED BY lines_kind"
     " WHERE g.kind_id = (SELECT id FROM strs WHERE s = 'gc-deleting')"
     " AND g.obj_kind_id = (SELECT id FROM strs WHERE s = 'Lease') AND g.ts_us BETWEEN ?1 AND ?2"
     " AND NOT EXISTS (SELECT 1 FROM lt_leases AS y JOIN lt_episodes AS x ON x.lease_id = y.id"
     "  WHERE y.name_id = g.subject_id AND x.kind = 'DELETED'"
     "  AND x.start_us BETWEEN g.ts_us - 60000000 AND g.ts_us + 60000000)"
     " ORDER BY 3",
     {{"namespace", 't'},
      {"lease", 't'},
      {"lease_deleted", 'T'},
      {"node_deleted", 'T'},
      {"node_deleted_by", 't'},
      {"source_ip", 't'},
      {"user_agent", 't'},
      {"after", 'D'},
      {"evidence", 't'}},
     9},
    {{"recreations", "leases created again after a delete or a 404 run: by whom, how long after"},
     "SELECT e.namespace, e.name, e.start_us, e.user, e.source_ip, e.max_us, c.verb, c.code,"
     " c.user FROM episodes AS e LEFT JOIN events AS c ON c.id = e.cause_event"
     " WHERE e.kind = 'RE-CREATED'" CANNED_RANGE " ORDER BY e.start_us",
     {{"namespace", 't'},
      {"lease", 't'},
      {"recreated", 'T'},
      {"by", 't'},
      {"source_ip", 't'},
      {"after", 'D'},
      {"gone_by", 't'},
      {"gone_code", 'n'},
      {"gone_user", 't'}},
     9},
    {{"auth-failures", "runs of 401/403 on leases, with the reason and what to check"},
     "SELECT e.namespace, e.name, e.start_us, e.end_us, e.count, e.user, e.groups, e.note,"
     " 'check the ClusterRoles and (Cluster)RoleBindings of ' || coalesce(e.user, '?')"
     " || ': kubectl auth can-i update leases -n ' || e.namespace || ' --as ' ||"
     " coalesce(e.user, '?') FROM episodes AS e WHERE e.kind = 'AUTH_FAILURE'" CANNED_RANGE
     " ORDER BY e.start_us",
     {{"namespace", 't'},
      {"lease", 't'},
      {"first", 'T'},
      {"last", 'T'},
      {"requests", 'n'},
      {"user", 't'},
      {"groups", 't'},
      {"reason", 't'},
      {"hint", 't'}},
     9},
    {{"leader-changes",
      "leader-election and identity lease holder changes (inferred at Metadata level)"},
     "SELECT e.namespace, e.name, e.start_us, e.old_holder, e.new_holder,"
     " CASE e.inferred WHEN 1 THEN 'inferred (renewer source IP)' ELSE 'lease body' END,"
     " l.conflicts FROM episodes AS e JOIN lt_leases AS l ON l.id = e.lease_id"
     " WHERE e.kind = 'HOLDER_CHANGE'" CANNED_RANGE " ORDER BY e.start_us",
     {{"namespace", 't'},
      {"lease", 't'},
      {"ts", 'T'},
      {"old_holder", 't'},
      {"new_holder", 't'},
      {"evidence", 't'},
      {"lease_conflicts", 'n'}},
     7},
    {{"apiserver-identity",
      "apiserver identity leases: holder, last renew, and whether it is fresh, stale (stopped "
      "renewing), expired (no renew for 1h) or deleted"},
     /* stale as in the leases view: its apiserver stopped, though Kubernetes counts it for 1h */
     "SELECT l.name, l.holder, l.first_us, l.last_renew_us, l.renews,"
     " CASE WHEN l.state = 'deleted' THEN 'deleted'"
     "  WHEN ?3 - l.last_renew_us > 3600000000 THEN 'expired'"
     "  WHEN l.state = 'stale' THEN 'stale' ELSE 'fresh' END,"
     " (SELECT count(*) FROM leases AS f WHERE f.kind = 'apiserver-identity'"
     "  AND ?3 - f.last_renew_us <= 3600000000 AND f.state NOT IN ('stale', 'deleted'))"
     " FROM leases AS l WHERE l.kind = 'apiserver-identity' AND l.last_us >= ?1"
     " AND l.first_us <= ?2 ORDER BY l.name",
     {{"lease", 't'},
      {"holder", 't'},
      {"first_seen", 'T'},
      {"last_renew", 'T'},
      {"renews", 'n'},
      {"status", 't'},
      {"apiservers_fresh", 'n'}},
     7},
    {{"slow-renewals", "runs of lease renewals slower than the slow threshold (default 1s)"},
     "SELECT e.namespace, e.name, e.start_us, e.end_us, e.count, e.max_us, e.user"
     " FROM episodes AS e WHERE e.kind = 'SLOW'" CANNED_RANGE " ORDER BY e.max_us DESC",
     {{"namespace", 't'},
      {"lease", 't'},
      {"first", 'T'},
      {"last", 'T'},
      {"requests", 'n'},
      {"max_latency", 'D'},
      {"user", 't'}},
     7},
    {{"node-registrations", "node objects created (kubelet registrations and re-registrations)"},
     /* a restarted kubelet's create gets 409 when its Node exists; it takes that Node over */
     "SELECT v.ts_us, v.name, v.code, CASE WHEN v.code BETWEEN 200 AND 299 THEN 'registered'"
     " WHEN v.code = 409 AND v.user = 'system:node:' || v.name"
     " THEN 'registered (node already existed)' ELSE 'failed' END,"
     " v.user, v.source_ip, v.user_agent, v.id" CANNED_NODE_EVENTS("create") " ORDER BY v.ts_us",
     {{"ts", 'T'},
      {"node", 't'},
      {"code", 'n'},
      {"result", 't'},
      {"user", 't'},
      {"source_ip", 't'},
      {"user_agent", 't'},
      {"event", 'n'}},
     8},
    {{"kubelet-errors", "kubelet log errors per node and kind: count, first, last, a sample"},
     "SELECT coalesce((SELECT s FROM strs WHERE id = t.node_id), '?'),"
     " coalesce((SELECT s FROM strs WHERE id = t.kind_id), 'other-error'), t.n, t.first,"
     " t.last, t.nf, (SELECT x.message || coalesce(' err=' || CASE WHEN json_valid(x.fields)"
     "  THEN json_extract(x.fields, '$.err') END, '') FROM lines AS x WHERE x.id = t.last_id)"
     " FROM (SELECT g.node_id AS node_id, g.kind_id AS kind_id, count(*) AS n,"
     " min(g.ts_us) AS first, max(g.ts_us) AS last, sum(g.not_found = 1) AS nf,"
     " max(g.id) AS last_id FROM lines AS g INDEXED BY lines_notable WHERE " LT_LINE_NOTABLE
     " AND g.component_id = (SELECT id FROM strs WHERE s = 'kubelet')"
     " AND g.ts_us BETWEEN ?1 AND ?2 AND (g.severity IN ('E', 'F') OR g.not_found > 0"
     "  OR g.kind_id IN (SELECT id FROM strs WHERE s LIKE '%fail%' OR s LIKE '%error%'"
     "  OR s IN ('node-not-found', 'node-status-retry-exceeded', 'lease-retry')))"
     " GROUP BY g.node_id, g.kind_id) AS t ORDER BY 1, 3 DESC, 2",
     {{"node", 't'},
      {"kind", 't'},
      {"count", 'n'},
      {"first", 'T'},
      {"last", 'T'},
      {"node_not_found", 'n'},
      {"sample", 't'}},
     7},
    {{NULL, NULL}, NULL, {{NULL, 0}}, 0},
};

const struct lt_canned *lt_canned_list(void)
{
	/* the head is the first member, so the table can be walked as lt_canned rows */
	static struct lt_canned list[sizeof canned_queries / sizeof *canned_queries];

	for (size_t i = 0; i < sizeof canned_queries / sizeof *canned_queries; i++)
		list[i] = canned_queries[i].head;
	return list;
}

int lt_query_canned(struct lt_store *st, const char *name, const struct lt_query_opts *o, FILE *out,
		    struct lt_error *err)
{
	int64_t binds[3] = {o->since_us, o->until_us ? o->until_us : INT64_MAX,
			    lt_store_end_us(st)};
	int rc;

	/* other thresholds than the stored episodes were built with: build them again */
	if ((o->gap_us || o->slow_us) &&
	    (rc = lt_lifecycle_overlay(st, o->gap_us, o->slow_us, err)) != 0)
		return rc;

	for (const struct canned *c = canned_queries; c->head.name; c++)
		if (strcmp(c->head.name, name) == 0)
			return lt_run_table(st, c->sql, c->cols, c->ncols, binds, 3, o, out, err);
	return lt_error_set(err, LT_ERR_NOTFOUND,
			    "no canned query '%s' (`leasetrail query --list` names them)", name);
}
