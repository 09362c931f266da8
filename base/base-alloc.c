/*
 * base-alloc.c - allocation that aborts on exhaustion, and lt_grow, the one
 * growth rule of every growable array: out of memory (or a size that does
 * not fit in a size_t) is not recoverable here, so no caller checks for it.
 */
#include "lt_base.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The first capacity lt_grow gives an empty array. */
#define GROW_MIN 16

static _Noreturn void alloc_fail(size_t n)
{
	fprintf(stderr, "leasetrail: out of memory (%zu bytes)\n", n);
	abort();
}

static void *alloc_check(void *p, size_t n)
{
	if (p == NULL && n != 0)
		alloc_fail(n);
	return p;
}

void *lt_xmalloc(size_t n)
{
	return alloc_check(lt_fault(LT_FAULT_ALLOC) ? NULL : malloc(n ? n : 1), n ? n : 1);
}

void *lt_xcalloc(size_t count, size_t n)
{
	return alloc_check(lt_fault(LT_FAULT_ALLOC) ? NULL : calloc(count ? count : 1, n ? n : 1),
			   1);
}

void *lt_xrealloc(void *p, size_t n)
{
	return alloc_check(lt_fault(LT_FAULT_ALLOC) ? NULL : realloc(p, n ? n : 1), n ? n : 1);
}

char *lt_xstrndup(const char *s, size_t n)
{
	char *d = lt_xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *lt_xstrdup(const char *s)
{
	return lt_xstrndup(s, strlen(s));
}

void *lt_grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : GROW_MIN;

	assert(size > 0);
	assert(p != NULL || *cap == 0);
	if (need <= *cap)
		return p;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			alloc_fail(SIZE_MAX);
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		alloc_fail(SIZE_MAX);
	p = lt_xrealloc(p, n * size);
	*cap = n;
	return p;
}
