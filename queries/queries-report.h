/*
 * queries-report.h - the incident report's parts, shared by its files (private to queries/).
 *
 * queries-report.c computes (findings from the canned queries, each subject's
 * timeline with the record behind every row, the heartbeat strip);
 * queries-report-say.c words the findings (pure: findings in, sentences out);
 * queries-report-print.c writes Markdown or HTML; queries-report-draw.c draws
 * the pictures with the SVG writer of queries-svg.c.  Every string a finding
 * or a row holds is log text: escaped for the format where it is printed.
 */
#ifndef LT_QUERIES_REPORT_H
#define LT_QUERIES_REPORT_H

#include "lt_queries.h"

/* What a finding is; also the order the summary tells them in. */
enum report_kind {
	REPORT_NODE_DELETED,  /* who-deleted, a Node */
	REPORT_LEASE_DELETED, /* who-deleted, a Lease, by anyone but the garbage collector */
	REPORT_GC_DELETE,     /* gc-deletes */
	REPORT_ORPHANED,      /* orphaned-kubelets */
	REPORT_REGISTERED,    /* node-registrations: again (after a delete, or a 409), or failed */
	REPORT_RECREATED,     /* recreations */
	REPORT_NOT_READY,     /* not-ready */
	REPORT_LEADER_CHANGE, /* leader-changes */
	REPORT_AUTH_FAILURE,  /* auth-failures */
	REPORT_KIND_COUNT
};

/*
 * One finding: what happened, to what, when, by whom.  The meaning of the
 * text fields is the kind's (see the queries-report.c readers); every
 * string is owned and may be NULL.
 */
struct report_finding {
	enum report_kind kind;
	int64_t ts, end_us; /* µs; end_us 0: none (an open window, no last request) */
	int64_t ts2;	    /* a second time: the node's delete, a re-registration; 0 = none */
	int64_t dur_us;	    /* -1 = none */
	int64_t count, code;
	int64_t event;	/* the audit id it rests on, 0 = none */
	int again;	/* REGISTERED: after a delete; ORPHANED: still orphaned at the end */
	char *subject;	/* what `timeline` takes: the node, or NAMESPACE/NAME */
	char *object;	/* how a sentence names it: "node X", "lease NS/NAME" */
	char *actor;	/* who did it */
	char *what;	/* cause, old holder, result, reason, the delete's source IP */
	char *more;	/* how it ended, the new holder, who the gone lease went by */
	char *where;	/* "FILE:LINE" of event, filled by the report */
	char *identity; /* who is behind actor (an IAM ARN, ...): event's, when it is actor's */
};

void queries_report_finding_release(struct report_finding *f);

/*
 * The sentence that says finding f (appended to b, plain text: the printers
 * escape it).  Times are written to the second, UTC.
 */
void queries_report_say_one(struct lt_buf *b, const struct report_finding *f);

/*
 * The summary: a few sentences for findings f[0..n-1] (any order), one list
 * item each, into *out (owned strings; free each and the array).  A kind
 * with up to REPORT_SAY_EACH findings gets a sentence each, one with more
 * a sentence for all of them (how many, when, by whom, the worst one).
 * With no finding at all, one sentence saying so.  Returns the count.
 */
#define REPORT_SAY_EACH 3
size_t queries_report_say(char ***out, const struct report_finding *f, size_t n);

/* The kind's short name, as the findings table prints it ("node deleted"). */
const char *queries_report_kind_name(enum report_kind k);

/* ---- the pictures' data ---------------------------------------------------- */

/* A strip cell: what a stretch of time held, weaker first (as the TUI's strip). */
enum report_cell {
	REPORT_C_NONE,
	REPORT_C_GONE,
	REPORT_C_RENEWED,
	REPORT_C_GAP,
	REPORT_C_NOT_READY,
	REPORT_C_404,
	REPORT_C_AUTH,
	REPORT_C_DELETED,
	REPORT_C_COUNT
};

#define REPORT_STRIP_CELLS 120 /* buckets across the report's time range */
#define REPORT_STRIP_NODES 60  /* nodes drawn; more are counted */

/* One node's heartbeat strip. */
struct report_strip {
	char *node;
	unsigned char cells[REPORT_STRIP_CELLS]; /* enum report_cell */
	int64_t deleted[4];			 /* its Node's deletes (µs), 0 = none */
};

/* The cell a kind draws; its symbol (the TUI's) and its name for the legend. */
enum report_cell queries_report_cell(enum lt_episode_kind k);
char queries_report_cell_symbol(enum report_cell c);
const char *queries_report_cell_name(enum report_cell c);

/*
 * Buckets episodes eps[0..n-1] of one lease (in start order) into
 * cells[0..ncells-1] over [from, to]: each bucket the strongest cell that
 * overlaps it; a deleted lease is gone until its next episode.
 */
void queries_report_bucket(unsigned char *cells, int ncells, int64_t from, int64_t to,
			   const struct lt_browse_episode *eps, size_t n);

/* ---- the report ----------------------------------------------------------- */

/* One subject: its timeline (columns enum lt_timeline_col with LT_TL_REF) and where each row is. */
struct report_subject {
	char *target;
	struct lt_rows rows;
	char **where; /* per row: "FILE:LINE" of its record, NULL when none */
};

#define REPORT_MAX_SUBJECTS 12	 /* subjects the findings name that get a timeline */
#define REPORT_MAX_ROWS	    400	 /* timeline rows printed per subject */
#define REPORT_MAX_FINDINGS 2000 /* findings kept */

struct lt_report {
	const char *store;    /* the store's path (borrowed from it) */
	int64_t from, to;     /* the time the report covers, µs */
	int64_t since, until; /* as asked, 0 = open */
	struct report_finding *f;
	size_t nf, capf, f_more; /* f_more: findings past REPORT_MAX_FINDINGS */
	char **said;
	size_t nsaid;
	struct report_subject *subj;
	size_t nsubj, subj_more, subj_cap;
	struct report_strip *strip;
	size_t nstrip, strip_more, strip_cap;
};

/* ---- writing ----------------------------------------------------------------- */

/* Appends s[0..len) to b sanitized, then escaped for HTML text and attributes (SVG too). */
void queries_html_escape(struct lt_buf *b, const char *s, size_t len);

/* Appends s[0..len) to b sanitized, then escaped for Markdown text (a table cell too). */
void queries_md_escape(struct lt_buf *b, const char *s, size_t len);

/* A minimal SVG writer (queries-svg.c): every text escaped, colours as attributes. */
struct svg {
	struct lt_buf *b;
	int width, height;
};

void queries_svg_begin(struct svg *s, struct lt_buf *b, int width, int height, const char *label);
void queries_svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
		      const char *title);
void queries_svg_line(struct svg *s, double x1, double y1, double x2, double y2,
		      const char *stroke);
/* anchor: "start", "middle" or "end" */
void queries_svg_text(struct svg *s, double x, double y, int size, const char *anchor,
		      const char *fill, const char *text);
void queries_svg_end(struct svg *s);

/* The heartbeat strip of r, and subject i's timeline, as SVG documents into b. */
void queries_report_draw_strip(struct lt_buf *b, const struct lt_report *r);
void queries_report_draw_timeline(struct lt_buf *b, const struct lt_report *r, size_t i);

/* "2024-04-05T05:56:00Z": a time to the second, UTC (buf >= 32). */
void queries_report_time(char *buf, size_t size, int64_t us);

#endif
