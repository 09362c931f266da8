/*
 * cloud-export.c - audit JSON lines (or klog lines) to the envelopes clouds write them in,
 * for tests and benchmarks.
 *
 *   cloud-export --to SHAPE [--page N] [--year Y] < in > out
 *
 * SHAPE, for an audit log (one Event per line):
 *   aks-lines     Azure Monitor diagnostic records of category kube-audit as a storage
 *                 account writes them (JSON lines, PT1H.json): the Event escaped into
 *                 properties.log with its newline, "time" the stageTimestamp
 *   aks-eventhub  the same records as Event Hub messages: {"records":[...]} of N each,
 *                 one message per line
 *   gke-lines     Cloud Logging LogEntries as a log sink writes them (JSON lines): an
 *                 AuditLog with methodName, resourceName, principalEmail, callerIp,
 *                 callerSuppliedUserAgent, status (google.rpc code), request/response
 *                 bodies when the Event has them, operation.id = auditID, the
 *                 authorization annotations as labels, timestamp = stageTimestamp;
 *                 RequestReceived stages are not written (GKE logs none)
 *   gke-array     the same entries as `gcloud logging read --format=json` prints them:
 *                 one JSON array, two-space indents
 * and for a klog file (kube-controller-manager, kubelet --output=cat):
 *   cw-wrap       `aws logs filter-log-events` pages whose messages are Container
 *                 Insights (fluent-bit) records: {"log":"LINE\n","stream":"stderr",
 *                 "kubernetes":{"pod_name":..,"host":..,"container_name":..}}; the
 *                 event's timestamp is the klog time in ms, of the year --year
 *
 * The audit Event is read with a small string-aware scanner: values are copied as the
 * JSON text they are (strings keep their escapes), never decoded.  Plain C11 and libc.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (16u * 1024 * 1024)

/* A slice of the input line: a JSON value as written (strings with their quotes). */
struct span {
	const char *p;
	size_t n;
};

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p at an opening quote: the byte after the closing one. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return end;
}

/* One JSON value at p: the byte after it. */
static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		if (*p == '"') {
			p = skip_string(p, end);
			if (depth == 0)
				return p;
			continue;
		}
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (depth == 0)
				return p;
			if (--depth == 0)
				return p + 1;
		} else if (depth == 0 && (*p == ',' || *p == ' ' || *p == '\n')) {
			return p;
		}
		p++;
	}
	return end;
}

/* The value of key in the object obj (a span starting at '{'); n == 0 when absent. */
static struct span get(struct span obj, const char *key)
{
	const char *p, *end = obj.p + obj.n, *k, *v;
	size_t kl = strlen(key);
	struct span none = {NULL, 0};

	if (obj.n == 0 || *obj.p != '{')
		return none;
	for (p = ws(obj.p + 1, end); p < end && *p == '"';) {
		size_t klen;

		k = p + 1;
		p = skip_string(p, end);
		klen = (size_t)(p - 1 - k);
		v = ws(p, end);
		if (v >= end || *v != ':')
			return none;
		v = ws(v + 1, end);
		p = skip_value(v, end);
		if (klen == kl && memcmp(k, key, kl) == 0)
			return (struct span){v, (size_t)(p - v)};
		p = ws(p, end);
		if (p < end && *p == ',')
			p = ws(p + 1, end);
	}
	return none;
}

/* A string value's inside (without quotes, escapes kept); n == 0 for others. */
static struct span inner(struct span s)
{
	if (s.n < 2 || s.p[0] != '"')
		return (struct span){NULL, 0};
	return (struct span){s.p + 1, s.n - 2};
}

static int is(struct span s, const char *lit)
{
	return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

static void put(struct span s)
{
	fwrite(s.p, 1, s.n, stdout);
}

/* Writes s as the inside of a JSON string. */
static void put_escaped(const char *s, size_t n)
{
	size_t run = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		fwrite(s + run, 1, i - run, stdout);
		run = i + 1;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else
			printf("\\u%04x", c);
	}
	fwrite(s + run, 1, n - run, stdout);
}

/* ---- AKS -------------------------------------------------------------------------- */

#define AKS_RESOURCE                                                                               \
	"/SUBSCRIPTIONS/00000000-0000-0000-0000-000000000000/RESOURCEGROUPS/SAMPLE-RG/PROVIDERS/"  \
	"MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/SAMPLE-AKS"

/* "2024-04-05T05:50:00.460553Z" as Azure writes it: seven fraction digits. */
static void put_azure_time(struct span ts)
{
	struct span t = inner(ts);
	size_t frac = 0;

	if (t.n < 20) {
		printf("\"1970-01-01T00:00:00.0000000Z\"");
		return;
	}
	printf("\"%.19s.", t.p);
	for (size_t i = 20; i < t.n && t.p[i] >= '0' && t.p[i] <= '9' && frac < 7; i++, frac++)
		putchar(t.p[i]);
	for (; frac < 7; frac++)
		putchar('0');
	printf("Z\"");
}

static void aks_record(struct span ev, unsigned long long n)
{
	printf("{ \"time\": ");
	put_azure_time(get(ev, "stageTimestamp"));
	printf(", \"resourceId\": \"" AKS_RESOURCE "\", \"category\": \"kube-audit\", "
	       "\"operationName\": \"Microsoft.ContainerService/managedClusters/diagnosticLogs/"
	       "Read\", \"properties\": {\"log\":\"");
	put_escaped(ev.p, ev.n);
	printf("\\n\",\"stream\":\"stdout\",\"pod\":\"kube-apiserver-6b497d8d5f-%05llx\"}}",
	       n % 3 * 0x1f3d1 % 0xfffff);
}

/* ---- GKE -------------------------------------------------------------------------- */

/* HTTP status to google.rpc.Code (google/rpc/code.proto's mapping; 409 on create: exists). */
static int rpc_code(long http, int create)
{
	static const struct {
		long http;
		int rpc;
	} map[] = {{400, 3}, {401, 16}, {403, 7},  {404, 5},  {409, 10}, {429, 8},
		   {499, 1}, {500, 13}, {501, 12}, {503, 14}, {504, 4}};

	if (http < 300)
		return 0;
	if (http == 409 && create)
		return 6;
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (map[i].http == http)
			return map[i].rpc;
	return 2; /* UNKNOWN */
}

/* The object's path: "GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME[/SUB]]", core as "core". */
static void put_resource_name(FILE *o, struct span ref)
{
	struct span g = inner(get(ref, "apiGroup")), v = inner(get(ref, "apiVersion"));
	struct span ns = inner(get(ref, "namespace")), r = inner(get(ref, "resource"));
	struct span name = inner(get(ref, "name")), sub = inner(get(ref, "subresource"));

	if (g.n)
		fwrite(g.p, 1, g.n, o);
	else
		fputs("core", o);
	putc('/', o);
	fwrite(v.p, 1, v.n, o);
	if (ns.n) {
		fputs("/namespaces/", o);
		fwrite(ns.p, 1, ns.n, o);
	}
	putc('/', o);
	fwrite(r.p, 1, r.n, o);
	if (name.n) {
		putc('/', o);
		fwrite(name.p, 1, name.n, o);
	}
	if (sub.n) {
		putc('/', o);
		fwrite(sub.p, 1, sub.n, o);
	}
}

/* "io.k8s.GROUP.VERSION.RESOURCE[.SUB].VERB", GROUP without ".k8s.io". */
static void put_method(FILE *o, struct span ref, struct span verb)
{
	struct span g = inner(get(ref, "apiGroup")), v = inner(get(ref, "apiVersion"));
	struct span r = inner(get(ref, "resource")), sub = inner(get(ref, "subresource"));

	if (g.n > 7 && memcmp(g.p + g.n - 7, ".k8s.io", 7) == 0)
		g.n -= 7;
	fputs("io.k8s.", o);
	if (g.n)
		fwrite(g.p, 1, g.n, o);
	else
		fputs("core", o);
	putc('.', o);
	fwrite(v.p, 1, v.n, o);
	putc('.', o);
	fwrite(r.p, 1, r.n, o);
	if (sub.n) {
		putc('.', o);
		fwrite(sub.p, 1, sub.n, o);
	}
	putc('.', o);
	fwrite(verb.p, 1, verb.n, o);
}

/* The first element of a JSON array of strings, as written. */
static struct span first(struct span arr)
{
	const char *p, *end = arr.p + arr.n;

	if (arr.n == 0 || *arr.p != '[')
		return (struct span){NULL, 0};
	p = ws(arr.p + 1, end);
	if (p >= end || *p != '"')
		return (struct span){NULL, 0};
	return (struct span){p, (size_t)(skip_string(p, end) - p)};
}

/* ,"key":VALUE when the value is there; sep between entries of a pretty object. */
static void field(const char *sep, const char *key, struct span v)
{
	if (v.n == 0)
		return;
	printf(",%s\"%s\":%s", sep, key, sep[0] ? " " : "");
	put(v);
}

/* One LogEntry; pretty: the gcloud layout at the entry's top level. */
static void gke_entry(struct span ev, unsigned long long n, int pretty)
{
	const char *sep = pretty ? "\n    " : "";
	struct span ref = get(ev, "objectRef"), verb = inner(get(ev, "verb"));
	struct span st = get(ev, "responseStatus"), ann = get(ev, "annotations");
	struct span code = get(st, "code"), msg = get(st, "message");
	int started = is(get(ev, "stage"), "\"ResponseStarted\"");
	long http = code.n ? strtol(code.p, NULL, 10) : 200;

	printf("{%s\"insertId\":%s\"%016llx\"", sep, pretty ? " " : "",
	       0x9e3779b97f4a7c15ULL * (n + 1));
	if (ann.n) {
		printf(",%s\"labels\":%s{", sep, pretty ? " " : "");
		printf("\"authorization.k8s.io/decision\":");
		put(get(ann, "authorization.k8s.io/decision"));
		if (get(ann, "authorization.k8s.io/reason").n) {
			printf(",\"authorization.k8s.io/reason\":");
			put(get(ann, "authorization.k8s.io/reason"));
		}
		putchar('}');
	}
	printf(",%s\"logName\":%s\"projects/sample-project/logs/"
	       "cloudaudit.googleapis.com%%2Factivity\"",
	       sep, pretty ? " " : "");
	printf(",%s\"operation\":%s{\"first\":true,\"id\":", sep, pretty ? " " : "");
	put(get(ev, "auditID"));
	printf(",\"last\":%s,\"producer\":\"k8s.io\"}", started ? "false" : "true");
	printf(
	    ",%s\"protoPayload\":%s{\"@type\":\"type.googleapis.com/google.cloud.audit.AuditLog\","
	    "\"authenticationInfo\":{\"principalEmail\":",
	    sep, pretty ? " " : "");
	put(get(get(ev, "user"), "username"));
	printf("},\"methodName\":\"");
	put_method(stdout, ref, verb);
	printf("\"");
	field("", "request", get(ev, "requestObject"));
	printf(",\"requestMetadata\":{\"callerIp\":");
	put(first(get(ev, "sourceIPs")));
	field("", "callerSuppliedUserAgent", get(ev, "userAgent"));
	printf("},\"resourceName\":\"");
	put_resource_name(stdout, ref);
	printf("\"");
	field("", "response", get(ev, "responseObject"));
	printf(",\"serviceName\":\"k8s.io\",\"status\":{\"code\":%d",
	       rpc_code(http, is(verb, "create")));
	if (http >= 300)
		field("", "message", msg);
	printf("}}");
	printf(",%s\"receiveTimestamp\":%s", sep, pretty ? " " : "");
	put(get(ev, "stageTimestamp"));
	printf(",%s\"resource\":%s{\"labels\":{\"cluster_name\":\"sample-cluster\",\"location\":"
	       "\"us-central1-a\",\"project_id\":\"sample-project\"},\"type\":\"k8s_cluster\"}",
	       sep, pretty ? " " : "");
	printf(",%s\"timestamp\":%s", sep, pretty ? " " : "");
	put(get(ev, "stageTimestamp"));
	printf("%s}", pretty ? "\n  " : "");
}

/* ---- CloudWatch: klog lines in Container Insights records ------------------------ */

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

/* "I0405 05:50:02.245836 ..." of the year: epoch ms, or -1 when the line has no klog header. */
static int64_t klog_ms(const char *s, size_t n, int year)
{
	int mo, d, h, mi, se, ms;

	if (n < 21 || strchr("IWEF", s[0]) == NULL || s[5] != ' ' || s[8] != ':' || s[14] != '.')
		return -1;
	mo = digits(s + 1, 2), d = digits(s + 3, 2), h = digits(s + 6, 2);
	mi = digits(s + 9, 2), se = digits(s + 12, 2), ms = digits(s + 15, 3);
	if (mo < 1 || d < 1 || h < 0 || mi < 0 || se < 0 || ms < 0)
		return -1;
	return (days_from_civil(year, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 +
		se) *
		   1000 +
	       ms;
}

static void cw_wrap(const char *line, size_t len, int64_t ms, unsigned long long n)
{
	printf(
	    "        {\n            \"logStreamName\": \"kube-controller-manager-7d4b9c8f6d-x2k4p_"
	    "kube-system_kube-controller-manager-%012llx\",\n"
	    "            \"timestamp\": %lld,\n            \"message\": \"",
	    0xc0ffeeULL, (long long)ms);
	/* the fluent-bit record, itself escaped into the event's message string */
	printf("{\\\"log\\\":\\\"");
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '"' || line[i] == '\\')
			printf("\\\\\\%c", line[i]);
		else
			putchar(line[i]);
	}
	printf("\\\\n\\\",\\\"stream\\\":\\\"stderr\\\",\\\"kubernetes\\\":{\\\"pod_name\\\":"
	       "\\\"kube-controller-manager-7d4b9c8f6d-x2k4p\\\",\\\"namespace_name\\\":"
	       "\\\"kube-system\\\",\\\"host\\\":\\\"ip-172-16-33-232.ec2.internal\\\","
	       "\\\"container_name\\\":\\\"kube-controller-manager\\\"}}\",\n"
	       "            \"ingestionTime\": %lld,\n            \"eventId\": \"%013lld%043llu\"\n"
	       "        }",
	       (long long)ms + 750, (long long)ms, n);
}

/* ---- query engines' result exports ------------------------------------------------ */

/* How a cell's value is written. */
enum how {
	H_JSTR,	  /* v: a JSON string literal of the Event (with its quotes) */
	H_TEXT,	  /* v: text or JSON text, written as a string (a dynamic column, a message) */
	H_AZTIME, /* v: an RFC 3339 literal, as Azure writes times (seven fraction digits) */
	H_BQTIME, /* v: an RFC 3339 literal, as BigQuery writes TIMESTAMP ("... UTC") */
	H_MS,	  /* ms: epoch milliseconds (Athena's bigint) */
	H_MSAZ,	  /* ms: an Azure time */
};

struct cell {
	const char *name;
	enum how how;
	struct span v;
	int64_t ms;
};

#define MAX_CELLS 48

struct row {
	struct cell c[MAX_CELLS];
	size_t n;
};

static void cell(struct row *r, const char *name, enum how how, struct span v)
{
	if (r->n < MAX_CELLS)
		r->c[r->n++] = (struct cell){name, how, v, 0};
}

static void cell_lit(struct row *r, const char *name, const char *lit)
{
	cell(r, name, H_TEXT, (struct span){lit, strlen(lit)});
}

static void cell_ms(struct row *r, const char *name, enum how how, int64_t ms)
{
	if (r->n < MAX_CELLS)
		r->c[r->n++] = (struct cell){name, how, {"", 0}, ms};
}

/* "2024-04-05T05:50:00.460553Z" (a literal with quotes): epoch ms, -1 when it is none. */
static int64_t rfc3339_ms(struct span lit)
{
	struct span t = inner(lit);
	int y, mo, d, h, mi, se, ms = 0;

	if (t.n < 20 || t.p[4] != '-' || t.p[10] != 'T')
		return -1;
	y = digits(t.p, 4), mo = digits(t.p + 5, 2), d = digits(t.p + 8, 2);
	h = digits(t.p + 11, 2), mi = digits(t.p + 14, 2), se = digits(t.p + 17, 2);
	if (t.p[19] == '.' && t.n >= 23)
		ms = digits(t.p + 20, 3);
	if (y < 0 || mo < 1 || d < 1 || h < 0 || mi < 0 || se < 0 || ms < 0)
		return -1;
	return (days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se) *
		   1000 +
	       ms;
}

/* An Azure time of epoch ms: "2024-04-05T05:50:00.4600000Z" (seven fraction digits). */
static void fmt_ms_azure(char *buf, size_t size, int64_t ms)
{
	int64_t days = ms / 86400000, rem = ms % 86400000, z = days + 719468;

	if (ms < 0)
		ms = days = rem = 0, z = 719468;
	int64_t era = z / 146097, doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	int64_t y = yoe + era * 400 + (m <= 2);

	snprintf(buf, size, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lld0000Z", (long long)y,
		 (long long)m, (long long)d, (long long)(rem / 3600000),
		 (long long)(rem / 60000 % 60), (long long)(rem / 1000 % 60),
		 (long long)(rem % 1000));
}

/* An RFC 3339 literal as Azure writes it: seven fraction digits. */
static void fmt_azure(char *buf, size_t size, struct span lit)
{
	struct span t = inner(lit);
	size_t frac = 0, k;

	if (t.n < 20) {
		snprintf(buf, size, "1970-01-01T00:00:00.0000000Z");
		return;
	}
	k = (size_t)snprintf(buf, size, "%.19s.", t.p);
	for (size_t i = 20; i < t.n && t.p[i] >= '0' && t.p[i] <= '9' && frac < 7; i++, frac++)
		buf[k++] = t.p[i];
	for (; frac < 7; frac++)
		buf[k++] = '0';
	snprintf(buf + k, size - k, "Z");
}

/* "2024-04-05 05:50:00.460553 UTC", as BigQuery writes a TIMESTAMP. */
static void fmt_bq(char *buf, size_t size, struct span lit)
{
	struct span t = inner(lit);

	if (t.n < 20)
		snprintf(buf, size, "1970-01-01 00:00:00 UTC");
	else
		snprintf(buf, size, "%.10s %.*s UTC", t.p, (int)(t.n - 12), t.p + 11);
}

/* A time cell's text; 0 when the cell is no time. */
static int fmt_time(char *buf, size_t size, const struct cell *c)
{
	if (c->how == H_AZTIME)
		fmt_azure(buf, size, c->v);
	else if (c->how == H_BQTIME)
		fmt_bq(buf, size, c->v);
	else if (c->how == H_MSAZ)
		fmt_ms_azure(buf, size, c->ms);
	else if (c->how == H_MS)
		snprintf(buf, size, "%lld", (long long)c->ms);
	else
		return 0;
	return 1;
}

/* A JSON string literal's text, decoded (\uXXXX to UTF-8), as the inside of a CSV field. */
static void put_csv_jstr(struct span lit)
{
	struct span t = inner(lit);
	static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";

	for (size_t i = 0; i < t.n; i++) {
		unsigned long u;
		const char *e;

		if (t.p[i] == '"') {
			fputs("\"\"", stdout);
		} else if (t.p[i] != '\\' || i + 1 >= t.n) {
			putchar(t.p[i]);
		} else if (t.p[++i] == 'u' && i + 4 < t.n) {
			char hex[5] = {t.p[i + 1], t.p[i + 2], t.p[i + 3], t.p[i + 4], 0};

			u = strtoul(hex, NULL, 16);
			i += 4;
			if (u < 0x80) {
				putchar(u == '"' ? '"' : (int)u);
				if (u == '"')
					putchar('"');
			} else if (u < 0x800) {
				putchar((int)(0xc0 | u >> 6));
				putchar((int)(0x80 | (u & 0x3f)));
			} else {
				putchar((int)(0xe0 | u >> 12));
				putchar((int)(0x80 | (u >> 6 & 0x3f)));
				putchar((int)(0x80 | (u & 0x3f)));
			}
		} else if ((e = strchr(esc, t.p[i])) != NULL && (e - esc) % 2 == 0) {
			if (e[1] == '"')
				fputs("\"\"", stdout);
			else
				putchar(e[1]);
		}
	}
}

/* Raw text as the inside of a CSV field (quotes doubled). */
static void put_csv_text(struct span v)
{
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] == '"')
			putchar('"');
		putchar(v.p[i]);
	}
}

static void put_json_value(const struct cell *c)
{
	char t[64];

	if (c->how == H_JSTR) {
		put(c->v);
	} else if (c->how == H_TEXT) {
		putchar('"');
		put_escaped(c->v.p, c->v.n);
		putchar('"');
	} else if (c->how == H_MS) {
		printf("%lld", (long long)c->ms);
	} else if (fmt_time(t, sizeof t, c)) {
		printf("\"%s\"", t);
	}
}

/* One CSV field, quoted (Athena quotes every field; the others quote what needs it). */
static void put_csv_value(const struct cell *c)
{
	char t[64];

	putchar('"');
	if (c->how == H_JSTR)
		put_csv_jstr(c->v);
	else if (c->how == H_TEXT)
		put_csv_text(c->v);
	else if (fmt_time(t, sizeof t, c))
		fputs(t, stdout);
	putchar('"');
}

static int has_value(const struct cell *c)
{
	return c->v.n > 0 || c->how == H_MS || c->how == H_MSAZ;
}

static void csv_header(const struct row *r, int utc_suffix)
{
	for (size_t i = 0; i < r->n; i++)
		printf("%s\"%s%s\"", i ? "," : "", r->c[i].name,
		       utc_suffix && (r->c[i].how == H_AZTIME || r->c[i].how == H_MSAZ) ? " [UTC]"
											: "");
	putchar('\n');
}

static void csv_row(const struct row *r)
{
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			putchar(',');
		if (has_value(&r->c[i]))
			put_csv_value(&r->c[i]);
	}
	putchar('\n');
}

/* The length of the first n components of a dotted name. */
static size_t path_prefix(const char *name, int n)
{
	size_t i = 0;

	for (int k = 0; k < n; k++) {
		i += strcspn(name + i, ".");
		if (k + 1 < n && name[i] == '.')
			i++;
	}
	return i;
}

static int path_depth(const char *name)
{
	int d = 1;

	for (; *name; name++)
		d += *name == '.';
	return d;
}

/* True when component k of a and of b are the same. */
static int same_component(const char *a, const char *b, int k)
{
	size_t sa = k ? path_prefix(a, k) + 1 : 0, sb = k ? path_prefix(b, k) + 1 : 0;
	size_t na = strcspn(a + sa, "."), nb = strcspn(b + sb, ".");

	return na == nb && memcmp(a + sa, b + sb, na) == 0;
}

/* A row as one JSON object; dotted names nest (BigQuery's RECORD columns), in order. */
static void json_row(const struct row *r, const char *lead)
{
	const char *prev = "";
	int open = 0, comma[8] = {*lead != '\0'};

	printf("{%s", lead);
	for (size_t i = 0; i < r->n; i++) {
		const char *name = r->c[i].name;
		int depth = path_depth(name), same = 0;

		if (!has_value(&r->c[i]) || depth > 7)
			continue;
		while (same < open && same < depth - 1 && same_component(prev, name, same))
			same++;
		for (; open > same; open--)
			putchar('}');
		for (; open < depth - 1; open++) {
			size_t a = open ? path_prefix(name, open) + 1 : 0;

			printf("%s\"%.*s\":{", comma[open] ? "," : "", (int)strcspn(name + a, "."),
			       name + a);
			comma[open] = 1;
			comma[open + 1] = 0;
		}
		printf("%s\"%s\":", comma[open] ? "," : "",
		       name + (depth > 1 ? path_prefix(name, depth - 1) + 1 : 0));
		comma[open] = 1;
		put_json_value(&r->c[i]);
		prev = name;
	}
	for (; open > 0; open--)
		putchar('}');
	putchar('}');
}

/* A row of the query API's {"tables":[{"columns":[…],"rows":[…]}]}; the columns before the first.
 */
static void rest_row(const struct row *r, unsigned long long n)
{
	if (n == 0) {
		fputs("{\"tables\":[{\"name\":\"PrimaryResult\",\"columns\":[", stdout);
		for (size_t i = 0; i < r->n; i++)
			printf("%s{\"name\":\"%s\",\"type\":\"%s\"}", i ? "," : "", r->c[i].name,
			       r->c[i].how == H_AZTIME || r->c[i].how == H_MSAZ ? "datetime"
										: "string");
		fputs("],\"rows\":[\n", stdout);
	} else {
		fputs(",\n", stdout);
	}
	putchar('[');
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			putchar(',');
		if (has_value(&r->c[i]))
			put_json_value(&r->c[i]);
		else
			fputs("\"\"", stdout);
	}
	putchar(']');
}

static const char *const la_tenant = "11111111-2222-3333-4444-555555555555";

static char pod_buf[64];

static const char *apiserver_pod(unsigned long long n)
{
	snprintf(pod_buf, sizeof pod_buf, "kube-apiserver-6b497d8d5f-%05llx",
		 n % 3 * 0x1f3d1 % 0xfffff);
	return pod_buf;
}

/* An AKSAudit row (resource-specific table): the Event's fields as columns. */
static void la_audit_row(struct row *r, struct span ev, unsigned long long n)
{
	static const struct {
		const char *col, *key;
		enum how how;
	} cols[] = {
	    {"TimeGenerated", "stageTimestamp", H_AZTIME},
	    {"Level", "level", H_JSTR},
	    {"AuditId", "auditID", H_JSTR},
	    {"Stage", "stage", H_JSTR},
	    {"RequestUri", "requestURI", H_JSTR},
	    {"Verb", "verb", H_JSTR},
	    {"User", "user", H_TEXT},
	    {"ImpersonatedUser", "impersonatedUser", H_TEXT},
	    {"SourceIps", "sourceIPs", H_TEXT},
	    {"UserAgent", "userAgent", H_JSTR},
	    {"ObjectRef", "objectRef", H_TEXT},
	    {"ResponseStatus", "responseStatus", H_TEXT},
	    {"RequestObject", "requestObject", H_TEXT},
	    {"ResponseObject", "responseObject", H_TEXT},
	    {"RequestReceivedTime", "requestReceivedTimestamp", H_AZTIME},
	    {"StageReceivedTime", "stageTimestamp", H_AZTIME},
	    {"Annotations", "annotations", H_TEXT},
	};

	r->n = 0;
	cell_lit(r, "TenantId", la_tenant);
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		cell(r, cols[i].col, cols[i].how, get(ev, cols[i].key));
	cell_lit(r, "PodName", apiserver_pod(n));
	cell_lit(r, "SourceSystem", "Azure");
	cell_lit(r, "Type", "AKSAudit");
	cell_lit(r, "_ResourceId", AKS_RESOURCE);
}

/* An AzureDiagnostics row (the legacy table): the Event as the string log_s. */
static void la_diag_row(struct row *r, struct span ev, unsigned long long n)
{
	r->n = 0;
	cell_lit(r, "TenantId", la_tenant);
	cell(r, "TimeGenerated", H_AZTIME, get(ev, "stageTimestamp"));
	cell_lit(r, "ResourceId", AKS_RESOURCE);
	cell_lit(r, "Category", "kube-audit");
	cell_lit(r, "ResourceGroup", "SAMPLE-RG");
	cell_lit(r, "SubscriptionId", "00000000-0000-0000-0000-000000000000");
	cell_lit(r, "ResourceProvider", "MICROSOFT.CONTAINERSERVICE");
	cell_lit(r, "Resource", "SAMPLE-AKS");
	cell_lit(r, "ResourceType", "MANAGEDCLUSTERS");
	cell_lit(r, "OperationName",
		 "Microsoft.ContainerService/managedClusters/diagnosticLogs/Read");
	cell(r, "log_s", H_TEXT, ev);
	cell_lit(r, "pod_s", apiserver_pod(n));
	cell_lit(r, "stream_s", "stdout");
	cell_lit(r, "SourceSystem", "Azure");
	cell_lit(r, "Type", "AzureDiagnostics");
	cell_lit(r, "_ResourceId", AKS_RESOURCE);
}

/* An AKSControlPlane row of a kube-controller-manager klog line. */
static void la_cp_row(struct row *r, const char *line, size_t len, int64_t ms)
{
	r->n = 0;
	cell_lit(r, "TenantId", la_tenant);
	cell_ms(r, "TimeGenerated", H_MSAZ, ms);
	cell_lit(r, "Category", "kube-controller-manager");
	cell_lit(r, "Level", line[0] == 'E' ? "ERROR" : line[0] == 'W' ? "WARNING" : "INFO");
	cell(r, "Message", H_TEXT, (struct span){line, len});
	cell_lit(r, "PodName", "kube-controller-manager-84595d6f94-wcj7p");
	cell_lit(r, "SourceSystem", "Azure");
	cell_lit(r, "Type", "AKSControlPlane");
	cell_lit(r, "_ResourceId", AKS_RESOURCE);
}

static char bq_method[1024], bq_resource[1024], bq_code[16], bq_insert[24];

/* A row of a Cloud Logging sink's cloudaudit_googleapis_com_activity table. */
static void bq_row(struct row *r, struct span ev, unsigned long long n)
{
	struct span ref = get(ev, "objectRef"), verb = inner(get(ev, "verb"));
	struct span st = get(ev, "responseStatus"), ann = get(ev, "annotations");
	struct span code = get(st, "code");
	long http = code.n ? strtol(code.p, NULL, 10) : 200;
	FILE *f;

	if ((f = fmemopen(bq_method, sizeof bq_method, "w")) != NULL) {
		put_method(f, ref, verb);
		putc('\0', f);
		fclose(f);
	}
	if ((f = fmemopen(bq_resource, sizeof bq_resource, "w")) != NULL) {
		put_resource_name(f, ref);
		putc('\0', f);
		fclose(f);
	}
	snprintf(bq_code, sizeof bq_code, "%d", rpc_code(http, is(verb, "create")));
	snprintf(bq_insert, sizeof bq_insert, "%016llx", 0x9e3779b97f4a7c15ULL * (n + 1));
	r->n = 0;
	cell_lit(r, "logName", "projects/sample-project/logs/cloudaudit.googleapis.com%2Factivity");
	cell_lit(r, "resource.type", "k8s_cluster");
	cell_lit(r, "resource.labels.project_id", "sample-project");
	cell_lit(r, "resource.labels.location", "us-central1-a");
	cell_lit(r, "resource.labels.cluster_name", "sample-cluster");
	cell_lit(r, "protopayload_auditlog.serviceName", "k8s.io");
	cell_lit(r, "protopayload_auditlog.methodName", bq_method);
	cell_lit(r, "protopayload_auditlog.resourceName", bq_resource);
	cell_lit(r, "protopayload_auditlog.status.code", bq_code);
	cell(r, "protopayload_auditlog.status.message", H_JSTR,
	     http >= 300 ? get(st, "message") : (struct span){NULL, 0});
	cell(r, "protopayload_auditlog.authenticationInfo.principalEmail", H_JSTR,
	     get(get(ev, "user"), "username"));
	cell(r, "protopayload_auditlog.requestMetadata.callerIp", H_JSTR,
	     first(get(ev, "sourceIPs")));
	cell(r, "protopayload_auditlog.requestMetadata.callerSuppliedUserAgent", H_JSTR,
	     get(ev, "userAgent"));
	cell(r, "protopayload_auditlog.requestJson", H_TEXT, get(ev, "requestObject"));
	cell(r, "protopayload_auditlog.responseJson", H_TEXT, get(ev, "responseObject"));
	cell(r, "textPayload", H_TEXT, (struct span){NULL, 0});
	cell(r, "timestamp", H_BQTIME, get(ev, "stageTimestamp"));
	cell(r, "receiveTimestamp", H_BQTIME, get(ev, "stageTimestamp"));
	cell_lit(r, "severity", http >= 400 ? "ERROR" : "INFO");
	cell_lit(r, "insertId", bq_insert);
	cell(r, "operation.id", H_JSTR, get(ev, "auditID"));
	cell_lit(r, "operation.producer", "k8s.io");
	cell_lit(r, "operation.first", "true");
	cell_lit(r, "operation.last",
		 is(get(ev, "stage"), "\"ResponseStarted\"") ? "false" : "true");
	cell(r, "labels.authorization_k8s_io_decision", H_JSTR,
	     ann.n ? get(ann, "authorization.k8s.io/decision") : (struct span){NULL, 0});
	cell(r, "labels.authorization_k8s_io_reason", H_JSTR,
	     ann.n ? get(ann, "authorization.k8s.io/reason") : (struct span){NULL, 0});
}

static char athena_stream[80], athena_id[64];

/* An Athena row over a Firehose delivery of the CloudWatch subscription (logevents unnested). */
static void athena_row(struct row *r, struct span ev, unsigned long long n)
{
	int64_t ms = rfc3339_ms(get(ev, "stageTimestamp"));

	snprintf(athena_stream, sizeof athena_stream, "kube-apiserver-audit-%016llx",
		 0x5deece66dULL * (n % 3 + 1));
	snprintf(athena_id, sizeof athena_id, "%020lld%036llu", (long long)ms, n);
	r->n = 0;
	cell_lit(r, "messagetype", "DATA_MESSAGE");
	cell_lit(r, "owner", "123456789012");
	cell_lit(r, "loggroup", "/aws/eks/sample-eks/cluster");
	cell_lit(r, "logstream", athena_stream);
	cell_lit(r, "id", athena_id);
	cell_ms(r, "timestamp", H_MS, ms);
	cell(r, "message", H_TEXT, ev);
}

/* ---- main ----------------------------------------------------------------------------- */

enum shape {
	AKS_LINES,
	AKS_EVENTHUB,
	GKE_LINES,
	GKE_ARRAY,
	CW_WRAP,
	LA_JSON,
	LA_CSV,
	LA_REST,
	AZDIAG_JSON,
	AZDIAG_CSV,
	LACP_JSON,
	LACP_CSV,
	BQ_JSON,
	BQ_NDJSON,
	BQ_CSV,
	ATHENA_CSV,
};

static const struct {
	const char *name;
	enum shape shape;
} shapes[] = {
    {"aks-lines", AKS_LINES},	{"aks-eventhub", AKS_EVENTHUB},
    {"gke-lines", GKE_LINES},	{"gke-array", GKE_ARRAY},
    {"cw-wrap", CW_WRAP},	{"la-json", LA_JSON},
    {"la-csv", LA_CSV},		{"azdiag-json", AZDIAG_JSON},
    {"azdiag-csv", AZDIAG_CSV}, {"la-cp-json", LACP_JSON},
    {"la-cp-csv", LACP_CSV},	{"bq-json", BQ_JSON},
    {"bq-ndjson", BQ_NDJSON},	{"bq-csv", BQ_CSV},
    {"athena-csv", ATHENA_CSV}, {"la-rest", LA_REST},
};

static int is_csv(enum shape shape)
{
	return shape == LA_CSV || shape == AZDIAG_CSV || shape == LACP_CSV || shape == BQ_CSV ||
	       shape == ATHENA_CSV;
}

/* The row a result shape makes of one input line; 0 when the line makes none. */
static int result_row(struct row *r, enum shape shape, const char *line, size_t len,
		      unsigned long long n, int year)
{
	struct span ev = {line, len};
	int64_t ms;

	switch (shape) {
	case LA_JSON:
	case LA_CSV:
	case LA_REST:
		la_audit_row(r, ev, n);
		return 1;
	case AZDIAG_JSON:
	case AZDIAG_CSV:
		la_diag_row(r, ev, n);
		return 1;
	case LACP_JSON:
	case LACP_CSV:
		if ((ms = klog_ms(line, len, year)) < 0)
			return 0;
		la_cp_row(r, line, len, ms);
		return 1;
	case BQ_JSON:
	case BQ_NDJSON:
	case BQ_CSV:
		if (is(get(ev, "stage"), "\"RequestReceived\""))
			return 0; /* Cloud Logging has none */
		bq_row(r, ev, n);
		return 1;
	case ATHENA_CSV:
		athena_row(r, ev, n);
		return 1;
	default:
		return 0;
	}
}

/* One result row in its export's layout: a JSON array's element, a JSON line, a CSV row. */
static int result(enum shape shape, const char *line, size_t len, unsigned long long n, int year)
{
	static struct row r;

	if (!result_row(&r, shape, line, len, n, year))
		return 0;
	if (shape == LA_REST) {
		rest_row(&r, n);
		return 1;
	}
	if (is_csv(shape)) {
		if (n == 0)
			csv_header(&r, shape == LA_CSV || shape == AZDIAG_CSV || shape == LACP_CSV);
		csv_row(&r);
		return 1;
	}
	if (shape != BQ_NDJSON)
		fputs(n == 0 ? "[\n  " : ",\n  ", stdout);
	json_row(&r, shape == LA_JSON || shape == AZDIAG_JSON || shape == LACP_JSON
			 ? "\"TableName\":\"PrimaryResult\""
			 : "");
	if (shape == BQ_NDJSON)
		putchar('\n');
	return 1;
}

/* Writes one input line in shape; n counts the records written before it. */
static int convert(enum shape shape, const char *line, size_t len, unsigned long long n,
		   unsigned long long page, int year)
{
	struct span ev = {line, len};
	int64_t ms;

	if (shape >= LA_JSON)
		return result(shape, line, len, n, year);
	if (shape == CW_WRAP) {
		if ((ms = klog_ms(line, len, year)) < 0)
			return 0;
		fputs(n % page == 0 ? "{\n    \"events\": [\n" : ",\n", stdout);
		cw_wrap(line, len, ms, n);
		if ((n + 1) % page == 0)
			printf("\n    ],\n    \"nextToken\": \"f/%020llu\"\n}\n", n);
		return 1;
	}
	if (shape == AKS_LINES || shape == AKS_EVENTHUB) {
		if (shape == AKS_EVENTHUB)
			fputs(n % page == 0 ? "{\"records\": [" : ", ", stdout);
		aks_record(ev, n);
		if (shape == AKS_LINES || (n + 1) % page == 0)
			fputs(shape == AKS_LINES ? "\n" : "]}\n", stdout);
		return 1;
	}
	if (is(get(ev, "stage"), "\"RequestReceived\""))
		return 0;
	if (shape == GKE_ARRAY)
		fputs(n == 0 ? "[\n  " : ",\n  ", stdout);
	gke_entry(ev, n, shape == GKE_ARRAY);
	if (shape == GKE_LINES)
		putchar('\n');
	return 1;
}

int main(int argc, char **argv)
{
	char *line = malloc(LINE_MAX_BYTES);
	unsigned long long n = 0, page = 1000;
	int year = 2024, shape = -1;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--page") == 0)
			page = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--year") == 0)
			year = (int)strtol(argv[i + 1], NULL, 10);
		for (size_t k = 0;
		     strcmp(argv[i], "--to") == 0 && k < sizeof shapes / sizeof *shapes; k++)
			if (strcmp(argv[i + 1], shapes[k].name) == 0)
				shape = (int)shapes[k].shape;
	}
	if (line == NULL || page == 0 || shape < 0) {
		fprintf(
		    stderr,
		    "usage: cloud-export --to aks-lines|aks-eventhub|gke-lines|gke-array|"
		    "cw-wrap|la-json|la-csv|la-rest|azdiag-json|azdiag-csv|la-cp-json|la-cp-csv|"
		    "bq-json|bq-ndjson|bq-csv|athena-csv [--page N] [--year Y] <in >out\n");
		free(line);
		return 2;
	}
	while (fgets(line, LINE_MAX_BYTES, stdin) != NULL) {
		size_t len = strcspn(line, "\r\n");

		if (len > 0)
			n += (unsigned long long)convert((enum shape)shape, line, len, n, page,
							 year);
	}
	if (shape == LA_REST)
		fputs(n == 0 ? "{\"tables\":[]}\n" : "]}]}\n", stdout);
	else if (shape == GKE_ARRAY ||
		 (shape >= LA_JSON && !is_csv((enum shape)shape) && shape != BQ_NDJSON))
		fputs(n == 0 ? "[]\n" : "\n]\n", stdout);
	else if ((shape == AKS_EVENTHUB && n % page != 0))
		fputs("]}\n", stdout);
	else if (shape == CW_WRAP && n % page != 0)
		fputs("\n    ]\n}\n", stdout);
	free(line);
	return ferror(stdout) ? 1 : 0;
}
