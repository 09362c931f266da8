/*
 * tui-filter.c - the filter language of `f`, the same on every screen: one
 * or more terms separated by blanks, all of which a row must pass.
 *
 *   REGEX          the screen's first column (a name) matches
 *   COL=REGEX      column COL matches (PCRE2; caseless unless it has a capital)
 *   COL!=REGEX     column COL does not match
 *   COL>N, COL<N   column COL is a number above (below) N
 *
 * Columns are named as the screen's header names them, in any case.  The
 * screen hands its names over and answers for a row's text by column; no
 * curses, no store: unit-tested in tests/unit/test-tui.c.
 */
#include "tui-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The operators, longest first: "!=" must be tried before "=". */
static const struct {
	const char *text;
	enum tui_filter_op op;
} filter_ops[] = {
    {"!=", TUI_F_NOMATCH},
    {"=", TUI_F_MATCH},
    {">", TUI_F_GT},
    {"<", TUI_F_LT},
};

/* The column named name[0..len) in cols (any case), or -1. */
static int filter_col(const char *name, size_t len, const char *const *cols, int ncols)
{
	for (int c = 0; c < ncols; c++) {
		size_t n = strlen(cols[c]), i;

		if (n != len)
			continue;
		for (i = 0; i < n; i++) {
			char a = name[i], b = cols[c][i];

			if ((a >= 'A' && a <= 'Z' ? a + 32 : a) !=
			    (b >= 'A' && b <= 'Z' ? b + 32 : b))
				break;
		}
		if (i == n)
			return c;
	}
	return -1;
}

/* Where the first operator of term[0..len) is (its table row in *op); -1 when none. */
static long filter_find_op(const char *term, size_t len, size_t *op)
{
	for (size_t i = 1; i < len; i++) /* a term starting with an operator is a regex */
		for (size_t k = 0; k < sizeof filter_ops / sizeof *filter_ops; k++)
			if (strncmp(term + i, filter_ops[k].text, strlen(filter_ops[k].text)) ==
			    0) {
				*op = k;
				return (long)i;
			}
	return -1;
}

/* A regex, caseless unless it has a capital (as / is). */
static int filter_regex(struct lt_regex **out, const char *pattern, char *msg, size_t size)
{
	struct lt_error err = {0};
	int icase = 1;

	for (const char *p = pattern; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			icase = 0;
	if (lt_regex_new(out, pattern, icase, &err) != 0) {
		snprintf(msg, size, "%s", err.msg);
		return -1;
	}
	return 0;
}

/* "no column 'X' here; columns: a, b, c" */
static void filter_no_col(char *msg, size_t size, const char *name, size_t len,
			  const char *const *cols, int ncols)
{
	size_t at;

	snprintf(msg, size, "no column '%.*s' here; columns:", (int)(len < 64 ? len : 64), name);
	for (int c = 0; c < ncols && (at = strlen(msg)) + 1 < size; c++)
		snprintf(msg + at, size - at, "%s %s", c ? "," : "", cols[c]);
}

/* One term, term[0..len); 0, or -1 with msg. */
static int filter_term(struct tui_filter_term *t, const char *term, size_t len,
		       const char *const *cols, int ncols, char *msg, size_t size)
{
	size_t k = 0;
	long at = filter_find_op(term, len, &k);
	char value[TUI_FILTER_TEXT];
	int col = 0;

	*t = (struct tui_filter_term){.op = TUI_F_MATCH};
	if (at > 0 && (col = filter_col(term, (size_t)at, cols, ncols)) < 0) {
		filter_no_col(msg, size, term, (size_t)at, cols, ncols);
		return -1;
	}
	if (at > 0) {
		t->op = filter_ops[k].op;
		at += (long)strlen(filter_ops[k].text);
	}
	t->col = col;
	snprintf(value, sizeof value, "%.*s", (int)(len - (size_t)(at > 0 ? at : 0)),
		 term + (at > 0 ? at : 0));
	if (t->op == TUI_F_GT || t->op == TUI_F_LT) {
		char *end;

		errno = 0;
		t->num = strtod(value, &end);
		if (value[0] == '\0' || *end != '\0' || errno != 0) {
			snprintf(msg, size, "'%s' is not a number", value);
			return -1;
		}
		return 0;
	}
	return filter_regex(&t->re, value, msg, size);
}

int tui_filter_parse(struct tui_filter *f, const char *text, const char *const *cols, int ncols,
		     char *msg, size_t size)
{
	const char *p = text;

	memset(f, 0, sizeof *f);
	snprintf(f->text, sizeof f->text, "%s", text);
	while (*p) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (len == 0)
			break;
		if (f->n == TUI_FILTER_MAX_TERMS) {
			snprintf(msg, size, "at most %d terms", TUI_FILTER_MAX_TERMS);
			tui_filter_release(f);
			return -1;
		}
		if (filter_term(&f->terms[f->n], p, len, cols, ncols, msg, size) != 0) {
			tui_filter_release(f);
			return -1;
		}
		f->n++;
		p += len;
	}
	return 0;
}

void tui_filter_release(struct tui_filter *f)
{
	for (int i = 0; i < f->n; i++)
		lt_regex_free(f->terms[i].re);
	memset(f, 0, sizeof *f);
}

static int filter_pass(const struct tui_filter_term *t, const char *v)
{
	char *end;
	double x;

	switch (t->op) {
	case TUI_F_MATCH:
		return lt_regex_match(t->re, v, strlen(v));
	case TUI_F_NOMATCH:
		return !lt_regex_match(t->re, v, strlen(v));
	default:
		x = strtod(v, &end);
		if (v[0] == '\0' || *end != '\0')
			return 0; /* not a number: neither above nor below */
		return t->op == TUI_F_GT ? x > t->num : x < t->num;
	}
}

int tui_filter_match(const struct tui_filter *f, tui_filter_value_fn value, void *ctx)
{
	for (int i = 0; i < f->n; i++) {
		char buf[TUI_FILTER_TEXT];
		const char *v = value(f->terms[i].col, buf, sizeof buf, ctx);

		if (!filter_pass(&f->terms[i], v ? v : ""))
			return 0;
	}
	return 1;
}

void tui_rows_keep(struct lt_rows *t, int (*keep)(const struct lt_rows *t, size_t r, void *ctx),
		   void *ctx)
{
	size_t nc = (size_t)t->ncols, out = 0;

	for (size_t r = 0; r < t->nrows; r++) {
		struct lt_cell *row = t->cells + r * nc;

		if (!keep(t, r, ctx)) {
			for (size_t c = 0; c < nc; c++)
				free((char *)row[c].s);
			continue;
		}
		if (out != r)
			memmove(t->cells + out * nc, row, nc * sizeof *row);
		out++;
	}
	t->nrows = out;
}

int tui_filter_set(struct tui *t, struct tui_filter *f, const char *text, const char *const *cols,
		   int ncols)
{
	struct tui_filter nf;
	char msg[256];

	if (tui_filter_parse(&nf, text, cols, ncols, msg, sizeof msg) != 0) {
		tui_status(t, TUI_ERROR, "%s", msg);
		return 0;
	}
	tui_filter_release(f);
	*f = nf;
	return 1;
}
