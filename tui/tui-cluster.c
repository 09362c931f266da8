/*
 * tui-cluster.c - the cluster screen: one row per node, then the leader and
 * apiserver leases, each with its state, anomaly counts and a heartbeat
 * strip over the time axis.
 *
 * The list is read whole once per reload, filter and sort (up to
 * LT_BROWSE_LIST_MAX items, lt_browse_list_all) and paged from memory, so a
 * step runs no list query.  What the rows on screen need besides is read for
 * a band around the window (the window and a screen either side): the Node
 * objects' deletes (lt_browse_deletes, once per row) and the strips (one
 * query for the band's leases, redone only when the band, the axis or the
 * width changes).
 */
#include "tui-int.h"

#include <stdlib.h>
#include <string.h>

enum { CLUSTER_SEARCH = 1, CLUSTER_FILTER };

#define STATE_W 10

struct cluster {
	struct tui_screen base;
	struct tui_win win;
	struct lt_browse_page page; /* the whole list, from its first item */
	int loaded;
	int label_w; /* the widest name of the list, in cells */
	size_t rows; /* items of the list that are leases or nodes, not headings */
	size_t sort; /* a row of cluster_sorts */
	struct tui_filter filter;
	struct lt_regex *search_re;
	struct tui_axis axis;
	unsigned char *cells; /* band_n rows of ncells, for items band_off.. */
	size_t band_off, band_n;
	int ncells;
	int64_t cells_from, cells_to;
	int cells_valid;
};

/* The orders `<` and `>` step through, the first the one the screen opens in. */
static const struct {
	enum lt_browse_sort sort;
	const char *name;
} cluster_sorts[] = {
    {LT_BROWSE_BY_PROBLEMS, "problems first"},
    {LT_BROWSE_BY_NAME, "name"},
    {LT_BROWSE_BY_STATE, "state"},
    {LT_BROWSE_BY_NOT_FOUND, "404"},
    {LT_BROWSE_BY_DELETES, "DEL"},
    {LT_BROWSE_BY_ANOMALIES, "ANOM"},
    {LT_BROWSE_BY_NOT_READY, "NotReady time"},
    {LT_BROWSE_BY_LAST_RENEW, "last renew"},
};
#define CLUSTER_NSORTS (sizeof cluster_sorts / sizeof *cluster_sorts)

/* What `f` can name: the header's columns, and what a row holds besides. */
enum cluster_fcol {
	CF_NAME,
	CF_STATE,
	CF_404,
	CF_DEL,
	CF_ANOM,
	CF_NOT_READY,
	CF_RENEWS,
	CF_GAPS,
	CF_KIND,
	CF_COUNT
};
static const char *const cluster_fcols[CF_COUNT] = {
    [CF_NAME] = "name",	    [CF_STATE] = "state", [CF_404] = "404",
    [CF_DEL] = "del",	    [CF_ANOM] = "anom",	  [CF_NOT_READY] = "notready",
    [CF_RENEWS] = "renews", [CF_GAPS] = "gaps",	  [CF_KIND] = "kind",
};

static const char *cluster_fvalue(int col, char *buf, size_t size, void *ctx)
{
	static const char *const kinds[] = {"node", "leader", "apiserver"};
	const struct lt_browse_item *it = ctx;
	int64_t n;

	switch ((enum cluster_fcol)col) {
	case CF_NAME:
		return it->target;
	case CF_STATE:
		return it->state;
	case CF_KIND:
		return kinds[it->section % 3];
	case CF_404:
		n = it->not_found;
		break;
	case CF_DEL:
		n = it->deletes;
		break;
	case CF_ANOM:
		n = it->anomalies;
		break;
	case CF_NOT_READY:
		n = it->not_ready;
		break;
	case CF_RENEWS:
		n = it->renews;
		break;
	case CF_GAPS:
		n = it->gaps;
		break;
	default:
		return "";
	}
	snprintf(buf, size, "%lld", (long long)n);
	return buf;
}

static int cluster_keep(const struct lt_browse_item *it, void *ctx)
{
	return tui_filter_match(ctx, cluster_fvalue, (void *)it);
}

/* `/` looks at what the row shows in words: its name and its state. */
static int cluster_found(const struct lt_browse_item *it, void *ctx)
{
	return lt_regex_match(ctx, it->target, strlen(it->target)) ||
	       (it->state && lt_regex_match(ctx, it->state, strlen(it->state)));
}

static struct lt_browse_query cluster_query(const struct cluster *c)
{
	struct lt_browse_query q = {cluster_sorts[c->sort].sort, NULL, NULL};

	if (c->filter.n > 0) {
		q.keep = cluster_keep;
		q.ctx = (void *)&c->filter;
	}
	return q;
}

/* How a row is named on screen: leases of kube-system without their namespace. */
static const char *cluster_label(const struct lt_browse_item *it)
{
	static const char ks[] = "kube-system/";

	if (it->target == NULL)
		return "";
	if (it->section != LT_BROWSE_NODES && strncmp(it->target, ks, sizeof ks - 1) == 0)
		return it->target + sizeof ks - 1;
	return it->target;
}

/* Reads the whole list when it is not held (a new screen, a reload, filter or sort). */
static void cluster_load(struct tui *t, struct cluster *c)
{
	struct lt_browse_query q = cluster_query(c);
	struct lt_error err = {0};

	if (c->loaded)
		return;
	lt_browse_page_release(&c->page);
	c->cells_valid = 0;
	c->band_n = 0;
	c->loaded = 1;
	if (lt_browse_list_all(&c->page, t->st, &q, &err) != 0)
		tui_status(t, TUI_ERROR, "%s", err.msg);
	c->label_w = 0;
	c->rows = 0;
	for (size_t i = 0; i < c->page.n; i++) {
		const char *label = cluster_label(&c->page.items[i]);
		int w = tui_text_width(label, strlen(label));

		c->label_w = w > c->label_w ? w : c->label_w;
		c->rows += !c->page.items[i].heading;
	}
	c->win.total = c->page.n;
	tui_win_fix(&c->win);
}

static const struct lt_browse_item *cluster_item(struct cluster *c, size_t i)
{
	return i < c->page.n ? &c->page.items[i] : NULL;
}

/* The band of rows whose strips and deletes are held: the window and a screen either side. */
static void cluster_band(struct tui *t, struct cluster *c)
{
	struct lt_error err = {0};
	size_t off, n;

	if (!tui_page_want(&c->win, c->band_off, c->band_n, &off, &n))
		return;
	if (off >= c->page.n)
		n = 0;
	else if (n > c->page.n - off)
		n = c->page.n - off;
	c->band_off = off;
	c->band_n = n;
	c->cells_valid = 0;
	if (lt_browse_deletes(&c->page, t->st, off, n, &err) != 0)
		tui_status(t, TUI_ERROR, "%s", err.msg);
}

/* The strips of the band: one query for all its leases, then bucketing per lease. */
static void cluster_cells(struct tui *t, struct cluster *c, int ncells)
{
	size_t nids = 0, k = 0, n = c->band_n;
	/* an empty list has no items: no offset of NULL (UB) */
	const struct lt_browse_item *band = n > 0 ? c->page.items + c->band_off : NULL;
	struct lt_browse_episodes eps;
	struct lt_error err = {0};
	int64_t *ids;

	if (c->cells_valid && c->ncells == ncells && c->cells_from == c->axis.from &&
	    c->cells_to == c->axis.to)
		return;
	c->ncells = ncells;
	c->cells_from = c->axis.from;
	c->cells_to = c->axis.to;
	c->cells_valid = 1;
	c->cells = lt_xrealloc(c->cells, n * (size_t)ncells + 1);
	memset(c->cells, TUI_C_NONE, n * (size_t)ncells);
	ids = lt_xcalloc(n ? n : 1, sizeof *ids);
	for (size_t i = 0; i < n; i++)
		if (!band[i].heading && band[i].lease_id > 0)
			ids[nids++] = band[i].lease_id;
	if (nids > 0 &&
	    lt_browse_episodes(&eps, t->st, ids, nids, c->axis.from, c->axis.to, &err) != 0) {
		tui_status(t, TUI_ERROR, "%s", err.msg);
		nids = 0;
	}
	for (size_t i = 0; nids > 0 && i < n; i++) {
		int64_t id = band[i].lease_id;
		size_t a;

		if (band[i].heading || id <= 0)
			continue;
		/* episodes come ordered by lease; the list is not: find this lease's slice */
		for (k = 0; k < eps.n && eps.eps[k].lease_id != id; k++)
			;
		for (a = k; k < eps.n && eps.eps[k].lease_id == id; k++)
			;
		/* no episode on the axis leaves eps.eps NULL: no offset of it (UB) */
		tui_buckets(c->cells + i * (size_t)ncells, ncells, c->axis.from, c->axis.to,
			    k > a ? eps.eps + a : NULL, k - a);
	}
	if (nids > 0)
		lt_browse_episodes_release(&eps);
	free(ids);
}

#define CLUSTER_NAME_MAX  40 /* the widest the NAME column gets */
#define CLUSTER_STRIP_MIN 20 /* cells of strip a long name leaves at least */

/*
 * Column widths for cols columns: the name takes what the list needs, up to
 * CLUSTER_NAME_MAX and as long as CLUSTER_STRIP_MIN cells of strip remain
 * (an EC2 name, 28 columns, whole at 80), never below a third; a longer
 * name is cut with "…".
 */
static int cluster_name_w(const struct cluster *c, int cols)
{
	int w = c->label_w > 12 ? c->label_w : 12,
	    max = cols - (1 + STATE_W + 1 + 15 + 1) - CLUSTER_STRIP_MIN;

	max = max > CLUSTER_NAME_MAX ? CLUSTER_NAME_MAX : max < cols / 3 ? cols / 3 : max;
	return w > max ? (max > 12 ? max : 12) : w;
}

static int cluster_state_style(const char *state)
{
	if (state == NULL || strcmp(state, "renewing") == 0 || strcmp(state, "re-created") == 0 ||
	    strcmp(state, "logs-only") == 0) /* known from its log lines: nothing wrong said */
		return TUI_S_NORMAL;
	if (strcmp(state, "stale") == 0 || strcmp(state, "no-renews") == 0)
		return TUI_S_GAP;
	if (strcmp(state, "not-ready") == 0)
		return TUI_S_NOT_READY;
	return TUI_S_404; /* deleted, orphaned, not-found, no-lease */
}

static void cluster_heading(int y, int cols, const struct lt_browse_item *it, int sel)
{
	static const char *const names[] = {"NODES", "LEADER-ELECTION LEASES", "APISERVER LEASES"};
	char line[96];

	snprintf(line, sizeof line, "%s (%lld)%s", names[it->section % 3], (long long)it->count,
		 it->section == LT_BROWSE_NODES ? "" : "  in kube-system unless named");
	tui_fill(y, 0, cols, TUI_S_HEADING | sel);
	tui_put(y, 0, cols, TUI_S_HEADING | sel, line);
}

static void cluster_row(struct cluster *c, int y, int cols, int name_w, size_t i, int sel)
{
	const struct lt_browse_item *it = &c->page.items[i];
	char n404[16], ndel[16], nanom[16];
	int x = 0, strip = name_w + 1 + STATE_W + 1 + 15;

	if (it->heading) {
		cluster_heading(y, cols, it, sel);
		return;
	}
	snprintf(n404, sizeof n404, "%5lld", (long long)it->not_found);
	snprintf(ndel, sizeof ndel, "%4lld", (long long)it->deletes);
	snprintf(nanom, sizeof nanom, "%5lld", (long long)it->anomalies);
	tui_fill(y, 0, strip, TUI_S_NORMAL | sel);
	tui_put(y, x, name_w, TUI_S_NORMAL | sel, cluster_label(it));
	x += name_w + 1;
	tui_put(y, x, STATE_W, cluster_state_style(it->state) | sel, it->state);
	x += STATE_W;
	tui_put(y, x, 5, (it->not_found ? TUI_S_404 : TUI_S_NORMAL) | sel, n404);
	tui_put(y, x + 5, 4, (it->deletes ? TUI_S_DELETED : TUI_S_NORMAL) | sel, ndel);
	tui_put(y, x + 9, 5, (it->anomalies ? TUI_S_GAP : TUI_S_NORMAL) | sel, nanom);
	for (int k = 0; k < c->ncells && strip + 1 + k < cols; k++) {
		enum tui_cell cell = c->cells[(i - c->band_off) * (size_t)c->ncells + (size_t)k];
		char sym[2] = {tui_cell_symbol(cell), '\0'};

		tui_put(y, strip + 1 + k, 1, tui_cell_style(cell), sym);
	}
}

/* The header: column names, and tick labels at round times over the strip (tui-axis.c). */
static void cluster_header(struct cluster *c, int y, int cols, int name_w, int strip_x)
{
	char line[256];

	snprintf(line, sizeof line, "%-*s %-*s  404 DEL ANOM", name_w, "NAME", STATE_W, "STATE");
	tui_draw_header(y, cols, line);
	if (c->ncells < 20 || c->axis.lo == 0)
		return; /* no axis for an empty store */
	tui_axis_draw(y, strip_x, c->ncells, c->axis.from, c->axis.to, TUI_S_HEADER);
}

/* What the rows are, then the strip's symbols: the legend, readable without color. */
static void cluster_legend(struct cluster *c, int y, int cols)
{
	char span[32], count[64], line[512];
	int x;

	lt_format_duration(span, sizeof span, c->axis.to - c->axis.from);
	if (c->page.total > c->page.n) /* past LT_BROWSE_LIST_MAX: what is held, of how many */
		snprintf(count, sizeof count, "first %zu of %zu rows", c->rows,
			 c->page.total - (c->page.n - c->rows));
	else
		snprintf(count, sizeof count, "%zu %s", c->rows, c->rows == 1 ? "row" : "rows");
	snprintf(line, sizeof line, "%s, by %s, axis %s%s%s  ", count, cluster_sorts[c->sort].name,
		 span, c->filter.n ? ", filter " : "", c->filter.n ? c->filter.text : "");
	static const enum tui_cell order[] = {TUI_C_RENEWED, TUI_C_GAP,	   TUI_C_NOT_READY,
					      TUI_C_404,     TUI_C_HOLDER, TUI_C_DELETED,
					      TUI_C_GONE,    TUI_C_AUTH};

	x = tui_put(y, 0, cols, TUI_S_DIM, line);
	for (size_t k = 0; k < sizeof order / sizeof *order && x < cols; k++) {
		char sym[2] = {tui_cell_symbol(order[k]), '\0'};
		const char *name = order[k] == TUI_C_AUTH     ? "auth"
				   : order[k] == TUI_C_HOLDER ? "holder"
							      : tui_cell_name(order[k]);

		x += tui_put(y, x, 1, tui_cell_style(order[k]), sym);
		x += tui_put(y, x, cols - x, TUI_S_DIM, " ");
		x += tui_put(y, x, cols - x, TUI_S_DIM, name);
		x += tui_put(y, x, cols - x, TUI_S_DIM, "  ");
	}
}

static void cluster_draw(struct tui *t, struct tui_screen *s, int y0, int h, int cols)
{
	struct cluster *c = (struct cluster *)s;
	int name_w, strip_x, ncells;

	c->win.height = h > 3 ? (size_t)(h - 2) : 1;
	if (c->axis.lo != t->first_us || c->axis.hi != t->last_us) {
		int whole = c->axis.from == c->axis.lo && c->axis.to == c->axis.hi;

		if (whole || c->axis.lo == 0)
			tui_axis_init(&c->axis, t->first_us, t->last_us);
		c->axis.lo = t->first_us, c->axis.hi = t->last_us;
	}
	cluster_load(t, c);
	cluster_band(t, c);
	name_w = cluster_name_w(c, cols);
	strip_x = name_w + 1 + STATE_W + 1 + 15 + 1;
	ncells = cols - strip_x > 0 ? cols - strip_x : 0;
	cluster_cells(t, c, ncells);
	cluster_header(c, y0, cols, name_w, strip_x);
	for (size_t r = 0; r < c->win.height; r++) {
		size_t i = c->win.top + r;

		if (i >= c->win.total || cluster_item(c, i) == NULL)
			break;
		cluster_row(c, y0 + 1 + (int)r, cols, name_w, i, i == c->win.cur ? TUI_SEL : 0);
	}
	if (c->win.total == 0)
		tui_put(y0 + 1, 0, cols, TUI_S_DIM,
			c->filter.n ? "no lease matches the filter (an empty f clears it)"
				    : "no leases in this store yet (r reloads)");
	cluster_legend(c, y0 + h - 1, cols);
}

/* A heading is not a place for the cursor: step over it in the direction of travel. */
static void cluster_skip_heading(struct tui *t, struct cluster *c, enum lt_browse_dir dir)
{
	const struct lt_browse_item *it;

	cluster_load(t, c);
	it = cluster_item(c, c->win.cur);
	if (it == NULL || !it->heading)
		return;
	if (dir == LT_BROWSE_BACKWARD && c->win.cur > 0) {
		tui_win_move(&c->win, -1);
	} else if (c->win.cur + 1 < c->win.total) {
		tui_win_move(&c->win, 1);
		if (c->win.top > c->win.cur - 1)
			c->win.top = c->win.cur - 1; /* keep the heading in sight */
	}
	cluster_load(t, c);
}

static void cluster_search(struct tui *t, struct cluster *c, enum lt_browse_dir dir)
{
	struct lt_error err = {0};
	size_t at;
	int rc;

	if (c->search_re == NULL) {
		tui_status(t, TUI_INFO, "no search yet: / first");
		return;
	}
	cluster_load(t, c);
	rc = lt_browse_find(&at, &c->page, c->win.cur, dir, cluster_found, c->search_re, &err);
	if (rc == LT_ERR_NOTFOUND)
		tui_status(t, TUI_ERROR, "pattern not found");
	else if (rc != 0)
		tui_status(t, TUI_ERROR, "%s", err.msg);
	else
		tui_win_goto(&c->win, at);
}

static int cluster_exact(const struct lt_browse_item *it, void *ctx)
{
	return strcmp(it->target, ctx) == 0;
}

/* After a new sort or filter: read the list again, the cursor on the same lease if it stayed. */
static void cluster_requery(struct tui *t, struct cluster *c)
{
	const struct lt_browse_item *it = cluster_item(c, c->win.cur);
	char *keep = it && it->target ? lt_xstrdup(it->target) : NULL;
	size_t at = 0;

	c->loaded = 0;
	c->win.cur = c->win.top = 0;
	cluster_load(t, c);
	/* from the last item, so that a match on the first row is found first */
	if (keep && c->page.n > 0 &&
	    lt_browse_find(&at, &c->page, c->page.n - 1, LT_BROWSE_FORWARD, cluster_exact, keep,
			   NULL) == 0)
		c->win.cur = at;
	free(keep);
	tui_win_fix(&c->win);
	cluster_skip_heading(t, c, LT_BROWSE_FORWARD);
}

static void cluster_prompted(struct tui *t, struct tui_screen *s, int what, const char *text)
{
	struct cluster *c = (struct cluster *)s;
	struct lt_regex *re = NULL;
	char msg[256];

	if (what == CLUSTER_FILTER) {
		struct tui_filter f;

		if (tui_filter_parse(&f, text, cluster_fcols, CF_COUNT, msg, sizeof msg) != 0) {
			tui_status(t, TUI_ERROR, "%s", msg);
			return;
		}
		tui_filter_release(&c->filter);
		c->filter = f;
		cluster_requery(t, c);
	} else if (text[0] != '\0' && (re = tui_regex(t, text)) != NULL) {
		lt_regex_free(c->search_re);
		c->search_re = re;
		cluster_search(t, c, LT_BROWSE_FORWARD);
	}
}

static void cluster_enter(struct tui *t, struct cluster *c)
{
	const struct lt_browse_item *it = cluster_item(c, c->win.cur);

	if (it != NULL && !it->heading && it->target != NULL)
		tui_push(t, tui_timeline_new(t, it->target, 0, NULL));
}

static int cluster_action(struct tui *t, struct tui_screen *s, enum tui_action a)
{
	struct cluster *c = (struct cluster *)s;

	if (tui_win_apply(&c->win, a)) {
		cluster_skip_heading(t, c,
				     a == TUI_A_UP || a == TUI_A_PGUP || a == TUI_A_TOP
					 ? LT_BROWSE_BACKWARD
					 : LT_BROWSE_FORWARD);
		return 1;
	}
	switch (a) {
	case TUI_A_ENTER:
		cluster_enter(t, c);
		return 1;
	case TUI_A_SEARCH:
		tui_prompt(t, CLUSTER_SEARCH, "/", NULL);
		return 1;
	case TUI_A_NEXT:
	case TUI_A_PREV:
		cluster_search(t, c, a == TUI_A_PREV ? LT_BROWSE_BACKWARD : LT_BROWSE_FORWARD);
		return 1;
	case TUI_A_FILTER:
		tui_prompt(t, CLUSTER_FILTER,
			   "filter (name regex, state=..., 404>0; empty: all): ", NULL);
		return 1;
	case TUI_A_SORT:
	case TUI_A_SORT_PREV:
		c->sort = (c->sort + (a == TUI_A_SORT ? 1 : CLUSTER_NSORTS - 1)) % CLUSTER_NSORTS;
		cluster_requery(t, c);
		tui_status(t, TUI_INFO, "sorted by %s", cluster_sorts[c->sort].name);
		return 1;
	case TUI_A_ZOOM_IN:
	case TUI_A_ZOOM_OUT:
		tui_axis_zoom(&c->axis, a == TUI_A_ZOOM_IN ? TUI_ZOOM_IN : TUI_ZOOM_OUT);
		return 1;
	case TUI_A_LEFT:
	case TUI_A_RIGHT:
		tui_axis_pan(&c->axis, a == TUI_A_LEFT ? -1 : 1);
		return 1;
	default:
		return 0;
	}
}

static void cluster_reload(struct tui *t, struct tui_screen *s)
{
	struct cluster *c = (struct cluster *)s;

	(void)t;
	c->loaded = 0;
	c->cells_valid = 0;
}

static void cluster_free(struct tui_screen *s)
{
	struct cluster *c = (struct cluster *)s;

	lt_browse_page_release(&c->page);
	tui_filter_release(&c->filter);
	lt_regex_free(c->search_re);
	free(c->cells);
	free(c);
}

/* A click on a row selects it (the list's rows start under the header, on line 2). */
static void cluster_click(struct tui *t, struct tui_screen *s, int y)
{
	struct cluster *c = (struct cluster *)s;

	if (y >= 2 && (size_t)(y - 2) < c->win.height &&
	    c->win.top + (size_t)(y - 2) < c->win.total) {
		tui_win_goto(&c->win, c->win.top + (size_t)(y - 2));
		cluster_skip_heading(t, c, LT_BROWSE_FORWARD);
	}
}

/* :goto TIME: the strip's axis, its zoom kept, centred on TIME. */
static void cluster_goto_time(struct tui *t, struct tui_screen *s, int64_t at_us)
{
	struct cluster *c = (struct cluster *)s;

	(void)t;
	tui_axis_center(&c->axis, at_us);
}

/* :filter TEXT: as f. */
static void cluster_filter(struct tui *t, struct tui_screen *s, const char *text)
{
	cluster_prompted(t, s, CLUSTER_FILTER, text);
}

static const struct tui_screen_ops cluster_ops = {
    .name = "Cluster",
    .ctx = TUI_CTX_CLUSTER,
    .draw = cluster_draw,
    .action = cluster_action,
    .prompted = cluster_prompted,
    .reload = cluster_reload,
    .free = cluster_free,
    .filter = cluster_filter,
    .click = cluster_click,
    .goto_time = cluster_goto_time,
};

struct tui_screen *tui_cluster_new(struct tui *t)
{
	struct cluster *c = lt_xcalloc(1, sizeof *c);

	c->base.ops = &cluster_ops;
	c->win.height = t->rows > 6 ? (size_t)(t->rows - 4) : 1;
	tui_axis_init(&c->axis, t->first_us, t->last_us);
	/* the cursor starts on the first row, not on the first heading */
	cluster_load(t, c);
	cluster_skip_heading(t, c, LT_BROWSE_FORWARD);
	return &c->base;
}
