/* index-schema.c - the store's tables, indexes and views, and the record of derived tables. */
#include "index-int.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* 3: sources are known by the XXH3-128 of their content (hashed, hash, head; source_marks);
 * 4: lines' basis and text sources' year and zone rules; 5: clusters (schema_cluster_sql);
 * 6: raw records compressed (raw_dicts, index-raw.c), request URIs and object uids
 *    interned, and the identity behind an event's user (audit.identity_id);
 * 7: auditIDs that are UUIDs stored as 16 bytes (index-auditid.c, schema_pack_audit_ids),
 *    a line's klog time as its distance from ts_us (lines.klog_d);
 * 8: a line's message that is a slice of its raw record stored as where it lies in it
 *    (lines.msg_at, msg_len: LT_LINE_MESSAGE_SQL), not as text beside it;
 * 9: the raw records in compressed blocks (audit_blocks, lines_blocks, schema_add_blocks),
 *    the lines' dedupe keys in a table of their own (line_keys, schema_line_keys),
 *    counted_requests keeps an 8-byte hash of the auditID (schema_hash_counted), and an event
 *    stores its latency, not the time its request was received (schema_latency_sql);
 * 10: audit_ext a view over audit_ext_packed, its ids in BCD and its streams interned
 *    (schema_pack_ext); a line's fields that the store's frozen decoder rebuilds from its raw
 *    line stored as a mark, an empty blob (index-fields.c, LT_LINE_FIELDS_SQL: no step of its
 *    own; the version keeps an older leasetrail, which would read the mark as a packed value,
 *    from opening such a store; rows of 9 and before keep their text or packed value);
 * 11: no dedupe keys: a line read again is found through lines_node (index-logs.c), and
 *    line_keys is dropped (schema_drop_line_keys);
 * 12: a line's row in lines_row without its rare columns, which lie in lines_more for the few
 *    lines that have one; lines a view of both, by the same columns (schema_split_lines);
 * 13: a line's time in lines_row as ts_d, its distance from LT_LINE_EPOCH_US, in the row and
 *    the lines indexes, ts_us a virtual column of it; its number as line_d, a distance from
 *    its id (LT_LINE_NUMBER_SQL) (schema_line_distances) */
#define SCHEMA_VERSION "13"
/* The oldest schema a writable open brings up to this one (schema_migrate). */
#define SCHEMA_MIGRATES_FROM 4
/*
 * The oldest schema a read-only open reads as it is: 13.  The readers that go through a lines
 * index name it with INDEXED BY, which SQLite allows on a table only: they read lines_row, the
 * base table of schema 12, which a store of 11 does not have (its lines is the table), and bound
 * its times by ts_d (LT_LINE_TS_D_SQL), which a store of 12 does not have (its lines_row keeps
 * ts_us, and its indexes are on it).  A writable open brings such a store up
 * (schema_split_lines, schema_line_distances).
 */
#define SCHEMA_READS_FROM 13
/* The first schema whose auditIDs are packed: older ones are packed by the upgrade. */
#define SCHEMA_PACKED_IDS 7

/* counted_requests (schema 9), named T: the upgrade builds it under another name first. */
#define SCHEMA_COUNTED_SQL(T)                                                                      \
	("CREATE TABLE IF NOT EXISTS " T "(received_s INTEGER NOT NULL,"                           \
	 " audit_hash INTEGER NOT NULL, PRIMARY KEY(received_s, audit_hash)) WITHOUT ROWID")

/*
 * Strings that repeat (users, agents, IPs, names, reasons) are stored once
 * in strs and referenced by id, which keeps the event rows narrow; the
 * events view joins them back.  Raw JSON lives in its own table so that
 * scans of events never page it in.
 *
 * Requests are deduplicated on akey, an integer: the second the request
 * was received, a hash of its auditID, a probe and the stage's code (see
 * load_akey).  An integer index stays small enough for the page cache where
 * an index on random 36-character UUIDs does not, a log's requests land in
 * it nearly in order, and all stages of one request sit next to each other.
 */
/*
 * The secondary indexes of audit.  Loading into an empty store drops them
 * and builds each once at the end, by sorting (lt_store_ingest_begin/end);
 * every writable open creates any that is missing (an interrupted load).
 */
static const char *const schema_index_sql[] = {
    /*
     * every request of a resource in time order: rebuilding many leases in one pass
     * reads the table nearly in order instead of one random page per request; the
     * verb lets node deletes and registrations be found without reading each row
     */
    "CREATE INDEX IF NOT EXISTS audit_rtv ON audit(resource_id, stage_us, verb_id)",
    /* every event of one object in time order: node stories, timelines, single leases;
     * user and level let node health find the Nodes the node-controller wrote or whose
     * bodies were logged without reading a row (queries-health-store.c) */
    "CREATE INDEX IF NOT EXISTS audit_object ON audit(resource_id, namespace_id, name_id, "
    "stage_us, user_id, level_id)",
    /* log lines: a node's (timelines), about something (subjects), of a kind (queries); on
       lines_row, the table under the lines view (schema 12), by a line's time as ts_d (13) */
    "CREATE INDEX IF NOT EXISTS lines_node ON lines_row(node_id, ts_d)",
    /* partial (schema 6): most lines are routine, of no kind and about nothing named, and
       every read of these says which kind or subject (an =, IN or IS NOT NULL on it) */
    "CREATE INDEX IF NOT EXISTS lines_subject ON lines_row(subject_id, ts_d)"
    " WHERE subject_id IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS lines_kind ON lines_row(kind_id, ts_d) WHERE kind_id IS NOT NULL",
    /* the lines worth showing in a timeline: errors, warnings, and what the table knows */
    "CREATE INDEX IF NOT EXISTS lines_notable ON lines_row(node_id, ts_d) WHERE " LT_LINE_NOTABLE,
};

/* The first indexes above, on audit: lt_store_ingest_end builds them before what runs beside. */
#define SCHEMA_BESIDE_INDEXES 2
/* lines_node's place above: a load's dedupe probe needs it (index_store_create_lines_node) */
#define SCHEMA_LINES_NODE 2

static const char *const schema_index_names[] = {"audit_rtv",	  "audit_object", "lines_node",
						 "lines_subject", "lines_kind",	  "lines_notable"};

/*
 * Log lines (journal, klog, CloudWatch messages).  node_id is the node a
 * line comes from: the file's --node, else its host, mapped to a node name
 * by lt_store_map_hosts once the store knows the nodes (hosts keeps what
 * each host maps to).  subject_id is what the line is about, when it says.
 * A line seen again in overlapping files is stored once: found through
 * lines_node (schema 11, index-logs.c; lkey, the key of schema 8 and before,
 * stays NULL and is read by nothing).
 */
#define LOG_TABLES                                                                                 \
	"CREATE TABLE IF NOT EXISTS lines("                                                        \
	" id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, line INTEGER NOT NULL,"              \
	" offset INTEGER NOT NULL, lkey INTEGER, ts_us INTEGER NOT NULL, klog_us INTEGER,"         \
	" basis INTEGER NOT NULL DEFAULT 0, host_id INTEGER, node_id INTEGER,"                     \
	" component_id INTEGER, ident_id INTEGER, pid INTEGER, severity TEXT,"                     \
	" location_id INTEGER, kind_id INTEGER, subject_id INTEGER, obj_kind_id INTEGER,"          \
	" obj_namespace_id INTEGER, obj_uid TEXT, not_found INTEGER NOT NULL DEFAULT 0,"           \
	" message TEXT, fields TEXT, ext_id TEXT, stream_id INTEGER)"

/* The logs view's klog_us (schema 7: from klog_d). */
#define SCHEMA_KLOG_US INDEX_KLOG_US_SQL("g.")
/* The logs view's message (schema 8: read from the raw line where it is a slice of it). */
#define SCHEMA_MESSAGE LT_LINE_MESSAGE_SQL("g")
/* The logs view's fields (schema 10: read from the raw line where they are a mark). */
#define SCHEMA_FIELDS LT_LINE_FIELDS_SQL("g")

#define LOG_VIEW                                                                                   \
	"CREATE VIEW IF NOT EXISTS logs AS SELECT g.id AS id,"                                     \
	" strftime('%Y-%m-%dT%H:%M:%S', g.ts_us / 1000000, 'unixepoch')"                           \
	" || printf('.%06dZ', g.ts_us % 1000000) AS ts, g.ts_us AS ts_us,"                         \
	" " SCHEMA_KLOG_US " AS klog_us,"                                                          \
	" (SELECT s FROM strs WHERE id = g.node_id) AS node,"                                      \
	" (SELECT s FROM strs WHERE id = g.host_id) AS host,"                                      \
	" (SELECT s FROM strs WHERE id = g.component_id) AS component,"                            \
	" (SELECT s FROM strs WHERE id = g.ident_id) AS ident, g.pid AS pid,"                      \
	" g.severity AS severity,"                                                                 \
	" (SELECT s FROM strs WHERE id = g.location_id) AS location,"                              \
	" (SELECT s FROM strs WHERE id = g.kind_id) AS kind,"                                      \
	" (SELECT s FROM strs WHERE id = g.subject_id) AS subject,"                                \
	" (SELECT s FROM strs WHERE id = g.obj_kind_id) AS obj_kind,"                              \
	" (SELECT s FROM strs WHERE id = g.obj_namespace_id) AS obj_namespace,"                    \
	" g.obj_uid AS obj_uid, g.not_found AS not_found,"                                         \
	" " SCHEMA_MESSAGE " AS message, " SCHEMA_FIELDS " AS fields, g.ext_id AS ext_id,"         \
	" (SELECT s FROM strs WHERE id = g.stream_id) AS stream,"                                  \
	" g.source_id AS source_id,"                                                               \
	" g.line AS line, g.offset AS offset FROM lines AS g"

static const char *const schema_sql[] = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS strs(id INTEGER PRIMARY KEY, s TEXT NOT NULL UNIQUE)",
    /*
     * A source's identity: the XXH3-128 (hash) of its first `hashed` on-disk bytes, every
     * record committed for it lying in them, and of its first 64 KiB (head, to find the
     * candidates cheaply).  Each end of a complete read leaves a row in source_marks, so a
     * copy of the file as it was then is known even after the file grew (index-ident.c).
     * open_end: the last record, rejected as cut off by the file's end, is read again if the
     * file grows (resume_offset is its offset).
     */
    "CREATE TABLE IF NOT EXISTS sources("
    " id INTEGER PRIMARY KEY, path TEXT NOT NULL, hashed INTEGER, hash TEXT, head TEXT,"
    " format TEXT,"
    " gzip INTEGER NOT NULL DEFAULT 0, size INTEGER, mtime INTEGER,"
    " state TEXT NOT NULL DEFAULT 'ingesting', note TEXT,"
    " resume_offset INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0,"
    " records INTEGER NOT NULL DEFAULT 0, stored INTEGER NOT NULL DEFAULT 0,"
    " duplicates INTEGER NOT NULL DEFAULT 0, skipped INTEGER NOT NULL DEFAULT 0,"
    " rejected INTEGER NOT NULL DEFAULT 0, started_us INTEGER, finished_us INTEGER,"
    " open_end INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX IF NOT EXISTS sources_head ON sources(head) WHERE head IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS source_marks(source_id INTEGER NOT NULL, len INTEGER NOT NULL,"
    " hash TEXT NOT NULL, head TEXT NOT NULL, PRIMARY KEY(source_id, len)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS source_marks_head ON source_marks(head)",
    "CREATE TABLE IF NOT EXISTS rejects(id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL,"
    " line INTEGER NOT NULL, offset INTEGER NOT NULL, reason TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS rejects_source ON rejects(source_id)",
    "CREATE TABLE IF NOT EXISTS resource_counts(source_id INTEGER NOT NULL,"
    " resource TEXT NOT NULL, verb TEXT NOT NULL, count INTEGER NOT NULL,"
    " PRIMARY KEY(source_id, resource, verb)) WITHOUT ROWID",
    /* the requests resource_counts counted (by auditID, under the second received), so a
       request seen at two stages, or read again, counts once; the auditID as its 8-byte hash
       (schema 9: index_audit_id_hash) */
    SCHEMA_COUNTED_SQL("counted_requests"),
    "CREATE TABLE IF NOT EXISTS audit("
    " id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, line INTEGER NOT NULL,"
    " offset INTEGER NOT NULL, akey INTEGER, audit_id TEXT, stage_id INTEGER,"
    " stage_rank INTEGER NOT NULL, superseded INTEGER NOT NULL DEFAULT 0,"
    " level_id INTEGER, verb_id INTEGER, resource_id INTEGER, subresource_id INTEGER,"
    " namespace_id INTEGER, name_id INTEGER, api_group_id INTEGER, api_version_id INTEGER,"
    " obj_uid TEXT, resource_version TEXT, request_uri TEXT,"
    " user_id INTEGER, groups_id INTEGER, impersonated_id INTEGER, source_ip_id INTEGER,"
    " user_agent_id INTEGER, code INTEGER, status_id INTEGER, reason_id INTEGER,"
    " message_id INTEGER, received_us INTEGER, stage_us INTEGER NOT NULL,"
    " authz_decision_id INTEGER, authz_reason_id INTEGER, lease_holder_id INTEGER,"
    " lease_duration_s INTEGER, lease_renew_us INTEGER, lease_acquire_us INTEGER,"
    " lease_transitions INTEGER)",
    "CREATE UNIQUE INDEX IF NOT EXISTS audit_key ON audit(akey)",
    /*
     * the requests of cluster-scoped objects (Nodes: a few percent of the rows), every column a
     * Node's timeline reads: its rows lie a few to a 32 KB page among the lease renews, one
     * page read each without it.  Kept row by row, also while loading: small enough for the
     * page cache, where building it at the end would scan the whole table once more
     */
    "CREATE INDEX IF NOT EXISTS audit_cluster ON audit(resource_id, namespace_id, name_id,"
    " stage_us, verb_id, subresource_id, code, user_id, source_ip_id, level_id, superseded)"
    " WHERE namespace_id IS NULL",
    /*
     * the raw records, byte for byte: text, or a blob index-raw.c compressed (read both with
     * lt_raw(json)); a blob is never converted by the column's text affinity
     */
    "CREATE TABLE IF NOT EXISTS audit_raw(id INTEGER PRIMARY KEY, json TEXT NOT NULL)",
    /* schema 6: the zstd dictionaries of the compressed raw records, each trained on the first
       records of one source's table (tbl: audit_raw or lines_raw) */
    "CREATE TABLE IF NOT EXISTS raw_dicts(id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL,"
    " tbl TEXT NOT NULL, dict BLOB NOT NULL)",
    /* CloudWatch provenance of the audit events that came from an export */
    "CREATE TABLE IF NOT EXISTS audit_ext(id INTEGER PRIMARY KEY, ext_id TEXT, stream TEXT)",
    LOG_TABLES,
    "CREATE TABLE IF NOT EXISTS lines_raw(id INTEGER PRIMARY KEY, text TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS hosts(host_id INTEGER PRIMARY KEY, node_id INTEGER NOT NULL)",
    /*
     * per text source: its time range, and the year and zone its lines rest on (lines.basis
     * says which times of a line do) with what chose them, so that lt_store_redate can move
     * them when the store learns better: the year's rule (year_rule shown, year_rule_id an
     * enum lt_year_rule), the first year-less time (first_local, local µs in year), the
     * journal header's range and the file's mtime; the zone (zone_us, shown as zone) and its
     * rule (zone_rule_id, shown as zone_from), the header's zone word; what the lines' own
     * written dates say (said_year, said_zone); the first host; the lines' id range
     */
    "CREATE TABLE IF NOT EXISTS log_sources(source_id INTEGER PRIMARY KEY,"
    " lines INTEGER NOT NULL DEFAULT 0, year INTEGER, year_rule TEXT, first_us INTEGER,"
    " last_us INTEGER, klog_skew INTEGER NOT NULL DEFAULT 0, node TEXT, year_rule_id INTEGER,"
    " year_raised INTEGER NOT NULL DEFAULT 0, year_guess INTEGER NOT NULL DEFAULT 0,"
    " first_local INTEGER, head_lo INTEGER, head_hi INTEGER, mtime INTEGER,"
    " zone_us INTEGER NOT NULL DEFAULT 0, zone_rule_id INTEGER NOT NULL DEFAULT 0,"
    " zone_name TEXT, said_year INTEGER, said_zone INTEGER, host TEXT, first_id INTEGER,"
    " last_id INTEGER, zone TEXT, zone_from TEXT)",
    LOG_VIEW,
    /* how far each registered derived table is built (lt_store_derive) */
    "CREATE TABLE IF NOT EXISTS derived(name TEXT PRIMARY KEY, version INTEGER NOT NULL,"
    " event_id INTEGER NOT NULL, line_id INTEGER NOT NULL)",
};

/*
 * Schema 5: several clusters in one store.  Every event and line carries the
 * cluster it came from (cluster_id: a strs id, 0 when nothing named one),
 * each source the cluster all of its records share (NULL when they do not,
 * or none was named), and clusters lists each cluster stored rows carry (0
 * only for audit events that named none: so a store "has several clusters"
 * exactly when clusters has two rows, and log lines naming no cluster, which
 * go with the nodes of any, never make a second).  The columns are added by
 * ALTER TABLE, in new stores as in the schema-4 stores they upgrade
 * (schema_migrate), so both end with the same tables; they are kept apart
 * from the CREATE TABLE statements above on purpose.
 */
static const char *const schema_cluster_sql[] = {
    "ALTER TABLE audit ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE lines ADD COLUMN cluster_id INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE sources ADD COLUMN cluster_id INTEGER",
};

/*
 * Schema 6: a request's URI and its object's uid, the same for every renew of a lease, are
 * interned (strs ids) instead of text in every row.  Added by ALTER TABLE, like the cluster
 * columns; rows of an upgraded store keep their text columns, which the view reads first.
 */
static const char *const schema_intern_sql[] = {
    "ALTER TABLE audit ADD COLUMN obj_uid_id INTEGER",
    "ALTER TABLE audit ADD COLUMN request_uri_id INTEGER",
};

/* The events view's audit_id: a packed auditID (schema 7) spelled back as its UUID. */
#define SCHEMA_AUDIT_ID INDEX_AUDIT_ID_SQL("a.audit_id")

/*
 * Two partial indexes of the cluster-scoped requests (the Nodes: a few percent of the rows),
 * beside audit_cluster, which has neither cluster_id nor the verb first.  audit_names: the
 * nodes view's Node objects (a DISTINCT over every Node request) read from it alone, not one
 * audit page per request.  audit_verbs: the Node creates and deletes (node-registrations,
 * who-deleted, the nodes view's deletes) found without reading the index entries of every
 * Node request (audit_rtv holds them among the status updates).  After schema_migrate, which
 * adds cluster_id.  Kept row by row like audit_cluster (a few MB each at 10 million events);
 * a store built before them gets them at its next writable open.  No read names them
 * (INDEXED BY): without them a read is only slower.
 */
static const char *const schema_node_indexes[] = {
    "CREATE INDEX IF NOT EXISTS audit_names ON audit(resource_id, name_id, cluster_id)"
    " WHERE namespace_id IS NULL",
    "CREATE INDEX IF NOT EXISTS audit_verbs ON audit(resource_id, verb_id, stage_us)"
    " WHERE namespace_id IS NULL",
};

/* The events view's received time and latency (schema 9 stores the latency: lt_index.h). */
#define SCHEMA_RECEIVED LT_AUDIT_RECEIVED_SQL("a")
#define SCHEMA_LATENCY	LT_AUDIT_LATENCY_SQL("a")

/* The events view: after schema_migrate, as it reads the columns that adds. */
static const char schema_events_view[] =
    "CREATE VIEW IF NOT EXISTS events AS SELECT a.id AS id,"
    " strftime('%Y-%m-%dT%H:%M:%S', a.stage_us / 1000000, 'unixepoch')"
    " || printf('.%06dZ', a.stage_us % 1000000) AS ts,"
    " a.stage_us AS ts_us, " SCHEMA_RECEIVED " AS received_us,"
    " " SCHEMA_LATENCY " AS latency_us,"
    " " SCHEMA_AUDIT_ID " AS audit_id, (SELECT s FROM strs WHERE id = a.stage_id) AS stage,"
    " (SELECT s FROM strs WHERE id = a.level_id) AS level,"
    " (SELECT s FROM strs WHERE id = a.verb_id) AS verb,"
    " (SELECT s FROM strs WHERE id = a.resource_id) AS resource,"
    " (SELECT s FROM strs WHERE id = a.subresource_id) AS subresource,"
    " (SELECT s FROM strs WHERE id = a.namespace_id) AS namespace,"
    " (SELECT s FROM strs WHERE id = a.name_id) AS name,"
    " (SELECT s FROM strs WHERE id = a.api_group_id) AS api_group,"
    " (SELECT s FROM strs WHERE id = a.api_version_id) AS api_version,"
    " coalesce(a.obj_uid, (SELECT s FROM strs WHERE id = a.obj_uid_id)) AS uid,"
    " a.resource_version AS resource_version,"
    " coalesce(a.request_uri, (SELECT s FROM strs WHERE id = a.request_uri_id)) "
    "AS request_uri,"
    " (SELECT s FROM strs WHERE id = a.user_id) AS user,"
    " (SELECT s FROM strs WHERE id = a.groups_id) AS groups,"
    " (SELECT s FROM strs WHERE id = a.impersonated_id) AS impersonated_user,"
    " " LT_IDENTITY_SQL("a") " AS identity,"
			     " (SELECT s FROM strs WHERE id = a.source_ip_id) AS source_ip,"
			     " (SELECT s FROM strs WHERE id = a.user_agent_id) AS user_agent,"
			     " a.code AS code, (SELECT s FROM strs WHERE id = a.status_id) AS "
			     "status,"
			     " (SELECT s FROM strs WHERE id = a.reason_id) AS reason,"
			     " (SELECT s FROM strs WHERE id = a.message_id) AS message,"
			     " (SELECT s FROM strs WHERE id = a.authz_decision_id) AS "
			     "authz_decision,"
			     " (SELECT s FROM strs WHERE id = a.authz_reason_id) AS authz_reason,"
			     " (SELECT s FROM strs WHERE id = a.lease_holder_id) AS lease_holder,"
			     " a.lease_duration_s AS lease_duration_s, a.lease_renew_us AS "
			     "lease_renew_us,"
			     " a.lease_acquire_us AS lease_acquire_us, a.lease_transitions AS "
			     "lease_transitions,"
			     " a.source_id AS source_id, a.line AS line, a.offset AS offset"
			     " FROM audit AS a WHERE a.superseded = 0";

/*
 * Schema 6: audit.identity_id, a strs id of what the event says is behind its
 * user name (lt_audit_event.identity: EKS's IAM ARN, AKS's object id, ...),
 * NULL when it says nothing more.  Added by ALTER TABLE like the cluster
 * columns; the rows of an upgraded store keep NULL (their records were read
 * before identities were; `identity` still shows an impersonation).
 */
static const char *const schema_identity_sql[] = {
    "ALTER TABLE audit ADD COLUMN identity_id INTEGER"};

/*
 * Schema 7: lines.klog_d, a line's klog time as its distance from ts_us (INDEX_KLOG_US_SQL),
 * instead of 8 bytes of klog_us in nearly every line.  Added by ALTER TABLE like the columns
 * above; an upgraded store's older lines keep klog_us, which is read first.
 */
static const char *const schema_klog_sql[] = {"ALTER TABLE lines ADD COLUMN klog_d INTEGER"};

/*
 * Schema 8: lines.msg_at and msg_len, where a line's message lies in its raw record (bytes),
 * instead of its text in message (30 bytes a kubelet line, a ninth of the journal's store).
 * Added by ALTER TABLE like the columns above; an upgraded store's older lines keep their
 * text, which LT_LINE_MESSAGE_SQL reads when msg_at is NULL.
 */
static const char *const schema_message_sql[] = {
    "ALTER TABLE lines ADD COLUMN msg_at INTEGER",
    "ALTER TABLE lines ADD COLUMN msg_len INTEGER",
};

/*
 * Schema 9: the raw records in blocks (index-rawblock.c), many consecutive records of one load
 * and table compressed together in one row of audit_blocks or lines_blocks, keyed by its
 * first record's id (lt_raw_of finds a record's block as the last one keyed at or below its
 * id).  The per-record rows of schema 8 and before keep their values, as they are, in
 * audit_raw and lines_raw renamed audit_raw_rows and lines_raw_rows (a new store gets them
 * too, empty); audit_raw and lines_raw become views reading a record from its block, else
 * from its row, so every reader of lt_raw(json) and lt_raw(text) reads both.  The rename is
 * legacy (no view names the renamed tables: the logs view reads lines_raw_rows already).
 */
static const char *const schema_blocks_sql[] = {
    "PRAGMA legacy_alter_table = ON",
    "ALTER TABLE audit_raw RENAME TO audit_raw_rows",
    "ALTER TABLE lines_raw RENAME TO lines_raw_rows",
    "PRAGMA legacy_alter_table = OFF",
    "CREATE TABLE audit_blocks(id INTEGER PRIMARY KEY, data BLOB NOT NULL)",
    "CREATE TABLE lines_blocks(id INTEGER PRIMARY KEY, data BLOB NOT NULL)",
    ("CREATE VIEW audit_raw(id, json) AS SELECT a.id, coalesce(lt_raw_of('audit', a.id),"
     " (SELECT r.json FROM audit_raw_rows AS r WHERE r.id = a.id)) FROM audit AS a"),
    ("CREATE VIEW lines_raw(id, text) AS SELECT g.id, coalesce(lt_raw_of('lines', g.id),"
     " (SELECT r.text FROM lines_raw_rows AS r WHERE r.id = g.id)) FROM lines AS g"),
};

/*
 * Schema 9 moved the lines' dedupe keys from lines.lkey and its unique index lines_key to
 * line_keys(k, id); schema 11 keeps no key (index-logs.c).  A store of 8 still has lines_key:
 * the index is dropped, the older rows keep their lkey, which nothing reads; new rows leave
 * it NULL.
 */
static const char schema_line_keys_sql[] = "DROP INDEX lines_key;";

/*
 * Schema 11: the lines' dedupe keys of 9 and 10 (line_keys) dropped: a line read again is
 * found through lines_node (index-logs.c), which compares what the lines say.  Its pages stay
 * in the file, free, until a VACUUM.
 */
static const char schema_drop_line_keys_sql[] = "DROP TABLE line_keys;";

/*
 * Schema 12: a line's row without its rare columns.  lines_row holds what nearly every line has
 * (and the indexes, by their names of before); lines_more(id, ...) the columns that are NULL in
 * nearly every line, a row only for a line that has one of them: lkey (schema 8 and before),
 * klog_us (6 and before), the object a line names (obj_kind_id, obj_namespace_id, obj_uid), a
 * message that is not a slice of its raw line, and a CloudWatch line's ext_id and stream_id.
 * Each column costs a row its header byte even when NULL: 8 bytes a line out of 56.  lines is
 * a view of both with the columns of schema 11 in their order, so every reader, the logs view
 * and `sql` users read lines as before; SQLite flattens the view and leaves lines_more out of
 * a read that names none of its columns.  The upgrade copies the rows (SQLite cannot drop a
 * column without rewriting the table, and ALTER TABLE DROP COLUMN leaves it larger) and the
 * lines indexes are made again on lines_row by the open (index_store_create_indexes).
 */
#define SCHEMA_LINES_BASE                                                                          \
	" id, source_id, line, offset, ts_us, basis, host_id, node_id, component_id, ident_id,"    \
	" pid, severity, location_id, kind_id, subject_id, not_found, fields, cluster_id, klog_d," \
	" msg_at, msg_len"
#define SCHEMA_LINES_RARE                                                                          \
	" lkey, klog_us, obj_kind_id, obj_namespace_id, obj_uid, message, ext_id, stream_id"
/*
 * The lines view (schema 12, schema_split_lines_sql), L the number of a row r of lines_row: its
 * line in 12, LT_LINE_NUMBER_SQL in 13 (schema_line_distances_sql).
 */
#define SCHEMA_LINES_VIEW(L)                                                                       \
	("CREATE VIEW lines AS SELECT r.id AS id, r.source_id AS source_id, " L " AS line,"        \
	 " r.offset AS offset, m.lkey AS lkey, r.ts_us AS ts_us, m.klog_us AS klog_us,"            \
	 " r.basis AS basis, r.host_id AS host_id, r.node_id AS node_id,"                          \
	 " r.component_id AS component_id, r.ident_id AS ident_id, r.pid AS pid,"                  \
	 " r.severity AS severity, r.location_id AS location_id, r.kind_id AS kind_id,"            \
	 " r.subject_id AS subject_id, m.obj_kind_id AS obj_kind_id,"                              \
	 " m.obj_namespace_id AS obj_namespace_id, m.obj_uid AS obj_uid,"                          \
	 " r.not_found AS not_found, m.message AS message, r.fields AS fields,"                    \
	 " m.ext_id AS ext_id, m.stream_id AS stream_id, r.cluster_id AS cluster_id,"              \
	 " r.klog_d AS klog_d, r.msg_at AS msg_at, r.msg_len AS msg_len FROM lines_row AS r"       \
	 " LEFT JOIN lines_more AS m ON m.id = r.id")
static const char *const schema_split_lines_sql[] = {
    ("CREATE TABLE lines_row(id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL,"
     " line INTEGER NOT NULL, offset INTEGER NOT NULL, ts_us INTEGER NOT NULL,"
     " basis INTEGER NOT NULL DEFAULT 0, host_id INTEGER, node_id INTEGER, component_id INTEGER,"
     " ident_id INTEGER, pid INTEGER, severity TEXT, location_id INTEGER, kind_id INTEGER,"
     " subject_id INTEGER, not_found INTEGER NOT NULL DEFAULT 0, fields TEXT,"
     " cluster_id INTEGER NOT NULL DEFAULT 0, klog_d INTEGER, msg_at INTEGER, msg_len INTEGER)"),
    "INSERT INTO lines_row SELECT" SCHEMA_LINES_BASE " FROM lines ORDER BY id",
    ("CREATE TABLE lines_more(id INTEGER PRIMARY KEY, lkey INTEGER, klog_us INTEGER,"
     " obj_kind_id INTEGER, obj_namespace_id INTEGER, obj_uid TEXT, message TEXT, ext_id TEXT,"
     " stream_id INTEGER)"),
    ("INSERT INTO lines_more SELECT id," SCHEMA_LINES_RARE " FROM lines WHERE lkey IS NOT NULL"
     " OR klog_us IS NOT NULL OR obj_kind_id IS NOT NULL OR obj_namespace_id IS NOT NULL"
     " OR obj_uid IS NOT NULL OR message IS NOT NULL OR ext_id IS NOT NULL"
     " OR stream_id IS NOT NULL ORDER BY id"),
    "DROP TABLE lines",
    SCHEMA_LINES_VIEW("r.line"),
};

/*
 * Schema 13: a line's time and number in lines_row as distances (lt_index.h).  Its time as ts_d,
 * its distance from LT_LINE_EPOCH_US: 6 bytes instead of 8 in the row and in each of the four
 * lines indexes (of 48 a row, of 14 an entry of lines_node), and ts_us a virtual generated
 * column, ts_d plus the epoch, so that every reader of lines_row.ts_us and of the lines view
 * reads the same times.  Its number as line_d (LT_LINE_NUMBER_SQL): less how far its id lies
 * past its source's first line's, 0-1 bytes instead of 2-3; the view adds it back.  The indexes
 * are dropped first (the open makes them again, on ts_d, as for an interrupted load: not one
 * index entry rewritten per row), the columns renamed (which rewrites the lines view: made
 * again), a source without first_id given its lines' first, the values moved in one pass over
 * the table, in place, and the generated column added (ALTER TABLE may add a virtual one).  A
 * new store takes the same step on its empty lines_row.
 */
static const char *const schema_line_distances_sql[] = {
    ("DROP INDEX IF EXISTS lines_node; DROP INDEX IF EXISTS lines_subject;"
     " DROP INDEX IF EXISTS lines_kind; DROP INDEX IF EXISTS lines_notable"),
    "ALTER TABLE lines_row RENAME COLUMN ts_us TO ts_d",
    "ALTER TABLE lines_row RENAME COLUMN line TO line_d",
    ("UPDATE log_sources SET first_id = (SELECT min(r.id) FROM lines_row AS r"
     " WHERE r.source_id = log_sources.source_id) WHERE first_id IS NULL"),
    ("UPDATE lines_row SET ts_d = ts_d - " LT_LINE_EPOCH_SQL ", line_d = line_d - (id - coalesce("
     "(SELECT first_id FROM log_sources WHERE source_id = lines_row.source_id), id))"),
    ("ALTER TABLE lines_row ADD COLUMN ts_us INTEGER GENERATED ALWAYS AS (ts_d + " LT_LINE_EPOCH_SQL
     ") VIRTUAL"),
    "DROP VIEW lines",
    SCHEMA_LINES_VIEW(LT_LINE_NUMBER_SQL("r")),
};

/*
 * Schema 9: counted_requests.audit_hash, the auditID's 8-byte hash (index_audit_id_hash) instead
 * of the auditID (16 bytes packed, or its text): a third of the table.  SQLite cannot change a
 * column's type, so the upgrade copies the rows, hashed as every later insert hashes them (a
 * request read again after it must find its row), into a new table that takes the old one's
 * name.  One pass over the table, in the upgrade's transaction.
 */
static const char *const schema_counted_sql[] = {
    "DROP TABLE IF EXISTS counted_requests_9",
    SCHEMA_COUNTED_SQL("counted_requests_9"),
    ("INSERT OR IGNORE INTO counted_requests_9"
     " SELECT received_s, lt_audit_id_hash(audit_id) FROM counted_requests"),
    "DROP TABLE counted_requests",
    "ALTER TABLE counted_requests_9 RENAME TO counted_requests",
};

/*
 * Schema 9: audit.latency_us, stage_us - received_us (0-3 bytes: 0 for a RequestReceived
 * stage and for records without requestReceivedTimestamp), and received_us left NULL (8
 * bytes a row), read back by LT_AUDIT_RECEIVED_SQL and LT_AUDIT_LATENCY_SQL.  Added by
 * ALTER TABLE like the columns above; an upgraded store's older rows keep received_us and
 * no latency_us, which the same two read.
 */
static const char *const schema_latency_sql[] = {"ALTER TABLE audit ADD COLUMN latency_us INTEGER"};

/*
 * Schema 10: audit_ext (the provenance of an event from a cloud's export: its eventId or
 * insertId, its log stream) becomes a view over audit_ext_packed, whose ext_id is packed
 * BCD where it is all digits (a CloudWatch eventId: 28 bytes instead of 56; index-auditid.c)
 * and whose stream is a strs id (one per apiserver, instead of ~50 bytes a row), so users
 * read audit_ext(id, ext_id, stream) as before.  The rows of schema 9 are copied over as they
 * are (ext_id text, which the view shows as it is; each stream interned): one pass over the
 * table, in the upgrade's transaction.  A new store takes the same steps on an empty table.
 * ext_id has no type: a text stays a text, a blob a blob.
 */
static const char *const schema_ext_sql[] = {
    "CREATE TABLE audit_ext_packed(id INTEGER PRIMARY KEY, ext_id, stream_id INTEGER)",
    "INSERT OR IGNORE INTO strs(s) SELECT stream FROM audit_ext WHERE stream IS NOT NULL",
    ("INSERT INTO audit_ext_packed SELECT x.id, x.ext_id,"
     " (SELECT t.id FROM strs AS t WHERE t.s = x.stream) FROM audit_ext AS x"),
    "DROP TABLE audit_ext",
    ("CREATE VIEW audit_ext(id, ext_id, stream) AS SELECT x.id, " INDEX_EXT_ID_SQL(
	"x.ext_id") ", (SELECT t.s FROM strs AS t WHERE t.id = x.stream_id) FROM audit_ext_packed "
		    "AS x"),
};

static const char schema_clusters_table[] =
    "CREATE TABLE IF NOT EXISTS clusters(id INTEGER PRIMARY KEY)";

/* True when the database already has tables but is not ours. */
static int schema_is_foreign(struct lt_store *st, struct lt_error *err)
{
	sqlite3_stmt *q;
	int foreign = 0, rc;

	rc = index_store_prepare_raw(st, &q,
				     "SELECT (SELECT count(*) FROM sqlite_master),"
				     " (SELECT count(*) FROM sqlite_master WHERE name = 'meta')",
				     err);
	if (rc != 0)
		return -1;
	if (sqlite3_step(q) == SQLITE_ROW)
		foreign = sqlite3_column_int(q, 0) > 0 && sqlite3_column_int(q, 1) == 0;
	sqlite3_finalize(q);
	return foreign;
}

/*
 * Checks meta 'schema' against ours: 0 when it matches, or when a store is
 * new (no meta yet) and may be created.  A store of another version is
 * refused before anything is written to it, saying which is older.
 */
static int schema_check_meta(struct lt_store *st, int may_be_new, struct lt_error *err)
{
	sqlite3_stmt *q;
	long have = -1;
	int rc;

	if (index_store_prepare_raw(st, &q, "SELECT 1 FROM sqlite_master WHERE name = 'meta'",
				    err) != 0)
		return LT_ERR_DB;
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return index_store_db_error(st, err, "cannot read the store's tables");
	if (rc == SQLITE_DONE && may_be_new)
		return 0;
	if (rc == SQLITE_DONE) /* an empty file: a store whose creation never completed */
		return lt_error_set(err, LT_ERR_NOTFOUND,
				    "%s: an empty store, nothing ingested into it (run "
				    "`leasetrail ingest --db %s PATH...`)",
				    st->path, st->path);
	if (index_store_prepare_raw(st, &q, "SELECT value FROM meta WHERE key = 'schema'", err) !=
	    0)
		return LT_ERR_DB;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && sqlite3_column_text(q, 0) != NULL)
		have = strtol((const char *)sqlite3_column_text(q, 0), NULL, 10);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) /* out of memory, I/O: not a version */
		return index_store_db_error(st, err, "cannot read the store's version");
	if (have == strtol(SCHEMA_VERSION, NULL, 10))
		return 0;
	if (have >= SCHEMA_MIGRATES_FROM && have < strtol(SCHEMA_VERSION, NULL, 10) && may_be_new)
		return 0; /* a writable open upgrades it (schema_migrate) */
	if (st->readonly && have >= SCHEMA_READS_FROM && have < strtol(SCHEMA_VERSION, NULL, 10))
		return 0; /* read as it is */
	if (have >= SCHEMA_MIGRATES_FROM && have < strtol(SCHEMA_VERSION, NULL, 10))
		return lt_error_set(err, LT_ERR_DB,
				    "%s: a leasetrail store of schema %ld, older than this "
				    "leasetrail's " SCHEMA_VERSION "; `leasetrail rebuild --db %s` "
				    "upgrades it (or the next ingest into it)",
				    st->path, have, st->path);
	return lt_error_set(err, LT_ERR_DB,
			    "%s: a leasetrail store of schema %ld, made by %s leasetrail (this one "
			    "reads schema " SCHEMA_VERSION "); re-ingest the logs into a new store",
			    st->path, have,
			    have > strtol(SCHEMA_VERSION, NULL, 10) ? "a newer" : "an older");
}

/* 1 when table has a column named col (0 also when it cannot tell). */
/*
 * The answers below are 1, 0, or -1 with err set: a failed read (out of memory) must not pass
 * for "no": SQLite may have rolled the whole transaction back, and what runs next on that
 * answer would report a misleading error ("no such table") instead of the real one.
 */
static int schema_answer(struct lt_store *st, sqlite3_stmt *q, int rc, struct lt_error *err)
{
	int failed = rc != SQLITE_ROW && rc != SQLITE_DONE;

	sqlite3_finalize(q);
	if (failed)
		index_store_db_error(st, err, "cannot read the schema");
	return failed ? -1 : 0;
}

static int schema_has_column(struct lt_store *st, const char *table, const char *col,
			     struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(st, &q, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2",
				    err) != 0)
		return -1;
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, col, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		sqlite3_finalize(q);
		return 1;
	}
	return schema_answer(st, q, rc, err);
}

/* 1 when meta says the store is of schema version v; 0; -1 with err set. */
static int schema_is_version(struct lt_store *st, int v, struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc, is;

	if (index_store_prepare_raw(st, &q, "SELECT value FROM meta WHERE key = 'schema'", err) !=
	    0)
		return -1;
	if ((rc = sqlite3_step(q)) == SQLITE_ROW && sqlite3_column_text(q, 0) != NULL) {
		is = strtol((const char *)sqlite3_column_text(q, 0), NULL, 10) == v;
		sqlite3_finalize(q);
		return is;
	}
	return schema_answer(st, q, rc, err);
}

/* Drops every derived table (named lt_*): collected first, as a DROP may not run beside a read. */
static int schema_drop_derived(struct lt_store *st, struct lt_error *err)
{
	struct lt_buf sql;
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(
		st, &q,
		"SELECT 'DROP TABLE IF EXISTS \"' || name || '\";' FROM sqlite_master"
		" WHERE type = 'table' AND substr(name, 1, 3) = 'lt_'",
		err) != 0)
		return LT_ERR_DB;
	lt_buf_init(&sql);
	while (sqlite3_step(q) == SQLITE_ROW)
		lt_buf_append(&sql, (const char *)sqlite3_column_text(q, 0),
			      (size_t)sqlite3_column_bytes(q, 0));
	sqlite3_finalize(q);
	rc = index_store_exec(st, sql.ptr, err);
	lt_buf_release(&sql);
	return rc;
}

/*
 * Adds schema 6's interned columns (schema_intern_sql) to a store that lacks them, and drops
 * its whole-table kind and subject indexes (index_store_create_indexes makes them partial).
 */
static int schema_add_interned(struct lt_store *st, struct lt_error *err)
{
	int has = schema_has_column(st, "audit", "request_uri_id", err);

	if (has < 0)
		return LT_ERR_DB;
	for (size_t i = 0; !has && i < sizeof schema_intern_sql / sizeof *schema_intern_sql; i++)
		if (index_store_exec(st, schema_intern_sql[i], err) != 0)
			return LT_ERR_DB;
	/* the kind and subject indexes of schema 5 indexed every line: made partial again */
	if (!has && index_store_exec(st,
				     "DROP INDEX IF EXISTS lines_subject;"
				     " DROP INDEX IF EXISTS lines_kind;",
				     err) != 0)
		return LT_ERR_DB;
	return 0;
}

/*
 * Schema 4 to 5 (schema_cluster_sql): from schema 4 every stored row is of cluster 0 (none
 * named), which is what they were; the derived tables, built before leases were per cluster,
 * are dropped with their records (every table named lt_*, and derived): the lifecycles create
 * and rebuild them from the events.  5 to 6 adds no table here: raw_dicts comes with
 * schema_sql, and the raw records a store of 5 holds are text, which lt_raw reads as it is.
 */
static int schema_migrate_clusters(struct lt_store *st, struct lt_error *err)
{
	int upgrade = schema_is_version(st, SCHEMA_MIGRATES_FROM, err);
	int has = upgrade < 0 ? -1 : schema_has_column(st, "audit", "cluster_id", err);

	if (has < 0)
		return LT_ERR_DB;
	if (has)
		return index_store_exec(st, schema_clusters_table, err);
	for (size_t i = 0; i < sizeof schema_cluster_sql / sizeof *schema_cluster_sql; i++)
		if (index_store_exec(st, schema_cluster_sql[i], err) != 0)
			return LT_ERR_DB;
	if (index_store_exec(st, schema_clusters_table, err) != 0)
		return LT_ERR_DB;
	/* a schema-4 store with events: they are of no named cluster */
	if (upgrade && index_store_exec(st,
					"INSERT OR IGNORE INTO clusters SELECT 0 WHERE EXISTS"
					" (SELECT 1 FROM audit);"
					"DELETE FROM derived;",
					err) != 0)
		return LT_ERR_DB;
	return upgrade ? schema_drop_derived(st, err) : 0;
}

/*
 * Schema 7 (from 4, 5 or 6): the auditIDs the store holds as text are packed where they are
 * UUIDs, in audit and counted_requests, as every later insert and lookup packs them
 * (index_audit_id_bind): a request read again after the upgrade must find its stored row.
 * One pass over each table, in the upgrade's transaction; a new store (no version yet) and a
 * store of 7 or later skip it.
 */
static int schema_pack_audit_ids(struct lt_store *st, struct lt_error *err)
{
	int old = 0;

	for (int v = SCHEMA_MIGRATES_FROM; v < SCHEMA_PACKED_IDS; v++) {
		int is = schema_is_version(st, v, err);

		if (is < 0)
			return LT_ERR_DB;
		old |= is;
	}
	if (!old)
		return 0;
	return index_store_exec(st,
				"UPDATE audit SET audit_id = lt_audit_id_pack(audit_id)"
				" WHERE typeof(audit_id) = 'text';"
				"UPDATE counted_requests SET audit_id = lt_audit_id_pack(audit_id)"
				" WHERE typeof(audit_id) = 'text';",
				err);
}

/* Runs the n statements of sql unless table has column already (an upgrade step done). */
static int schema_exec_unless(struct lt_store *st, const char *table, const char *column,
			      const char *const *sql, size_t n, struct lt_error *err)
{
	int has = schema_has_column(st, table, column, err);

	if (has < 0)
		return LT_ERR_DB;
	for (size_t i = 0; !has && i < n; i++)
		if (index_store_exec(st, sql[i], err) != 0)
			return LT_ERR_DB;
	return 0;
}

/* schema_exec_unless over every statement of the array sql. */
#define SCHEMA_UNLESS(st, table, column, sql, err)                                                 \
	schema_exec_unless(st, table, column, sql, sizeof(sql) / sizeof *(sql), err)

/* Schema 9's blocks (schema_blocks_sql), unless the store has them. */
static int schema_add_blocks(struct lt_store *st, struct lt_error *err)
{
	return SCHEMA_UNLESS(st, "audit_blocks", "data", schema_blocks_sql, err);
}

/* Schema 9's counted_requests (schema_counted_sql), unless the store has it already. */
static int schema_hash_counted(struct lt_store *st, struct lt_error *err)
{
	return SCHEMA_UNLESS(st, "counted_requests", "audit_hash", schema_counted_sql, err);
}

/* Schema 10's audit_ext (schema_ext_sql), unless the store has it already. */
static int schema_pack_ext(struct lt_store *st, struct lt_error *err)
{
	return SCHEMA_UNLESS(st, "audit_ext_packed", "stream_id", schema_ext_sql, err);
}

/* 1 when the store has the index named name; 0; -1 with err set. */
static int schema_has_index(struct lt_store *st, const char *name, struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(
		st, &q, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?1", err) != 0)
		return -1;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		sqlite3_finalize(q);
		return 1;
	}
	return schema_answer(st, q, rc, err);
}

/* Schema 9's step (schema_line_keys_sql): only a store that still has lines_key takes it. */
static int schema_line_keys(struct lt_store *st, struct lt_error *err)
{
	int has = schema_has_index(st, "lines_key", err);

	if (has < 0)
		return LT_ERR_DB;
	return has ? index_store_exec(st, schema_line_keys_sql, err) : 0;
}

/* Schema 11's step (schema_drop_line_keys_sql): only a store that has line_keys takes it. */
static int schema_drop_line_keys(struct lt_store *st, struct lt_error *err)
{
	int has = schema_has_column(st, "line_keys", "k", err);

	if (has < 0)
		return LT_ERR_DB;
	return has ? index_store_exec(st, schema_drop_line_keys_sql, err) : 0;
}

/* Schema 12's step (schema_split_lines_sql): only a store whose lines is still a table. */
static int schema_split_lines(struct lt_store *st, struct lt_error *err)
{
	return SCHEMA_UNLESS(st, "lines_row", "id", schema_split_lines_sql, err);
}

/* Schema 13's step (schema_line_distances_sql): only a store whose lines_row has no ts_d. */
static int schema_line_distances(struct lt_store *st, struct lt_error *err)
{
	return SCHEMA_UNLESS(st, "lines_row", "ts_d", schema_line_distances_sql, err);
}

/*
 * Brings a new store, or one of schema 4 to 12, to this schema: the clusters
 * of 5, then the interned columns (schema_add_interned) and the identity column
 * (schema_identity_sql) of 6, the packed auditIDs and klog_d (schema_klog_sql) of 7, the
 * message's place (schema_message_sql) of 8, the raw records' blocks (schema_add_blocks),
 * the lines' keys (schema_line_keys), the hashed counted requests (schema_hash_counted) and
 * the latency (schema_latency_sql) of 9, audit_ext packed (schema_pack_ext) of 10, the
 * dedupe keys dropped (schema_drop_line_keys) of 11, the lines' rare columns in lines_more
 * (schema_split_lines: a new store's empty lines too) of 12, a line's time and number as
 * distances (schema_line_distances: a new store's empty lines_row too) of 13, then the version.
 */
static int schema_migrate(struct lt_store *st, struct lt_error *err)
{
	if (schema_migrate_clusters(st, err) != 0 || schema_add_interned(st, err) != 0 ||
	    schema_pack_audit_ids(st, err) != 0 ||
	    SCHEMA_UNLESS(st, "audit", "identity_id", schema_identity_sql, err) != 0 ||
	    SCHEMA_UNLESS(st, "lines", "klog_d", schema_klog_sql, err) != 0 ||
	    SCHEMA_UNLESS(st, "lines", "msg_at", schema_message_sql, err) != 0 ||
	    schema_add_blocks(st, err) != 0 || schema_line_keys(st, err) != 0 ||
	    schema_hash_counted(st, err) != 0 ||
	    SCHEMA_UNLESS(st, "audit", "latency_us", schema_latency_sql, err) != 0 ||
	    schema_pack_ext(st, err) != 0 || schema_drop_line_keys(st, err) != 0 ||
	    schema_split_lines(st, err) != 0 || schema_line_distances(st, err) != 0)
		return LT_ERR_DB;
	return index_store_exec(
	    st, "UPDATE meta SET value = '" SCHEMA_VERSION "' WHERE key = 'schema';", err);
}

/* Creates what is missing and refreshes the views; inside the caller's transaction. */
static int schema_create(struct lt_store *st, struct lt_error *err)
{
	/* views hold no data: refresh them, so a store always has this binary's definitions */
	if (index_store_exec(st, "DROP VIEW IF EXISTS events; DROP VIEW IF EXISTS logs;", err) != 0)
		return LT_ERR_DB;
	for (size_t i = 0; i < sizeof schema_sql / sizeof *schema_sql; i++)
		if (index_store_exec(st, schema_sql[i], err) != 0)
			return LT_ERR_DB;
	if (schema_migrate(st, err) != 0 || index_store_exec(st, schema_events_view, err) != 0)
		return LT_ERR_DB;
	for (size_t i = 0; i < sizeof schema_node_indexes / sizeof *schema_node_indexes; i++)
		if (index_store_exec(st, schema_node_indexes[i], err) != 0)
			return LT_ERR_DB;
	if (index_store_create_indexes(st, err) != 0)
		return LT_ERR_DB;
	return index_store_exec(st,
				"INSERT OR IGNORE INTO meta VALUES('app', 'leasetrail');"
				"INSERT OR IGNORE INTO meta VALUES('schema', '" SCHEMA_VERSION
				"');",
				err);
}

/* Creates the schema in a new store, or checks an existing one is ours. */
int index_store_schema(struct lt_store *st, struct lt_error *err)
{
	int foreign = schema_is_foreign(st, err);

	if (foreign < 0)
		return lt_error_set(err, LT_ERR_DB, "%s: not a leasetrail store (%s)", st->path,
				    err ? err->msg : "unreadable");
	if (foreign)
		return lt_error_set(err, LT_ERR_DB,
				    "%s: not a leasetrail store (an SQLite file with other tables)",
				    st->path);
	if (schema_check_meta(st, !st->readonly, err) != 0)
		return LT_ERR_DB;
	/* one transaction: a store whose creation was interrupted is no store, not half of one */
	if (!st->readonly &&
	    (index_store_exec(st, "BEGIN IMMEDIATE", err) != 0 || schema_create(st, err) != 0 ||
	     index_store_exec(st, "COMMIT", err) != 0)) {
		index_store_exec(st, "ROLLBACK", NULL);
		return LT_ERR_DB;
	}
	return schema_check_meta(st, 0, err);
}

int index_store_create_lines_node(struct lt_store *st, struct lt_error *err)
{
	return index_store_exec(st, schema_index_sql[SCHEMA_LINES_NODE], err);
}

int index_store_create_indexes(struct lt_store *st, struct lt_error *err)
{
	/* indexes of earlier versions, replaced by audit_rtv */
	if (index_store_exec(
		st, "DROP INDEX IF EXISTS audit_verb; DROP INDEX IF EXISTS audit_time;", err))
		return LT_ERR_DB;
	for (size_t i = 0; i < sizeof schema_index_sql / sizeof *schema_index_sql; i++)
		if (index_store_exec(st, schema_index_sql[i], err) != 0)
			return LT_ERR_DB;
	return 0;
}

/* 1 when the store lacks a secondary index (its last bulk load was interrupted). */
static int schema_missing_index(struct lt_store *st)
{
	sqlite3_stmt *q;
	int missing = 0;

	for (size_t i = 0; i < sizeof schema_index_names / sizeof *schema_index_names; i++) {
		if (index_store_prepare_raw(st, &q, "SELECT 1 FROM sqlite_master WHERE name = ?1",
					    NULL))
			return 0;
		sqlite3_bind_text(q, 1, schema_index_names[i], -1, SQLITE_STATIC);
		missing |= sqlite3_step(q) != SQLITE_ROW;
		sqlite3_finalize(q);
	}
	return missing;
}

int index_store_check_indexes(struct lt_store *st, struct lt_error *err)
{
	if (!schema_missing_index(st))
		return 0;
	return lt_error_set(
	    err, LT_ERR_DB,
	    "%s: its indexes are not built yet: an ingest into it is still running, "
	    "or was interrupted (then run the same `leasetrail ingest` again, or "
	    "`leasetrail rebuild`)",
	    st->path);
}

int lt_store_ingest_begin(struct lt_store *st, struct lt_error *err)
{
	sqlite3_stmt *q;
	int empty = 0;

	if (index_store_prepare_raw(
		st, &q,
		"SELECT NOT EXISTS (SELECT 1 FROM audit) AND NOT EXISTS (SELECT 1 FROM lines)",
		err) != 0)
		return LT_ERR_DB;
	if (sqlite3_step(q) == SQLITE_ROW)
		empty = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (!empty)
		return 0;
	st->deferred_indexes = 1;
	for (size_t i = 0; i < sizeof schema_index_names / sizeof *schema_index_names; i++) {
		char drop[96];

		snprintf(drop, sizeof drop, "DROP INDEX IF EXISTS %s", schema_index_names[i]);
		if (index_store_exec(st, drop, err) != 0)
			return LT_ERR_DB;
	}
	return 0;
}

/*
 * The second thread of lt_store_ingest_end: its early job at once, its during job once the
 * audit indexes are built (ready), unless their build failed (go 0).
 */
struct schema_job {
	const struct lt_ingest_beside *beside;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready, go;
};

static void schema_job_release(struct schema_job *j, int go)
{
	pthread_mutex_lock(&j->mu);
	j->ready = 1;
	j->go = go;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

static void *schema_job_run(void *arg)
{
	struct schema_job *j = arg;
	int go;

	if (j->beside->early != NULL)
		j->beside->early(j->beside->ctx);
	pthread_mutex_lock(&j->mu);
	while (!j->ready)
		pthread_cond_wait(&j->cv, &j->mu);
	go = j->go;
	pthread_mutex_unlock(&j->mu);
	if (go && j->beside->during != NULL)
		j->beside->during(j->beside->ctx);
	return NULL;
}

/* Runs a job of beside on this thread, if there is one. */
static void schema_job_here(const struct lt_ingest_beside *beside, int during)
{
	void (*job)(void *) = beside == NULL ? NULL : during ? beside->during : beside->early;

	if (job != NULL)
		job(beside->ctx);
}

/* The audit indexes, which what runs during the rest reads through. */
static int schema_build_beside_indexes(struct lt_store *st, struct lt_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < SCHEMA_BESIDE_INDEXES && rc == 0; i++)
		rc = index_store_exec(st, schema_index_sql[i], err);
	return rc;
}

int lt_store_ingest_end(struct lt_store *st, const struct lt_ingest_beside *beside,
			struct lt_error *err)
{
	struct schema_job job = {.beside = beside};
	pthread_t worker;
	int started = 0, rc;

	if (!st->deferred_indexes) {
		schema_job_here(beside, 0);
		schema_job_here(beside, 1);
		return 0;
	}
	st->deferred_indexes = 0;
	pthread_mutex_init(&job.mu, NULL);
	pthread_cond_init(&job.cv, NULL);
	if (beside != NULL && (beside->early != NULL || beside->during != NULL))
		started = pthread_create(&worker, NULL, schema_job_run, &job) == 0;
	if (!started)
		schema_job_here(beside, 0);
	/*
	 * the audit indexes first: the during job reads through both (the lease feed names
	 * audit_object too; begun after audit_rtv alone, its prepare failed and every
	 * lifecycle was computed afterwards, on this thread)
	 */
	rc = lt_store_set_cache(st, INDEX_BUILD_CACHE_KIB, err);
	if (rc == 0)
		rc = schema_build_beside_indexes(st, err);
	if (started)
		schema_job_release(&job, rc == 0);
	else if (rc == 0)
		schema_job_here(beside, 1);
	if (rc == 0)
		rc = index_store_create_indexes(st, err);
	/* the lifecycles after it read on the whole cache (the lease rebuild's pages) */
	if (lt_store_set_cache(st, INDEX_CACHE_KIB, rc == 0 ? err : NULL) != 0 && rc == 0)
		rc = LT_ERR_DB;
	if (started)
		pthread_join(worker, NULL);
	pthread_cond_destroy(&job.cv);
	pthread_mutex_destroy(&job.mu);
	return rc;
}

int lt_store_bulk_loading(const struct lt_store *st)
{
	return st->deferred_indexes;
}

int lt_store_has_lease_bodies(struct lt_store *st)
{
	sqlite3_stmt *q;
	int yes = 1;

	if (index_store_prepare_raw(st, &q, "SELECT count(*) FROM meta WHERE key = 'lease_bodies'",
				    NULL))
		return 1;
	if (sqlite3_step(q) == SQLITE_ROW)
		yes = sqlite3_column_int(q, 0) > 0;
	sqlite3_finalize(q);
	return yes;
}

/* ---- derived tables, registered by the layers above ------------------------------------ */

int lt_store_derived_state(struct lt_store *st, const char *name, struct lt_derived_state *out)
{
	sqlite3_stmt *q;

	memset(out, 0, sizeof *out);
	/* a store older than the derived table has no record: not an error */
	if (index_store_prepare_raw(
		st, &q, "SELECT version, event_id, line_id FROM derived WHERE name = ?1", NULL) !=
	    0)
		return 0;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW) {
		out->known = 1;
		out->version = sqlite3_column_int(q, 0);
		out->event_id = sqlite3_column_int64(q, 1);
		out->line_id = sqlite3_column_int64(q, 2);
	}
	sqlite3_finalize(q);
	return 0;
}

/* Runs a NULL-terminated list of statements; a NULL list runs none. */
static int schema_run_list(struct lt_store *st, const char *const *sql, struct lt_error *err)
{
	for (size_t i = 0; sql != NULL && sql[i] != NULL; i++)
		if (index_store_exec(st, sql[i], err) != 0)
			return LT_ERR_DB;
	return 0;
}

int lt_store_derive(struct lt_store *st, const struct lt_derived *d, struct lt_derived_state *state,
		    struct lt_error *err)
{
	assert(d != NULL && d->name != NULL && d->version > 0);
	lt_store_derived_state(st, d->name, state);
	if (state->known && state->version > d->version)
		return lt_error_set(err, LT_ERR_DB,
				    "%s: its %s were built by a newer leasetrail (version %d, this "
				    "one knows %d): not written; use that leasetrail, or ingest "
				    "into a new store",
				    st->path, d->name, state->version, d->version);
	return st->readonly ? 0 : schema_run_list(st, d->schema, err);
}

int lt_store_derive_overlay(struct lt_store *st, const struct lt_derived *d, struct lt_error *err)
{
	return schema_run_list(st, d->overlay, err);
}

void lt_store_newest(struct lt_store *st, int64_t *event_id, int64_t *line_id)
{
	sqlite3_stmt *q;

	*event_id = *line_id = 0;
	if (index_store_prepare_raw(st, &q,
				    "SELECT coalesce((SELECT max(id) FROM audit), 0),"
				    " coalesce((SELECT max(id) FROM lines_row), 0)",
				    NULL) != 0)
		return;
	if (sqlite3_step(q) == SQLITE_ROW) {
		*event_id = sqlite3_column_int64(q, 0);
		*line_id = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
}

int lt_store_derived_mark(struct lt_store *st, const struct lt_derived *d,
			  const struct lt_derived_state *covers, struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(st, &q, "INSERT OR REPLACE INTO derived VALUES(?1, ?2, ?3, ?4)",
				    err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_text(q, 1, d->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 2, d->version);
	sqlite3_bind_int64(q, 3, covers->event_id);
	sqlite3_bind_int64(q, 4, covers->line_id);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0
				 : index_store_db_error(st, err, "cannot record a derived table");
}

int lt_store_derived_stale(struct lt_store *st, const struct lt_derived *d, struct lt_error *err)
{
	sqlite3_stmt *q;
	int rc;

	if (index_store_prepare_raw(
		st, &q, "UPDATE derived SET event_id = ?2, line_id = ?2 WHERE name = ?1", err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_text(q, 1, d->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, LT_DERIVED_STALE);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE
		   ? 0
		   : index_store_db_error(st, err, "cannot mark a derived table stale");
}
