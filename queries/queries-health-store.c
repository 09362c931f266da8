/*
 * queries-health-store.c - node health as a derived table: lt_notready.
 *
 * One row per NotReady window of a node, rebuilt whole from the stored
 * facts (the lease lifecycle's episodes among them, so it is built after
 * them).  A store of 3000 nodes rebuilds in one pass over each node's
 * Node requests and notable log lines; the windows are few.
 */
#include "queries-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tables, indexes and views; T is "" for the store and "TEMP " for an overlay. */
#define HEALTH_TABLE(T)                                                                            \
	"CREATE " T "TABLE IF NOT EXISTS lt_notready("                                             \
	" id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL, start_us INTEGER NOT NULL,"            \
	" end_us INTEGER, condition TEXT NOT NULL, cause TEXT NOT NULL, ended TEXT NOT NULL,"      \
	" evidence TEXT NOT NULL, reason TEXT, taints TEXT, evicted_pods INTEGER NOT NULL,"        \
	" start_ref INTEGER, end_ref INTEGER, alive_before_us INTEGER)"

const char *const queries_health_schema[] = {
    HEALTH_TABLE(""),
    "CREATE INDEX IF NOT EXISTS lt_notready_node ON lt_notready(node_id, start_us)",
    /* pods the taint-eviction controller deleted; node_id NULL: not attributable */
    "CREATE TABLE IF NOT EXISTS lt_evictions(id INTEGER PRIMARY KEY, pod TEXT NOT NULL,"
    " ts_us INTEGER NOT NULL, node_id INTEGER, window_id INTEGER, ref INTEGER)",
    "CREATE VIEW IF NOT EXISTS evictions AS SELECT v.id AS id, v.pod AS pod, v.ts_us AS ts_us,"
    " (SELECT s FROM strs WHERE id = v.node_id) AS node, v.window_id AS window_id,"
    " v.node_id IS NOT NULL AS attributable, v.ref AS ref FROM lt_evictions AS v",
    "CREATE VIEW IF NOT EXISTS not_ready AS SELECT w.id AS id,"
    " (SELECT s FROM strs WHERE id = w.node_id) AS node, w.start_us AS start_us,"
    " w.end_us AS end_us, w.condition AS condition, w.cause AS cause, w.ended AS ended,"
    " w.evidence AS evidence, w.reason AS reason, w.taints AS taints,"
    " w.evicted_pods AS evicted_pods, w.start_ref AS start_ref, w.end_ref AS end_ref"
    " FROM lt_notready AS w",
    NULL,
};

/* The nodes a store knows: node leases, Node objects, the nodes of log lines and the nodes
 * controllers' lines name. */
enum health_nodes_col { HN_ID, HN_NAME };
static const char health_nodes_sql[] =
    "SELECT n.id, s.s FROM (SELECT name_id AS id FROM lt_leases WHERE kind = 'node'"
    " UNION SELECT a.name_id FROM audit AS a WHERE a.resource_id ="
    " (SELECT id FROM strs WHERE s = 'nodes') AND a.namespace_id IS NULL"
    " AND a.name_id IS NOT NULL"
    " UNION SELECT node_id FROM lines WHERE node_id IS NOT NULL"
    /* a controller's line names a node no journal or request did */
    " UNION SELECT g.subject_id FROM lines AS g JOIN strs AS k ON k.id = g.kind_id"
    " WHERE g.subject_id IS NOT NULL AND (k.s LIKE 'nlc-%' OR k.s LIKE 'cloud-%'"
    " OR k.s LIKE 'ca-%')) AS n"
    " JOIN strs AS s ON s.id = n.id WHERE n.id IN (SELECT node_id FROM temp.health_cand)"
    " ORDER BY s.s";

enum health_insert_col {
	HI_NODE = 1,
	HI_START,
	HI_END,
	HI_CONDITION,
	HI_CAUSE,
	HI_ENDED,
	HI_EVIDENCE,
	HI_REASON,
	HI_TAINTS,
	HI_EVICTED,
	HI_START_REF,
	HI_END_REF,
	HI_ALIVE,
};
static const char health_insert_sql[] =
    "INSERT INTO lt_notready(node_id, start_us, end_us, condition, cause, ended, evidence,"
    " reason, taints, evicted_pods, start_ref, end_ref, alive_before_us)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";

const char *lt_node_condition_name(enum lt_node_condition c)
{
	return c == LT_CONDITION_FALSE ? "False" : "Unknown";
}

const char *lt_health_end_name(enum lt_health_end e)
{
	static const char *const names[] = {
	    [LT_HEALTH_OPEN] = "open",
	    [LT_HEALTH_RECOVERED] = "recovered",
	    [LT_HEALTH_DELETED] = "deleted",
	};

	return e >= LT_HEALTH_OPEN && e <= LT_HEALTH_DELETED ? names[e] : "open";
}

void lt_health_evidence_text(char *buf, size_t size, unsigned ev)
{
	static const struct {
		unsigned bit;
		const char *name;
	} parts[] = {
	    {LT_HEALTH_EV_AUDIT, "audit"},
	    {LT_HEALTH_EV_CONTROLLER, "controller-log"},
	    {LT_HEALTH_EV_KUBELET, "kubelet-log"},
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		if ((ev & parts[i].bit) && used < size) {
			int n = snprintf(buf + used, size - used, "%s%s", used ? "+" : "",
					 parts[i].name);

			used += n > 0 ? (size_t)n : 0;
		}
}

/* Runs each statement of a NULL-terminated list. */
static int health_exec(struct lt_store *st, const char *const *sql, struct lt_error *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && sql[i] != NULL; i++)
		rc = queries_exec(st, sql[i], err);
	return rc;
}

/* ---- which nodes to read ------------------------------------------------------ */

/*
 * A node's Node requests lie a few to a page among millions of lease
 * renews: reading them costs a page per request, for every node.  Only a
 * node with a fact that opens a window can have one
 * (queries_health_fact_opens): one the node-controller wrote (its
 * Ready=Unknown update, the PATCH that answers a Ready=False status write),
 * one with a request at a level that logs bodies (Ready=False in a body),
 * or one a log line of an opening kind is of or about.  The first two come
 * from the audit_object index alone (it carries user_id and level_id for
 * this), the lines from their kind index; the other nodes are never read.
 */
static const char *const health_scan_sql[] = {
    "CREATE TEMP TABLE IF NOT EXISTS health_cand(node_id INTEGER PRIMARY KEY)",
    "DELETE FROM temp.health_cand",
    NULL,
};

static const char health_scan_cand_sql[] =
    "INSERT OR IGNORE INTO temp.health_cand(node_id) SELECT DISTINCT a.name_id FROM audit AS a"
    " WHERE a.resource_id = ?1 AND a.namespace_id IS NULL AND a.name_id IS NOT NULL"
    " AND (a.user_id = ?2 OR a.level_id IS NOT ?3)";

int queries_health_candidates(struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *q = NULL;
	int rc = health_exec(st, health_scan_sql, err);

	if (rc == 0)
		rc = lt_store_prepare(st, &q, health_scan_cand_sql, err);
	if (rc == 0) {
		lt_stmt_bind_int(q, 1, queries_str_id(st, "nodes"));
		lt_stmt_bind_int(q, 2, queries_str_id(st, HEALTH_NODE_CONTROLLER));
		lt_stmt_bind_int(q, 3, queries_str_id(st, "Metadata"));
		rc = lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
	}
	lt_stmt_free(q);
	if (rc == 0)
		rc = queries_health_line_candidates(st, err);
	return rc;
}

/* ---- evictions and stream offsets, before the windows --------------------- */

#define HEALTH_SQL_ID(s) "(SELECT id FROM strs WHERE s = '" s "')"

/* A line's message (the lines row g): its text, or read from its raw line (schema 8). */
#define HEALTH_MSG LT_LINE_MESSAGE_SQL("g")
/* its fields (schema 10: read from its raw line where they are a mark, index-fields.c) */
#define HEALTH_FLD   LT_LINE_FIELDS_SQL("g")
#define HEALTH_FLD_K LT_LINE_FIELDS_SQL("k")

/* Every pod the taint-eviction controller deleted (its line or its DELETE), once. */
static const char *const health_evicted_sql[] = {
    "CREATE TEMP TABLE IF NOT EXISTS health_evicted(pod TEXT PRIMARY KEY, ts_us INTEGER"
    " NOT NULL, ref INTEGER, node_id INTEGER)",
    "DELETE FROM temp.health_evicted",
    "INSERT INTO temp.health_evicted(pod, ts_us, ref) SELECT pod, min(ts), ref FROM ("
    " SELECT coalesce(json_extract(" HEALTH_FLD ", '$.pod'), CASE WHEN instr(" HEALTH_MSG
    ", 'Pod: ') > 0 THEN substr(" HEALTH_MSG ", instr(" HEALTH_MSG ", 'Pod: ') + 5) END) AS pod,"
    " g.ts_us AS ts,"
    " -g.id AS ref FROM lines AS g WHERE g.kind_id = " HEALTH_SQL_ID(
	"pod-eviction") " AND (" HEALTH_FLD " IS NULL OR json_valid(" HEALTH_FLD "))"
			" UNION ALL SELECT (SELECT s FROM strs WHERE id = a.namespace_id) || "
			"'/' ||"
			" (SELECT s FROM strs WHERE id = a.name_id), a.stage_us, a.id FROM "
			"audit AS a"
			" WHERE a.resource_id = " HEALTH_SQL_ID(
			    "pods") " AND a.verb_id = " HEALTH_SQL_ID("delete") " AND "
										"a.subresource_"
										"id IS NULL "
										"AND a.code "
										"BETWEEN 200 "
										"AND 299 AND "
										"a.superseded "
										"= 0"
										" AND "
										"a.user_id "
										"="
										" " HEALTH_SQL_ID(
										    "system:"
										    "serviceacc"
										    "ount:kube-"
										    "system:"
										    "node-"
										    "controlle"
										    "r") ") "
											 "WHERE"
											 " pod "
											 "IS "
											 "NOT "
											 "NULL "
											 "GROUP"
											 " BY "
											 "pod",
    NULL,
};

/*
 * A pod's node: the one node that its kubelet's lines name it on, or that the scheduler
 * bound it to (a pods/binding create, stored with --all-resources; its body, at Request
 * level or above, names the node).  None, or more than one: not attributable.
 */
static const char *const health_podnode_sql[] = {
    "CREATE TEMP TABLE IF NOT EXISTS health_podnode(pod TEXT NOT NULL, node_id INTEGER NOT"
    " NULL, PRIMARY KEY(pod, node_id)) WITHOUT ROWID",
    "DELETE FROM temp.health_podnode",
    "INSERT OR IGNORE INTO temp.health_podnode(pod, node_id) SELECT json_extract(" HEALTH_FLD_K ","
    " '$.pod'), k.node_id FROM lines AS k WHERE k.node_id IS NOT NULL"
    " AND k.component_id = (SELECT id FROM strs WHERE s = 'kubelet')"
    " AND instr(" HEALTH_FLD_K ", '\"pod\":') > 0 AND json_valid(" HEALTH_FLD_K ")"
    " AND json_extract(" HEALTH_FLD_K ", '$.pod') IN (SELECT pod FROM temp.health_evicted)",
    "INSERT OR IGNORE INTO temp.health_podnode(pod, node_id) SELECT p.pod, n.id FROM (SELECT"
    " (SELECT s FROM strs WHERE id = a.namespace_id) || '/' || (SELECT s FROM strs"
    " WHERE id = a.name_id) AS pod, json_extract(" QUERIES_RAW_BODY(
	"r", "request") ", '$.target.name') AS node"
			" FROM audit AS a JOIN audit_raw AS r ON r.id = a.id"
			" WHERE a.resource_id = (SELECT id FROM strs WHERE s = 'pods')"
			" AND a.verb_id = (SELECT id FROM strs WHERE s = 'create')"
			" AND a.subresource_id = (SELECT id FROM strs WHERE s = 'binding')"
			" AND a.code BETWEEN 200 AND 299 AND a.superseded = 0) AS p"
			" JOIN strs AS n ON n.s = p.node WHERE p.pod IN (SELECT pod FROM "
			"temp.health_evicted)",
    "UPDATE temp.health_evicted SET node_id = (SELECT CASE WHEN count(*) = 1 THEN"
    " min(m.node_id) END FROM temp.health_podnode AS m WHERE m.pod = health_evicted.pod)",
    "DELETE FROM lt_evictions",
    "INSERT INTO lt_evictions(pod, ts_us, node_id, ref) SELECT pod, ts_us, node_id, ref"
    " FROM temp.health_evicted ORDER BY ts_us",
    NULL,
};

static const char *const health_window_of_eviction_sql[] = {
    "UPDATE lt_evictions SET window_id = (SELECT w.id FROM lt_notready AS w"
    " WHERE w.node_id = lt_evictions.node_id AND w.start_us <= lt_evictions.ts_us"
    " AND (w.end_us IS NULL OR w.end_us >= lt_evictions.ts_us) ORDER BY w.start_us LIMIT 1)"
    " WHERE node_id IS NOT NULL",
    NULL,
};

/* Builds temp.health_evicted and lt_evictions; *any: whether a pod was evicted. */
static int health_evictions(struct lt_store *st, int *any, struct lt_error *err)
{
	struct lt_stmt *q = NULL;
	int rc = health_exec(st, health_evicted_sql, err);

	*any = 0;
	if (rc == 0 &&
	    (rc = lt_store_prepare(st, &q, "SELECT 1 FROM temp.health_evicted LIMIT 1", err)) == 0)
		*any = lt_stmt_step(q, err) == 1;
	lt_stmt_free(q);
	if (rc == 0 && *any)
		rc = health_exec(st, health_podnode_sql, err);
	else if (rc == 0)
		rc = health_exec(st, (const char *const[]){"DELETE FROM lt_evictions", NULL}, err);
	return rc;
}

/* temp.health_skew: the estimated offset of each audit stream, for the feed. */
static int health_skew(struct lt_store *st, struct lt_error *err)
{
	struct queries_health_offset *off = lt_xcalloc(QUERIES_HEALTH_MAX_STREAMS, sizeof *off);
	struct lt_stmt *ins = NULL;
	int n = queries_health_offsets(st, off, QUERIES_HEALTH_MAX_STREAMS, 0, err);
	int rc = n < 0 ? n : 0;

	if (rc == 0)
		rc = health_exec(
		    st,
		    (const char *const[]){HEALTH_SKEW_TABLE, "DELETE FROM temp.health_skew", NULL},
		    err);
	if (rc == 0)
		rc = lt_store_prepare(st, &ins,
				      "INSERT INTO temp.health_skew(source_id, cluster_id, stream,"
				      " offset_us) VALUES(?1, ?2, ?3, ?4)",
				      err);
	for (int i = 0; rc == 0 && i < n; i++) {
		lt_stmt_reset(ins);
		lt_stmt_bind_int(ins, 1, off[i].source_id);
		lt_stmt_bind_int(ins, 2, off[i].cluster_id);
		lt_stmt_bind_text(ins, 3, off[i].stream, (size_t)-1);
		lt_stmt_bind_int(ins, 4, off[i].offset_us);
		rc = lt_stmt_step(ins, err) < 0 ? LT_ERR_DB : 0;
	}
	lt_stmt_free(ins);
	free(off);
	return rc;
}

static void health_bind_opt(struct lt_stmt *q, int col, int64_t v)
{
	if (v != 0)
		lt_stmt_bind_int(q, col, v);
	else
		lt_stmt_bind_null(q, col);
}

static int health_insert(struct lt_stmt *q, int64_t node_id, const struct lt_health_window *w,
			 struct lt_error *err)
{
	char evidence[64];

	lt_health_evidence_text(evidence, sizeof evidence, w->evidence);
	lt_stmt_reset(q);
	lt_stmt_bind_int(q, HI_NODE, node_id);
	lt_stmt_bind_int(q, HI_START, w->start_us);
	health_bind_opt(q, HI_END, w->end == LT_HEALTH_OPEN ? 0 : w->end_us);
	lt_stmt_bind_text(q, HI_CONDITION, lt_node_condition_name(w->condition), (size_t)-1);
	lt_stmt_bind_text(q, HI_CAUSE, lt_notready_cause_name(w->cause), (size_t)-1);
	lt_stmt_bind_text(q, HI_ENDED, lt_health_end_name(w->end), (size_t)-1);
	lt_stmt_bind_text(q, HI_EVIDENCE, evidence, (size_t)-1);
	lt_stmt_bind_text(q, HI_REASON, w->reason.ptr ? w->reason.ptr : "", w->reason.len);
	lt_stmt_bind_text(q, HI_TAINTS, w->taints.ptr ? w->taints.ptr : "", w->taints.len);
	lt_stmt_bind_int(q, HI_EVICTED, w->evicted_pods);
	health_bind_opt(q, HI_START_REF, w->start_ref);
	health_bind_opt(q, HI_END_REF, w->end_ref);
	health_bind_opt(q, HI_ALIVE, w->alive_before_us);
	return lt_stmt_step(q, err) < 0 ? LT_ERR_DB : 0;
}

/* The windows of one node into lt_notready. */
static int health_store_node(struct queries_health_ctx *c, struct lt_stmt *ins, int64_t node_id,
			     const char *node, struct lt_error *err)
{
	struct queries_health_result r;
	int rc = queries_health_node(c, node_id, node, &r, err);

	for (size_t i = 0; rc == 0 && i < r.n; i++)
		rc = health_insert(ins, node_id, &r.windows[i], err);
	queries_health_result_release(&r);
	return rc;
}

int queries_health_rebuild(struct lt_store *st, struct lt_error *err)
{
	struct lt_stmt *del = NULL, *nodes = NULL, *ins = NULL;
	struct queries_health_ctx *c = NULL;
	int rc, evictions = 0;

	if ((rc = lt_store_prepare(st, &del, "DELETE FROM lt_notready", err)) == 0)
		rc = lt_stmt_step(del, err) < 0 ? LT_ERR_DB : 0;
	if (rc == 0)
		rc = health_skew(st, err);
	if (rc == 0)
		rc = queries_health_candidates(st, err);
	if (rc == 0)
		rc = health_evictions(st, &evictions, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &nodes, health_nodes_sql, err);
	if (rc == 0)
		rc = lt_store_prepare(st, &ins, health_insert_sql, err);
	if (rc == 0)
		rc = queries_health_ctx_new(&c, st, evictions, err);
	while (rc == 0 && (rc = lt_stmt_step(nodes, err)) == 1) {
		char *node = lt_xstrdup(lt_stmt_text(nodes, HN_NAME, NULL));

		rc = health_store_node(c, ins, lt_stmt_int(nodes, HN_ID), node, err);
		free(node);
	}
	if (rc == 0 && evictions)
		rc = health_exec(st, health_window_of_eviction_sql, err);
	queries_health_ctx_free(c);
	lt_stmt_free(del);
	lt_stmt_free(nodes);
	lt_stmt_free(ins);
	return rc < 0 ? rc : 0;
}
