/*
 * sample-gen-rand.c - lt-gen's randomness: xoshiro256** streams seeded by
 * splitmix64 (same seed and stream, same sequence on every platform),
 * uniform ranges, exponential gaps (with a libm-free logarithm, so the
 * bytes never depend on the C library), request latencies, UUIDs, words.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Returns the next splitmix64 output and advances *x; used only for seeding. */
static uint64_t gen_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Seeds r for one stream of the run: same seed and stream, same sequence. */
void gen_rng_seed(struct gen_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ (stream + 1) * 0xd1b54a32d192ed03ULL;
	for (int i = 0; i < 4; i++)
		r->s[i] = gen_splitmix(&x);
}

/* Rotates x left by k bits (0 < k < 64). */
static uint64_t gen_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Returns the next xoshiro256** output of r. */
uint64_t gen_next(struct gen_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = gen_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = gen_rotl(s[3], 45);
	return res;
}

/* Returns a uniform integer in [lo, hi]; needs hi >= lo (modulo bias is negligible here). */
int64_t gen_range(struct gen_rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;
	return lo + (int64_t)(gen_next(r) % span);
}

/* Returns a uniform double in [0, 1). */
double gen_unit(struct gen_rng *r)
{
	return (double)(gen_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Returns ln(x) for x > 0 without libm: scale into [1, 2), then the atanh series. */
static double gen_ln(double x)
{
	int e = 0;
	while (x >= 2.0) {
		x *= 0.5;
		e++;
	}
	while (x < 1.0) {
		x *= 2.0;
		e--;
	}
	double y = (x - 1.0) / (x + 1.0), y2 = y * y, term = y, sum = 0.0;
	for (int k = 1; k < 40; k += 2) {
		sum += term / k;
		term *= y2;
	}
	return 2.0 * sum + e * 0.69314718055994530942;
}

/* Returns an exponential variate of the given mean, capped at 8 means. */
double gen_exp(struct gen_rng *r, double mean)
{
	double v = -mean * gen_ln(1.0 - gen_unit(r));
	return v > 8.0 * mean ? 8.0 * mean : v;
}

/* Returns a request latency in µs: a floor plus an exponential tail of the given mean. */
int64_t gen_lat(struct gen_rng *r, int64_t floor_us, double mean_us)
{
	return floor_us + (int64_t)gen_exp(r, mean_us);
}

/* Writes a random version-4 UUID, NUL-terminated, into out. */
void gen_uuid(char out[37], struct gen_rng *r)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t a = gen_next(r), b = gen_next(r);
	a = (a & ~0xf000ULL) | 0x4000ULL;
	b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
	int k = 0;
	for (int i = 0; i < 32; i++) {
		if (i == 8 || i == 12 || i == 16 || i == 20)
			out[k++] = '-';
		uint64_t w = i < 16 ? a : b;
		out[k++] = hex[(w >> (60 - 4 * (i % 16))) & 15];
	}
	out[k] = '\0';
}

/* Writes n random characters of alphabet abc (NUL-terminated) into out. */
void gen_word(char *out, size_t n, const char *abc, struct gen_rng *r)
{
	size_t m = strlen(abc);
	for (size_t i = 0; i < n; i++)
		out[i] = abc[gen_next(r) % m];
	out[n] = '\0';
}
