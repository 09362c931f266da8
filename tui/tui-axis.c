/*
 * tui-axis.c - round times on a time axis: the tick labels over the
 * cluster strip and the bins of the histogram screen.
 *
 * A step is one of a table of round spans (1 s .. 7 days); times are
 * rounded in the display zone (--tz, --utc: lt_zone_offset), so a tick at
 * 06:00 is 06:00 where the reader is.  The labels come from
 * lt_time_format_zone, the formatting every screen uses.  Pure logic (no
 * curses): tui_axis_draw is the only part that draws, through tui_put.
 */
#include "tui-int.h"

#include <string.h>

#define AXIS_SEC  1000000LL
#define AXIS_MIN  (60 * AXIS_SEC)
#define AXIS_HOUR (60 * AXIS_MIN)
#define AXIS_DAY  (24 * AXIS_HOUR)

#define AXIS_TICK_GAP 2 /* blank columns at least between two labels */

/* The round steps, shortest first, and how a tick of each is labelled. */
static const struct {
	int64_t us;
	enum tui_tick_fmt fmt;
} axis_steps[] = {
    {AXIS_SEC, TUI_TICK_SEC},	   {2 * AXIS_SEC, TUI_TICK_SEC},   {5 * AXIS_SEC, TUI_TICK_SEC},
    {10 * AXIS_SEC, TUI_TICK_SEC}, {15 * AXIS_SEC, TUI_TICK_SEC},  {30 * AXIS_SEC, TUI_TICK_SEC},
    {AXIS_MIN, TUI_TICK_MIN},	   {2 * AXIS_MIN, TUI_TICK_MIN},   {5 * AXIS_MIN, TUI_TICK_MIN},
    {10 * AXIS_MIN, TUI_TICK_MIN}, {15 * AXIS_MIN, TUI_TICK_MIN},  {30 * AXIS_MIN, TUI_TICK_MIN},
    {AXIS_HOUR, TUI_TICK_MIN},	   {2 * AXIS_HOUR, TUI_TICK_MIN},  {3 * AXIS_HOUR, TUI_TICK_MIN},
    {6 * AXIS_HOUR, TUI_TICK_MIN}, {12 * AXIS_HOUR, TUI_TICK_MIN}, {AXIS_DAY, TUI_TICK_DAY},
    {2 * AXIS_DAY, TUI_TICK_DAY},  {7 * AXIS_DAY, TUI_TICK_DAY},
};
#define AXIS_NSTEPS ((int)(sizeof axis_steps / sizeof *axis_steps))

int tui_axis_nsteps(void)
{
	return AXIS_NSTEPS;
}

int64_t tui_axis_step_us(int step)
{
	return axis_steps[step < 0 ? 0 : step >= AXIS_NSTEPS ? AXIS_NSTEPS - 1 : step].us;
}

int tui_axis_step_pick(int64_t span, int64_t n)
{
	for (int k = 0; k < AXIS_NSTEPS; k++)
		if (n > 0 && axis_steps[k].us >= (span + n - 1) / n)
			return k;
	return AXIS_NSTEPS - 1;
}

/* a / b rounded down, for b > 0 and any a. */
static int64_t axis_floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && a < 0);
}

int64_t tui_axis_floor(int64_t us, int step)
{
	int64_t s = tui_axis_step_us(step), off = lt_zone_offset(us);
	int64_t local = axis_floor_div(us + off, s) * s, utc;

	/* the wall time back to an instant; a zone without it keeps the offset at us */
	if (lt_zone_to_utc(&utc, local) != 0)
		utc = local - off;
	return utc;
}

void tui_tick_label(char *buf, size_t size, int64_t us, enum tui_tick_fmt fmt)
{
	char iso[40];

	lt_time_format_zone(iso, sizeof iso, us); /* 2024-04-05T05:56:00.230965Z */
	/* a tick at midnight says the day instead */
	if (fmt == TUI_TICK_DAY || strncmp(iso + 11, "00:00:00", 8) == 0)
		snprintf(buf, size, "%.5s", iso + 5);
	else
		snprintf(buf, size, "%.*s", fmt == TUI_TICK_SEC ? 8 : 5, iso + 11);
}

unsigned tui_time_rows(int64_t first_us, int64_t last_us)
{
	char a[40], b[40];

	lt_time_format_zone(a, sizeof a, first_us);
	lt_time_format_zone(b, sizeof b, last_us);
	return TUI_TIME_MS | (memcmp(a, b, 10) != 0 ? TUI_TIME_DATE : 0);
}

/* The column of time t on an axis of ncells over [from, to]. */
static int axis_col(int64_t t, int64_t from, int64_t to, int ncells)
{
	return (int)((double)(t - from) * ncells / (double)(to - from));
}

size_t tui_axis_ticks(struct tui_tick *out, size_t max, int64_t from, int64_t to, int ncells)
{
	int64_t span = to - from;
	size_t n = 0;
	int step, end = -AXIS_TICK_GAP;

	if (span <= 0 || ncells <= 0 || max == 0)
		return 0;
	/* the shortest step whose ticks lie a label and a gap apart */
	for (step = 0; step < AXIS_NSTEPS - 1; step++) {
		int w = axis_steps[step].fmt == TUI_TICK_SEC ? 8 : 5;

		if ((double)axis_steps[step].us * ncells / (double)span >= w + AXIS_TICK_GAP)
			break;
	}
	for (int64_t t = tui_axis_floor(from, step); t <= to && n < max; t += axis_steps[step].us) {
		struct tui_tick *k = &out[n];
		int col = axis_col(t, from, to, ncells), w;

		/* a range of centuries (hostile times) makes many 7-day steps: format only a fit */
		if (t < from || col < end + AXIS_TICK_GAP)
			continue;
		tui_tick_label(k->text, sizeof k->text, t, axis_steps[step].fmt);
		w = (int)strlen(k->text);
		if (col < end + AXIS_TICK_GAP || col + w > ncells)
			continue;
		k->col = col;
		k->us = t;
		end = col + w;
		n++;
	}
	return n;
}

void tui_axis_draw(int y, int x, int ncells, int64_t from, int64_t to, int style)
{
	struct tui_tick ticks[TUI_AXIS_MAX_TICKS];
	size_t n = tui_axis_ticks(ticks, TUI_AXIS_MAX_TICKS, from, to, ncells);

	for (size_t i = 0; i < n; i++)
		tui_put(y, x + ticks[i].col, ncells - ticks[i].col, style, ticks[i].text);
}
