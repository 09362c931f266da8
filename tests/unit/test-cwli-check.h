/*
 * test-cwli-check.h - a checker of the CloudWatch Logs Insights query
 * grammar, for the tests of `query --emit cwli`.  Include after <cmocka.h>.
 *
 * What the CloudWatch documentation (CWL_QuerySyntax) describes: commands
 * separated by '|', '#' comments; fields/display take expressions with
 * "as" aliases; filter a boolean expression (and/or/not, comparisons,
 * like /re/ or "s", =~, in [...]); stats aggregates ("as" aliases) with a
 * "by" list (bin(period) allowed); sort FIELD [asc|desc]; limit N;
 * parse FIELD "glob"|/regex/ (named groups); dedup FIELDS.  After stats,
 * only its aliases and "by" fields exist: a later filter or sort on another
 * name is an error.  cq_check(q, text) is 0 for a well-formed query, else
 * -1 with q->err saying why and where.
 */
#ifndef LT_TEST_CWLI_CHECK_H
#define LT_TEST_CWLI_CHECK_H

#include <stdio.h>
#include <string.h>

enum tk { TK_END, TK_ID, TK_NUM, TK_STR, TK_RE, TK_OP, TK_PIPE };

struct tok {
	enum tk k;
	char s[512];
};

struct cq {
	struct tok t[512];
	int n, i;
	char names[64][64]; /* defined after stats */
	int nnames, after_stats;
	char err[200];
};

static int cq_fail(struct cq *q, const char *what)
{
	if (q->err[0] == '\0')
		snprintf(q->err, sizeof q->err, "%s at token %d ('%.120s')", what, q->i,
			 q->i >= 0 && q->i < q->n ? q->t[q->i].s : "<end>");
	return -1;
}

static int cq_is_idch(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '@' || c == '.' || c == '$';
}

/* A quoted string or a /regex/ from p; returns the byte after it, or NULL when unterminated. */
static const char *cq_quoted(struct tok *t, const char *p, char close)
{
	size_t n = 0;

	t->s[n++] = *p++;
	while (*p && *p != close && *p != '\n') {
		if (*p == '\\' && p[1])
			t->s[n++] = *p++;
		t->s[n++] = *p++;
		assert_true(n < sizeof t->s - 2);
	}
	if (*p != close)
		return NULL;
	t->s[n++] = *p++;
	t->s[n] = '\0';
	return p;
}

/* A '/' starts a regex after like, =~, or "parse FIELD". */
static int cq_regex_here(const struct cq *q)
{
	const struct tok *a = q->n > 0 ? &q->t[q->n - 1] : NULL,
			 *b = q->n > 1 ? &q->t[q->n - 2] : NULL;

	if (a == NULL)
		return 0;
	if ((a->k == TK_ID && strcmp(a->s, "like") == 0) ||
	    (a->k == TK_OP && strcmp(a->s, "=~") == 0))
		return 1;
	return a->k == TK_ID && b != NULL && b->k == TK_ID && strcmp(b->s, "parse") == 0;
}

static int cq_lex(struct cq *q, const char *text)
{
	static const char *const ops[] = {"!=", "<=", ">=", "=~", "=", "<", ">", "+", "-",
					  "*",	"/",  "%",  "^",  "(", ")", "[", "]", ","};
	const char *p = text;

	while (*p) {
		struct tok *t = &q->t[q->n];
		size_t n = 0;

		assert_true(q->n < 510);
		if (*p == ' ' || *p == '\n' || *p == '\t') {
			p++;
			continue;
		}
		if (*p == '#') { /* a comment runs to the end of its line */
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == '"' || *p == '\'' || (*p == '/' && cq_regex_here(q))) {
			t->k = *p == '/' ? TK_RE : TK_STR;
			if ((p = cq_quoted(t, p, *p)) == NULL)
				return cq_fail(q, "unterminated string or regex");
		} else if (*p == '|') {
			t->k = TK_PIPE;
			snprintf(t->s, sizeof t->s, "|");
			p++;
		} else if (cq_is_idch(*p)) {
			t->k = (*p >= '0' && *p <= '9') ? TK_NUM : TK_ID;
			while (cq_is_idch(*p) && n < sizeof t->s - 1)
				t->s[n++] = *p++;
			t->s[n] = '\0';
		} else {
			size_t i = 0;

			while (i < sizeof ops / sizeof *ops &&
			       strncmp(p, ops[i], strlen(ops[i])) != 0)
				i++;
			if (i == sizeof ops / sizeof *ops)
				return cq_fail(q, "unknown character");
			t->k = TK_OP;
			snprintf(t->s, sizeof t->s, "%s", ops[i]);
			p += strlen(ops[i]);
		}
		q->n++;
	}
	q->t[q->n].k = TK_END;
	snprintf(q->t[q->n].s, sizeof q->t[q->n].s, "<end>");
	return 0;
}

static int cq_is(const struct cq *q, enum tk k, const char *s)
{
	return q->t[q->i].k == k && (s == NULL || strcmp(q->t[q->i].s, s) == 0);
}

static int cq_accept(struct cq *q, enum tk k, const char *s)
{
	if (!cq_is(q, k, s))
		return 0;
	q->i++;
	return 1;
}

static int cq_defined(const struct cq *q, const char *name)
{
	for (int i = 0; i < q->nnames; i++)
		if (strcmp(q->names[i], name) == 0)
			return 1;
	return 0;
}

static void cq_define(struct cq *q, const char *name)
{
	size_t n = strnlen(name, sizeof q->names[0] - 1);

	assert_true(q->nnames < 64);
	memmove(q->names[q->nnames], name, n); /* name may be a token of q itself */
	q->names[q->nnames++][n] = '\0';
}

static int cq_expr(struct cq *q);

/* A name used as a value: after stats it must be one stats made. */
static int cq_field(struct cq *q, const char *name)
{
	static const char *const words[] = {"and", "or", "not", "in",  "like",
					    "as",  "by", "asc", "desc"};

	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strcmp(name, words[i]) == 0)
			return cq_fail(q, "keyword where a field was expected");
	if (q->after_stats && !cq_defined(q, name))
		return cq_fail(q, "field not produced by the stats before it");
	return 0;
}

static int cq_call(struct cq *q)
{
	if (cq_accept(q, TK_OP, ")"))
		return 0;
	do {
		if (cq_accept(q, TK_OP, "*"))
			continue;
		if (cq_expr(q) != 0)
			return -1;
	} while (cq_accept(q, TK_OP, ","));
	return cq_accept(q, TK_OP, ")") ? 0 : cq_fail(q, "')' expected");
}

static int cq_primary(struct cq *q)
{
	char name[512];

	if (cq_accept(q, TK_NUM, NULL) || cq_accept(q, TK_STR, NULL))
		return 0;
	if (cq_accept(q, TK_OP, "(")) {
		if (cq_expr(q) != 0)
			return -1;
		return cq_accept(q, TK_OP, ")") ? 0 : cq_fail(q, "')' expected");
	}
	if (cq_accept(q, TK_OP, "-"))
		return cq_primary(q);
	if (!cq_is(q, TK_ID, NULL))
		return cq_fail(q, "a value expected");
	snprintf(name, sizeof name, "%s", q->t[q->i++].s);
	if (cq_accept(q, TK_OP, "("))
		return cq_call(q); /* a function: its arguments are checked, not its name */
	return cq_field(q, name);
}

static int cq_arith(struct cq *q)
{
	static const char *const ops[] = {"+", "-", "*", "/", "%", "^"};

	if (cq_primary(q) != 0)
		return -1;
	for (;;) {
		size_t i = 0;

		while (i < sizeof ops / sizeof *ops && !cq_is(q, TK_OP, ops[i]))
			i++;
		if (i == sizeof ops / sizeof *ops)
			return 0;
		q->i++;
		if (cq_primary(q) != 0)
			return -1;
	}
}

static int cq_list(struct cq *q)
{
	if (!cq_accept(q, TK_OP, "["))
		return cq_fail(q, "'[' expected after in");
	do {
		if (cq_arith(q) != 0)
			return -1;
	} while (cq_accept(q, TK_OP, ","));
	return cq_accept(q, TK_OP, "]") ? 0 : cq_fail(q, "']' expected");
}

static int cq_compare(struct cq *q)
{
	static const char *const cmp[] = {"=", "!=", "<", ">", "<=", ">="};

	if (cq_arith(q) != 0)
		return -1;
	for (size_t i = 0; i < sizeof cmp / sizeof *cmp; i++)
		if (cq_accept(q, TK_OP, cmp[i]))
			return cq_arith(q);
	if (cq_accept(q, TK_OP, "=~"))
		return cq_accept(q, TK_RE, NULL) ? 0 : cq_fail(q, "regex expected after =~");
	cq_accept(q, TK_ID, "not");
	if (cq_accept(q, TK_ID, "like"))
		return cq_accept(q, TK_RE, NULL) || cq_accept(q, TK_STR, NULL)
			   ? 0
			   : cq_fail(q, "regex or string expected after like");
	if (cq_accept(q, TK_ID, "in"))
		return cq_list(q);
	return 0;
}

static int cq_expr(struct cq *q)
{
	do {
		while (cq_accept(q, TK_ID, "not"))
			;
		if (cq_compare(q) != 0)
			return -1;
	} while (cq_accept(q, TK_ID, "and") || cq_accept(q, TK_ID, "or"));
	return 0;
}

/* An optional "as NAME"; the name is defined when stats makes it. */
static int cq_alias(struct cq *q, int define)
{
	if (!cq_accept(q, TK_ID, "as"))
		return 0;
	if (!cq_is(q, TK_ID, NULL))
		return cq_fail(q, "alias expected after as");
	if (define)
		cq_define(q, q->t[q->i].s);
	q->i++;
	return 0;
}

static int cq_fields(struct cq *q)
{
	do {
		if (cq_expr(q) != 0 || cq_alias(q, 0) != 0)
			return -1;
	} while (cq_accept(q, TK_OP, ","));
	return 0;
}

static int cq_stats(struct cq *q)
{
	static const char *const aggs[] = {
	    "count", "count_distinct", "min",	   "max",    "avg",	   "sum",
	    "pct",   "stddev",	       "earliest", "latest", "sortsFirst", "sortsLast"};
	int n = 0;

	q->nnames = 0;
	do {
		size_t i = 0;

		while (i < sizeof aggs / sizeof *aggs && !cq_is(q, TK_ID, aggs[i]))
			i++;
		if (i == sizeof aggs / sizeof *aggs)
			return cq_fail(q, "an aggregate function expected");
		q->i++;
		if (!cq_accept(q, TK_OP, "(") || cq_call(q) != 0 || cq_alias(q, 1) != 0)
			return cq_fail(q, "aggregate(...) expected");
		n++;
	} while (cq_accept(q, TK_OP, ","));
	if (cq_accept(q, TK_ID, "by")) {
		do {
			int call = cq_is(q, TK_ID, NULL) && strcmp(q->t[q->i + 1].s, "(") == 0;

			if (call && strcmp(q->t[q->i].s, "bin") != 0)
				return cq_fail(q, "only bin() may be called in a by clause");
			if (cq_is(q, TK_ID, NULL) && !call)
				cq_define(q, q->t[q->i].s);
			if (cq_arith(q) != 0 || cq_alias(q, 1) != 0)
				return -1;
		} while (cq_accept(q, TK_OP, ","));
	}
	q->after_stats = 1;
	return n > 0 ? 0 : -1;
}

static int cq_sort(struct cq *q)
{
	do {
		if (!cq_is(q, TK_ID, NULL))
			return cq_fail(q, "field expected after sort");
		if (cq_field(q, q->t[q->i].s) != 0)
			return -1;
		q->i++;
		if (!cq_accept(q, TK_ID, "asc"))
			cq_accept(q, TK_ID, "desc");
	} while (cq_accept(q, TK_OP, ","));
	return 0;
}

static int cq_limit(struct cq *q)
{
	const char *s = q->t[q->i].s;

	if (!cq_is(q, TK_NUM, NULL) || strspn(s, "0123456789") != strlen(s) || s[0] == '0')
		return cq_fail(q, "a positive integer expected after limit");
	q->i++;
	return 0;
}

/* parse FIELD /regex with (?<name>...)/ or "glob * " as a, b */
static int cq_parse(struct cq *q)
{
	const char *re, *g;

	if (!cq_accept(q, TK_ID, NULL))
		return cq_fail(q, "field expected after parse");
	if (cq_is(q, TK_STR, NULL)) {
		q->i++;
		if (!cq_is(q, TK_ID, "as"))
			return cq_fail(q, "a glob parse needs as");
		q->i++;
		do {
			if (!cq_accept(q, TK_ID, NULL))
				return cq_fail(q, "name expected");
		} while (cq_accept(q, TK_OP, ","));
		return 0;
	}
	if (!cq_is(q, TK_RE, NULL))
		return cq_fail(q, "glob or regex expected after parse FIELD");
	re = q->t[q->i++].s;
	if (strstr(re, "(?<") == NULL)
		return cq_fail(q, "a parse regex needs named groups");
	for (g = strstr(re, "(?<"); g != NULL; g = strstr(g + 3, "(?<")) {
		size_t n = strspn(
		    g + 3, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");

		if (n == 0 || g[3 + n] != '>')
			return cq_fail(q, "bad named group");
	}
	return 0;
}

/* Parens and brackets of a regex balance (escapes and classes aside). */
static int cq_regex_balanced(const char *re)
{
	int depth = 0, in_class = 0;

	for (const char *p = re + 1; *p && p[1]; p++) {
		if (*p == '\\') {
			p++;
		} else if (in_class) {
			in_class = *p != ']';
		} else if (*p == '[') {
			in_class = 1;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && --depth < 0) {
			return 0;
		}
	}
	return depth == 0 && !in_class;
}

static int cq_command(struct cq *q)
{
	const char *cmd = q->t[q->i].s;

	if (!cq_accept(q, TK_ID, NULL))
		return cq_fail(q, "a command expected");
	if (strcmp(cmd, "filter") == 0)
		return cq_expr(q);
	if (strcmp(cmd, "fields") == 0 || strcmp(cmd, "display") == 0)
		return cq_fields(q);
	if (strcmp(cmd, "stats") == 0)
		return cq_stats(q);
	if (strcmp(cmd, "sort") == 0)
		return cq_sort(q);
	if (strcmp(cmd, "limit") == 0)
		return cq_limit(q);
	if (strcmp(cmd, "parse") == 0)
		return cq_parse(q);
	if (strcmp(cmd, "dedup") == 0)
		return cq_sort(q);
	q->i--;
	return cq_fail(q, "unknown command");
}

/* 0 when text is a well-formed Logs Insights query; else q->err says why. */
static int cq_check(struct cq *q, const char *text)
{
	memset(q, 0, sizeof *q);
	if (cq_lex(q, text) != 0)
		return -1;
	for (int i = 0; i < q->n; i++)
		if (q->t[i].k == TK_RE && !cq_regex_balanced(q->t[i].s))
			return cq_fail(q, "unbalanced regex");
	if (q->n == 0)
		return cq_fail(q, "empty query");
	do {
		if (cq_command(q) != 0)
			return -1;
	} while (cq_accept(q, TK_PIPE, NULL));
	return cq_is(q, TK_END, NULL) ? 0 : cq_fail(q, "'|' or the end expected");
}

#endif
