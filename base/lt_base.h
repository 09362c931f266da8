/*
 * lt_base.h - what every module of leasetrail needs: errors, aborting
 * allocation and the one growth rule, the growable buffer, borrowed strings,
 * RFC 3339 time and zones, terminal-safe text and the PCRE2 door.
 *
 * The lowest module (base -> parser -> index -> queries -> tui -> cli): it
 * knows nothing of logs, stores or terminals, and depends on libc and PCRE2
 * only (PCRE2 behind base-regex.c alone).
 *
 * Conventions (docs/style.md): fallible functions return 0 or a negative
 * enum lt_err and fill an optional struct lt_error; the out-parameter comes
 * first; _free(NULL) is a no-op; returned strings are borrowed unless the
 * name says otherwise.
 */
#ifndef LT_BASE_H
#define LT_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- errors and memory ------------------------------------------------ */

enum lt_err {
	LT_OK = 0,
	LT_ERR_IO = -1,	       /* open/read/write failed */
	LT_ERR_FORMAT = -2,    /* input is not in a format we read */
	LT_ERR_TRUNCATED = -3, /* compressed stream ended early */
	LT_ERR_DB = -4,	       /* the store refused an operation */
	LT_ERR_USAGE = -5,     /* bad arguments */
	LT_ERR_ABORT = -6,     /* a callback asked to stop */
	LT_ERR_NOTFOUND = -7,  /* the thing asked for does not exist */
};

/* Where and why something failed; every field optional for the reader. */
struct lt_error {
	int code;	 /* enum lt_err */
	char file[512];	 /* input path, "" when not about a file */
	uint64_t line;	 /* 1-based line, 0 when unknown */
	uint64_t offset; /* byte offset in the decoded stream */
	char msg[512];	 /* one line, no trailing newline */
};

/* Fills err (if not NULL) and returns code, so callers can `return lt_error_set(...)`. */
int lt_error_set(struct lt_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Same, naming the file (and line/offset when known) the error is about. */
int lt_error_at(struct lt_error *err, int code, const char *file, uint64_t line, uint64_t offset,
		const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Allocation that aborts with a message on exhaustion: out of memory is not recoverable here. */
void *lt_xmalloc(size_t n);
void *lt_xcalloc(size_t count, size_t n);
void *lt_xrealloc(void *p, size_t n);
char *lt_xstrdup(const char *s);
char *lt_xstrndup(const char *s, size_t n);

/*
 * Fault injection (base-fault.c; built in with -DLT_FAULT=ON, else always
 * 0): true when this call of the kind is the one LEASETRAIL_FAULT=KIND:N
 * asks to fail.  armed: LEASETRAIL_FAULT names the kind.
 */
enum lt_fault_kind { LT_FAULT_ALLOC, LT_FAULT_SQLITE, LT_FAULT_IO, LT_FAULT_ZSTD };
int lt_fault(enum lt_fault_kind kind);
int lt_fault_armed(enum lt_fault_kind kind);

/*
 * The one growth rule of every growable array in the tree: returns p (an
 * array of *cap elements of size bytes, NULL when *cap is 0) reallocated to
 * hold at least need elements, and sets *cap.  The capacity at least doubles
 * (from 16), so n appends cost O(n); a capacity whose byte count would not
 * fit in a size_t aborts like an exhausted heap.  When *cap >= need, p comes
 * back untouched.
 */
void *lt_grow(void *p, size_t *cap, size_t need, size_t size);

/* Grows the array arr (capacity cap, a size_t lvalue) to hold at least need elements. */
#define LT_GROW(arr, cap, need) ((arr) = lt_grow((arr), &(cap), (need), sizeof *(arr)))

/* ---- growable byte buffer (owned, always NUL-terminated) ------------- */

/*
 * Invariant, from lt_buf_init on: ptr is never NULL and ptr[len] == '\0', so
 * b.ptr is always a C string (which may also hold NUL bytes before len).
 * lt_buf_init allocates the first bytes, so an initialised buffer owns ptr
 * (cap > 0) even while empty: a caller may take ptr as a malloc'd string it
 * frees (lt_buf_detach says so by name) and then forget the buffer.
 * lt_buf_release frees ptr and leaves the buffer empty and still valid,
 * pointing at a shared static "" that it does not own (cap == 0): appending
 * allocates again, and lt_buf_detach returns a fresh "".  A zero-filled
 * struct is NOT a buffer: every lt_buf_* function asserts the invariant.
 */
struct lt_buf {
	char *ptr;  /* never NULL; ptr[len] == '\0' */
	size_t len; /* bytes held, the NUL aside */
	size_t cap; /* bytes owned at ptr; 0 only after lt_buf_release (ptr is a static "") */
};

void lt_buf_init(struct lt_buf *b);    /* empty, owning its first bytes */
void lt_buf_release(struct lt_buf *b); /* frees the memory; b stays a valid empty buffer */
void lt_buf_reset(struct lt_buf *b);   /* len = 0, keeps the memory */

/* Drops the bytes past n (n <= len), keeping the terminating NUL. */
void lt_buf_truncate(struct lt_buf *b, size_t n);

/* Hands ptr over (a malloc'd C string the caller frees); b is left released. */
char *lt_buf_detach(struct lt_buf *b);

void lt_buf_append(struct lt_buf *b, const void *data, size_t n);
void lt_buf_putc(struct lt_buf *b, char c);
void lt_buf_printf(struct lt_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Appends s as a JSON string literal, quotes included: '"' and '\\' escaped,
 * control bytes and DEL as \u00XX, every other byte as it is.
 */
void lt_json_quote(struct lt_buf *b, const char *s, size_t len);

/* The bytes at the start of s[0..len) that lt_json_quote writes as they are: the index of the
 * first '"', '\\', control byte or DEL, len if none (eight bytes a step where it can). */
size_t lt_json_plain_len(const char *s, size_t len);

/* The index of the first '"' or '\\' of s[0..len), len if none: a quoted string's plain run. */
size_t lt_text_unescaped_len(const char *s, size_t len);

/* ---- borrowed string slices ------------------------------------------- */

/* A string that may hold NUL bytes; ptr == NULL means "absent". */
struct lt_str {
	const char *ptr;
	size_t len;
};

/* True when s is present and equal to the C string lit. */
int lt_str_eq(struct lt_str s, const char *lit);

/* ---- time ------------------------------------------------------------- */

/*
 * Parses an RFC 3339 timestamp ("2024-04-05T05:58:52.744075Z", an offset
 * instead of Z, a space instead of T, any number of fraction digits) into
 * microseconds since the Unix epoch, UTC.  Digits past microseconds are
 * truncated.  Returns 0, or LT_ERR_FORMAT when s is not such a timestamp.
 */
int lt_time_parse(int64_t *out, const char *s, size_t len);

/* lt_time_parse, also giving the timestamp's offset (local minus UTC) in µs. */
int lt_time_parse_zone(int64_t *out, int64_t *zone_us, const char *s, size_t len);

/* A whole zone offset, "Z", "+hh:mm" or "-hhmm", in µs east of UTC; 0 or LT_ERR_FORMAT. */
int lt_time_zone(int64_t *zone_us, const char *s, size_t len);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t lt_time_days_from_civil(int64_t y, unsigned m, unsigned d);

/* The UTC year of a time in microseconds since the epoch. */
int lt_time_year(int64_t us);

/* The UTC calendar date and time of day (µs) of a time in microseconds since the epoch. */
void lt_time_civil(int64_t us, int *year, int *mon, int *day, int64_t *tod_us);

/* Formats microseconds since the epoch as "YYYY-MM-DDTHH:MM:SS.uuuuuuZ"; buf >= 32 bytes. */
void lt_time_format(char *buf, size_t size, int64_t us);

/* ---- the display zone (base-zone.c) ----------------------------------- */

/*
 * Sets the zone times are shown in and local times are read in, for the
 * whole process (UTC until called): NULL or "UTC" (also "Z", "Etc/UTC",
 * "GMT"); "local", the system's zone ($TZ, else /etc/localtime); a fixed
 * offset "+05:30"; or an IANA name ("Europe/Berlin") found in tzdata
 * ($TZDIR, else /usr/share/zoneinfo), whose rules the C library applies
 * (it sets TZ).  0, or LT_ERR_USAGE with err saying the zone is unknown.
 */
int lt_zone_set(const char *name, struct lt_error *err);

/* The zone's name as set ("UTC", "Europe/Berlin", "+05:30"). */
const char *lt_zone_name(void);

/* 1 while the zone is UTC. */
int lt_zone_is_utc(void);

/* The zone's offset east of UTC at instant utc_us, in µs (daylight saving included). */
int64_t lt_zone_offset(int64_t utc_us);

/*
 * The instant a wall time of the zone (µs since the epoch as if it were
 * UTC) stands for: a time shown twice (clocks going back) is its first
 * occurrence; a time the clocks skipped is LT_ERR_NOTFOUND.
 */
int lt_zone_to_utc(int64_t *out, int64_t local_us);

/*
 * lt_time_format in the zone: "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" while it is
 * UTC, else the wall time with its offset, "...05:56:00.198927+02:00"
 * (RFC 3339 either way); buf >= 33 bytes.
 */
void lt_time_format_zone(char *buf, size_t size, int64_t us);

/* ---- terminal-safe text ----------------------------------------------- */

/*
 * Appends s to b with everything a terminal could act on made visible:
 * control characters and DEL as \xNN (\n \t \r as themselves escaped),
 * invalid UTF-8 bytes as \xNN, and the C1 controls and bidi overrides as
 * \u{NNNN}.  Log text is hostile; nothing from a log reaches a terminal
 * without passing through here.
 */
void lt_sanitize(struct lt_buf *b, const char *s, size_t len);

/*
 * Length of the valid UTF-8 sequence at s[0..len) (1..4; len >= 1), or 0
 * when none starts there; *cp gets its code point.
 */
size_t lt_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/*
 * Display cells of code point cp on a terminal: 0 for combining marks,
 * format characters and Hangul medial vowels, 2 for East Asian wide and
 * fullwidth characters and emoji presentation, else 1 (glibc 2.36's
 * wcwidth in C.UTF-8, Unicode 15, as a table: no locale needed).
 */
int lt_cp_width(uint32_t cp);

/* Display cells of UTF-8 text s[0..len) (as lt_sanitize leaves it); a stray byte counts one. */
size_t lt_text_width(const char *s, size_t len);

/*
 * The longest prefix of s[0..len) at most cells cells wide, in bytes: never
 * a split UTF-8 sequence, a wide character that would straddle the edge left
 * out, and the zero-width marks that follow the last character kept kept
 * with it.  *width (optional) gets the prefix's cells.
 */
size_t lt_text_fit(const char *s, size_t len, size_t cells, size_t *width);

/* 1 when s[0..len) is UTF-8: no stray byte, overlong form, surrogate or value past U+10FFFF. */
int lt_utf8_valid(const char *s, size_t len);

/*
 * Appends s[0..len) to b as valid UTF-8: each byte that does not begin a
 * valid sequence becomes U+FFFD (the replacement character), one per byte.
 * Returns how many bytes were replaced.
 */
size_t lt_utf8_repair(struct lt_buf *b, const char *s, size_t len);

/*
 * Appends JSON text (valid UTF-8, as lt_json_writer makes it) to b with
 * every code point lt_sanitize would escape that JSON leaves raw (DEL, the
 * C1 controls, bidi and zero-width marks, line and paragraph separators)
 * written as a \uXXXX escape: the same JSON value, safe on a terminal.  A
 * byte that is not UTF-8 (not JSON from the writer) becomes \ufffd.
 */
void lt_sanitize_json(struct lt_buf *b, const char *json, size_t len);

/* ---- regular expressions (PCRE2, JIT when the CPU has it) ------------ */

struct lt_regex;

/*
 * Compiles pattern (PCRE2 syntax, UTF-8; caseless when icase).  A bad
 * pattern is LT_ERR_USAGE with PCRE2's message and the offset in err.
 */
int lt_regex_new(struct lt_regex **out, const char *pattern, int icase, struct lt_error *err);
void lt_regex_free(struct lt_regex *re);

/*
 * 1 when re matches somewhere in s[0..len), 0 when not.  The match (and
 * its groups) stays in re until the next call: one regex, one thread.
 */
int lt_regex_match(struct lt_regex *re, const char *s, size_t len);

/*
 * 0 when no subject that starts with s[0..len) can hold a match of re that starts at its first
 * byte (PCRE2's hard partial match of s finds none), 1 when one may.  For a pattern whose every
 * match starts there (anchored with '^'), 0 means no subject with that start matches at all.
 * Clears the last match.
 */
int lt_regex_start_may_match(struct lt_regex *re, const char *s, size_t len);

/* 1 when every match of re starts at the subject's first byte (each top-level branch opens
 * with '^' or \A, or it was compiled anchored), 0 when not. */
int lt_regex_anchored(const struct lt_regex *re);

/* The last match's named group, absent (ptr NULL) when it did not take part. */
struct lt_str lt_regex_group(const struct lt_regex *re, const char *s, const char *name);

/* The last match's (*MARK:NAME), NULL when none. */
const char *lt_regex_mark(const struct lt_regex *re);

/* The version of the PCRE2 library linked ("10.42 2022-12-11"), for `leasetrail version`. */
const char *lt_regex_version(void);

#endif
