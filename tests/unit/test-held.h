/*
 * test-held.h - what a test holds (stores, strings, results), released by
 * the teardown even when a failed assertion ends the test early, so ASan's
 * leak check reports real leaks only.  Include after <cmocka.h>; register
 * held_teardown as each test's teardown.  TEST_MAX_HELD bounds what one
 * test holds at once.  Inline, so a program using some helpers is not
 * warned about the rest.
 */
#ifndef LT_TEST_HELD_H
#define LT_TEST_HELD_H

#include <stddef.h>

#ifndef TEST_MAX_HELD
#define TEST_MAX_HELD 16
#endif

struct test_held {
	void *p;
	void (*release)(void *);
};

static struct test_held test_held[TEST_MAX_HELD];

/* Holds p until drop(p) or the teardown, which call release(p); returns p. */
static inline void *hold(void *p, void (*release)(void *))
{
	for (int i = 0; i < TEST_MAX_HELD; i++)
		if (test_held[i].p == NULL) {
			test_held[i].p = p;
			test_held[i].release = release;
			return p;
		}
	fail_msg("more than %d things held", TEST_MAX_HELD);
	return p;
}

/* Releases p now (it must have been held). */
static inline void drop(void *p)
{
	for (int i = 0; i < TEST_MAX_HELD; i++)
		if (test_held[i].p == p) {
			test_held[i].release(p);
			test_held[i].p = NULL;
			return;
		}
}

/* The teardown: releases everything still held, the newest first. */
static inline int held_teardown(void **state)
{
	(void)state;
	for (int i = TEST_MAX_HELD - 1; i >= 0; i--) {
		if (test_held[i].p != NULL)
			test_held[i].release(test_held[i].p);
		test_held[i].p = NULL;
	}
	return 0;
}

#endif
