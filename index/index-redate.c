/*
 * index-redate.c - the year and zone of each text source, weighed again
 * against everything the store holds, and its lines moved when they change.
 *
 * A journal read alone takes its year from the file's mtime and, when its
 * header's zone word has several meanings ("CST"), the first; once the audit
 * log of the same cluster, or another file of the same host, is in the store,
 * the same rules pick again (lt_year_pick, with the audit events' range) and
 * the evidence chooses the zone: times written with a zone in the source's
 * own lines, another file of the host whose zone is certain, the audit events
 * on the host's node.  Whatever the order the files came in, a source ends
 * with the year and zone a single ingest of them all gives.  The lines are
 * moved in the store (redate_lines), never parsed again: each records
 * which of its times rest on the file's year and zone (lines.basis).
 * Runs after every ingest, in one transaction: a killed run is redone whole.
 * Moving a line changes rows that derived tables were built from without
 * adding one, so the same transaction marks the tables that read the lines'
 * times stale (lt_redate_opts.line_readers): the registry then rebuilds them,
 * and until it has, readers hear they are out of date.
 */
#include "index-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDATE_SLACK_US (5 * 60 * 1000000LL) /* audit and log clocks may differ a little */

/* A text source as log_sources holds it. */
struct redate_src {
	int64_t id, first_id, last_id, first_us, last_us, said_zone;
	int said_year, said_zone_set;
	struct lt_time_basis b;
	char *path, *host;
};

struct redate {
	struct lt_store *st;
	const struct lt_redate_opts *o;
	struct lt_error *err;
	int64_t audit_lo, audit_hi;
	struct redate_src *v;
	size_t n, cap;
	size_t moved; /* sources whose lines moved */
};

static const char redate_read_sql[] =
    "SELECT l.source_id, s.path, coalesce(l.first_id, 0), coalesce(l.last_id, 0),"
    " coalesce(l.first_us, 0), coalesce(l.last_us, 0), coalesce(l.year, 0),"
    " coalesce(l.year_rule_id, 0), l.year_raised, coalesce(l.first_local, 0),"
    " coalesce(l.head_lo, 0), coalesce(l.head_hi, 0), coalesce(l.mtime, 0), l.zone_us,"
    " l.zone_rule_id, coalesce(l.zone_name, ''), coalesce(l.said_year, 0), l.said_zone, l.host"
    " FROM log_sources AS l JOIN sources AS s ON s.id = l.source_id ORDER BY l.source_id";

enum redate_col {
	RC_ID,
	RC_PATH,
	RC_FIRST_ID,
	RC_LAST_ID,
	RC_FIRST_US,
	RC_LAST_US,
	RC_YEAR,
	RC_YEAR_RULE,
	RC_RAISED,
	RC_FIRST_LOCAL,
	RC_HEAD_LO,
	RC_HEAD_HI,
	RC_MTIME,
	RC_ZONE_US,
	RC_ZONE_RULE,
	RC_ZONE_NAME,
	RC_SAID_YEAR,
	RC_SAID_ZONE,
	RC_HOST,
};

static char *redate_dup(sqlite3_stmt *q, int i)
{
	const char *s = (const char *)sqlite3_column_text(q, i);

	return s ? lt_xstrdup(s) : NULL;
}

static void redate_row(struct redate_src *r, sqlite3_stmt *q)
{
	const char *zn = (const char *)sqlite3_column_text(q, RC_ZONE_NAME);

	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(q, RC_ID);
	r->path = redate_dup(q, RC_PATH);
	r->first_id = sqlite3_column_int64(q, RC_FIRST_ID);
	r->last_id = sqlite3_column_int64(q, RC_LAST_ID);
	r->first_us = sqlite3_column_int64(q, RC_FIRST_US);
	r->last_us = sqlite3_column_int64(q, RC_LAST_US);
	r->b.year = sqlite3_column_int(q, RC_YEAR);
	r->b.year_rule = (enum lt_year_rule)sqlite3_column_int(q, RC_YEAR_RULE);
	r->b.year_raised = sqlite3_column_int(q, RC_RAISED);
	r->b.first_local = sqlite3_column_int64(q, RC_FIRST_LOCAL);
	r->b.head_lo = sqlite3_column_int64(q, RC_HEAD_LO);
	r->b.head_hi = sqlite3_column_int64(q, RC_HEAD_HI);
	r->b.mtime_s = sqlite3_column_int64(q, RC_MTIME);
	r->b.zone_us = sqlite3_column_int64(q, RC_ZONE_US);
	r->b.zone_rule = (enum lt_zone_rule)sqlite3_column_int(q, RC_ZONE_RULE);
	snprintf(r->b.zone_name, sizeof r->b.zone_name, "%s", zn ? zn : "");
	r->said_year = sqlite3_column_int(q, RC_SAID_YEAR);
	r->said_zone_set = sqlite3_column_type(q, RC_SAID_ZONE) != SQLITE_NULL;
	r->said_zone = sqlite3_column_int64(q, RC_SAID_ZONE);
	r->host = redate_dup(q, RC_HOST);
}

/* Every text source, and the audit events' range; the sources are few (one per file). */
static int redate_read(struct redate *rd)
{
	sqlite3_stmt *q;
	int step;

	if (index_store_prepare_raw(rd->st, &q,
				    "SELECT (SELECT CAST(value AS INTEGER) FROM meta"
				    " WHERE key = 'audit_lo'), (SELECT CAST(value AS INTEGER) FROM"
				    " meta WHERE key = 'audit_hi')",
				    rd->err) != 0)
		return LT_ERR_DB;
	if (sqlite3_step(q) == SQLITE_ROW) {
		rd->audit_lo = sqlite3_column_int64(q, 0);
		rd->audit_hi = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	if (index_store_prepare_raw(rd->st, &q, redate_read_sql, rd->err) != 0)
		return LT_ERR_DB;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		LT_GROW(rd->v, rd->cap, rd->n + 1);
		redate_row(&rd->v[rd->n++], q);
	}
	sqlite3_finalize(q);
	return step == SQLITE_DONE ? 0
				   : index_store_db_error(rd->st, rd->err, "cannot read sources");
}

/* ---- the zone ---------------------------------------------------------------- */

static int redate_has(const struct lt_zone_name *z, int64_t off)
{
	for (int i = 0; i < z->n; i++)
		if (z->off_us[i] == off)
			return 1;
	return 0;
}

/* Another source of the same host whose zone is certain, when it is one of z's meanings. */
static int redate_by_host(const struct redate *rd, const struct redate_src *r,
			  const struct lt_zone_name *z, int64_t *off)
{
	for (size_t i = 0; r->host != NULL && i < rd->n; i++) {
		const struct redate_src *o = &rd->v[i];

		if (o == r || o->host == NULL || strcmp(o->host, r->host) != 0)
			continue;
		if ((o->b.zone_rule == LT_ZONE_GIVEN || o->b.zone_rule == LT_ZONE_HEADER) &&
		    redate_has(z, o->b.zone_us)) {
			*off = o->b.zone_us;
			return 1;
		}
	}
	return 0;
}

/* The time range of the audit events on the host's node (its Node or its lease), 0s if none. */
static void redate_node_range(const struct redate *rd, const char *host, int64_t *lo, int64_t *hi)
{
	sqlite3_stmt *q;
	char like[300];

	*lo = *hi = 0;
	snprintf(like, sizeof like, "%s.%%", host);
	if (index_store_prepare_raw(
		rd->st, &q,
		"SELECT min(a.stage_us), max(a.stage_us) FROM audit AS a"
		" WHERE a.resource_id IN (SELECT id FROM strs WHERE s IN ('leases', 'nodes'))"
		" AND a.name_id IN (SELECT id FROM strs WHERE s = ?1 OR s LIKE ?2)",
		NULL) != 0)
		return;
	sqlite3_bind_text(q, 1, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, like, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW) {
		*lo = sqlite3_column_int64(q, 0);
		*hi = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
}

/* The one meaning of z that puts the source's lines among the audit events, if one does. */
static int redate_by_audit(const struct redate *rd, const struct redate_src *r,
			   const struct lt_zone_name *z, int64_t *off)
{
	int64_t lo = 0, hi = 0, best = 0, local_lo = r->first_us + r->b.zone_us,
		local_hi = r->last_us + r->b.zone_us;
	int at = -1;

	if (r->host != NULL)
		redate_node_range(rd, r->host, &lo, &hi);
	if (hi == 0)
		lo = rd->audit_lo, hi = rd->audit_hi;
	if (hi == 0 || r->first_us == 0)
		return 0;
	for (int i = 0; i < z->n; i++) {
		int64_t a = local_lo - z->off_us[i], b = local_hi - z->off_us[i];
		int64_t ov = (b < hi + REDATE_SLACK_US ? b : hi + REDATE_SLACK_US) -
			     (a > lo - REDATE_SLACK_US ? a : lo - REDATE_SLACK_US) + 1;

		if (ov > best)
			best = ov, at = i;
		else if (ov == best && ov > 0)
			at = -2;
	}
	if (at < 0)
		return 0;
	*off = z->off_us[at];
	return 1;
}

/* The zone of a source whose header's word has several meanings; why into why. */
static void redate_zone(const struct redate *rd, const struct redate_src *r,
			struct lt_time_basis *nb, char *why, size_t cap)
{
	struct lt_zone_name z;
	int64_t off;

	if ((r->b.zone_rule != LT_ZONE_GUESS && r->b.zone_rule != LT_ZONE_EVIDENCE) ||
	    lt_zone_lookup(&z, r->b.zone_name, strlen(r->b.zone_name)) != 0 || z.n < 2)
		return;
	nb->zone_rule = LT_ZONE_EVIDENCE;
	if (r->said_zone_set && redate_has(&z, r->said_zone)) {
		nb->zone_us = r->said_zone;
		snprintf(why, cap, "times written with their zone in its lines");
	} else if (redate_by_host(rd, r, &z, &off)) {
		nb->zone_us = off;
		snprintf(why, cap, "another file of host %s", r->host);
	} else if (redate_by_audit(rd, r, &z, &off)) {
		nb->zone_us = off;
		snprintf(why, cap, "the audit events");
	} else {
		nb->zone_us = z.off_us[0];
		nb->zone_rule = LT_ZONE_GUESS;
		snprintf(why, cap,
			 "%s means %s%s%s or %s: taken as %s (--utc-offset says otherwise)",
			 r->b.zone_name, z.where[0], z.n > 2 ? ", " : "", z.n > 2 ? z.where[1] : "",
			 z.where[z.n - 1], z.where[0]);
	}
}

/* ---- the year ---------------------------------------------------------------- */

static void redate_year(const struct redate *rd, const struct redate_src *r,
			struct lt_time_basis *nb)
{
	int y, mon, day, year, raised;
	int64_t tod;
	enum lt_year_rule rule;
	struct lt_year_hints h = {.head_lo = r->b.head_lo,
				  .audit_lo = rd->audit_lo,
				  .audit_hi = rd->audit_hi,
				  .said_year = 0,
				  .mtime_s = r->b.mtime_s};

	if (r->b.year == 0 || r->b.year_rule == LT_YEAR_GIVEN || r->b.year_rule == LT_YEAR_HEADER)
		return;
	lt_time_civil(r->b.first_local, &y, &mon, &day, &tod);
	/* said_year is the year of the first year-less time the lines' dates imply */
	h.said_year = r->said_year;
	year = lt_year_pick(&h, mon, day, tod, &rule, &raised);
	if (rule == LT_YEAR_CLOCK)
		return; /* nothing new: keep the year it was read with */
	nb->year = year;
	nb->year_rule = rule;
	nb->year_raised = raised;
	nb->first_local =
	    r->b.first_local + (lt_time_days_from_civil(year, (unsigned)mon, (unsigned)day) -
				lt_time_days_from_civil(y, (unsigned)mon, (unsigned)day)) *
				   86400000000LL;
}

/* ---- writing ----------------------------------------------------------------- */

/* The source's row with its new year and zone; its time range read again when lines moved. */
static int redate_save(struct redate *rd, const struct redate_src *r,
		       const struct lt_time_basis *nb, const char *why, int moved)
{
	struct index_basis_text t;
	sqlite3_stmt *u;
	char from[264];
	int rc;

	index_basis_texts(nb, &t);
	snprintf(from, sizeof from, "%.63s%s%.190s", t.zone_from, why[0] ? ": " : "", why);
	if (index_store_prepare_raw(
		rd->st, &u,
		"UPDATE log_sources SET year = ?2, year_rule = ?3, year_rule_id = ?4,"
		" year_raised = ?5, year_guess = ?6, first_local = ?7, zone_us = ?8,"
		" zone_rule_id = ?9, zone = CASE WHEN zone IS NULL THEN NULL ELSE ?10 END,"
		" zone_from = CASE WHEN zone IS NULL THEN zone_from ELSE ?11 END,"
		" first_us = CASE WHEN ?14 THEN (SELECT min(ts_us) FROM lines_row"
		"  WHERE id BETWEEN ?12 AND ?13 AND source_id = ?1) ELSE first_us END,"
		" last_us = CASE WHEN ?14 THEN (SELECT max(ts_us) FROM lines_row"
		"  WHERE id BETWEEN ?12 AND ?13 AND source_id = ?1) ELSE last_us END"
		" WHERE source_id = ?1",
		rd->err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(u, 1, r->id);
	if (nb->year != 0) {
		sqlite3_bind_int(u, 2, nb->year);
		sqlite3_bind_text(u, 3, t.year_from, -1, SQLITE_STATIC);
		sqlite3_bind_int(u, 4, (int)nb->year_rule);
		sqlite3_bind_int64(u, 7, nb->first_local);
	}
	sqlite3_bind_int(u, 5, nb->year_raised);
	sqlite3_bind_int(u, 6, nb->year != 0 && lt_year_rule_guess(nb->year_rule));
	sqlite3_bind_int64(u, 8, nb->zone_us);
	sqlite3_bind_int(u, 9, (int)nb->zone_rule);
	sqlite3_bind_text(u, 10, t.zone, -1, SQLITE_STATIC);
	sqlite3_bind_text(u, 11, from, -1, SQLITE_STATIC);
	sqlite3_bind_int64(u, 12, r->first_id);
	sqlite3_bind_int64(u, 13, r->last_id);
	sqlite3_bind_int(u, 14, moved);
	rc = sqlite3_step(u);
	sqlite3_finalize(u);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(rd->st, rd->err, "cannot re-date");
}

static void redate_note(const struct redate *rd, const struct redate_src *r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void redate_note(const struct redate *rd, const struct redate_src *r, const char *fmt, ...)
{
	char text[384];
	va_list ap;

	if (rd->o == NULL || rd->o->note == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	rd->o->note(r->path ? r->path : "-", text, rd->o->ctx);
}

/* What ingest says of a source: its re-dating, and what it still only guesses. */
static void redate_tell(const struct redate *rd, const struct redate_src *r,
			const struct lt_time_basis *nb, const char *why)
{
	struct index_basis_text t;
	int fresh = r->id > rd->o->new_since;

	index_basis_texts(nb, &t);
	if (nb->year != r->b.year)
		redate_note(rd, r, "%s: year %d (%s), %s %d (%s)", fresh ? "dated" : "re-dated",
			    nb->year, t.year_from, fresh ? "not" : "was", r->b.year,
			    lt_year_rule_name(r->b.year_rule));
	if (nb->zone_us != r->b.zone_us)
		redate_note(rd, r, "%s: zone %s (%s), not the first meaning of %s",
			    fresh ? "dated" : "re-dated", t.zone, why, r->b.zone_name);
	if (fresh && nb->year != 0 && lt_year_rule_guess(nb->year_rule))
		redate_note(rd, r,
			    "the year %d of its times is a guess (%s); --year, or the audit log"
			    " of the same cluster, says it",
			    nb->year, t.year_from);
	if (fresh && nb->zone_rule == LT_ZONE_GUESS)
		redate_note(rd, r, "zone %s: %s", r->b.zone_name, why);
}

/* True when the year or zone (or what says where they came from) differs from the stored. */
static int redate_changed(const struct redate_src *r, const struct lt_time_basis *nb)
{
	return nb->year != r->b.year || nb->year_rule != r->b.year_rule ||
	       nb->year_raised != r->b.year_raised || nb->zone_us != r->b.zone_us ||
	       nb->zone_rule != r->b.zone_rule;
}

enum redate_line_col { RL_ID, RL_TS, RL_KLOG, RL_BASIS };

/* One update of a re-dating run, reset for the next line. */
static int redate_line_step(struct lt_store *st, sqlite3_stmt *s, struct lt_error *err)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : index_store_db_error(st, err, "cannot re-date a log line");
}

/* One line moved: its times (schema 11: no key to move with them); k clears its klog_us. */
static int redate_line(struct lt_store *st, sqlite3_stmt *q, sqlite3_stmt *u, sqlite3_stmt *k,
		       const int64_t m[3], struct lt_error *err)
{
	unsigned b = (unsigned)sqlite3_column_int(q, RL_BASIS);
	int64_t ts, klog;

	ts = lt_time_redate(sqlite3_column_int64(q, RL_TS), b & LT_BASIS_TS_YEAR,
			    b & LT_BASIS_TS_ZONE, (int)m[0], m[1], m[2]);
	klog = sqlite3_column_int64(q, RL_KLOG);
	if (klog != 0)
		klog = lt_time_redate(klog, b & LT_BASIS_KLOG_YEAR, b & LT_BASIS_KLOG_ZONE,
				      (int)m[0], m[1], m[2]);
	sqlite3_bind_int64(u, 1, sqlite3_column_int64(q, RL_ID));
	sqlite3_bind_int64(u, 2, ts);
	if (klog != 0)
		sqlite3_bind_int64(u, 3, klog);
	if (redate_line_step(st, u, err) != 0)
		return LT_ERR_DB;
	sqlite3_bind_int64(k, 1, sqlite3_column_int64(q, RL_ID));
	return redate_line_step(st, k, err);
}

/* The statements of a re-dating: the lines read, a line moved. */
static const char *const redate_lines_sql[] = {
    ("SELECT id, ts_us, " INDEX_KLOG_US_SQL(
	"") ", basis FROM lines"
	    " WHERE id BETWEEN ?1 AND ?2 AND source_id = ?3 AND basis != 0 ORDER BY id"),
    "UPDATE lines_row SET ts_d = " LT_LINE_TS_D_SQL("?2") ", klog_d = ?3 - ?2 WHERE id = ?1",
    /* a klog time of schema 6 and before (lines_more, schema 12) now lies in klog_d */
    "UPDATE lines_more SET klog_us = NULL WHERE id = ?1 AND klog_us IS NOT NULL",
};

enum { RLS_READ, RLS_MOVE, RLS_KLOG, RLS_N };

static void redate_lines_finalize(sqlite3_stmt *s[RLS_N])
{
	for (int i = 0; i < RLS_N; i++)
		sqlite3_finalize(s[i]);
}

/*
 * Moves the lines of a source (ids first..last) from one year and zone to another
 * (lt_time_redate on the times each line rests on, lines.basis).  Inside the caller's
 * transaction.
 */
static int redate_lines(struct lt_store *st, int64_t source_id, int64_t first, int64_t last, int dy,
			int64_t old_zone, int64_t new_zone, struct lt_error *err)
{
	const int64_t m[3] = {dy, old_zone, new_zone};
	sqlite3_stmt *s[RLS_N] = {NULL};
	int rc = 0, step;

	for (int i = 0; i < RLS_N; i++)
		if (index_store_prepare_raw(st, &s[i], redate_lines_sql[i], err) != 0) {
			redate_lines_finalize(s);
			return LT_ERR_DB;
		}
	sqlite3_bind_int64(s[RLS_READ], 1, first);
	sqlite3_bind_int64(s[RLS_READ], 2, last);
	sqlite3_bind_int64(s[RLS_READ], 3, source_id);
	while (rc == 0 && (step = sqlite3_step(s[RLS_READ])) == SQLITE_ROW)
		rc = redate_line(st, s[RLS_READ], s[RLS_MOVE], s[RLS_KLOG], m, err);
	if (rc == 0 && step != SQLITE_DONE)
		rc = index_store_db_error(st, err, "cannot read the lines to re-date");
	redate_lines_finalize(s);
	return rc;
}

/*
 * One source: its lines move when its year or zone changes.  Its row is
 * written when something changed, when this run read it, or when its zone
 * rests on evidence (whose words may change): never a pass over every
 * source's lines on each ingest.
 */
static int redate_one(struct redate *rd, const struct redate_src *r)
{
	struct lt_time_basis nb = r->b;
	char why[192] = "";
	int rc = 0, moved, fresh = rd->o == NULL || r->id > rd->o->new_since;

	redate_zone(rd, r, &nb, why, sizeof why);
	redate_year(rd, r, &nb);
	moved = (nb.year != r->b.year || nb.zone_us != r->b.zone_us) && r->last_id > 0;
	rd->moved += (size_t)moved;
	if (moved)
		rc = redate_lines(rd->st, r->id, r->first_id, r->last_id, nb.year - r->b.year,
				  r->b.zone_us, nb.zone_us, rd->err);
	if (rc == 0 && (redate_changed(r, &nb) || fresh || why[0]))
		rc = redate_save(rd, r, &nb, why, moved);
	if (rc == 0 && rd->o != NULL)
		redate_tell(rd, r, &nb, why);
	return rc;
}

/* Lines moved: the tables built from their times no longer stand for them. */
static int redate_mark_stale(const struct redate *rd)
{
	const struct lt_derived *const *d = rd->o != NULL ? rd->o->line_readers : NULL;

	for (size_t i = 0; rd->moved > 0 && d != NULL && d[i] != NULL; i++)
		if (lt_store_derived_stale(rd->st, d[i], rd->err) != 0)
			return LT_ERR_DB;
	return 0;
}

int lt_store_redate(struct lt_store *st, const struct lt_redate_opts *o, struct lt_error *err)
{
	struct redate rd = {.st = st, .o = o, .err = err};
	int rc;

	if (index_store_exec(st, "BEGIN IMMEDIATE", err) != 0)
		return LT_ERR_DB;
	rc = redate_read(&rd);
	for (size_t i = 0; rc == 0 && i < rd.n; i++)
		rc = redate_one(&rd, &rd.v[i]);
	rc = rc == 0 ? redate_mark_stale(&rd) : rc;
	rc = rc == 0 ? index_store_exec(st, "COMMIT", err) : rc;
	if (rc != 0)
		index_store_exec(st, "ROLLBACK", NULL);
	for (size_t i = 0; i < rd.n; i++) {
		free(rd.v[i].path);
		free(rd.v[i].host);
	}
	free(rd.v);
	return rc;
}

int64_t lt_store_last_source(struct lt_store *st)
{
	sqlite3_stmt *q;
	int64_t id = 0;

	if (index_store_prepare_raw(st, &q, "SELECT coalesce(max(id), 0) FROM sources", NULL) != 0)
		return 0;
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return id;
}
