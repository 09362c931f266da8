/*
 * cw-export.c - audit JSON lines to `aws logs filter-log-events` output, for benchmarks.
 *
 *   cw-export [--page N] [--streams K] < audit.log > export.json
 *
 * Each line (one audit Event) becomes an element of "events" with the
 * event as its "message" string, escaped as the AWS CLI's JSON encoder
 * escapes it; "timestamp" is the Event's stageTimestamp in epoch ms,
 * "ingestionTime" a little later, "eventId" 56 digits, "logStreamName"
 * one of K kube-apiserver-audit-<32 hex> streams.  Pages of N events (default
 * 10000) are printed indented as the CLI prints them, each with a nextToken,
 * and concatenated, as people save several pages in one file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (16u * 1024 * 1024)

/* Days since 1970-01-01 (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "2024-04-05T06:04:14.668822Z" at s to epoch milliseconds; 0 when it is not one. */
static int64_t parse_ms(const char *s)
{
	int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
	int h = digits(s + 11, 2), mi = digits(s + 14, 2), se = digits(s + 17, 2), ms = 0;

	if (y < 0 || mo < 1 || d < 1 || h < 0 || mi < 0 || se < 0)
		return 0;
	if (s[19] == '.' && digits(s + 20, 3) >= 0)
		ms = digits(s + 20, 3);
	return ((days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se) *
		1000) +
	       ms;
}

/* The Event's stageTimestamp (else requestReceivedTimestamp) in ms; 0 if neither. */
static int64_t event_ms(const char *line)
{
	static const char *const keys[] = {"\"stageTimestamp\":\"",
					   "\"requestReceivedTimestamp\":\""};

	for (int i = 0; i < 2; i++) {
		const char *p = strstr(line, keys[i]);

		if (p != NULL && strlen(p + strlen(keys[i])) >= 20)
			return parse_ms(p + strlen(keys[i]));
	}
	return 0;
}

/* Writes s as the inside of a JSON string. */
static void put_escaped(const char *s, size_t n, FILE *out)
{
	size_t run = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		fwrite(s + run, 1, i - run, out);
		run = i + 1;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else
			fprintf(out, "\\u%04x", c);
	}
	fwrite(s + run, 1, n - run, out);
}

static void page_end(FILE *out, unsigned long long page)
{
	fprintf(out,
		"\n    ],\n    \"searchedLogStreams\": [],\n"
		"    \"nextToken\": \"Bxkq6kVGFtq2y_Moigeqsc%010llu\"\n}\n",
		page);
}

int main(int argc, char **argv)
{
	char *line = malloc(LINE_MAX_BYTES);
	unsigned long long n = 0, page_size = 10000, streams = 2;
	char stream[64][64];

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--page") == 0)
			page_size = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--streams") == 0)
			streams = strtoull(argv[i + 1], NULL, 10);
	}
	if (line == NULL || page_size == 0 || streams == 0 || streams > 64) {
		fprintf(stderr, "usage: cw-export [--page N] [--streams K(<=64)] <audit.log\n");
		return 2;
	}
	for (unsigned long long k = 0; k < streams; k++)
		snprintf(stream[k], sizeof stream[k], "kube-apiserver-audit-%08llx%024llx",
			 0x5eed0000ULL + k, 0xa11ceULL * (k + 1));
	while (fgets(line, LINE_MAX_BYTES, stdin) != NULL) {
		size_t len = strcspn(line, "\r\n");
		int64_t ms = event_ms(line);

		if (len == 0)
			continue;
		fputs(n % page_size == 0 ? "{\n    \"events\": [\n" : ",\n", stdout);
		printf("        {\n            \"logStreamName\": \"%s\",\n"
		       "            \"timestamp\": %lld,\n            \"message\": \"",
		       stream[n % streams], (long long)ms);
		put_escaped(line, len, stdout);
		printf("\",\n            \"ingestionTime\": %lld,\n"
		       "            \"eventId\": \"%013lld%043llu\"\n        }",
		       (long long)ms + 750, (long long)ms, n);
		if (++n % page_size == 0)
			page_end(stdout, n / page_size);
	}
	if (n % page_size != 0)
		page_end(stdout, n / page_size + 1);
	free(line);
	return ferror(stdout) ? 1 : 0;
}
