/*
 * tui-term.c - the one file that knows curses: taking the terminal and
 * giving it back, signals, keys, styles, and drawing text.
 *
 * Every string drawn goes through tui_put, which sanitizes it: log text
 * cannot move the cursor, retitle the terminal or hide lines, whoever calls.
 * The terminal is restored on a normal exit (tui_term_close, and atexit for
 * a path that forgets), on SIGINT/SIGTERM/SIGHUP (a flag the main loop polls,
 * then the normal way out) and on a crash (the handler writes the reset
 * sequences captured at start, restores the tty modes, then lets the signal
 * go on to its previous handler).
 */
#include "tui-int.h"

#include <curses.h>
#include <term.h>

#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static SCREEN *term_screen;
static int term_active;
static volatile sig_atomic_t term_sig;
static struct termios term_tty;
static int term_have_tty;
static char term_reset[256]; /* rmcup, cnorm, sgr0, rmkx: what endwin would send */
static size_t term_reset_len;
static int term_attr[TUI_S_COUNT];

static const int term_quit_signals[] = {SIGINT, SIGTERM, SIGHUP};
static const int term_crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction term_old_crash[sizeof term_crash_signals / sizeof *term_crash_signals];
static struct sigaction term_old_quit[sizeof term_quit_signals / sizeof *term_quit_signals];

static void term_on_quit(int sig)
{
	term_sig = sig;
}

/* Async-signal-safe: write(2) and tcsetattr(3) only, then the previous handler. */
static void term_on_crash(int sig)
{
	ssize_t wr;

	if (term_active) {
		wr = write(STDOUT_FILENO, term_reset, term_reset_len);
		(void)wr;
		if (term_have_tty)
			tcsetattr(STDIN_FILENO, TCSANOW, &term_tty);
	}
	for (size_t i = 0; i < sizeof term_crash_signals / sizeof *term_crash_signals; i++)
		if (term_crash_signals[i] == sig)
			sigaction(sig, &term_old_crash[i], NULL);
	raise(sig);
}

enum term_signals { TERM_SIGNALS_RESTORE, TERM_SIGNALS_INSTALL };

static void term_signals(enum term_signals what)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof term_quit_signals / sizeof *term_quit_signals; i++) {
		sa.sa_handler = term_on_quit; /* no SA_RESTART: a blocked read returns */
		if (what == TERM_SIGNALS_INSTALL)
			sigaction(term_quit_signals[i], &sa, &term_old_quit[i]);
		else
			sigaction(term_quit_signals[i], &term_old_quit[i], NULL);
	}
	for (size_t i = 0; i < sizeof term_crash_signals / sizeof *term_crash_signals; i++) {
		sa.sa_handler = term_on_crash;
		if (what == TERM_SIGNALS_INSTALL)
			sigaction(term_crash_signals[i], &sa, &term_old_crash[i]);
		else
			sigaction(term_crash_signals[i], &term_old_crash[i], NULL);
	}
}

static void term_add_reset(const char *cap)
{
	const char *s = tigetstr(cap);
	size_t n;

	if (s == NULL || s == (char *)-1)
		return;
	n = strlen(s);
	if (term_reset_len + n < sizeof term_reset) {
		memcpy(term_reset + term_reset_len, s, n);
		term_reset_len += n;
	}
}

/* Styles: color pairs where there is color, else attributes; symbols carry the meaning. */
enum term_colors { TERM_MONO, TERM_COLOR };

static void term_styles(enum term_colors colors)
{
	static const struct {
		short fg;
		int attr, mono;
	} def[TUI_S_COUNT] = {
	    [TUI_S_NORMAL] = {-1, A_NORMAL, A_NORMAL},
	    [TUI_S_TITLE] = {COLOR_CYAN, A_BOLD | A_REVERSE, A_BOLD | A_REVERSE},
	    [TUI_S_HEADER] = {-1, A_BOLD | A_UNDERLINE, A_BOLD | A_UNDERLINE},
	    [TUI_S_HEADING] = {COLOR_CYAN, A_BOLD, A_BOLD},
	    [TUI_S_DIM] = {-1, A_DIM, A_DIM},
	    [TUI_S_STATUS] = {-1, A_REVERSE, A_REVERSE},
	    [TUI_S_ERROR] = {COLOR_RED, A_BOLD | A_REVERSE, A_BOLD | A_REVERSE},
	    [TUI_S_RENEWED] = {COLOR_GREEN, A_NORMAL, A_NORMAL},
	    [TUI_S_GAP] = {COLOR_YELLOW, A_BOLD, A_BOLD},
	    [TUI_S_404] = {COLOR_RED, A_BOLD, A_BOLD},
	    [TUI_S_AUTH] = {COLOR_MAGENTA, A_BOLD, A_BOLD},
	    [TUI_S_DELETED] = {COLOR_MAGENTA, A_BOLD, A_BOLD},
	    [TUI_S_NOT_READY] = {COLOR_BLUE, A_BOLD | A_REVERSE, A_BOLD | A_UNDERLINE},
	    [TUI_S_HOLDER] = {COLOR_CYAN, A_BOLD, A_BOLD},
	    [TUI_S_DELETE_CELL] = {COLOR_MAGENTA, A_BOLD | A_REVERSE, A_BOLD | A_REVERSE},
	};

	for (int i = 0; i < TUI_S_COUNT; i++) {
		term_attr[i] = def[i].mono;
		if (colors == TERM_COLOR && def[i].fg >= 0 &&
		    init_pair((short)(i + 1), def[i].fg, -1) == OK)
			term_attr[i] = def[i].attr | COLOR_PAIR(i + 1);
	}
}

static void term_atexit(void)
{
	tui_term_close();
}

int tui_term_open(unsigned flags, struct lt_error *err)
{
	static int registered;
	const char *nc = getenv("NO_COLOR");
	int color;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return lt_error_set(err, LT_ERR_USAGE, "tui: stdin and stdout must be a terminal");
	setlocale(LC_CTYPE, ""); /* UTF-8 from the environment; numbers stay in C */
	term_have_tty = tcgetattr(STDIN_FILENO, &term_tty) == 0;
	term_sig = 0;
	/* ours before newterm, so that ncurses leaves SIGINT and SIGTERM to us */
	term_signals(TERM_SIGNALS_INSTALL);
	term_screen = newterm(NULL, stdout, stdin);
	if (term_screen == NULL) {
		term_signals(TERM_SIGNALS_RESTORE);
		return lt_error_set(err, LT_ERR_USAGE, "tui: cannot use terminal type '%s'",
				    getenv("TERM") ? getenv("TERM") : "");
	}
	term_active = 1;
	if (!registered)
		registered = 1, atexit(term_atexit);
	term_reset_len = 0;
	term_add_reset("rmcup");
	term_add_reset("cnorm");
	term_add_reset("sgr0");
	term_add_reset("rmkx");
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	color = !(flags & TUI_TERM_NO_COLOR) && (nc == NULL || nc[0] == '\0') && has_colors();
	if (color && start_color() == OK)
		use_default_colors();
	term_styles(color ? TERM_COLOR : TERM_MONO);
	return 0;
}

void tui_term_close(void)
{
	if (!term_active)
		return;
	term_active = 0;
	curs_set(1);
	endwin();
	delscreen(term_screen);
	term_screen = NULL;
	term_signals(TERM_SIGNALS_RESTORE);
}

int tui_term_signalled(void)
{
	return term_sig;
}

void tui_term_size(int *rows, int *cols)
{
	getmaxyx(stdscr, *rows, *cols);
}

void tui_term_clear(void)
{
	erase();
}

void tui_term_flush(void)
{
	refresh();
}

static int term_mouse_y = -1;

/* A mouse report: a press of the first button selects, the wheel (buttons 4, 5) scrolls. */
static int term_mouse_key(void)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return TUI_K_NONE;
	term_mouse_y = ev.y;
	if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED))
		return TUI_K_CLICK;
	if (ev.bstate & BUTTON4_PRESSED)
		return TUI_K_WHEEL_UP;
#if defined(BUTTON5_PRESSED)
	if (ev.bstate & BUTTON5_PRESSED)
		return TUI_K_WHEEL_DOWN;
#endif
	return TUI_K_NONE;
}

int tui_term_mouse_y(void)
{
	return term_mouse_y;
}

int tui_term_mouse(int on)
{
	mmask_t want = BUTTON1_PRESSED | BUTTON4_PRESSED;

#if defined(BUTTON5_PRESSED)
	want |= BUTTON5_PRESSED;
#endif
	if (!on) {
		mousemask(0, NULL);
		return 0;
	}
	if (!has_mouse() && tigetstr("kmous") == NULL)
		return -1;
	mouseinterval(0); /* a press is a click at once: no wait for its release */
	if (mousemask(want, NULL) == 0)
		return -1;
	/* what a crash must undo too: the X10/normal tracking ncurses turned on */
	if (term_reset_len + 8 < sizeof term_reset) {
		memcpy(term_reset + term_reset_len, "\033[?1000l", 8);
		term_reset_len += 8;
	}
	return 0;
}

int tui_term_copy(const char *s, size_t len)
{
	const char *ms = tigetstr("Ms");
	struct lt_buf b64;
	const char *seq;
	int rc = -1;

	if (!isatty(STDOUT_FILENO) || ms == NULL || ms == (char *)-1)
		return -1;
	lt_buf_init(&b64);
	tui_base64(&b64, s, len);
	seq = tiparm(ms, "c", b64.ptr);
	if (seq != NULL) {
		rc = fputs(seq, stdout) < 0 ? -1 : 0;
		fflush(stdout);
	}
	lt_buf_release(&b64);
	return rc;
}

static int term_map_code(wint_t ch)
{
	switch (ch) {
	case KEY_UP:
		return TUI_K_UP;
	case KEY_DOWN:
		return TUI_K_DOWN;
	case KEY_LEFT:
		return TUI_K_LEFT;
	case KEY_RIGHT:
		return TUI_K_RIGHT;
	case KEY_PPAGE:
		return TUI_K_PGUP;
	case KEY_NPAGE:
		return TUI_K_PGDN;
	case KEY_HOME:
		return TUI_K_HOME;
	case KEY_END:
		return TUI_K_END;
	case KEY_ENTER:
		return TUI_K_ENTER;
	case KEY_BTAB:
		return TUI_K_BTAB;
	case KEY_BACKSPACE:
		return TUI_K_BACKSPACE;
	case KEY_RESIZE:
		return TUI_K_RESIZE;
	case KEY_MOUSE:
		return term_mouse_key();
	default:
		return TUI_K_NONE;
	}
}

int tui_term_key(int timeout_ms)
{
	wint_t ch;
	int r;

	timeout(timeout_ms);
	r = get_wch(&ch);
	if (r == ERR)
		return TUI_K_NONE;
	if (r == KEY_CODE_YES)
		return term_map_code(ch);
	switch (ch) {
	case '\r':
	case '\n':
		return TUI_K_ENTER;
	case 27:
		return TUI_K_ESC;
	case '\t':
		return TUI_K_TAB;
	case 127:
	case 8:
		return TUI_K_BACKSPACE;
	default:
		return (int)ch;
	}
}

static int term_style_attr(int style)
{
	int s = style & ~TUI_SEL;
	int a = s >= 0 && s < TUI_S_COUNT ? term_attr[s] : (int)A_NORMAL;

	return (style & TUI_SEL) ? a | (int)A_REVERSE : a;
}

int tui_put(int y, int x, int width, int style, const char *s)
{
	return tui_put_from(y, x, width, style, s, 0);
}

int tui_put_from(int y, int x, int width, int style, const char *s, int skip)
{
	struct lt_buf b;
	int used = 0;

	if (width <= 0 || s == NULL)
		return 0;
	lt_buf_init(&b);
	tui_safe_from(&b, s, strlen(s), skip, width, &used);
	attrset(term_style_attr(style));
	mvaddnstr(y, x, b.ptr, (int)b.len);
	attrset(A_NORMAL);
	lt_buf_release(&b);
	return used;
}

void tui_fill(int y, int x, int width, int style)
{
	if (width <= 0)
		return;
	attrset(term_style_attr(style));
	mvhline(y, x, ' ', width);
	attrset(A_NORMAL);
}

void tui_term_cursor(int y, int x)
{
	if (y < 0) {
		curs_set(0);
		return;
	}
	move(y, x);
	curs_set(1);
}

int tui_cell_style(enum tui_cell c)
{
	static const int styles[TUI_C_COUNT] = {
	    [TUI_C_NONE] = TUI_S_NORMAL,
	    [TUI_C_GONE] = TUI_S_DELETED,
	    [TUI_C_RENEWED] = TUI_S_RENEWED,
	    [TUI_C_GAP] = TUI_S_GAP,
	    [TUI_C_404] = TUI_S_404,
	    [TUI_C_AUTH] = TUI_S_AUTH,
	    [TUI_C_DELETED] = TUI_S_DELETE_CELL,
	    [TUI_C_NOT_READY] = TUI_S_NOT_READY,
	    [TUI_C_HOLDER] = TUI_S_HOLDER,
	};

	return c < TUI_C_COUNT ? styles[c] : TUI_S_NORMAL;
}
