/* base-regex.c - the one door to PCRE2: compile (JIT when possible), match, read groups. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "lt_base.h"

#include <assert.h>
#include <pcre2.h>
#include <stdlib.h>

struct lt_regex {
	pcre2_code *code;
	pcre2_match_data *md;
	int matched;
};

int lt_regex_new(struct lt_regex **out, const char *pattern, int icase, struct lt_error *err)
{
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DUPNAMES;
	struct lt_regex *re;
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE where;
	int code;

	assert(out != NULL && pattern != NULL);
	*out = NULL;
	if (icase)
		opts |= PCRE2_CASELESS;
	re = lt_xcalloc(1, sizeof *re);
	re->code =
	    pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &code, &where, NULL);
	if (re->code == NULL) {
		pcre2_get_error_message(code, msg, sizeof msg);
		free(re);
		return lt_error_set(err, LT_ERR_USAGE, "bad regular expression at offset %zu: %s",
				    (size_t)where, (const char *)msg);
	}
	/* JIT is an optimisation: without it (no JIT on this CPU) matching still works */
	pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
	re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
	if (re->md == NULL) {
		fputs("leasetrail: out of memory (regex)\n", stderr);
		abort();
	}
	*out = re;
	return 0;
}

void lt_regex_free(struct lt_regex *re)
{
	if (re == NULL)
		return;
	pcre2_match_data_free(re->md);
	pcre2_code_free(re->code);
	free(re);
}

int lt_regex_match(struct lt_regex *re, const char *s, size_t len)
{
	int rc;

	assert(re != NULL && (s != NULL || len == 0));
	rc = pcre2_match(re->code, (PCRE2_SPTR)(s ? s : ""), len, 0, 0, re->md, NULL);

	/* matching errors (match limits on hostile input) count as no match */
	re->matched = rc > 0;
	return re->matched;
}

int lt_regex_start_may_match(struct lt_regex *re, const char *s, size_t len)
{
	int rc;

	assert(re != NULL && (s != NULL || len == 0));
	/* the interpreter (the JIT code is for complete matches), anchored at s's first byte */
	rc = pcre2_match(re->code, (PCRE2_SPTR)(s ? s : ""), len, 0,
			 PCRE2_PARTIAL_HARD | PCRE2_ANCHORED, re->md, NULL);
	re->matched = 0;
	return rc != PCRE2_ERROR_NOMATCH; /* a match, a partial one, or an error: it may */
}

int lt_regex_anchored(const struct lt_regex *re)
{
	uint32_t opts = 0;

	assert(re != NULL);
	return pcre2_pattern_info(re->code, PCRE2_INFO_ALLOPTIONS, &opts) == 0 &&
	       (opts & PCRE2_ANCHORED) != 0;
}

struct lt_str lt_regex_group(const struct lt_regex *re, const char *s, const char *name)
{
	struct lt_str none = {NULL, 0};
	PCRE2_SIZE *ov;
	int n;

	if (!re->matched)
		return none;
	n = pcre2_substring_number_from_name(re->code, (PCRE2_SPTR)name);
	if (n == PCRE2_ERROR_NOUNIQUESUBSTRING) {
		/* duplicate names: the first one of that name that took part */
		PCRE2_SPTR first, last;
		int size =
		    pcre2_substring_nametable_scan(re->code, (PCRE2_SPTR)name, &first, &last);

		ov = pcre2_get_ovector_pointer(re->md);
		for (PCRE2_SPTR e = first; size > 0 && e <= last; e += size) {
			int k = (e[0] << 8) | e[1];

			if (ov[2 * k] != PCRE2_UNSET)
				return (struct lt_str){s + ov[2 * k], ov[2 * k + 1] - ov[2 * k]};
		}
		return none;
	}
	if (n < 0 || (uint32_t)n >= pcre2_get_ovector_count(re->md))
		return none;
	ov = pcre2_get_ovector_pointer(re->md);
	if (ov[2 * n] == PCRE2_UNSET)
		return none;
	return (struct lt_str){s + ov[2 * n], ov[2 * n + 1] - ov[2 * n]};
}

const char *lt_regex_mark(const struct lt_regex *re)
{
	return re->matched ? (const char *)pcre2_get_mark(re->md) : NULL;
}

const char *lt_regex_version(void)
{
	static char version[48];

	if (version[0] == '\0' && pcre2_config(PCRE2_CONFIG_VERSION, version) < 0)
		return "unknown";
	return version;
}
