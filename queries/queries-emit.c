/*
 * queries-emit.c - each canned query, and the events query, written once
 * for every engine `--emit` writes (queries-emit.h says the language).
 *
 * The table below is the one description of each canned query outside the
 * store: what it filters, what it lists or sums up, and a note on what an
 * engine cannot compute the way the store does (no per-row lag: gaps and
 * holder changes come out as per-lease summaries to read; no episodes: the
 * node-controller's writes per 5 minutes stand for NotReady windows).  The
 * translator turns a neutral conjunct into the engine's words, quoting
 * every value (the user's through the engine's literal(), after refusing
 * control bytes other than tab, newline and carriage return).
 */
#include "queries-emit.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMIT_GC	 "'system:serviceaccount:kube-system:generic-garbage-collector'"
#define EMIT_NC	 "'system:serviceaccount:kube-system:node-controller'"
#define EMIT_RNW "verb in ('update', 'patch')"
#define COUNT(col)                                                                                 \
	{                                                                                          \
		.fn = QUERIES_AGG_COUNT, .as = (col)                                               \
	}
#define FIRST(col)                                                                                 \
	{                                                                                          \
		.fn = QUERIES_AGG_FIRST, .as = (col)                                               \
	}
#define LAST(col)                                                                                  \
	{                                                                                          \
		.fn = QUERIES_AGG_LAST, .as = (col)                                                \
	}
#define LATEST(f, col)                                                                             \
	{                                                                                          \
		.fn = QUERIES_AGG_LATEST, .field = (f), .as = (col)                                \
	}
#define KEY(f)                                                                                     \
	{                                                                                          \
		.field = (f)                                                                       \
	}
#define BIN(s)                                                                                     \
	{                                                                                          \
		.bin_s = (s)                                                                       \
	}

static const struct queries_emit_query emit_queries[] = {
    {.name = "renew-gaps",
     .note = "no per-row lag(): renews per lease and minute; a sparse or missing minute is a gap",
     .where = {"resource = 'leases'", EMIT_RNW, "code >= 200", "code < 300"},
     .keys = {KEY("namespace"), KEY("name"), BIN(60)},
     .aggs = {COUNT("renews"), FIRST("first_renew"), LAST("last_renew")},
     .having = "renews <= 2",
     .sort = "first_renew",
     .limit = 10000},
    {.name = "orphaned-kubelets",
     .note = "a long run of 404s on a node lease is a kubelet whose node was deleted",
     .where = {"resource = 'leases'", "namespace = 'kube-node-lease'", "code = 404"},
     .keys = {KEY("name"), KEY("user"), KEY("ip")},
     .aggs = {COUNT("requests"), FIRST("first_404"), LAST("last_404")},
     .sort = "first_404"},
    {.name = "who-deleted",
     .where = {"verb = 'delete'", "resource in ('leases', 'nodes')", "stage = 'ResponseComplete'"},
     .fields = {"time", "resource", "namespace", "name", "code", "user", "identity", "impersonated",
		"group0", "ip", "agent", "auditid"},
     .sort = "time"},
    {.name = "gc-deletes",
     .note = "node deletions and the garbage collector's lease deletions, in time order: read "
	     "them in pairs",
     .where = {"verb = 'delete'", "stage = 'ResponseComplete'",
	       "(resource = 'nodes' or (resource = 'leases' and user = " EMIT_GC "))"},
     .fields = {"time", "resource", "namespace", "name", "code", "user", "ip", "agent"},
     .sort = "time"},
    {.name = "recreations",
     .note = "a create (201) whose first is after a delete's or a 404 run's last is a "
	     "re-creation",
     .where = {"resource = 'leases'", "stage = 'ResponseComplete'",
	       "((verb = 'create' and code = 201) or (verb = 'delete' and code < 300) or code = "
	       "404)"},
     .keys = {KEY("namespace"), KEY("name"), KEY("verb"), KEY("code")},
     .aggs = {COUNT("requests"), FIRST("first"), LAST("last"), LATEST("user", "by_user")},
     .sort = "first"},
    {.name = "auth-failures",
     .note = "then check the user's ClusterRoles and bindings: kubectl auth can-i update leases "
	     "-n NS --as USER",
     .where = {"resource = 'leases'", "code in (401, 403)"},
     .keys = {KEY("namespace"), KEY("name"), KEY("user")},
     .aggs = {COUNT("requests"), FIRST("first"), LAST("last"), LATEST("reason", "reason")},
     .sort = "first"},
    {.name = "leader-changes",
     .note = "one row per lease and renewer: a new renewer (source IP, or holder at "
	     "RequestResponse level) is a new leader",
     .where = {"resource = 'leases'", "namespace != 'kube-node-lease'", EMIT_RNW, "code = 200"},
     .keys = {KEY("namespace"), KEY("name"), KEY("ip")},
     .aggs = {COUNT("renews"), FIRST("first_renew"), LAST("last_renew"),
	      LATEST("holder", "holder")},
     .sort = "first_renew"},
    {.name = "apiserver-identity",
     .note = "an identity lease whose last_renew is over 1h before the range's end has expired;"
	     " over 40s before it (4 renews missed), its apiserver stopped (stale)",
     .where = {"resource = 'leases'", "namespace = 'kube-system'", "name ~ '^(kube-)?apiserver-'",
	       "code < 300"},
     .keys = {KEY("name")},
     .aggs = {COUNT("renews"), FIRST("first_seen"), LAST("last_renew"), LATEST("holder", "holder")},
     .sort = "last_renew",
     .desc = 1},
    {.name = "slow-renewals",
     .note = "latency = stageTimestamp - requestReceivedTimestamp",
     .where = {"resource = 'leases'", EMIT_RNW, "stage = 'ResponseComplete'", "latency > $slow"},
     .keys = {KEY("namespace"), KEY("name"), KEY("user")},
     .aggs = {COUNT("requests"),
	      {.fn = QUERIES_AGG_MAX, .field = "latency", .as = "max_latency_s"},
	      FIRST("first"),
	      LAST("last")},
     .sort = "max_latency_s",
     .desc = 1},
    {.name = "node-registrations",
     .note = "a 409 by the node's own kubelet (system:node:NAME) is a restart re-registering: "
	     "the node existed",
     .where = {"resource = 'nodes'", "verb = 'create'", "stage = 'ResponseComplete'"},
     .fields = {"time", "name", "code", "user", "ip", "agent"},
     .sort = "time"},
    {.name = "kubelet-errors",
     .source = QUERIES_SRC_KUBELET,
     .note = "per node and klog location (file.go:line: the kind of error), with the latest as "
	     "a sample",
     .where = {"(severity in ('E', 'F') or text ~ '(?i)fail|error|not found')"},
     .keys = {KEY("host"), KEY("location")},
     .aggs = {COUNT("errors"), FIRST("first"), LAST("last"), LATEST("text", "sample")},
     .sort = "errors",
     .desc = 1},
    {.name = "not-ready",
     .note =
	 "no per-node state: the node-controller's nodes/status update (Ready=Unknown) "
	 "starts a window, its Node PATCHes add then remove the taints; Ready=False, the "
	 "kubelet's message and the cause need RequestResponse bodies and the kubelet's journal",
     .where = {"resource = 'nodes'", EMIT_RNW, "stage = 'ResponseComplete'", "user = " EMIT_NC},
     .keys = {KEY("name"), KEY("subresource"), BIN(300)},
     .aggs = {COUNT("writes"), FIRST("first"), LAST("last")},
     .sort = "first"},
    {.name = "evictions",
     .note = "pod deletes by the node-controller (taint eviction), if the audit policy logs "
	     "pods; a DELETE does not name the pod's node: find it in the pod's binding or the "
	     "kubelet's lines",
     .where = {"resource = 'pods'", "verb = 'delete'", "stage = 'ResponseComplete'",
	       "user = " EMIT_NC},
     .fields = {"time", "namespace", "name", "code", "user", "auditid"},
     .sort = "time"},
};

static const struct queries_emit_query *emit_find(const char *name)
{
	for (size_t i = 0; i < sizeof emit_queries / sizeof *emit_queries; i++)
		if (strcmp(emit_queries[i].name, name) == 0)
			return &emit_queries[i];
	return NULL;
}

/* ---- the neutral language ------------------------------------------------ */

enum emit_tok { TOK_END, TOK_WORD, TOK_STRING, TOK_NUMBER, TOK_VAR, TOK_OP, TOK_PUNCT };

struct emit_lex {
	const char *p;
	enum emit_tok t;
	const char *s; /* the token (a string without its quotes) */
	size_t n;
};

static int lex_word_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* The next token of the neutral text (ours: well formed by construction). */
static void lex_next(struct emit_lex *l)
{
	while (*l->p == ' ')
		l->p++;
	l->s = l->p;
	if (*l->p == '\0') {
		l->t = TOK_END;
		l->n = 0;
	} else if (*l->p == '\'') {
		l->s = ++l->p;
		l->p += strcspn(l->p, "'");
		l->t = TOK_STRING;
		l->n = (size_t)(l->p - l->s);
		l->p += *l->p == '\'';
	} else if (*l->p == '$' || lex_word_char(*l->p)) {
		l->t = *l->p == '$'			? TOK_VAR
		       : (*l->p >= '0' && *l->p <= '9') ? TOK_NUMBER
							: TOK_WORD;
		for (l->p++; lex_word_char(*l->p) || *l->p == '.'; l->p++)
			;
		l->n = (size_t)(l->p - l->s);
	} else if (strchr("=!<>~", *l->p) != NULL) {
		l->p += 1 + (l->p[1] == '=');
		l->t = TOK_OP;
		l->n = (size_t)(l->p - l->s);
	} else {
		l->t = TOK_PUNCT;
		l->n = 1;
		l->p++;
	}
}

static void emit_puts(struct lt_buf *b, const char *s)
{
	lt_buf_append(b, s, strlen(s));
}

static int lex_is(const struct emit_lex *l, const char *word)
{
	return l->n == strlen(word) && memcmp(l->s, word, l->n) == 0;
}

const struct queries_emit_field *queries_emit_field(const struct queries_emit_ctx *c,
						    const char *name)
{
	const struct queries_emit_field *f = c->eng->fields(c->table, c->q->source);

	for (; f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return f->expr != NULL ? f : NULL;
	return NULL;
}

static const struct queries_emit_field *emit_field_n(const struct queries_emit_ctx *c,
						     const char *s, size_t n)
{
	char name[32];

	if (n >= sizeof name)
		return NULL;
	memcpy(name, s, n);
	name[n] = '\0';
	return queries_emit_field(c, name);
}

/* One value: a literal, $slow, or the $N list (its values into v, at most max). */
static size_t emit_value(const struct queries_emit_ctx *c, const struct emit_lex *l,
			 struct queries_emit_val *v, size_t max, char *slow, size_t slow_size)
{
	if (l->t == TOK_VAR && lex_is(l, "$slow")) {
		queries_emit_seconds(slow, slow_size,
				     c->o != NULL && c->o->slow_us > 0 ? c->o->slow_us : 1000000);
		v[0] = (struct queries_emit_val){.s = slow, .n = strlen(slow)};
		return 1;
	}
	if (l->t == TOK_VAR) {
		const struct queries_emit_list *list = &c->lists[(l->s[1] - '0') % 4];
		size_t k = 0;

		for (; k < list->n && k < max; k++)
			v[k] = (struct queries_emit_val){
			    .s = list->v[k], .n = strlen(list->v[k]), .quoted = 1};
		return k;
	}
	v[0] = (struct queries_emit_val){.s = l->s, .n = l->n, .quoted = l->t == TOK_STRING};
	return 1;
}

static void emit_literal(const struct queries_emit_ctx *c, struct lt_buf *b,
			 const struct queries_emit_val *v)
{
	if (v->quoted)
		c->eng->literal(b, v->s, v->n);
	else
		lt_buf_append(b, v->s, v->n);
}

/* `field op value`, through the engine's own atom when it has one. */
static void emit_atom(const struct queries_emit_ctx *c, struct lt_buf *b, const char *field,
		      const char *expr, const char *op, const struct queries_emit_val *v)
{
	if (c->eng->atom != NULL && c->eng->atom(c, b, field, op, v))
		return;
	if (strcmp(op, "~") == 0) {
		c->eng->regex(b, expr, v->s, v->n);
		return;
	}
	lt_buf_printf(b, "%s %s ", expr,
		      strcmp(op, "=") == 0    ? c->eng->op_eq
		      : strcmp(op, "!=") == 0 ? c->eng->op_ne
					      : op);
	emit_literal(c, b, v);
}

#define EMIT_MAX_VALUES 4096

/* `field in (values)`: the engine's list, or an OR of atoms. */
static void emit_in(const struct queries_emit_ctx *c, struct lt_buf *b, const char *field,
		    const char *expr, const struct queries_emit_val *v, size_t n)
{
	int list = c->eng->in_open != NULL && (c->eng->atom == NULL || n == 0);

	if (n == 1 && !list) {
		emit_atom(c, b, field, expr, "=", v);
		return;
	}
	lt_buf_printf(b, "%s%s", list ? expr : "(", list ? c->eng->in_open : "");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			lt_buf_printf(b, "%s", list ? c->eng->in_sep : "");
		if (i > 0 && !list)
			lt_buf_printf(b, " %s ", c->eng->kw_or);
		if (list)
			emit_literal(c, b, &v[i]);
		else
			emit_atom(c, b, field, expr, "=", &v[i]);
	}
	emit_puts(b, list ? c->eng->in_close : ")");
}

/* A field's comparison, the lexer on the field; 0 or -1 (a field the records lack). */
static int emit_comparison(const struct queries_emit_ctx *c, struct lt_buf *b, struct emit_lex *l)
{
	static struct queries_emit_val v[EMIT_MAX_VALUES];
	const struct queries_emit_field *f = emit_field_n(c, l->s, l->n);
	char field[32], op[4], slow[32];
	size_t n = 0;

	snprintf(field, sizeof field, "%.*s", (int)l->n, l->s);
	lex_next(l);
	snprintf(op, sizeof op, "%.*s", (int)l->n, l->s);
	lex_next(l);
	if (strcmp(op, "in") == 0 && l->t == TOK_PUNCT) { /* ('a', 'b') */
		for (lex_next(l); l->t != TOK_END && !(l->t == TOK_PUNCT && *l->s == ')');
		     lex_next(l))
			if (l->t != TOK_PUNCT && n < EMIT_MAX_VALUES)
				n += emit_value(c, l, &v[n], 1, slow, sizeof slow);
	} else {
		n = emit_value(c, l, v, EMIT_MAX_VALUES, slow, sizeof slow);
	}
	lex_next(l);
	if (f == NULL)
		return -1;
	if (strcmp(op, "in") == 0)
		emit_in(c, b, field, f->expr, v, n);
	else
		emit_atom(c, b, field, f->expr, op, v);
	return 0;
}

int queries_emit_cond(const struct queries_emit_ctx *c, struct lt_buf *b, const char *conjunct)
{
	struct emit_lex l = {.p = conjunct};
	size_t start = b->len;
	int prev_open = 1;

	for (lex_next(&l); l.t != TOK_END;) {
		int close = l.t == TOK_PUNCT && *l.s == ')';

		if (!prev_open && !close)
			lt_buf_putc(b, ' ');
		prev_open = l.t == TOK_PUNCT && *l.s == '(';
		if (l.t == TOK_WORD &&
		    (lex_is(&l, "and") || lex_is(&l, "or") || lex_is(&l, "not"))) {
			emit_puts(b, lex_is(&l, "and")	? c->eng->kw_and
				     : lex_is(&l, "or") ? c->eng->kw_or
							: c->eng->kw_not);
			lex_next(&l);
		} else if (l.t == TOK_WORD) {
			if (emit_comparison(c, b, &l) != 0) {
				lt_buf_truncate(b, start);
				return -1;
			}
		} else {
			lt_buf_append(b, l.s, l.n);
			lex_next(&l);
		}
	}
	return 0;
}

int queries_emit_derived(const struct queries_emit_ctx *c, const char *text)
{
	struct emit_lex l = {.p = text};

	for (lex_next(&l); l.t != TOK_END; lex_next(&l)) {
		const struct queries_emit_field *f;

		if (l.t == TOK_WORD && (f = emit_field_n(c, l.s, l.n)) != NULL &&
		    f->prelude != NULL)
			return 1;
	}
	return 0;
}

int queries_emit_where(const struct queries_emit_ctx *c, struct lt_buf *b, int derived,
		       const char *sep)
{
	int n = 0;

	for (int i = 0; i < QUERIES_EMIT_MAX_WHERE && c->q->where[i] != NULL; i++) {
		size_t at = b->len;

		if (queries_emit_derived(c, c->q->where[i]) != derived)
			continue;
		if (n > 0)
			lt_buf_printf(b, "%s", sep);
		if (queries_emit_cond(c, b, c->q->where[i]) != 0)
			lt_buf_truncate(b, at);
		else
			n++;
	}
	return n;
}

void queries_emit_comment(const struct queries_emit_ctx *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	lt_buf_printf(c->out, "%s %s\n", c->eng->comment, line);
}

void queries_emit_missing(const struct queries_emit_ctx *c)
{
	struct lt_buf scratch;

	lt_buf_init(&scratch);
	for (int i = 0; i < QUERIES_EMIT_MAX_WHERE && c->q->where[i] != NULL; i++) {
		const char *w = c->q->where[i], *slow = strstr(w, "$slow");
		char secs[32];

		if (queries_emit_cond(c, &scratch, w) == 0)
			continue;
		queries_emit_seconds(secs, sizeof secs,
				     c->o != NULL && c->o->slow_us > 0 ? c->o->slow_us : 1000000);
		queries_emit_comment(c, "not in these records, so left out: %.*s%s%s",
				     (int)(slow ? slow - w : (int)strlen(w)), w, slow ? secs : "",
				     slow ? slow + strlen("$slow") : "");
	}
	for (int i = 0; i < QUERIES_EMIT_MAX_AGGS && c->q->aggs[i].as != NULL; i++)
		if (c->q->aggs[i].field != NULL &&
		    queries_emit_field(c, c->q->aggs[i].field) == NULL)
			queries_emit_comment(c, "not in these records, so left out: %s (%s)",
					     c->q->aggs[i].as, c->q->aggs[i].field);
	lt_buf_release(&scratch);
}

void queries_emit_c_quote(struct lt_buf *b, const char *s, size_t n, char quote)
{
	lt_buf_putc(b, quote);
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
			lt_buf_printf(b, "\\%c", s[i] == '\n' ? 'n' : s[i] == '\r' ? 'r' : 't');
		else if (s[i] == '\\' || s[i] == quote)
			lt_buf_printf(b, "\\%c", s[i]);
		else
			lt_buf_putc(b, s[i]);
	lt_buf_putc(b, quote);
}

void queries_emit_seconds(char *buf, size_t size, int64_t us)
{
	int n = snprintf(buf, size, "%" PRId64 ".%06" PRId64, us / 1000000, us % 1000000);

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

void queries_emit_range(const struct queries_emit_ctx *c, char *since, char *until, size_t size)
{
	since[0] = until[0] = '\0';
	if (c->o != NULL && c->o->since_us != 0)
		lt_time_format(since, size, c->o->since_us);
	if (c->o != NULL && c->o->until_us != 0)
		lt_time_format(until, size, c->o->until_us);
}

/* ---- the frame ------------------------------------------------------------ */

const struct queries_engine *queries_engine_of(enum lt_engine id)
{
	static const struct queries_engine *const engines[LT_ENGINE_COUNT] = {
	    [LT_ENGINE_CWLI] = &queries_engine_cwli,
	    [LT_ENGINE_KQL] = &queries_engine_kql,
	    [LT_ENGINE_LOGGING] = &queries_engine_logging,
	    [LT_ENGINE_BIGQUERY] = &queries_engine_bigquery,
	    [LT_ENGINE_ATHENA] = &queries_engine_athena,
	};

	return engines[(unsigned)id < LT_ENGINE_COUNT ? id : LT_ENGINE_CWLI];
}

const char *lt_engine_name(enum lt_engine e)
{
	static const char *const names[LT_ENGINE_COUNT] = {
	    [LT_ENGINE_CWLI] = "cwli",	     [LT_ENGINE_KQL] = "kql",
	    [LT_ENGINE_LOGGING] = "logging", [LT_ENGINE_BIGQUERY] = "bigquery",
	    [LT_ENGINE_ATHENA] = "athena",
	};

	return (unsigned)e < LT_ENGINE_COUNT ? names[e] : NULL;
}

int lt_engine_parse(enum lt_engine *out, const char *name)
{
	for (int e = 0; e < LT_ENGINE_COUNT; e++)
		if (strcmp(lt_engine_name((enum lt_engine)e), name) == 0) {
			*out = (enum lt_engine)e;
			return 0;
		}
	return LT_ERR_USAGE;
}

/* A value with a control byte no name holds (tab, newline and CR are escaped). */
static int emit_check_value(const char *what, const char *s, struct lt_error *err)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f)
			return lt_error_set(
			    err, LT_ERR_USAGE,
			    "%s: a control character (byte 0x%02x) is in no cluster, "
			    "node or lease name",
			    what, *p);
	return 0;
}

/* The engine's --table variant: its index in the engine's list, the default 0. */
static int emit_table(struct queries_emit_ctx *c, struct lt_error *err)
{
	const char *t = c->e != NULL ? c->e->table : NULL;

	c->table = 0;
	if (t == NULL)
		return 0;
	if (c->eng->tables == NULL)
		return lt_error_set(err, LT_ERR_USAGE, "--table is not for --emit %s (%s)",
				    lt_engine_name(c->eng->id), c->eng->table_help);
	if (c->eng->any_table)
		return emit_check_value("--table", t, err);
	for (int i = 0; c->eng->tables[i] != NULL; i++)
		if (strcmp(c->eng->tables[i], t) == 0) {
			c->table = i;
			return 0;
		}
	return lt_error_set(err, LT_ERR_USAGE, "--table for --emit %s: %s",
			    lt_engine_name(c->eng->id), c->eng->table_help);
}

static int emit_run(struct queries_emit_ctx *c, FILE *out, struct lt_error *err)
{
	struct lt_buf text;
	int rc;

	if (c->e != NULL && c->e->cluster != NULL &&
	    (rc = emit_check_value("--cluster", c->e->cluster, err)) != 0)
		return rc;
	for (int i = 0; i < QUERIES_EMIT_MAX_LISTS; i++)
		for (size_t k = 0; k < c->lists[i].n; k++)
			if ((rc = emit_check_value("a name", c->lists[i].v[k], err)) != 0)
				return rc;
	if ((rc = emit_table(c, err)) != 0)
		return rc;
	lt_buf_init(&text);
	c->out = &text;
	c->eng->render(c);
	fwrite(text.ptr, 1, text.len, out);
	lt_buf_release(&text);
	if (fflush(out) != 0 || ferror(out))
		return lt_error_set(err, LT_ERR_IO, "cannot write the query");
	return 0;
}

int lt_emit_canned(const char *name, const struct lt_query_opts *o, const struct lt_emit_opts *e,
		   FILE *out, struct lt_error *err)
{
	const struct queries_emit_query *q = emit_find(name);
	const char *summary = NULL;
	char title[512];

	if (q == NULL)
		return lt_error_set(err, LT_ERR_NOTFOUND,
				    "no canned query '%s' (`leasetrail query --list` names them)",
				    name);
	for (const struct lt_canned *k = lt_canned_list(); k->name; k++)
		if (strcmp(k->name, name) == 0)
			summary = k->summary;
	snprintf(title, sizeof title, "query %s%s%s", name, summary ? ": " : "",
		 summary ? summary : "");
	return emit_run(&(struct queries_emit_ctx){.q = q,
						   .eng = queries_engine_of(e ? e->engine : 0),
						   .o = o,
						   .e = e,
						   .title = title},
			out, err);
}

/* The events query's conjuncts: leases and Node objects, then the targets, if any. */
static void emit_events_query(struct queries_emit_query *q, const struct queries_emit_list *lists)
{
	int w = 0;

	*q = (struct queries_emit_query){.name = "events", .full = 1, .sort = "time"};
	q->where[w++] = "resource in ('leases', 'nodes')";
	if (lists[0].n > 0 && lists[1].n == 0)
		q->where[w++] =
		    "((resource = 'leases' and namespace = 'kube-node-lease' and name in "
		    "$0) or (resource = 'nodes' and name in $0))";
	else if (lists[0].n == 0 && lists[1].n > 0)
		q->where[w++] = "(resource = 'leases' and namespace in $1 and name in $2)";
	else if (lists[0].n > 0)
		q->where[w++] = "(((resource = 'leases' and namespace = 'kube-node-lease' and name "
				"in $0) or (resource = 'nodes' and name in $0)) or (resource = "
				"'leases' and namespace in $1 and name in $2))";
}

int lt_emit_events(const char *title, const char *const *targets, size_t ntargets,
		   const struct lt_query_opts *o, const struct lt_emit_opts *e, FILE *out,
		   struct lt_error *err)
{
	const char **nodes = lt_xcalloc(ntargets + 1, sizeof *nodes);
	const char **ns = lt_xcalloc(ntargets + 1, sizeof *ns);
	const char **names = lt_xcalloc(ntargets + 1, sizeof *names);
	char **owned = lt_xcalloc(ntargets + 1, sizeof *owned);
	struct queries_emit_query q;
	struct queries_emit_ctx c = {
	    .eng = queries_engine_of(e ? e->engine : 0), .o = o, .e = e, .title = title};
	size_t nn = 0, nl = 0;
	int rc;

	for (size_t i = 0; i < ntargets; i++) {
		const char *slash = strchr(targets[i], '/');

		if (slash == NULL) {
			nodes[nn++] = targets[i];
			continue;
		}
		owned[nl] = lt_xstrndup(targets[i], (size_t)(slash - targets[i]));
		ns[nl] = owned[nl];
		names[nl++] = slash + 1;
	}
	c.lists[0] = (struct queries_emit_list){.v = nodes, .n = nn};
	c.lists[1] = (struct queries_emit_list){.v = ns, .n = nl};
	c.lists[2] = (struct queries_emit_list){.v = names, .n = nl};
	emit_events_query(&q, c.lists);
	c.q = &q;
	rc = emit_run(&c, out, err);
	for (size_t i = 0; i < nl; i++)
		free(owned[i]);
	free(owned);
	free(nodes);
	free(ns);
	free(names);
	return rc;
}
