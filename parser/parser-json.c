/* parser-json.c - one JSON record through yajl's callback parser, for every decoder. */
#include "parser-json.h"

#include <stdio.h>
#include <string.h>

/* yajl's message without its trailing newline and context lines. */
static void json_reason(yajl_handle h, const char *what, const char *json, size_t len, char *reason,
			size_t size)
{
	unsigned char *msg = yajl_get_error(h, 0, (const unsigned char *)json, len);
	size_t n = strcspn((const char *)msg, "\n");

	snprintf(reason, size, "%s at byte %zu of the record: %.*s", what,
		 yajl_get_bytes_consumed(h), (int)n, (const char *)msg);
	yajl_free_error(h, msg);
}

int parser_json_run(const yajl_callbacks *cb, void *ctx, yajl_handle *h, const char *what,
		    const char *json, size_t len, char *reason, size_t size)
{
	yajl_handle y = yajl_alloc(cb, NULL, ctx);
	yajl_status st;

	if (h != NULL)
		*h = y;
	yajl_config(y, yajl_dont_validate_strings, 1);
	st = yajl_parse(y, (const unsigned char *)json, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(y);
	if (st != yajl_status_ok && reason != NULL)
		json_reason(y, what, json, len, reason, size);
	yajl_free(y);
	if (h != NULL)
		*h = NULL;
	return st == yajl_status_ok ? 0 : LT_ERR_FORMAT;
}

int parser_json_run_parts(const yajl_callbacks *cb, void *ctx, yajl_handle *h,
			  const struct parser_json_part *parts, size_t n, size_t *base)
{
	yajl_handle y = yajl_alloc(cb, NULL, ctx);
	yajl_status st = yajl_status_ok;

	if (h != NULL)
		*h = y;
	yajl_config(y, yajl_dont_validate_strings, 1);
	for (size_t i = 0; i < n && st == yajl_status_ok; i++) {
		if (base != NULL)
			*base = parts[i].at;
		st = yajl_parse(y, (const unsigned char *)parts[i].text, parts[i].len);
	}
	if (st == yajl_status_ok)
		st = yajl_complete_parse(y);
	yajl_free(y);
	if (h != NULL)
		*h = NULL;
	return st == yajl_status_ok ? 0 : LT_ERR_FORMAT;
}

int parser_json_broken(const char *json, size_t len)
{
	static const yajl_callbacks none = {0};
	yajl_handle y = yajl_alloc(&none, NULL, NULL);
	size_t end = len, at;
	int broken;

	while (end > 0 && (json[end - 1] == '\n' || json[end - 1] == '\r' || json[end - 1] == ' ' ||
			   json[end - 1] == '\t'))
		end--;
	yajl_config(y, yajl_dont_validate_strings, 1);
	broken = yajl_parse(y, (const unsigned char *)json, len) != yajl_status_ok;
	at = yajl_get_bytes_consumed(y);
	yajl_free(y);
	/* an error at the white space that ends it (a newline inside a string) is a cut */
	return broken && at < end;
}

const char *lt_json_library_version(void)
{
	static char version[32];
	int v = yajl_version();

	if (version[0] == '\0')
		snprintf(version, sizeof version, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	return version;
}
