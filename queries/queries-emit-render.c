/*
 * queries-emit-render.c - what the engines' renderings share: the head
 * comments, and the one SQL statement both SQL engines (BigQuery, Athena)
 * write, their differences (time bins, the latest value, quoting, fields)
 * taken from the engine.
 *
 * The statement: SELECT the keys and aggregates (a summary) or the listed
 * fields, each under its neutral name (time as event_time: TIME is a word
 * of SQL), FROM the engine's source, WHERE the engine's range and cluster
 * conditions and the query's conjuncts, GROUP BY the keys by position; a
 * condition on the summary wraps it (SELECT * FROM (...) WHERE), since
 * Trino's HAVING cannot name the SELECT's aliases.
 */
#include "queries-emit.h"

#include <string.h>

#define RENDER_TIME_ALIAS "event_time"

void queries_emit_comment_value(struct lt_buf *b, const char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || *s == '\t')
			lt_buf_printf(b, "\\%c", *s == '\n' ? 'n' : *s == '\r' ? 'r' : 't');
		else
			lt_buf_putc(b, *s);
}

void queries_emit_head(const struct queries_emit_ctx *c, const char *reads)
{
	struct lt_buf title;

	lt_buf_init(&title);
	queries_emit_comment_value(&title, c->title); /* a timeline's target is the user's */
	lt_buf_printf(c->out, "%s leasetrail %s\n", c->eng->comment, title.ptr);
	lt_buf_release(&title);
	queries_emit_comment(c, "%s, %s", c->eng->title, reads);
	if (c->q->note != NULL)
		queries_emit_comment(c, "%s", c->q->note);
	queries_emit_missing(c);
}

const char *queries_emit_sort(const struct queries_emit_ctx *c, const char *alias_of_time)
{
	const struct queries_emit_field *f;

	if (c->q->fields[0] == NULL && !c->q->full) { /* a summary's column, if the engine has it */
		for (int i = 0; i < QUERIES_EMIT_MAX_AGGS && c->q->aggs[i].as != NULL; i++)
			if (strcmp(c->q->aggs[i].as, c->q->sort) == 0 &&
			    c->q->aggs[i].field != NULL &&
			    queries_emit_field(c, c->q->aggs[i].field) == NULL)
				return c->q->aggs[0].as; /* the count, then */
		return c->q->sort;
	}
	if (!c->q->full && strcmp(c->q->sort, "time") == 0 && alias_of_time != NULL)
		return alias_of_time;
	f = queries_emit_field(c, c->q->sort);
	return f != NULL ? f->expr : c->q->sort;
}

/* The SELECT list of a summary: keys under their names, then the aggregates. */
static void render_sql_summary(const struct queries_emit_ctx *c, const char *t, int *nkeys)
{
	struct lt_buf *b = c->out;
	int n = 0;

	for (int i = 0; i < QUERIES_EMIT_MAX_KEYS; i++) {
		const struct queries_emit_key *k = &c->q->keys[i];
		const struct queries_emit_field *f =
		    k->field ? queries_emit_field(c, k->field) : NULL;

		if (k->field == NULL && k->bin_s == 0)
			break;
		if (k->field != NULL && f == NULL)
			continue;
		lt_buf_printf(b, "%s  ", n++ > 0 ? ",\n" : "");
		if (f != NULL)
			lt_buf_printf(b, "%s AS %s", f->expr, k->field);
		else {
			c->eng->bin(b, t, k->bin_s);
			lt_buf_printf(b, " AS time_bin");
		}
	}
	*nkeys = n;
	for (int i = 0; i < QUERIES_EMIT_MAX_AGGS && c->q->aggs[i].as != NULL; i++) {
		const struct queries_emit_agg *a = &c->q->aggs[i];
		const struct queries_emit_field *f =
		    a->field ? queries_emit_field(c, a->field) : NULL;

		if (a->field != NULL && f == NULL)
			continue;
		lt_buf_printf(b, "%s  ", n++ > 0 ? ",\n" : "");
		switch (a->fn) {
		case QUERIES_AGG_COUNT:
			lt_buf_printf(b, "COUNT(*)");
			break;
		case QUERIES_AGG_FIRST:
		case QUERIES_AGG_LAST:
			lt_buf_printf(b, "%s(%s)", a->fn == QUERIES_AGG_FIRST ? "MIN" : "MAX", t);
			break;
		case QUERIES_AGG_MAX:
			lt_buf_printf(b, "MAX(%s)", f->expr);
			break;
		case QUERIES_AGG_LATEST:
			c->eng->latest(b, f->expr, t);
			break;
		}
		lt_buf_printf(b, " AS %s", a->as);
	}
}

static void render_sql_fields(const struct queries_emit_ctx *c)
{
	int n = 0;

	for (int i = 0; i < QUERIES_EMIT_MAX_FIELDS && c->q->fields[i] != NULL; i++) {
		const struct queries_emit_field *f = queries_emit_field(c, c->q->fields[i]);

		if (f == NULL)
			continue;
		lt_buf_printf(c->out, "%s  %s AS %s", n++ > 0 ? ",\n" : "", f->expr,
			      strcmp(c->q->fields[i], "time") == 0 ? RENDER_TIME_ALIAS
								   : c->q->fields[i]);
	}
}

void queries_emit_sql(const struct queries_emit_ctx *c, const char *star, const char *from,
		      const char *const *extra)
{
	const char *t = queries_emit_field(c, "time")->expr;
	struct lt_buf *b = c->out;
	int nkeys = 0, nwhere = 0, wrap = c->q->having != NULL;

	lt_buf_printf(b, "%s", wrap ? "SELECT *\nFROM (\n" : "");
	if (c->q->full) {
		lt_buf_printf(b, "SELECT %s", star);
	} else {
		lt_buf_printf(b, "SELECT\n");
		if (c->q->fields[0] != NULL)
			render_sql_fields(c);
		else
			render_sql_summary(c, t, &nkeys);
	}
	lt_buf_printf(b, "\nFROM %s\nWHERE ", from);
	for (; extra != NULL && extra[nwhere] != NULL; nwhere++)
		lt_buf_printf(b, "%s%s", nwhere > 0 ? "\n  AND " : "", extra[nwhere]);
	if (nwhere > 0 && c->q->where[0] != NULL)
		lt_buf_printf(b, "\n  AND ");
	queries_emit_where(c, b, 0, "\n  AND ");
	if (nkeys > 0) {
		lt_buf_printf(b, "\nGROUP BY ");
		for (int i = 1; i <= nkeys; i++)
			lt_buf_printf(b, "%s%d", i > 1 ? ", " : "", i);
	}
	if (wrap)
		lt_buf_printf(b, "\n)\nWHERE %s", c->q->having);
	lt_buf_printf(b, "\nORDER BY %s %s", queries_emit_sort(c, RENDER_TIME_ALIAS),
		      c->q->desc ? "DESC" : "ASC");
	if (c->q->limit > 0)
		lt_buf_printf(b, "\nLIMIT %d", c->q->limit);
	lt_buf_printf(b, ";\n");
}
