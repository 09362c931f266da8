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

/*
 * One canned query: its result columns are declared beside its SQL, in the
 * SELECT's order, each with the type its cells have (the list ends at the
 * first column without a name).
 */
struct canned {
	const char *name;
	const char *summary;
	const char *sql;
	const char *const *parts; /* or the SQL in pieces, NULL-terminated */
	struct lt_col cols[LT_MAX_COLS];
};

/*
 * Node object events of one verb: through audit_verbs (Node requests by verb and time) where
 * the store has it, else audit_rtv (the planner's choice: no INDEXED BY), whose Node range
 * holds every status update too (330 000 entries read at 10 M events, for a few creates).
 */
#define CANNED_NODE_EVENTS(verb)                                                                   \
	" FROM events AS v WHERE v.id IN (SELECT a.id FROM audit AS a"                             \
	" WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes')"                           \
	" AND a.namespace_id IS NULL AND a.stage_us BETWEEN ?1 AND ?2"                             \
	" AND a.verb_id = (SELECT id FROM strs WHERE s = '" verb "') AND a.superseded = 0)"
#define CANNED_NODE_DELETES CANNED_NODE_EVENTS("delete")

/*
 * The last sign that node N was deleted at or before time T, not undone by a
 * registration since: an audited 2xx delete of the Node, or a controller's line
 * (the node lifecycle controller saw the deletion, the cloud or the autoscaler
 * removed it, the garbage collector deleted its Lease, Node, CSINode...).
 * NULL when none.  The Node requests through audit_cluster, which holds the
 * verb, code and superseded they are tested on: no audit page read per request
 * (through audit_object: one each, ~110 per node at 10 M events).
 */
/* the object a garbage collector's line names (schema 12: in lines_more) */
#define ORPH_OBJ_KIND LT_LINE_RARE_SQL("c", "obj_kind_id")
#define ORPH_DELETED(n, t)                                                                         \
	"(SELECT d.ts FROM (SELECT a.stage_us AS ts FROM audit AS a INDEXED BY audit_cluster"      \
	" WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes') AND a.namespace_id IS "    \
	"NULL"                                                                                     \
	" AND a.name_id = " n " AND a.stage_us <= " t                                              \
	" AND a.verb_id = (SELECT id FROM strs WHERE s = 'delete') AND a.code BETWEEN 200 AND 299" \
	" AND a.superseded = 0 UNION ALL SELECT c.ts_us FROM lines_row AS c INDEXED BY "           \
	"lines_subject"                                                                            \
	" WHERE c.subject_id = " n " AND c.ts_d <= " LT_LINE_TS_D_SQL(                             \
	    t) " AND (c.kind_id IN (SELECT id FROM strs"                                           \
	       " WHERE s IN ('nlc-node-deleted', 'cloud-node-deleted', 'ca-scale-down'))"          \
	       " OR (c.kind_id = (SELECT id FROM strs WHERE s = 'gc-deleting')"                    \
	       " AND " ORPH_OBJ_KIND " IN (SELECT id FROM strs WHERE s IN"                         \
	       " ('Lease', 'Node', 'CSINode', 'CNINode'))))) AS d"                                 \
	       " WHERE NOT EXISTS (SELECT 1 FROM audit AS a INDEXED BY audit_cluster"              \
	       " WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'nodes') AND "               \
	       "a.namespace_id IS "                                                                \
	       "NULL"                                                                              \
	       " AND a.name_id = " n " AND a.stage_us > d.ts AND a.stage_us <= " t                 \
	       " AND a.verb_id = (SELECT id FROM strs WHERE s = 'create') AND a.code BETWEEN 200 " \
	       "AND 299"                                                                           \
	       " AND a.superseded = 0) AND NOT EXISTS (SELECT 1 FROM lines_row AS r"               \
	       " INDEXED BY lines_kind WHERE r.kind_id = (SELECT id FROM strs WHERE s ="           \
	       " 'register-success') AND r.node_id = " n " AND r.ts_d > " LT_LINE_TS_D_SQL(        \
		   "d.ts") " AND r.ts_d <= " LT_LINE_TS_D_SQL(t) ")"                               \
								 " ORDER BY d.ts DESC LIMIT 1)"

/* A kubelet's start and registration lines: where a kubelet's story starts again. */
#define ORPH_BOUNDARY                                                                              \
	"(SELECT id FROM strs WHERE s IN ('kubelet-start', 'register-attempt', "                   \
	"'register-success'))"

/* Within this long after "Successfully registered node", "not found" is the cache lagging. */
#define ORPH_CACHE_LAG "10000000"

/*
 * The kubelet log lines (node_id, ts) that say the kubelet outlived its Node.
 * A not-found error counts when the kubelet had its Node and lost it:
 *  - after its own "Successfully registered node", past the cache lag;
 *  - before any start or registration line in the logs (the kubelet was
 *    already running): when the Node's deletion is known before it, or when
 *    the kubelet logs "Error updating node status" with not found there (it
 *    updates its status only once registered, so it had registered);
 * and never between a (re)start or a registration attempt and its success:
 * those are the errors of a kubelet that has not registered yet (or cannot:
 * Unauthorized, a bad certificate).
 */
#define ORPH_LOG_LINES                                                                             \
	"SELECT u.node_id AS node_id, u.ts AS ts FROM (SELECT g.node_id AS node_id, g.ts_us AS "   \
	"ts,"                                                                                      \
	" (SELECT max(b.ts_d) + " LT_LINE_EPOCH_SQL " FROM lines_row AS b INDEXED BY lines_node"   \
	" WHERE b.node_id = "                                                                      \
	"g.node_id"                                                                                \
	" AND b.ts_d < g.ts_d AND b.kind_id IN " ORPH_BOUNDARY ") AS bts"                          \
	" FROM lines_row AS g INDEXED BY lines_notable WHERE " LT_LINE_NOTABLE                     \
	" AND g.not_found = 1"                                                                     \
	" AND g.node_id IS NOT NULL AND g.component_id = (SELECT id FROM strs WHERE s = "          \
	"'kubelet'))"                                                                              \
	" AS u WHERE CASE WHEN u.bts IS NOT NULL THEN u.ts - u.bts > " ORPH_CACHE_LAG              \
	" AND EXISTS (SELECT 1 FROM lines_row AS b INDEXED BY lines_node WHERE b.node_id = "       \
	"u.node_id"                                                                                \
	" AND b.ts_d = " LT_LINE_TS_D_SQL(                                                         \
	    "u.bts") " AND b.kind_id = (SELECT id FROM strs"                                       \
		     " WHERE s = 'register-success'))"                                             \
		     " ELSE " ORPH_DELETED(                                                        \
			 "u.node_id",                                                              \
			 "u.ts") " IS NOT NULL OR EXISTS (SELECT 1 FROM lines_row"                 \
				 " AS s INDEXED BY lines_node WHERE s.node_id = u.node_id AND "    \
				 "s.not_found = 1"                                                 \
				 " AND s.kind_id = (SELECT id FROM strs WHERE s = "                \
				 "'node-status-error')"                                            \
				 " AND s.ts_d < coalesce((SELECT min(b.ts_d) FROM lines_row AS b " \
				 "INDEXED BY "                                                     \
				 "lines_node"                                                      \
				 " WHERE b.node_id = u.node_id AND b.kind_id IN " ORPH_BOUNDARY    \
				 "), 9223372036854775807))"                                        \
				 " END"

/* orphaned-kubelets' SQL, in pieces (a C string literal stays under 4095 bytes) */
static const char *const canned_orphaned_sql[] = {
    /* audit: the node lease's 404 runs that its own kubelet is part of */
    "WITH aud AS (SELECT e.name AS node, e.start_us AS first, e.end_us AS last,"
    " e.count AS n, e.user AS kubelet, e.source_ip AS ip,"
    /* back: the lease created again, the Node created, or the kubelet registered */
    " (SELECT min(b) FROM (SELECT min(r.start_us) AS b FROM lt_episodes AS r"
    "  WHERE r.lease_id = e.lease_id AND r.kind IN ('RE-CREATED', 'CREATED')"
    "  AND r.start_us >= e.end_us UNION ALL SELECT min(c.stage_us) FROM audit AS c"
    "  INDEXED BY audit_cluster WHERE c.resource_id = (SELECT id FROM strs WHERE s = "
    "'nodes')"
    "  AND c.namespace_id IS NULL AND c.name_id = l.name_id AND c.stage_us >= e.end_us"
    "  AND c.verb_id = (SELECT id FROM strs WHERE s = 'create') AND c.code BETWEEN 200 AND"
    "  299 AND c.superseded = 0 UNION ALL SELECT min(g.ts_d) + " LT_LINE_EPOCH_SQL
    "  FROM lines_row AS g INDEXED BY lines_kind WHERE g.kind_id = (SELECT id FROM strs"
    "  WHERE s = 'register-success') AND g.node_id = l.name_id"
    "  AND g.ts_d >= " LT_LINE_TS_D_SQL(
	"e.end_us") ")) AS back,"
		    " CASE WHEN l.state = 'orphaned' AND e.end_us = (SELECT max(x.end_us)"
		    "  FROM lt_episodes AS x WHERE x.lease_id = e.lease_id) THEN 'yes' "
		    "ELSE 'no' END AS still,"
		    " 'audit' || CASE WHEN EXISTS (SELECT 1 FROM lines_row INDEXED BY "
		    "lines_notable"
		    "  WHERE node_id = l.name_id AND " LT_LINE_NOTABLE " AND not_found = 1"
		    "  AND ts_d BETWEEN " LT_LINE_TS_D_SQL(
			"e.start_us - 60000000") " AND " LT_LINE_TS_D_SQL("e.end_us + "
									  "60000000") ")"
										      "  "
										      "THEN"
										      " ', "
										      "kube"
										      "let "
										      "log'"
										      " ELS"
										      "E "
										      "'' "
										      "END "
										      "AS "
										      "evid"
										      "ence"
										      ","
										      " ",
    ORPH_DELETED("l.name_id",
		 "e.start_us") " AS deleted"
			       " FROM episodes AS e JOIN lt_leases AS l ON l.id = e.lease_id"
			       " WHERE e.kind = 'NOT_FOUND' AND e.lease_kind = 'node'"
			       /* the node's own kubelet asked in the run: an admin's kubectl get is
				  no orphan */
			       " AND EXISTS (SELECT 1 FROM audit AS k INDEXED BY audit_object"
			       "  WHERE k.resource_id = (SELECT id FROM strs WHERE s = 'leases')"
			       "  AND k.namespace_id = l.namespace_id AND k.name_id = l.name_id"
			       "  AND k.stage_us BETWEEN e.start_us AND e.end_us AND k.code = 404"
			       "  AND k.user_id = (SELECT id FROM strs WHERE s = 'system:node:' || "
			       "e.name))),"
			       /* orphaned: its node was deleted before the run (one 404 is enough),
				* or the run lasts longer than the gap threshold (a kubelet that
				* cannot re-create its lease) */
			       " ao AS (SELECT u.* FROM aud AS u JOIN lt_leases AS l ON l.kind = "
			       "'node'"
			       "  AND l.name_id = (SELECT id FROM strs WHERE s = u.node)"
			       "  WHERE u.deleted IS NOT NULL OR u.last - u.first > l.gap_us),",
    /* with no audit log at hand: the kubelet's own not-found errors (ORPH_LOG_LINES) */
    " lg AS (SELECT t.node_id AS node_id, t.first AS first, t.last AS last, t.n AS n,"
    " (SELECT min(r.ts_d) + " LT_LINE_EPOCH_SQL " FROM lines_row AS r INDEXED BY lines_kind"
    "  WHERE r.kind_id = (SELECT id FROM strs WHERE s = 'register-success')"
    "  AND r.node_id = t.node_id AND r.ts_d > " LT_LINE_TS_D_SQL(
	"t.last") ") AS back FROM (SELECT q.node_id AS node_id, min(q.ts) AS first,"
		  " max(q.ts) AS last, count(*) AS n FROM (" ORPH_LOG_LINES
		  ") AS q GROUP BY q.node_id) AS t)",
    " SELECT node, first, last, n, kubelet, ip, back, still, evidence, deleted FROM ao"
    " WHERE first <= ?2 AND last >= ?1"
    " UNION ALL SELECT (SELECT s FROM strs WHERE id = g.node_id), g.first, g.last, g.n, "
    "NULL,"
    " NULL, g.back, CASE WHEN g.back IS NULL AND NOT EXISTS (SELECT 1 FROM lines_row AS z"
    "  INDEXED BY lines_kind WHERE z.kind_id IN (SELECT id FROM strs WHERE s IN"
    "  ('kubelet-stop', 'kubelet-start')) AND z.node_id = g.node_id"
    "  AND z.ts_d > " LT_LINE_TS_D_SQL(
	"g.last") ")"
		  /* a kubelet of another pid logs later: it was restarted */
		  "  AND NOT EXISTS (SELECT 1 FROM lines_row AS z INDEXED BY lines_node "
		  "WHERE z.node_id ="
		  "  g.node_id AND z.ts_d > " LT_LINE_TS_D_SQL(
		      "g.last") " AND z.component_id = (SELECT id"
				"  FROM strs WHERE s ="
				"  'kubelet') AND z.pid IS NOT (SELECT y.pid FROM "
				"lines_row AS y INDEXED BY lines_node"
				"  WHERE y.node_id = g.node_id AND y.ts_d "
				"= " LT_LINE_TS_D_SQL(
				    "g.last") "  AND y.not_found = 1 LIMIT 1))"
					      "  THEN 'yes' ELSE 'no' END, 'kubelet "
					      "log', " ORPH_DELETED(
						  "g.node_id",
						  "g.first") " FROM lg AS g WHERE g.first "
							     "<= ?2 AND g.last >= ?1"
							     " AND g.node_id NOT IN "
							     "(SELECT id FROM strs WHERE s "
							     "IN (SELECT node FROM ao))"
							     " ORDER BY 2",
    NULL,
};

/* The lease a leader-election line names: "NS/NAME", or NAME with its namespace apart. */
#define LEADER_NS(g)                                                                               \
	"CASE WHEN instr(" g ".lease, '/') > 0 THEN substr(" g ".lease, 1, instr(" g               \
	".lease, '/')"                                                                             \
	" - 1) ELSE coalesce(" g ".ns, '') END"
#define LEADER_NAME(g) "substr(" g ".lease, instr(" g ".lease, '/') + 1)"

/*
 * leader-changes' SQL, in pieces.  The audit's HOLDER_CHANGE episodes, then
 * the components' own lines where the audit has none within LEADER_NEAR:
 * "successfully acquired lease" (the new holder: the identity its
 * LeaderElection event names, else the host that logged it; the old one:
 * the lease's previous acquirer) and "leaderelection lost" or "failed to
 * renew lease" (the holder gives it up).
 */
#define LEADER_NEAR "30000000"
/* the message of a lines row b, x (its text, or read from its raw line: schema 8) */
#define CANNED_MSG_B LT_LINE_MESSAGE_ROW_SQL("b")
#define CANNED_MSG_X LT_LINE_MESSAGE_ROW_SQL("x")
/* its fields (read from its raw line where they are a mark: schema 10) */
#define CANNED_FLD_B LT_LINE_FIELDS_SQL("b")
#define CANNED_FLD_X LT_LINE_FIELDS_SQL("x")
static const char *const canned_leader_sql[] = {
    "WITH lg AS (SELECT g.id AS id, g.ts_us AS ts, g.source_id AS source_id, g.pid AS pid,"
    " g.host_id AS host_id,"
    " (SELECT s FROM strs WHERE id = g.subject_id) AS lease,"
    " (SELECT s FROM strs WHERE id = " LT_LINE_RARE_SQL(
	"g",
	"obj_namespace_id") ") AS ns,"
			    " (SELECT s FROM strs WHERE id = g.kind_id) AS kind,"
			    " coalesce((SELECT s FROM strs WHERE id = g.component_id), "
			    "'component') AS comp,"
			    " coalesce((SELECT s FROM strs WHERE id = g.host_id), (SELECT s FROM "
			    "strs WHERE id ="
			    "  g.node_id), (SELECT replace(path, rtrim(path, replace(path, '/', "
			    "'')), '')"
			    "  FROM sources WHERE id = g.source_id)) AS who"
			    " FROM lines_row AS g INDEXED BY lines_kind WHERE g.kind_id IN (SELECT "
			    "id FROM strs WHERE s IN"
			    " ('leader-acquired', 'leader-lost', 'leader-renew-failed')) AND "
			    "g.subject_id IS NOT NULL"
			    /* a lost lease is said twice (renew failed, then lost): keep one */
			    " AND NOT (g.kind_id = (SELECT id FROM strs WHERE s = "
			    "'leader-renew-failed') AND EXISTS"
			    "  (SELECT 1 FROM lines_row AS x INDEXED BY lines_kind WHERE x.kind_id "
			    "= (SELECT id FROM strs"
			    "  WHERE s = 'leader-lost') AND x.source_id = g.source_id AND x.ts_d "
			    "BETWEEN g.ts_d"
			    "  AND g.ts_d + 10000000))),",
    /* the identity the LeaderElection event of the same log names, just after */
    " acq AS (SELECT k.*, coalesce(nullif((SELECT CASE WHEN instr(x.m, 'LeaderElection'' ') > 0"
    "  THEN substr(x.m, instr(x.m, 'LeaderElection'' ') + 16) ELSE x.m END FROM (SELECT"
    "  substr(y.m0, 1, instr(y.m0, ' became leader') - 1) AS m FROM (SELECT coalesce(CASE WHEN"
    "  json_valid(" CANNED_FLD_B ") THEN json_extract(" CANNED_FLD_B ", '$.message') "
    "END, " CANNED_MSG_B ") AS m0"
    "  FROM lines_row AS b INDEXED BY lines_kind WHERE b.kind_id = (SELECT id FROM strs WHERE s ="
    "  'became-leader') AND b.source_id = k.source_id AND b.pid IS k.pid AND b.host_id IS"
    "  k.host_id AND b.ts_d BETWEEN " LT_LINE_TS_D_SQL("k.ts - 1000000") " AND " LT_LINE_TS_D_SQL(
	"k.ts + 5000000") " ORDER BY b.ts_d LIMIT 1) AS y) AS x), ''), k.who)"
			  " AS holder"
			  "  FROM lg AS k WHERE k.kind = 'leader-acquired'),"
			  " rows AS (SELECT " LEADER_NS("c") " AS ns, " LEADER_NAME(
			      "c") " AS name, c.ts AS ts,"
				   " lag(c.holder) OVER (PARTITION BY c.lease ORDER BY c.ts, c.id) "
				   "AS old, c.holder AS "
				   "new,"
				   " c.comp || ' log: successfully acquired lease' AS evidence "
				   "FROM acq AS c"
				   " UNION ALL SELECT " LEADER_NS("d") ", " LEADER_NAME(
				       "d") ", d.ts, d.who, NULL,"
					    " d.comp || ' log: ' || CASE d.kind WHEN 'leader-lost' "
					    "THEN 'leaderelection "
					    "lost'"
					    "  ELSE 'failed to renew lease' END FROM lg AS d WHERE "
					    "d.kind <> "
					    "'leader-acquired')",
    " SELECT e.namespace, e.name, e.start_us, e.old_holder, e.new_holder,"
    " CASE e.inferred WHEN 1 THEN 'inferred (renewer source IP)'"
    "  WHEN 2 THEN 'lease body (leaseTransitions/acquireTime: a change inside a gap)'"
    "  WHEN 3 THEN 'inferred (renewed again after the lease expired)' ELSE 'lease body' END"
    " || coalesce((SELECT ', ' || r.evidence FROM rows AS r WHERE r.ns = e.namespace"
    "  AND r.name = e.name AND r.new IS NOT NULL AND abs(r.ts - e.start_us) <= " LEADER_NEAR
    "  LIMIT 1), ''),"
    " l.conflicts FROM episodes AS e JOIN lt_leases AS l ON l.id = e.lease_id"
    " WHERE e.kind = 'HOLDER_CHANGE'" CANNED_RANGE
    " UNION ALL SELECT r.ns, r.name, r.ts, r.old, r.new, r.evidence,"
    " (SELECT y.conflicts FROM lt_leases AS y WHERE y.namespace_id = (SELECT id FROM strs"
    "  WHERE s = r.ns) AND y.name_id = (SELECT id FROM strs WHERE s = r.name))"
    " FROM rows AS r WHERE r.ts BETWEEN ?1 AND ?2 AND NOT EXISTS (SELECT 1 FROM episodes AS e"
    "  WHERE e.kind = 'HOLDER_CHANGE' AND e.namespace = r.ns AND e.name = r.name"
    "  AND abs(e.start_us - r.ts) <= " LEADER_NEAR ")"
    " ORDER BY 3",
    NULL,
};

static const struct canned canned_queries[] = {
    {.name = "renew-gaps",
     .summary = "leases not renewed for longer than their gap threshold, longest first"
		" (no next_renew: still not renewed at the end of the logs)",
     .sql = "SELECT e.namespace, e.name, e.lease_kind, e.start_us, e.end_us, e.max_us, l.gap_us,"
	    " e.user FROM episodes AS e JOIN lt_leases AS l ON l.id = e.lease_id"
	    " WHERE e.kind = 'GAP'" CANNED_RANGE
	    /* a stale lease: a gap no renew has ended yet, up to the end of the logs */
	    " UNION ALL SELECT l.namespace, l.name, l.kind, l.last_renew_us, NULL,"
	    " ?3 - l.last_renew_us, l.gap_threshold_us, (SELECT e.user FROM episodes AS e"
	    "  WHERE e.lease_id = l.id AND e.kind = 'RENEWING' ORDER BY e.end_us DESC LIMIT 1)"
	    " FROM leases AS l WHERE l.state = 'stale' AND l.last_renew_us BETWEEN ?1 AND ?2"
	    " ORDER BY 6 DESC, 4",
     .cols = {COL("namespace", TEXT), COL("lease", TEXT), COL("kind", TEXT),
	      COL("last_renew", TIME), COL("next_renew", TIME), COL("gap", DURATION),
	      COL("threshold", DURATION), COL("renewer", TEXT)}},
    {.name = "orphaned-kubelets",
     .summary = "kubelets still asking for their node or lease after the node was deleted"
		" (404 runs in audit, not-found errors in the kubelet's log)",
     .parts = canned_orphaned_sql,
     .cols = {COL("node", TEXT), COL("first_404", TIME), COL("last_404", TIME),
	      COL("requests", INT), COL("kubelet_user", TEXT), COL("source_ip", TEXT),
	      COL("re_registered", TIME), COL("still_orphaned", TEXT), FREE("evidence"),
	      COL("node_deleted", TIME)}},
    {.name = "who-deleted",
     .summary = "every delete of a lease or a node: actor, identity behind it, groups, source IP,"
		" user agent",
     .sql = "SELECT v.ts_us, v.resource, v.namespace, v.name, v.code, v.user, v.identity, v.groups,"
	    " v.source_ip, v.user_agent, v.id" CANNED_NODE_DELETES
	    " UNION ALL SELECT a.stage_us, 'leases', e.namespace, e.name, a.code, e.user,"
	    " " LT_IDENTITY_SQL("a") ", e.groups, e.source_ip, e.user_agent, e.first_event"
				     " FROM episodes AS e JOIN audit AS a ON a.id = e.first_event"
				     " WHERE e.kind = 'DELETED'" CANNED_RANGE " ORDER BY 1",
     .cols = {COL("ts", TIME), COL("resource", TEXT), COL("namespace", TEXT), COL("name", TEXT),
	      COL("code", INT), FREE("user"), FREE("identity"), FREE("groups"),
	      COL("source_ip", TEXT), FREE("user_agent"), COL("event", ID)}},
    {.name = "gc-deletes",
     .summary = "leases deleted by the garbage collector, with the node deletion behind it",
     .sql =
	 "SELECT e.namespace, e.name, e.start_us, c.ts_us, c.user, c.source_ip, c.user_agent,"
	 " e.start_us - c.ts_us, 'audit' || CASE WHEN EXISTS (SELECT 1 FROM lines_row AS g"
	 "  INDEXED BY lines_kind WHERE g.kind_id = (SELECT id FROM strs WHERE s = 'gc-deleting')"
	 "  AND g.subject_id = (SELECT name_id FROM lt_leases WHERE id = e.lease_id)"
	 "  AND g.ts_d BETWEEN " LT_LINE_TS_D_SQL("e.start_us - 60000000") " AND " LT_LINE_TS_D_SQL(
	     "e.start_us + 60000000") ")"
				      "  THEN ', kcm log' ELSE '' END"
				      " FROM episodes AS e LEFT JOIN events AS c ON c.id = "
				      "e.cause_event"
				      " WHERE e.kind = 'DELETED'" CANNED_RANGE " AND e.user = "
				      "'system:serviceaccount:kube-system:generic-garbage-"
				      "collector'"
				      /* with no audit log at hand: the garbage collector's own
					 "Deleting item" line */
				      " UNION ALL SELECT (SELECT s FROM strs WHERE id "
				      "= " LT_LINE_RARE_SQL(
					  "g",
					  "obj_namespace_id") "),"
							      " (SELECT s FROM strs WHERE id = "
							      "g.subject_id), g.ts_us,"
							      " (SELECT max(d.ts_d) "
							      "+ " LT_LINE_EPOCH_SQL
							      " FROM lines_row AS d INDEXED BY "
							      "lines_kind"
							      "  WHERE d.kind_id = (SELECT id FROM "
							      "strs WHERE s = "
							      "'nlc-node-deleted')"
							      "  AND d.subject_id = g.subject_id "
							      "AND d.ts_d BETWEEN g.ts_d - "
							      "300000000"
							      "  AND g.ts_d + 300000000), NULL, "
							      "NULL, NULL, NULL, 'kcm log'"
							      " FROM lines_row AS g INDEXED BY "
							      "lines_kind"
							      " WHERE g.kind_id = (SELECT id FROM "
							      "strs WHERE s = 'gc-deleting')"
							      " AND " LT_LINE_RARE_SQL(
								  "g",
								  "obj_kind_id") " = (SELECT id "
										 "FROM strs WHERE "
										 "s = 'Lease')"
										 " AND g.ts_d "
										 "BETWEEN"
										 " " LT_LINE_TS_D_SQL("?1") " AND " LT_LINE_TS_D_SQL(
										     "?2") " AND "
											   "NOT "
											   "EXISTS "
											   "(SELECT"
											   " 1 "
											   "FROM "
											   "lt_"
											   "leases "
											   "AS y "
											   "JOIN "
											   "lt_"
											   "episode"
											   "s AS x "
											   "ON "
											   "x."
											   "lease_"
											   "id = "
											   "y.id"
											   "  "
											   "WHERE "
											   "y.name_"
											   "id = "
											   "g."
											   "subject"
											   "_id "
											   "AND "
											   "x.kind "
											   "= "
											   "'DELETE"
											   "D'"
											   "  AND "
											   "x."
											   "start_"
											   "us "
											   "BETWEEN"
											   " g.ts_"
											   "us - "
											   "6000000"
											   "0 "
											   "AND "
											   "g.ts_"
											   "us + "
											   "6000000"
											   "0)"
											   " ORDER "
											   "BY 3",
     .cols = {COL("namespace", TEXT), COL("lease", TEXT), COL("lease_deleted", TIME),
	      COL("node_deleted", TIME), COL("node_deleted_by", TEXT), COL("source_ip", TEXT),
	      FREE("user_agent"), COL("after", DURATION), FREE("evidence")}},
    {.name = "recreations",
     .summary = "leases created again after a delete or a 404 run: by whom, how long after",
     .sql = "SELECT e.namespace, e.name, e.start_us, e.user, e.source_ip, e.max_us, c.verb, c.code,"
	    " c.user FROM episodes AS e LEFT JOIN events AS c ON c.id = e.cause_event"
	    " WHERE e.kind = 'RE-CREATED'" CANNED_RANGE " ORDER BY e.start_us",
     .cols = {COL("namespace", TEXT), COL("lease", TEXT), COL("recreated", TIME), COL("by", TEXT),
	      COL("source_ip", TEXT), COL("after", DURATION), COL("gone_by", TEXT),
	      COL("gone_code", INT), COL("gone_user", TEXT)}},
    {.name = "auth-failures",
     .summary = "runs of 401/403 on leases, with the reason and what to check",
     /* 401 is authentication (who is asking), 403 authorization (RBAC, the node authorizer) */
     .sql =
	 "SELECT e.namespace, e.name, e.start_us, e.end_us, e.count, e.user, e.groups, e.note,"
	 " CASE WHEN (SELECT code FROM audit WHERE id = e.first_event) = 401 THEN"
	 " '401 is authentication, not RBAC: the apiserver did not accept the credentials of '"
	 " || coalesce(e.user, 'the client') || ' (an expired or rotated client certificate, a"
	 " revoked or expired token, another CA); check the kubelet''s"
	 " /var/lib/kubelet/pki/kubelet-client-current.pem (openssl x509 -enddate) or the"
	 " token, and the apiserver''s authenticator log' ELSE"
	 " 'check the ClusterRoles and (Cluster)RoleBindings of ' || coalesce(e.user, '?')"
	 " || ': kubectl auth can-i update leases -n ' || e.namespace || ' --as ' ||"
	 " coalesce(e.user, '?') END FROM episodes AS e WHERE e.kind = 'AUTH_FAILURE'" CANNED_RANGE
	 " ORDER BY e.start_us",
     .cols = {COL("namespace", TEXT), COL("lease", TEXT), COL("first", TIME), COL("last", TIME),
	      COL("requests", INT), COL("user", TEXT), FREE("groups"), FREE("reason"),
	      FREE("hint")}},
    {.name = "leader-changes",
     .summary = "leader-election and identity lease holder changes: from Lease bodies, inferred"
		" at Metadata level, or from the components' own leader election lines",
     .parts = canned_leader_sql,
     .cols = {COL("namespace", TEXT), COL("lease", TEXT), COL("ts", TIME), COL("old_holder", TEXT),
	      COL("new_holder", TEXT), FREE("evidence"), COL("lease_conflicts", INT)}},
    {.name = "apiserver-identity",
     .summary =
	 "apiserver identity leases: holder, last renew, and whether it is fresh, stale (stopped "
	 "renewing), expired (no renew for 1h) or deleted",
     /* stale as in the leases view: its apiserver stopped, though Kubernetes counts it for 1h */
     .sql = "SELECT l.name, l.holder, l.first_us, l.last_renew_us, l.renews,"
	    " CASE WHEN l.state = 'deleted' THEN 'deleted'"
	    "  WHEN ?3 - l.last_renew_us > 3600000000 THEN 'expired'"
	    "  WHEN l.state = 'stale' THEN 'stale' ELSE 'fresh' END,"
	    " (SELECT count(*) FROM leases AS f WHERE f.kind = 'apiserver-identity'"
	    "  AND ?3 - f.last_renew_us <= 3600000000 AND f.state NOT IN ('stale', 'deleted'))"
	    " FROM leases AS l WHERE l.kind = 'apiserver-identity' AND l.last_us >= ?1"
	    " AND l.first_us <= ?2 ORDER BY l.name",
     .cols = {COL("lease", TEXT), COL("holder", TEXT), COL("first_seen", TIME),
	      COL("last_renew", TIME), COL("renews", INT), COL("status", TEXT),
	      COL("apiservers_fresh", INT)}},
    {.name = "slow-renewals",
     .summary = "runs of lease renewals slower than the slow threshold (default 1s)",
     .sql = "SELECT e.namespace, e.name, e.start_us, e.end_us, e.count, e.max_us, e.user"
	    " FROM episodes AS e WHERE e.kind = 'SLOW'" CANNED_RANGE " ORDER BY e.max_us DESC",
     .cols = {COL("namespace", TEXT), COL("lease", TEXT), COL("first", TIME), COL("last", TIME),
	      COL("requests", INT), COL("max_latency", DURATION), COL("user", TEXT)}},
    {.name = "node-registrations",
     .summary = "node objects created (kubelet registrations and re-registrations)",
     /* a restarted kubelet's create gets 409 when its Node exists; it takes that Node over */
     .sql = "SELECT v.ts_us, v.name, v.code, CASE WHEN v.code BETWEEN 200 AND 299 THEN 'registered'"
	    " WHEN v.code = 409 AND v.user = 'system:node:' || v.name THEN (SELECT CASE"
	    "  WHEN r IS NULL THEN 'node already existed (409); not confirmed: no follow-up read"
	    " or registration line seen' WHEN r BETWEEN 0 AND 299 THEN 'registered (node already"
	    " existed)' ELSE 'failed: node already existed (409), its follow-up read got ' || r"
	    "  END FROM (SELECT " QUERIES_FOLLOWUP_READ(
		"a") " AS r FROM audit AS a"
		     "  WHERE a.id = v.id)) ELSE 'failed' END,"
		     " v.user, v.source_ip, v.user_agent, v.id" CANNED_NODE_EVENTS(
			 "create") " ORDER BY v.ts_us",
     .cols = {COL("ts", TIME), COL("node", TEXT), COL("code", INT), COL("result", TEXT),
	      COL("user", TEXT), COL("source_ip", TEXT), FREE("user_agent"), COL("event", ID)}},
    {.name = "kubelet-errors",
     .summary = "kubelet log errors per node and kind: count, first, last, a sample",
     .sql =
	 "SELECT coalesce((SELECT s FROM strs WHERE id = t.node_id), '?'),"
	 " coalesce((SELECT s FROM strs WHERE id = t.kind_id), 'other-error'), t.n, t.first,"
	 " t.last, t.nf, (SELECT " CANNED_MSG_X " || coalesce(' err=' || CASE WHEN "
	 "json_valid(" CANNED_FLD_X ")"
	 "  THEN json_extract(" CANNED_FLD_X ", '$.err') END, '') FROM lines AS x WHERE x.id = "
	 "t.last_id)"
	 " FROM (SELECT g.node_id AS node_id, g.kind_id AS kind_id, count(*) AS n,"
	 " min(g.ts_us) AS first, max(g.ts_us) AS last, sum(g.not_found = 1) AS nf,"
	 " max(g.id) AS last_id FROM lines_row AS g INDEXED BY lines_notable WHERE " LT_LINE_NOTABLE
	 " AND g.component_id = (SELECT id FROM strs WHERE s = 'kubelet')"
	 " AND g.ts_d BETWEEN " LT_LINE_TS_D_SQL("?1") " AND " LT_LINE_TS_D_SQL(
	     "?2") " AND (g.severity IN ('E', 'F') OR g.not_found > 0"
		   "  OR g.kind_id IN (SELECT id FROM strs WHERE s LIKE '%fail%' OR s LIKE "
		   "'%error%'"
		   "  OR s IN ('node-not-found', 'node-status-retry-exceeded', 'lease-retry')))"
		   " GROUP BY g.node_id, g.kind_id) AS t ORDER BY 1, 3 DESC, 2",
     .cols = {COL("node", TEXT), COL("kind", TEXT), COL("count", INT), COL("first", TIME),
	      COL("last", TIME), COL("node_not_found", INT), FREE("sample")}},
    {.name = "not-ready",
     .summary = "every NotReady window of a node: when, how long, the cause and its evidence,"
		" taints, evicted pods (no end: still NotReady at the end of the logs)",
     /* node health's windows (lt_notready); an open one lasts to the end of the logs (?3) */
     .sql = "SELECT w.node, w.start_us, w.end_us, coalesce(w.end_us, ?3) - w.start_us, w.ended,"
	    " w.condition, w.cause, nullif(w.reason, ''), w.evidence, nullif(w.taints, ''),"
	    " w.evicted_pods FROM not_ready AS w"
	    " WHERE w.start_us <= ?2 AND coalesce(w.end_us, ?3) >= ?1 ORDER BY w.start_us, w.node",
     .cols = {COL("node", TEXT), COL("start", TIME), COL("end", TIME), COL("duration", DURATION),
	      COL("ended", TEXT), COL("condition", TEXT), COL("cause", TEXT), FREE("reason"),
	      FREE("evidence"), FREE("taints"), COL("evicted_pods", INT)}},
    {.name = "evictions",
     .summary = "pods the taint-eviction controller deleted: node (or not attributable), when,"
		" by whom, the NotReady window they fell in",
     /* ref: an audit id (the DELETE), or minus the id of the controller's log line */
     .sql = "SELECT v.ts_us, v.pod, coalesce(v.node, 'not attributable'),"
	    " CASE WHEN v.ref > 0 THEN (SELECT s FROM strs WHERE id ="
	    "  (SELECT user_id FROM audit WHERE id = v.ref))"
	    "  ELSE 'taint-eviction-controller (' || coalesce((SELECT s FROM strs WHERE id ="
	    "  (SELECT component_id FROM lines WHERE id = -v.ref)), 'controller') || ' log)' END,"
	    " w.start_us, CASE WHEN v.ref > 0 THEN 'audit' ELSE 'controller-log' END,"
	    " CASE WHEN v.ref > 0 THEN v.ref END"
	    " FROM evictions AS v LEFT JOIN lt_notready AS w ON w.id = v.window_id"
	    " WHERE v.ts_us BETWEEN ?1 AND ?2 ORDER BY v.ts_us, v.pod",
     .cols = {COL("ts", TIME), COL("pod", TEXT), COL("node", TEXT), COL("by", TEXT),
	      COL("window_start", TIME), FREE("evidence"), COL("event", ID)}},
    {.name = NULL},
};

const struct lt_canned *lt_canned_list(void)
{
	static struct lt_canned list[sizeof canned_queries / sizeof *canned_queries];

	for (size_t i = 0; i < sizeof canned_queries / sizeof *canned_queries; i++)
		list[i] = (struct lt_canned){.name = canned_queries[i].name,
					     .summary = canned_queries[i].summary};
	return list;
}

/* The columns of c, up to the first without a name. */
static int canned_ncols(const struct canned *c)
{
	int n = 0;

	while (n < LT_MAX_COLS && c->cols[n].name != NULL)
		n++;
	return n;
}

/* Runs c with its bounds, its SQL joined first when it comes in pieces. */
static int canned_run(struct lt_store *st, const struct canned *c, const int64_t *binds,
		      const struct lt_row_sink *out, struct lt_error *err)
{
	struct lt_buf sql;
	int rc;

	if (c->parts == NULL)
		return lt_run_rows(st, c->sql, c->cols, canned_ncols(c), binds, 3, out, err);
	lt_buf_init(&sql);
	for (const char *const *p = c->parts; *p; p++)
		lt_buf_append(&sql, *p, strlen(*p));
	rc = lt_run_rows(st, sql.ptr, c->cols, canned_ncols(c), binds, 3, out, err);
	lt_buf_release(&sql);
	return rc;
}

int lt_query_canned(struct lt_store *st, const char *name, const struct lt_query_opts *o,
		    const struct lt_row_sink *out, struct lt_error *err)
{
	int64_t binds[3] = {o->since_us, o->until_us ? o->until_us : INT64_MAX,
			    lt_store_end_us(st)};
	int rc;

	/* other thresholds than the stored episodes were built with: build them again */
	if ((o->gap_us || o->slow_us) &&
	    (rc = lt_lifecycle_overlay(st, o->gap_us, o->slow_us, err)) != 0)
		return rc;
	/* --cluster: the leases, episodes and nodes views of that cluster only */
	if ((rc = queries_cluster_scope(st, o->cluster, err)) != 0)
		return rc;

	for (const struct canned *c = canned_queries; c->name; c++) {
		struct queries_filter_sink fs;
		struct lt_row_sink kept;

		if (strcmp(c->name, name) != 0)
			continue;
		if (!lt_filter_any(&o->filter))
			return canned_run(st, c, binds, out, err);
		/* --user, --code...: the rows whose columns of those names match */
		if ((rc = queries_filter_check(&o->filter, c->cols, canned_ncols(c), c->name, err)))
			return rc;
		kept = queries_filter_sink(&fs, &o->filter, out);
		return canned_run(st, c, binds, &kept, err);
	}
	return lt_error_set(err, LT_ERR_NOTFOUND,
			    "no canned query '%s' (`leasetrail query --list` names them)", name);
}
