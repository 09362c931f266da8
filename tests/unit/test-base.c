/*
 * test-base.c - unit tests of base/: the buffer's invariant (ptr never NULL,
 * always NUL-terminated, what init, release, truncate and detach leave), the
 * one growth rule (lt_grow: doubling, untouched when big enough, an
 * impossible size aborts), the error setters, and UTF-8 made valid
 * (lt_utf8_repair) and JSON made safe for a terminal (lt_sanitize_json);
 * display widths (wide CJK, combining marks, emoji, stray bytes) and the
 * display zone (fixed offsets, tzdata zones across daylight saving changes).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lt_base.h"

static void test_buf_init_is_an_owned_empty_string(void **state)
{
	struct lt_buf b;
	char *s;

	(void)state;
	lt_buf_init(&b);
	assert_non_null(b.ptr);
	assert_string_equal(b.ptr, "");
	assert_int_equal(b.len, 0);
	assert_true(b.cap > 0);
	/* an empty buffer's bytes may be taken as they are */
	s = b.ptr;
	free(s);
}

static void test_buf_release_leaves_a_valid_empty_buffer(void **state)
{
	struct lt_buf b;
	char *s;

	(void)state;
	lt_buf_init(&b);
	lt_buf_append(&b, "abc", 3);
	lt_buf_release(&b);
	assert_non_null(b.ptr);
	assert_string_equal(b.ptr, "");
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	lt_buf_release(&b); /* twice is fine */
	lt_buf_reset(&b);
	assert_string_equal(b.ptr, "");
	/* detaching a released buffer gives a fresh "" the caller frees */
	s = lt_buf_detach(&b);
	assert_string_equal(s, "");
	free(s);
	/* and it grows again */
	lt_buf_printf(&b, "%d-%s", 42, "x");
	assert_string_equal(b.ptr, "42-x");
	assert_int_equal(b.len, 4);
	lt_buf_release(&b);
}

static void test_buf_grows_and_stays_terminated(void **state)
{
	struct lt_buf b;
	char chunk[100];

	(void)state;
	memset(chunk, 'z', sizeof chunk);
	lt_buf_init(&b);
	for (int i = 0; i < 1000; i++) {
		lt_buf_append(&b, chunk, sizeof chunk);
		assert_int_equal(b.len, (size_t)(i + 1) * sizeof chunk);
		assert_true(b.cap > b.len);
		assert_int_equal(b.ptr[b.len], '\0');
	}
	lt_buf_putc(&b, '\0'); /* a NUL inside the bytes is kept, and one follows them */
	assert_int_equal(b.len, 100001);
	assert_int_equal(b.ptr[100000], '\0');
	assert_int_equal(b.ptr[100001], '\0');
	lt_buf_release(&b);
}

static void test_buf_truncate_and_detach(void **state)
{
	struct lt_buf b;
	char *s;

	(void)state;
	lt_buf_init(&b);
	lt_buf_append(&b, "hello world", 11);
	lt_buf_truncate(&b, 5);
	assert_int_equal(b.len, 5);
	assert_string_equal(b.ptr, "hello");
	lt_buf_truncate(&b, 5); /* no change */
	assert_string_equal(b.ptr, "hello");
	s = lt_buf_detach(&b);
	assert_string_equal(s, "hello");
	assert_int_equal(b.cap, 0);
	assert_string_equal(b.ptr, "");
	free(s);
	lt_buf_release(&b);
}

static void test_grow_doubles_from_16(void **state)
{
	int *a = NULL;
	size_t cap = 0;

	(void)state;
	LT_GROW(a, cap, 1);
	assert_non_null(a);
	assert_int_equal(cap, 16);
	a[15] = 7;
	LT_GROW(a, cap, 16); /* room enough: untouched */
	assert_int_equal(cap, 16);
	LT_GROW(a, cap, 17);
	assert_int_equal(cap, 32);
	assert_int_equal(a[15], 7); /* the elements move with the array */
	LT_GROW(a, cap, 1000);
	assert_int_equal(cap, 1024);
	a[999] = 1;
	free(a);
}

/* Runs fn in a child; true when it died of SIGABRT. */
static int aborts(void (*fn)(void))
{
	int status = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		/* the message on stderr is expected: keep the test's output clean */
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(3);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void grow_past_size_max(void)
{
	void *p = NULL;
	size_t cap = 0;

	p = lt_grow(p, &cap, SIZE_MAX / 8 + 1, 16); /* elements fit, bytes do not */
	free(p);
}

static void grow_count_past_size_max(void)
{
	void *p = NULL;
	size_t cap = 0;

	p = lt_grow(p, &cap, SIZE_MAX, 1); /* no power of two reaches it */
	free(p);
}

static void test_grow_aborts_on_impossible_sizes(void **state)
{
	(void)state;
	assert_true(aborts(grow_past_size_max));
	assert_true(aborts(grow_count_past_size_max));
}

static void test_error_setters_return_the_code(void **state)
{
	struct lt_error err = {0};

	(void)state;
	assert_int_equal(lt_error_at(&err, LT_ERR_IO, "a.log", 3, 40, "bad %s", "thing"),
			 LT_ERR_IO);
	assert_int_equal(err.code, LT_ERR_IO);
	assert_string_equal(err.file, "a.log");
	assert_int_equal(err.line, 3);
	assert_int_equal(err.offset, 40);
	assert_string_equal(err.msg, "bad thing");
	/* lt_error_set forgets where, and a NULL err is allowed */
	assert_int_equal(lt_error_set(&err, LT_ERR_USAGE, "usage"), LT_ERR_USAGE);
	assert_string_equal(err.file, "");
	assert_int_equal(err.line, 0);
	assert_int_equal(lt_error_set(NULL, LT_ERR_DB, "nobody asked"), LT_ERR_DB);
}

/* A table of inputs and what lt_utf8_repair makes of them (one U+FFFD a bad byte). */
static void test_utf8_repair(void **state)
{
	static const struct {
		const char *in, *want;
		size_t bad;
	} cases[] = {
	    {"plain ascii", "plain ascii", 0},
	    {"caf\xc3\xa9 \xe2\x80\xae \xc2\x9b \xf0\x9f\x98\x80", /* é, U+202E, C1 CSI, emoji */
	     "caf\xc3\xa9 \xe2\x80\xae \xc2\x9b \xf0\x9f\x98\x80", 0},
	    {"a\xff"
	     "b",
	     "a\xef\xbf\xbd"
	     "b",
	     1},
	    {"\xc3", "\xef\xbf\xbd", 1},				 /* cut short at the end */
	    {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", 2},		 /* overlong '/' */
	    {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 3}, /* a surrogate */
	    {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
	     4}, /* > U+10FFFF */
	    {"\xe2\x80"
	     "x",
	     "\xef\xbf\xbd\xef\xbf\xbd"
	     "x",
	     2},
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct lt_buf b;
		size_t bad;

		lt_buf_init(&b);
		bad = lt_utf8_repair(&b, cases[i].in, strlen(cases[i].in));
		assert_string_equal(b.ptr, cases[i].want);
		assert_int_equal(bad, cases[i].bad);
		assert_int_equal(lt_utf8_valid(cases[i].in, strlen(cases[i].in)), bad == 0);
		assert_true(lt_utf8_valid(b.ptr, b.len));
		lt_buf_release(&b);
	}
}

/* JSON made safe for a terminal: what JSON leaves raw and a terminal acts on, escaped. */
static void test_sanitize_json(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"{\"a\":\"x\\u001B]0;t\"}", "{\"a\":\"x\\u001B]0;t\"}"}, /* already escaped */
	    {"\"\xc2\x9b"
	     "2J\"",
	     "\"\\u009B2J\""}, /* C1 CSI */
	    {"\"\xe2\x80\xae"
	     "abc\"",
	     "\"\\u202Eabc\""},		 /* bidi override */
	    {"\"\x7f\"", "\"\\u007F\""}, /* DEL */
	    {"\"caf\xc3\xa9 \xf0\x9f\x98\x80\"", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""}, /* kept */
	    {"\"\xff\"", "\"\\uFFFD\""}, /* not from the writer: still safe */
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct lt_buf b;

		lt_buf_init(&b);
		lt_sanitize_json(&b, cases[i].in, strlen(cases[i].in));
		assert_string_equal(b.ptr, cases[i].want);
		lt_buf_release(&b);
	}
}

/* ---- display width (base-width.c) ---------------------------------------- */

static void test_cp_width_table(void **state)
{
	static const struct {
		uint32_t cp;
		int cells;
	} cases[] = {
	    {'a', 1},	  {0xe9, 1},	 /* é precomposed */
	    {0x301, 0},	  {0x20dd, 0},	 /* combining acute, enclosing circle */
	    {0x4e00, 2},  {0x3042, 2},	 /* CJK 一, hiragana あ */
	    {0xac00, 2},  {0x1160, 0},	 /* Hangul 가, a medial vowel */
	    {0xff21, 2},  {0xff61, 1},	 /* fullwidth Ａ, halfwidth ｡ */
	    {0x1f600, 2}, {0x1f44d, 2},	 /* emoji 😀 👍 */
	    {0x2026, 1},  {0x200d, 0},	 /* …, zero-width joiner */
	    {0x20000, 2}, {0x10ffff, 1}, /* CJK extension B; the last code point */
	    {0xe000, 1},  {0x2e80, 2},	 /* private use; CJK radical */
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		if (lt_cp_width(cases[i].cp) != cases[i].cells)
			fail_msg("U+%04X: %d cells, want %d", (unsigned)cases[i].cp,
				 lt_cp_width(cases[i].cp), cases[i].cells);
	}
}

static void test_text_width_and_fit(void **state)
{
	static const struct {
		const char *s;
		size_t width;  /* lt_text_width */
		size_t cells;  /* lt_text_fit to so many cells... */
		size_t keep;   /* ...keeps so many bytes */
		size_t kept_w; /* ...so many cells wide */
	} cases[] = {
	    {"plain ascii", 11, 5, 5, 5},
	    /* 日本語 is 3 characters of 3 bytes, 2 cells each: 5 cells keep two */
	    {"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 6, 5, 6, 4},
	    {"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 6, 1, 0, 0},
	    /* e + combining acute + x: the mark stays with the e */
	    {"e\xcc\x81x", 2, 1, 3, 1},
	    /* emoji: 2 cells each, never split */
	    {"\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 4, 3, 4, 2},
	    /* a stray byte and a cut-off sequence count one cell each */
	    {"a\xff\xe6\x97", 4, 2, 2, 2},
	    /* hostile text as lt_sanitize leaves it: escapes are ASCII */
	    {"\\x1b]0;PWN\\x07", 14, 4, 4, 4},
	    {"", 0, 3, 0, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t len = strlen(cases[i].s), w = 99;

		assert_int_equal(lt_text_width(cases[i].s, len), cases[i].width);
		assert_int_equal(lt_text_fit(cases[i].s, len, cases[i].cells, &w), cases[i].keep);
		assert_int_equal(w, cases[i].kept_w);
	}
}

/* ---- the display zone (base-zone.c) -------------------------------------- */

static char *zone_fmt(char *buf, int64_t us)
{
	lt_time_format_zone(buf, 48, us);
	return buf;
}

#define T(s) (s##LL * 1000000)

static void test_zone_utc_is_the_default_and_plain(void **state)
{
	char buf[48];
	int64_t v;

	(void)state;
	assert_true(lt_zone_is_utc());
	assert_string_equal(zone_fmt(buf, 1712296560198927LL), "2024-04-05T05:56:00.198927Z");
	assert_int_equal(lt_zone_set("Etc/UTC", NULL), 0);
	assert_true(lt_zone_is_utc());
	assert_string_equal(lt_zone_name(), "UTC");
	assert_int_equal(lt_zone_to_utc(&v, T(1712296560)), 0);
	assert_int_equal(v, T(1712296560));
}

static void test_zone_fixed_offsets(void **state)
{
	char buf[48];
	int64_t v;

	(void)state;
	assert_int_equal(lt_zone_set("+05:30", NULL), 0);
	assert_string_equal(zone_fmt(buf, 1712296560198927LL), "2024-04-05T11:26:00.198927+05:30");
	assert_int_equal(lt_zone_set("-0330", NULL), 0);
	assert_string_equal(zone_fmt(buf, 1712296560000000LL), "2024-04-05T02:26:00.000000-03:30");
	assert_int_equal(lt_zone_to_utc(&v, T(1712296560) - T(12600)), 0);
	assert_int_equal(v, T(1712296560));
	assert_int_equal(lt_zone_set("+99:99", NULL), LT_ERR_USAGE);
	lt_zone_set(NULL, NULL);
}

/* Europe/Berlin: clocks went forward 2024-03-31 at 01:00 UTC, back 2024-10-27 at 01:00 UTC. */
static void test_zone_named_across_dst(void **state)
{
	char buf[48];
	int64_t v;

	(void)state;
	assert_int_equal(lt_zone_set("Europe/Berlin", NULL), 0);
	assert_false(lt_zone_is_utc());
	assert_string_equal(lt_zone_name(), "Europe/Berlin");
	assert_string_equal(zone_fmt(buf, T(1711846799)), "2024-03-31T01:59:59.000000+01:00");
	assert_string_equal(zone_fmt(buf, T(1711846800)), "2024-03-31T03:00:00.000000+02:00");
	/* 02:30 on 2024-03-31 never happened in Berlin */
	assert_int_equal(lt_zone_to_utc(&v, T(1711852200)), LT_ERR_NOTFOUND);
	/* 03:30 did: 01:30 UTC */
	assert_int_equal(lt_zone_to_utc(&v, T(1711855800)), 0);
	assert_int_equal(v, T(1711848600));
	/* 02:30 on 2024-10-27 happened twice: the first, 00:30 UTC (CEST) */
	assert_int_equal(lt_zone_to_utc(&v, T(1729996200)), 0);
	assert_int_equal(v, T(1729989000));
	assert_string_equal(zone_fmt(buf, T(1729989000)), "2024-10-27T02:30:00.000000+02:00");
	assert_string_equal(zone_fmt(buf, T(1729992600)), "2024-10-27T02:30:00.000000+01:00");
	/* the southern hemisphere, and a zone west of UTC */
	assert_int_equal(lt_zone_set("Australia/Sydney", NULL), 0);
	assert_string_equal(zone_fmt(buf, T(1712296560)), "2024-04-05T16:56:00.000000+11:00");
	assert_int_equal(lt_zone_set("America/New_York", NULL), 0);
	assert_string_equal(zone_fmt(buf, T(1712296560)), "2024-04-05T01:56:00.000000-04:00");
	lt_zone_set("UTC", NULL);
	assert_true(lt_zone_is_utc());
}

static void test_zone_names_refused(void **state)
{
	static const char *const bad[] = {
	    "Nowhere/Atlantis",
	    "../../etc/passwd",
	    "/etc/localtime",
	    "Europe/../Europe/Berlin",
	    "Europe/Berlin\x1b[2J",
	    "",
	    "Europe//Berlin",
	    "zone.tab",
	    "Europe/",
	};
	struct lt_error err = {0};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		if (lt_zone_set(bad[i], &err) != LT_ERR_USAGE)
			fail_msg("zone '%s' was taken", bad[i]);
		assert_true(lt_zone_is_utc()); /* a refused zone leaves the last one */
	}
	assert_non_null(strstr(err.msg, "no such zone"));
}

/* lt_json_quote writes byte c as: as it is, after a backslash, or \u00XX (a reference). */
static void quote_ref(struct lt_buf *b, const unsigned char *s, size_t len)
{
	lt_buf_putc(b, '"');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\\')
			lt_buf_printf(b, "\\%c", s[i]);
		else if (s[i] < 0x20 || s[i] == 0x7f)
			lt_buf_printf(b, "\\u%04x", s[i]);
		else
			lt_buf_putc(b, (char)s[i]);
	}
	lt_buf_putc(b, '"');
}

/* Every byte, alone and in runs, appended after text, escapes first, last and packed. */
static void test_json_quote_every_byte(void **state)
{
	unsigned char s[4096];
	struct lt_buf got, want;

	(void)state;
	lt_buf_init(&got);
	lt_buf_init(&want);
	for (size_t len = 0; len <= sizeof s; len = len * 2 + 1) {
		for (int shift = 0; shift < 256; shift += 37) {
			for (size_t i = 0; i < len; i++)
				s[i] = (unsigned char)((i * 7 + (size_t)shift) % 256);
			lt_buf_reset(&got);
			lt_buf_reset(&want);
			lt_buf_append(&got, "x:", 2);
			lt_buf_append(&want, "x:", 2);
			lt_json_quote(&got, (const char *)s, len);
			quote_ref(&want, s, len);
			assert_int_equal(got.len, want.len);
			assert_memory_equal(got.ptr, want.ptr, got.len + 1); /* and its NUL */
		}
	}
	memset(s, '\n', sizeof s); /* all escapes: six times the text */
	lt_buf_release(&got);
	lt_json_quote(&got, (const char *)s, sizeof s);
	assert_int_equal(got.len, 6 * sizeof s + 2);
	lt_buf_release(&got);
	lt_buf_release(&want);
}

/*
 * lt_json_plain_len and lt_text_unescaped_len against a byte loop: every byte value as the one
 * stop at every position of strings of 0..40 bytes (the 8- and 16-byte steps, their tails read
 * again), at three alignments, bytes >= 0x80 and 0x20..0x7e around it plain.
 */
static void test_plain_spans_every_byte(void **state)
{
	char buf[64 + 8];

	(void)state;
	for (size_t len = 0; len <= 40; len++)
		for (size_t align = 0; align < 8; align += 3)
			for (size_t at = 0; at <= len; at++)
				for (int c = 0; c < 256; c++) {
					char *s = buf + align;
					size_t json = len, text = len;

					for (size_t i = 0; i < len; i++)
						s[i] = (char)(i % 2 ? 0xc3 : 'a' + (int)(i % 26));
					if (at < len)
						s[at] = (char)c;
					for (size_t i = len; i-- > 0;) {
						unsigned char b = (unsigned char)s[i];

						if (b < 0x20 || b == '"' || b == '\\' || b == 0x7f)
							json = i;
						if (b == '"' || b == '\\')
							text = i;
					}
					if (lt_json_plain_len(s, len) != json ||
					    lt_text_unescaped_len(s, len) != text)
						fail_msg(
						    "len %zu at %zu byte %d: %zu %zu, want %zu %zu",
						    len, at, c, lt_json_plain_len(s, len),
						    lt_text_unescaped_len(s, len), json, text);
				}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buf_init_is_an_owned_empty_string),
	    cmocka_unit_test(test_buf_release_leaves_a_valid_empty_buffer),
	    cmocka_unit_test(test_buf_grows_and_stays_terminated),
	    cmocka_unit_test(test_buf_truncate_and_detach),
	    cmocka_unit_test(test_json_quote_every_byte),
	    cmocka_unit_test(test_plain_spans_every_byte),
	    cmocka_unit_test(test_grow_doubles_from_16),
	    cmocka_unit_test(test_grow_aborts_on_impossible_sizes),
	    cmocka_unit_test(test_error_setters_return_the_code),
	    cmocka_unit_test(test_utf8_repair),
	    cmocka_unit_test(test_sanitize_json),
	    cmocka_unit_test(test_cp_width_table),
	    cmocka_unit_test(test_text_width_and_fit),
	    cmocka_unit_test(test_zone_utc_is_the_default_and_plain),
	    cmocka_unit_test(test_zone_fixed_offsets),
	    cmocka_unit_test(test_zone_named_across_dst),
	    cmocka_unit_test(test_zone_names_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
