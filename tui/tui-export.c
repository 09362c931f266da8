/*
 * tui-export.c - `e` (and `:export FILE`): the rows of the current view, or
 * on the marks screen the marks, written to a file as a Markdown table or as
 * CSV (a name ending in .csv), one row a line: MARK, TIME, SUBJECT, SOURCE,
 * WHAT, ROW.  And base64, which `y` hands the terminal's clipboard.
 *
 * What is written is log text: every field goes through lt_sanitize first,
 * so no escape sequence, control character or bidi override reaches the file
 * (a later `cat` of it is as safe as the screen; a newline or tab is written
 * as the two characters \n, \t, so a row stays one line).  Then each format
 * defuses what it would act on:
 * - Markdown: a backslash before every character CommonMark (or GitHub's
 *   dialect) gives meaning to inside a table cell (md_always[]), before a
 *   leading + - = (md_leading[]), the ':' of "://" and the '.' of "www.", so
 *   no link, autolink, emphasis, code span, entity or HTML can form and the
 *   rendered cell reads as the sanitized text (e2e.tui-tools renders an
 *   export with cmark and compares);
 * - CSV: every field quoted (RFC 4180, '"' doubled), and a field that
 *   starts with = + - @ (csv_formula[]) prefixed with ', so a spreadsheet
 *   takes it as text, not a formula.
 */
#include "tui-int.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

static const char *const export_cols[] = {"mark", "time", "subject", "source", "what", "row"};
#define EXPORT_NCOLS (sizeof export_cols / sizeof *export_cols)

enum tui_export_fmt tui_export_fmt_of(const char *path)
{
	size_t n = strlen(path);

	return n >= 4 && strcmp(path + n - 4, ".csv") == 0 ? TUI_EXPORT_CSV : TUI_EXPORT_MD;
}

/*
 * Markdown: the ASCII punctuation that means something inside a table cell
 * wherever it stands: the cell's end (|), escapes (\\), code spans (`),
 * emphasis and strikethrough (* _ ~), links and images ([ ] !), raw HTML and
 * autolinks (< >), entities (&), headings (#), email autolinks (@).
 */
static const char md_always[] = "\\`*_[]<>#|~&!@";
/* ... and at the start of a cell: what would start a list item or an underline. */
static const char md_leading[] = "+-=";
/* CSV: what a spreadsheet reads as the start of a formula. */
static const char csv_formula[] = "=+-@";

/* Whether s[i..len) starts with the lowercase ASCII with, in any case. */
static int export_starts(const char *s, size_t len, size_t i, const char *with)
{
	size_t n = strlen(with);

	if (len - i < n)
		return 0;
	for (size_t k = 0; k < n; k++) {
		char c = s[i + k];

		if ((c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) != with[k])
			return 0;
	}
	return 1;
}

/* Whether s[i] (of a sanitized cell of len bytes) needs a backslash in Markdown. */
int tui_export_md_escapes(const char *s, size_t len, size_t i)
{
	char c = s[i];

	assert(i < len);
	if (c != '\0' && strchr(md_always, c) != NULL)
		return 1;
	if (i == 0 && c != '\0' && strchr(md_leading, c) != NULL)
		return 1;
	/* GitHub's extended autolinks: a scheme's "://", a bare "www." */
	if (c == ':' && export_starts(s, len, i, "://"))
		return 1;
	return c == '.' && i >= 3 && export_starts(s, len, i - 3, "www.");
}

static void export_md(struct lt_buf *b, const struct lt_buf *safe, int first)
{
	lt_buf_append(b, first ? "| " : " | ", first ? 2 : 3);
	for (size_t i = 0; i < safe->len; i++) {
		if (tui_export_md_escapes(safe->ptr, safe->len, i))
			lt_buf_putc(b, '\\');
		lt_buf_putc(b, safe->ptr[i]);
	}
}

static void export_csv(struct lt_buf *b, const struct lt_buf *safe, int first)
{
	lt_buf_append(b, first ? "\"" : ",\"", first ? 1 : 2);
	if (safe->len > 0 && strchr(csv_formula, safe->ptr[0]) != NULL)
		lt_buf_putc(b, '\'');
	for (size_t i = 0; i < safe->len; i++) {
		if (safe->ptr[i] == '"')
			lt_buf_putc(b, '"');
		lt_buf_putc(b, safe->ptr[i]);
	}
	lt_buf_putc(b, '"');
}

/* One field, sanitized, then quoted for its format. */
static void export_field(struct lt_buf *b, enum tui_export_fmt f, const char *v, int first)
{
	struct lt_buf safe;

	lt_buf_init(&safe);
	lt_sanitize(&safe, v ? v : "", v ? strlen(v) : 0);
	if (f == TUI_EXPORT_CSV)
		export_csv(b, &safe, first);
	else
		export_md(b, &safe, first);
	lt_buf_release(&safe);
}

static void export_end(struct lt_buf *b, enum tui_export_fmt f)
{
	lt_buf_append(b, f == TUI_EXPORT_CSV ? "\n" : " |\n", f == TUI_EXPORT_CSV ? 1 : 3);
}

void tui_export_head(struct lt_buf *b, enum tui_export_fmt f, const char *title)
{
	if (f == TUI_EXPORT_MD) {
		lt_buf_append(b, "# ", 2);
		lt_sanitize(b, title, strlen(title));
		lt_buf_append(b, "\n\n", 2);
	}
	for (size_t c = 0; c < EXPORT_NCOLS; c++)
		export_field(b, f, export_cols[c], c == 0);
	export_end(b, f);
	if (f == TUI_EXPORT_MD) {
		for (size_t c = 0; c < EXPORT_NCOLS; c++)
			lt_buf_append(b, "|---", 4);
		lt_buf_append(b, "|\n", 2);
	}
}

void tui_export_row(struct lt_buf *b, enum tui_export_fmt f, const struct tui_row *r)
{
	char ts[48];

	if (r->at_us != 0)
		lt_time_format_zone(ts, sizeof ts, r->at_us);
	else
		snprintf(ts, sizeof ts, "%s", "");
	export_field(b, f, tui_row_kind_name(r->kind), 1);
	export_field(b, f, ts, 0);
	export_field(b, f, r->subject, 0);
	export_field(b, f, r->source, 0);
	export_field(b, f, r->what, 0);
	export_field(b, f, r->text, 0);
	export_end(b, f);
}

void tui_base64(struct lt_buf *out, const char *s, size_t len)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		size_t n = len - i < 3 ? len - i : 3;
		char q[4];

		if (n > 1)
			v |= (uint32_t)p[i + 1] << 8;
		if (n > 2)
			v |= p[i + 2];
		q[0] = abc[(v >> 18) & 63];
		q[1] = abc[(v >> 12) & 63];
		q[2] = n > 1 ? abc[(v >> 6) & 63] : '=';
		q[3] = n > 2 ? abc[v & 63] : '=';
		lt_buf_append(out, q, 4);
	}
	if (out->ptr == NULL)
		lt_buf_append(out, "", 0);
}

/* ---- writing the file ---------------------------------------------------- */

struct export_sink {
	FILE *f;
	enum tui_export_fmt fmt;
	struct lt_buf line;
	size_t n;
};

static int export_emit(const struct tui_row *r, void *ctx)
{
	struct export_sink *x = ctx;

	lt_buf_reset(&x->line);
	tui_export_row(&x->line, x->fmt, r);
	x->n++;
	return fwrite(x->line.ptr, 1, x->line.len, x->f) == x->line.len ? 0 : -1;
}

void tui_export(struct tui *t, const char *path)
{
	struct tui_screen *s = t->stack[t->depth - 1];
	struct export_sink x = {.fmt = tui_export_fmt_of(path)};
	char title[160];
	int rc;

	if (path[0] == '\0')
		return;
	if (s->ops->each == NULL) {
		tui_status(t, TUI_ERROR,
			   "the %s screen has no rows to export (a timeline, its "
			   "requests or lines, a query's result, the marks have)",
			   s->ops->name);
		return;
	}
	if ((x.f = fopen(path, "w")) == NULL) {
		tui_status(t, TUI_ERROR, "cannot write %s: %s", path, strerror(errno));
		return;
	}
	lt_buf_init(&x.line);
	snprintf(title, sizeof title, "leasetrail %s",
		 s->ops->ctx == TUI_CTX_MARKS ? "marks" : "view");
	tui_export_head(&x.line, x.fmt, title);
	rc = fwrite(x.line.ptr, 1, x.line.len, x.f) == x.line.len ? 0 : -1;
	if (rc == 0)
		rc = s->ops->each(t, s, export_emit, &x);
	if (fclose(x.f) != 0)
		rc = -1;
	lt_buf_release(&x.line);
	if (rc != 0 && !t->status_error)
		tui_status(t, TUI_ERROR, "cannot write %s: %s", path, strerror(errno));
	else if (rc == 0)
		tui_status(t, TUI_INFO, "%zu %s written to %s (%s)", x.n, x.n == 1 ? "row" : "rows",
			   path, x.fmt == TUI_EXPORT_CSV ? "CSV" : "Markdown");
}
