/*
 * tui-int.h - private interfaces between the terminal browser's files.
 *
 * Layers, bottom up: tui-view.c (pure logic: windows, time axis, heartbeat
 * buckets, text width, JSON layout, line editing; no curses, unit-tested),
 * tui-keys.c (the const key table), tui-term.c (the only file that knows
 * curses), tui-app.c (the screen stack and the main loop), and one file per
 * screen.
 */
#ifndef LT_TUI_INT_H
#define LT_TUI_INT_H

#include "lt_tui.h"

/* ---- keys (tui-keys.c) -------------------------------------------------- */

/* A key: a character is its Unicode code point; the others are past Unicode. */
enum tui_key {
	TUI_K_NONE = -1,
	TUI_K_UP = 0x110000,
	TUI_K_DOWN,
	TUI_K_LEFT,
	TUI_K_RIGHT,
	TUI_K_PGUP,
	TUI_K_PGDN,
	TUI_K_HOME,
	TUI_K_END,
	TUI_K_ENTER,
	TUI_K_ESC,
	TUI_K_TAB,
	TUI_K_BTAB,
	TUI_K_BACKSPACE,
	TUI_K_RESIZE,
	TUI_K_CLICK,	/* a mouse click: the line in tui.mouse_y */
	TUI_K_WHEEL_UP, /* the mouse wheel */
	TUI_K_WHEEL_DOWN,
};

#define TUI_CTRL(c) ((c)&0x1f)

enum tui_action {
	TUI_A_NONE,
	TUI_A_UP,
	TUI_A_DOWN,
	TUI_A_PGUP,
	TUI_A_PGDN,
	TUI_A_TOP,
	TUI_A_BOTTOM,
	TUI_A_LEFT,
	TUI_A_RIGHT,
	TUI_A_ENTER,
	TUI_A_BACK,	 /* Esc: back one screen (never quits) */
	TUI_A_QUIT_BACK, /* q: back one screen; quits on the first */
	TUI_A_QUIT,	 /* Q: quit from anywhere */
	TUI_A_TAB,
	TUI_A_SEARCH,
	TUI_A_NEXT,
	TUI_A_PREV,
	TUI_A_ZOOM_IN,
	TUI_A_ZOOM_OUT,
	TUI_A_RELOAD,
	TUI_A_HELP,
	TUI_A_SORT,	 /* s, >: the next sort column */
	TUI_A_SORT_PREV, /* <: the previous one */
	TUI_A_FILTER,
	TUI_A_QUERIES,
	TUI_A_REDRAW,
	TUI_A_WRAP,    /* w: the timeline's detail wrapped whole */
	TUI_A_HIST,    /* i: the histogram screen */
	TUI_A_MARK,    /* m: mark the row under the cursor (again: unmark) */
	TUI_A_MARKS,   /* M: the marks screen */
	TUI_A_EXPORT,  /* e: the marks (on M) or the current view to a file */
	TUI_A_COPY,    /* y: the row under the cursor to the clipboard (OSC 52) */
	TUI_A_COMMAND, /* :: the command prompt */
};

/* Where a key binding applies: one bit per screen. */
enum tui_ctx {
	TUI_CTX_CLUSTER = 1,
	TUI_CTX_TIMELINE = 2,
	TUI_CTX_EVENT = 4,
	TUI_CTX_QUERIES = 8,
	TUI_CTX_HELP = 16,
	TUI_CTX_HIST = 32,
	TUI_CTX_MARKS = 64,
	TUI_CTX_ALL = 127,
};

/* One binding; help is NULL for a second key of an action already described. */
struct tui_keydef {
	int key;
	unsigned ctx;
	enum tui_action action;
	const char *label; /* how help names the key(s) */
	const char *help;
};

/* The bindings, terminated by an entry with key TUI_K_NONE. */
const struct tui_keydef *tui_keys(void);

/* The action of key on a screen of context ctx; TUI_A_NONE when unbound. */
enum tui_action tui_key_action(int key, unsigned ctx);

/* ---- pure view logic (tui-view.c) --------------------------------------- */

/* A list's visible window: total rows, the first shown, the cursor, rows on screen. */
struct tui_win {
	size_t total, top, cur, height;
};

/* Clamps the cursor into the list and scrolls so that it is visible. */
void tui_win_fix(struct tui_win *w);

/* Moves the cursor by delta rows (clamped). */
void tui_win_move(struct tui_win *w, long delta);

/* Puts the cursor on row i (clamped); the window scrolls as little as it can. */
void tui_win_goto(struct tui_win *w, size_t i);

/* Applies a movement action (up, down, pages, top, bottom); 1 when a was one. */
int tui_win_apply(struct tui_win *w, enum tui_action a);

/*
 * For a list read a page at a time: 1 when rows [have_off, have_off + have_n)
 * do not cover the window, and then the slice to read in *off, *n (the
 * window with a screen of margin on each side: a page up or down reads
 * every other time).
 */
int tui_page_want(const struct tui_win *w, size_t have_off, size_t have_n, size_t *off, size_t *n);

/* The time axis of the heartbeat strip: the store's range and the part shown. */
struct tui_axis {
	int64_t lo, hi;	  /* what there is */
	int64_t from, to; /* what is shown */
};

#define TUI_AXIS_MIN_SPAN 10000000LL /* zooming in stops at 10 s across */

void tui_axis_init(struct tui_axis *a, int64_t lo, int64_t hi);
/* Halves (in) or doubles the span shown around its middle, inside [lo, hi]. */
enum tui_zoom { TUI_ZOOM_OUT, TUI_ZOOM_IN };
void tui_axis_zoom(struct tui_axis *a, enum tui_zoom z);
/* Moves what is shown by a quarter of its span, left (dir < 0) or right. */
void tui_axis_pan(struct tui_axis *a, int dir);
/* Moves what is shown, its span kept, to be centred on at (inside [lo, hi]): :goto. */
void tui_axis_center(struct tui_axis *a, int64_t at);

/* ---- round times on an axis (tui-axis.c) ---------------------------------- */

/* How a tick is labelled: "05:56:30", "05:56", "04-05" (a tick at midnight says its day). */
enum tui_tick_fmt { TUI_TICK_SEC, TUI_TICK_MIN, TUI_TICK_DAY };

#define TUI_AXIS_MAX_TICKS 64

struct tui_tick {
	int col; /* the label starts in this column of the axis */
	int64_t us;
	char text[16];
};

/* The round steps (1 s .. 7 days): how many, and step k's length in µs (clamped). */
int tui_axis_nsteps(void);
int64_t tui_axis_step_us(int step);

/* The shortest step that cuts span into at most n bins. */
int tui_axis_step_pick(int64_t span, int64_t n);

/* us rounded down to a multiple of step in the display zone (--tz, --utc). */
int64_t tui_axis_floor(int64_t us, int step);

/* A tick's label at us, in the display zone. */
void tui_tick_label(char *buf, size_t size, int64_t us, enum tui_tick_fmt fmt);

/*
 * The ticks of an axis of ncells columns over [from, to]: round times of the
 * shortest step whose labels do not touch, left to right, whole labels only;
 * up to max of them in out.  Returns how many.
 */
size_t tui_axis_ticks(struct tui_tick *out, size_t max, int64_t from, int64_t to, int ncells);

/* Draws those labels at row y from column x in style. */
void tui_axis_draw(int y, int x, int ncells, int64_t from, int64_t to, int style);

/* What one bucket of a heartbeat strip shows, weakest first: a bucket shows its strongest. */
enum tui_cell {
	TUI_C_NONE,	 /* no data */
	TUI_C_GONE,	 /* after a delete, before anything else happened */
	TUI_C_RENEWED,	 /* renewed (or created) */
	TUI_C_GAP,	 /* a wait between renews over the threshold */
	TUI_C_HOLDER,	 /* another holder took the lease (an instant: one cell) */
	TUI_C_NOT_READY, /* the node was NotReady (node health's window) */
	TUI_C_404,	 /* requests answered 404 */
	TUI_C_AUTH,	 /* requests answered 401/403 */
	TUI_C_DELETED,	 /* the delete itself */
	TUI_C_COUNT,
};

/*
 * Cuts [from, to] into n buckets and marks each with the strongest thing
 * one lease's episodes (eps, in start order) say about it.
 */
void tui_buckets(unsigned char *cells, int n, int64_t from, int64_t to,
		 const struct lt_browse_episode *eps, size_t neps);

/* The cell a kind's episodes make in a strip (the kinds' table, queries-kinds.c, says). */
enum tui_cell tui_kind_cell(enum lt_episode_kind k);

/* The symbol of a cell (the state is readable without color) and its legend word. */
char tui_cell_symbol(enum tui_cell c);
const char *tui_cell_name(enum tui_cell c);

/* Terminal columns that UTF-8 text s[0..len) takes (wide characters count 2). */
int tui_text_width(const char *s, size_t len);

/* How many bytes of s fit in width columns, whole characters only; *used gets the columns. */
size_t tui_text_fit(const char *s, size_t len, int width, int *used);

/*
 * What the terminal gets for s[0..len): lt_sanitize()d (no control
 * character, escape sequence, invalid UTF-8 or bidi override survives),
 * then cut to whole characters within width columns, a cut marked by "…"
 * in the last column; *used (may be NULL) gets the columns.  out is reset
 * first.
 */
void tui_safe(struct lt_buf *out, const char *s, size_t len, int width, int *used);

/* The same, the first skip columns of the sanitized text left out ("…" in their place). */
void tui_safe_from(struct lt_buf *out, const char *s, size_t len, int skip, int width, int *used);

/*
 * Appends s (a JSON text, maybe broken) laid out one member or element a
 * line with two-space indents.  String contents are copied as they are,
 * escapes included; nothing is decoded, so nothing new is made up.
 */
void tui_json_pretty(struct lt_buf *out, const char *s, size_t len);

/* A display row: bytes [off, off + len) of some text. */
struct tui_span {
	size_t off, len;
};

/*
 * Cuts text (lines separated by '\n', already sanitized) into display rows
 * of at most width columns; appends them to *rows (*n of them, *cap room).
 */
void tui_wrap(struct tui_span **rows, size_t *n, size_t *cap, const char *text, size_t len,
	      int width);

/* A one-line text field being edited. */
struct tui_line {
	char buf[256];
	size_t len;
};

/* Applies key to l: 1 on Enter, -1 on Esc, 0 otherwise (typing, Backspace, Ctrl-U). */
int tui_line_key(struct tui_line *l, int key);

/* How tui_fmt_time writes a time: bits. */
enum tui_time_fmt {
	TUI_TIME_CLOCK = 0, /* "05:56:00" */
	TUI_TIME_DATE = 1,  /* the date before it: "2024-04-05 05:56:00" */
	TUI_TIME_MS = 2,    /* milliseconds after it: "05:56:00.230" */
};

/* us as fmt (enum tui_time_fmt bits) says; "-" for 0. */
void tui_fmt_time(char *buf, size_t size, int64_t us, unsigned fmt);

/*
 * The one format of a time in a row, on every screen (timeline, its panes,
 * query results, histogram): the clock with milliseconds, the date before
 * it when the store's range [first_us, last_us] spans more than one day of
 * the display zone (tui-axis.c).
 */
unsigned tui_time_rows(int64_t first_us, int64_t last_us);

/*
 * The timeline a query result row is about: its node, or NAMESPACE/LEASE
 * (malloc'ed); NULL when the row names neither.
 */
char *tui_result_target(const struct lt_rows *t, size_t r);

/* The row's first time cell's value (left to right), 0 when it has none. */
int64_t tui_result_time(const struct lt_rows *t, size_t r);

/*
 * What a query result row is about in a timeline: up to two episode kinds
 * (LT_EP_NONE: none), or a log line's kind (a text; NULL: none).
 */
struct tui_about {
	enum lt_episode_kind kind, also;
	const char *log_kind; /* borrowed from the result */
};

/*
 * The timeline row (columns enum lt_timeline_col) a jump at at_us about
 * `about` lands on: of the rows of that kind, the one starting nearest
 * at_us; with none (or nothing said), the row of the lease or Node object
 * (not a log line) starting nearest at_us; else 0.
 */
size_t tui_timeline_pick(const struct lt_rows *tl, int64_t at_us, const struct tui_about *about);

/* ---- filters (tui-filter.c) --------------------------------------------- */

struct tui;

#define TUI_FILTER_MAX_TERMS 8
#define TUI_FILTER_TEXT	     256 /* a filter's text, and a row's value of one column */

enum tui_filter_op { TUI_F_MATCH, TUI_F_NOMATCH, TUI_F_GT, TUI_F_LT };

/* One term: column col (an index into the screen's names) op a regex or a number. */
struct tui_filter_term {
	int col;
	enum tui_filter_op op;
	struct lt_regex *re; /* MATCH, NOMATCH */
	double num;	     /* GT, LT */
};

/* A parsed filter: every term must pass; none passes every row. */
struct tui_filter {
	struct tui_filter_term terms[TUI_FILTER_MAX_TERMS];
	int n;
	char text[TUI_FILTER_TEXT]; /* as typed */
};

/*
 * Parses text (tui-filter.c says the language) against the screen's column
 * names cols[0..ncols), the first being what a bare regex matches; 0, or -1
 * with a message in msg (f is then empty).  tui_filter_release frees it.
 */
int tui_filter_parse(struct tui_filter *f, const char *text, const char *const *cols, int ncols,
		     char *msg, size_t size);
void tui_filter_release(struct tui_filter *f);

/* A row's text in column col (buf may hold it); NULL counts as "". */
typedef const char *(*tui_filter_value_fn)(int col, char *buf, size_t size, void *ctx);

/* 1 when the row value() describes passes every term of f. */
int tui_filter_match(const struct tui_filter *f, tui_filter_value_fn value, void *ctx);

/*
 * Keeps the rows of t that keep() says 1 to, in order, and frees the others'
 * text: a filtered list is the list itself, so the cursor, search and
 * jumps need no second index.  Reading the rows again clears the filter.
 */
void tui_rows_keep(struct lt_rows *t, int (*keep)(const struct lt_rows *t, size_t r, void *ctx),
		   void *ctx);

/* The prompt every screen's `f` opens (a fresh one each time). */
#define TUI_FILTER_PROMPT "filter (REGEX, COL=RE, COL!=RE, COL>N; empty: all): "

/*
 * Parses text for a screen (as tui_filter_parse) into *f, releasing what f
 * held; an error goes to the status line and leaves f as it was.  1 when f
 * changed (set, or cleared by an empty text), 0 on an error.
 */
int tui_filter_set(struct tui *t, struct tui_filter *f, const char *text, const char *const *cols,
		   int ncols);

/* ---- the terminal (tui-term.c, the only file that knows curses) --------- */

enum tui_style {
	TUI_S_NORMAL,
	TUI_S_TITLE,
	TUI_S_HEADER,
	TUI_S_HEADING,
	TUI_S_DIM,
	TUI_S_STATUS,
	TUI_S_ERROR,
	TUI_S_RENEWED,
	TUI_S_GAP,
	TUI_S_404,
	TUI_S_AUTH,
	TUI_S_DELETED,
	TUI_S_NOT_READY,
	TUI_S_HOLDER,	   /* a strip's holder-change cell */
	TUI_S_DELETE_CELL, /* a strip's delete cell: apart from auth's colour */
	TUI_S_COUNT,
};

#define TUI_SEL 0x100 /* or'ed into a style: the row under the cursor */

/* The style a row of kind k is drawn in: its tone in the kinds' table (tui-view.c). */
enum tui_style tui_kind_style(enum lt_episode_kind k);

/* Takes over the terminal; 0, or LT_ERR_USAGE when there is none. */
enum tui_term_flags { TUI_TERM_NO_COLOR = 1 /* monochrome, whatever the terminal can */ };
int tui_term_open(unsigned flags, struct lt_error *err);

/* Gives the terminal back as it was; safe to call twice. */
void tui_term_close(void);

/* Nonzero once SIGINT, SIGTERM or SIGHUP arrived (the number). */
int tui_term_signalled(void);

void tui_term_size(int *rows, int *cols);
void tui_term_clear(void);
void tui_term_flush(void);

/* The next key, TUI_K_NONE after timeout_ms (or a signal). */
int tui_term_key(int timeout_ms);

/* Draws s (sanitized here, whatever it is) at y, x, clipped to width ("…" where cut); returns
 * columns used. */
int tui_put(int y, int x, int width, int style, const char *s);

/* The same, scrolled: the first skip columns of s are left out ("…" at the left edge). */
int tui_put_from(int y, int x, int width, int style, const char *s, int skip);

/* Blanks width columns at y, x in style. */
void tui_fill(int y, int x, int width, int style);

/* Shows the text cursor at y, x (a prompt), or hides it (y < 0). */
void tui_term_cursor(int y, int x);

/* The style a cell is drawn in. */
int tui_cell_style(enum tui_cell c);

/* Writes s[0..len) to the terminal's clipboard (OSC 52, base64) when its terminfo entry has
 * the Ms capability and stdout is a terminal; 0, or -1 when it cannot. */
int tui_term_copy(const char *s, size_t len);

/* Mouse reports (click: select, wheel: scroll) on or off; 0, or -1 when the terminal has none. */
int tui_term_mouse(int on);

/* The screen line of the last TUI_K_CLICK. */
int tui_term_mouse_y(void);

/* ---- rows handed over: marks, export, copy (tui-marks.c, tui-export.c) -- */

/* Where a row comes from, which says what Enter on its mark opens. */
enum tui_row_kind { TUI_ROW_TIMELINE, TUI_ROW_REQUEST, TUI_ROW_LINE, TUI_ROW_RESULT };

/* A row as marks, export and copy see it; every pointer owned (tui_row_release). */
struct tui_row {
	enum tui_row_kind kind;
	char *subject; /* the timeline it belongs to or opens: node, or NAMESPACE/LEASE; may be NULL
			*/
	char *source;  /* the query of a result row; a request's verb; a line's FILE:LINE */
	int64_t at_us; /* its time, 0 when none */
	char *what;    /* its kind (timeline), code (request), severity (line); may be NULL */
	char *text;    /* the row as its screen shows it: log text, made safe where it is shown */
	int64_t id;    /* the record: an event id (REQUEST), a line id (LINE) */
	struct tui_about about; /* a TIMELINE or RESULT row's kind; about.log_kind owned here */
};

void tui_row_release(struct tui_row *r);

/* A deep copy of r into *out. */
void tui_row_copy(struct tui_row *out, const struct tui_row *r);

/* The name of a row's kind as marks and exports show it ("timeline", "request", ...). */
const char *tui_row_kind_name(enum tui_row_kind k);

#define TUI_MARKS_MAX 10000 /* marks kept; m says so beyond */

struct tui_marks {
	struct tui_row *v;
	size_t n, cap;
};

/*
 * Marks r, taking what it owns, or unmarks the mark equal to it (same kind,
 * subject, time, record and text), freeing r: 1 marked, 0 unmarked, -1 full
 * (r freed).
 */
int tui_marks_toggle(struct tui_marks *m, struct tui_row *r);
void tui_marks_release(struct tui_marks *m);

/* Export formats: by the file name, .csv is CSV and anything else Markdown. */
enum tui_export_fmt { TUI_EXPORT_MD, TUI_EXPORT_CSV };
enum tui_export_fmt tui_export_fmt_of(const char *path);

/* Appends the header (title: what is exported, a Markdown heading) and one row. */
void tui_export_head(struct lt_buf *b, enum tui_export_fmt f, const char *title);
void tui_export_row(struct lt_buf *b, enum tui_export_fmt f, const struct tui_row *r);
/*
 * Whether byte i of a sanitized cell s[0..len) gets a backslash in a
 * Markdown export (tui-export.c says which and why).
 */
int tui_export_md_escapes(const char *s, size_t len, size_t i);

/* Appends s[0..len) in base64 (RFC 4648, padded). */
void tui_base64(struct lt_buf *out, const char *s, size_t len);

/* ---- screens and the main loop (tui-app.c) ------------------------------ */

struct tui_screen;

/* The prompts the frame answers itself (a screen's own codes stay below them). */
enum { TUI_P_FILTER = 1000, TUI_P_EXPORT, TUI_P_COMMAND };

struct tui_screen_ops {
	const char *name;
	unsigned ctx; /* enum tui_ctx: which bindings apply */
	/* Draws the body, rows [y0, y0 + h) of cols columns. */
	void (*draw)(struct tui *t, struct tui_screen *s, int y0, int h, int cols);
	/* Handles an action; 0 leaves it to the generic handling. */
	int (*action)(struct tui *t, struct tui_screen *s, enum tui_action a);
	/* A prompt it opened was answered (what: its own code). */
	void (*prompted)(struct tui *t, struct tui_screen *s, int what, const char *text);
	/* Reads the store again (`r`). */
	void (*reload)(struct tui *t, struct tui_screen *s);
	void (*free)(struct tui_screen *s);
	/* The optional tools (NULL: the screen has none; the frame says so). */
	/* The row under the cursor into *out (m, y); 0, or -1 when there is none. */
	int (*row)(struct tui *t, struct tui_screen *s, struct tui_row *out);
	/* Every row of the current view, in order, to emit (e); 0, or -1 (emit's, or a status). */
	int (*each)(struct tui *t, struct tui_screen *s,
		    int (*emit)(const struct tui_row *r, void *ctx), void *ctx);
	/* f and :filter: text in the filter language; an empty text clears it. */
	void (*filter)(struct tui *t, struct tui_screen *s, const char *text);
	/* The filter in force, for the status line; NULL or "" when none. */
	const char *(*filter_text)(struct tui_screen *s);
	/* :goto: the cursor on the row nearest at_us. */
	void (*goto_time)(struct tui *t, struct tui_screen *s, int64_t at_us);
	/* A mouse click on screen line y (select the row drawn there). */
	void (*click)(struct tui *t, struct tui_screen *s, int y);
};

/* The first member of every screen. */
struct tui_screen {
	const struct tui_screen_ops *ops;
};

#define TUI_MAX_DEPTH 16

struct tui {
	struct lt_store *st;
	struct tui_screen *stack[TUI_MAX_DEPTH];
	int depth;
	int quit;
	int rows, cols;
	int64_t first_us, last_us; /* the store's time range */
	int building;		   /* lt_derived_check: the derived tables lag (an ingest runs) */
	char status[512];
	int status_error;
	struct {
		int active, what;
		char label[64];
		struct tui_line line;
	} prompt;
	struct tui_marks marks; /* m: across screens, kept until quit */
};

/* A status message: news, or an error (drawn in the error style). */
enum tui_status_kind { TUI_INFO, TUI_ERROR };

/* Shows msg on the status line until the next key. */
void tui_status(struct tui *t, enum tui_status_kind kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Opens the prompt "label" on the status line, prefilled with init; s->ops->prompted gets it. */
void tui_prompt(struct tui *t, int what, const char *label, const char *init);

/* Pushes a screen (it is freed when popped); when the stack is full, s is freed. */
void tui_push(struct tui *t, struct tui_screen *s);

/* Compiles a search pattern (caseless unless it has a capital), or NULL after a status. */
struct lt_regex *tui_regex(struct tui *t, const char *pattern);

/* Draws a list's column header line. */
void tui_draw_header(int y, int cols, const char *text);

/* ---- the screens -------------------------------------------------------- */

struct tui_screen *tui_cluster_new(struct tui *t);
/*
 * target's timeline; when at_us is not 0, the cursor on the row
 * tui_timeline_pick chooses (about may be NULL).
 */
struct tui_screen *tui_timeline_new(struct tui *t, const char *target, int64_t at_us,
				    const struct tui_about *about);
/* One stored record: an audit event, or a log line (rec). */
struct tui_screen *tui_event_new(struct tui *t, int64_t id, enum lt_record rec);
struct tui_screen *tui_queries_new(struct tui *t);
struct tui_screen *tui_help_new(struct tui *t);
/* The histogram: events, errors, NotReady nodes per round time bin (tui-hist.c). */
struct tui_screen *tui_hist_new(struct tui *t);
/* The marks (M): Enter opens what a mark is about, m unmarks, e exports them all. */
struct tui_screen *tui_marks_new(struct tui *t);

/* ---- the command prompt (tui-cmd.c) ------------------------------------- */

/* One `:` command: its name, arguments, and what it does. */
struct tui_cmd {
	const char *name, *args, *help;
	void (*run)(struct tui *t, const char *arg);
};

/* The commands, terminated by a NULL name (help prints them). */
const struct tui_cmd *tui_cmds(void);

/* Runs a `:` line ("goto 05:56", "filter state=not-ready", ...); errors go to the status line. */
void tui_cmd_run(struct tui *t, const char *line);

/* The tools the frame runs for every screen (m, M, e, y, :, and f where the screen left it):
 * 1 when a was one of them. */
int tui_tool_action(struct tui *t, enum tui_action a);

/* A prompt the frame opened (TUI_P_FILTER and after) was answered with text. */
void tui_tool_prompted(struct tui *t, int what, const char *text);

/* Writes the current view (or, on the marks screen, the marks) to path: `e` and `:export`. */
void tui_export(struct tui *t, const char *path);

#endif
