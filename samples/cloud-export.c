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
static void put_resource_name(struct span ref)
{
	struct span g = inner(get(ref, "apiGroup")), v = inner(get(ref, "apiVersion"));
	struct span ns = inner(get(ref, "namespace")), r = inner(get(ref, "resource"));
	struct span name = inner(get(ref, "name")), sub = inner(get(ref, "subresource"));

	if (g.n)
		put(g);
	else
		fputs("core", stdout);
	putchar('/');
	put(v);
	if (ns.n) {
		fputs("/namespaces/", stdout);
		put(ns);
	}
	putchar('/');
	put(r);
	if (name.n) {
		putchar('/');
		put(name);
	}
	if (sub.n) {
		putchar('/');
		put(sub);
	}
}

/* "io.k8s.GROUP.VERSION.RESOURCE[.SUB].VERB", GROUP without ".k8s.io". */
static void put_method(struct span ref, struct span verb)
{
	struct span g = inner(get(ref, "apiGroup")), v = inner(get(ref, "apiVersion"));
	struct span r = inner(get(ref, "resource")), sub = inner(get(ref, "subresource"));

	if (g.n > 7 && memcmp(g.p + g.n - 7, ".k8s.io", 7) == 0)
		g.n -= 7;
	fputs("io.k8s.", stdout);
	if (g.n)
		put(g);
	else
		fputs("core", stdout);
	putchar('.');
	put(v);
	putchar('.');
	put(r);
	if (sub.n) {
		putchar('.');
		put(sub);
	}
	putchar('.');
	put(verb);
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
	put_method(ref, verb);
	printf("\"");
	field("", "request", get(ev, "requestObject"));
	printf(",\"requestMetadata\":{\"callerIp\":");
	put(first(get(ev, "sourceIPs")));
	field("", "callerSuppliedUserAgent", get(ev, "userAgent"));
	printf("},\"resourceName\":\"");
	put_resource_name(ref);
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

/* ---- main ----------------------------------------------------------------------------- */

enum shape { AKS_LINES, AKS_EVENTHUB, GKE_LINES, GKE_ARRAY, CW_WRAP };

static const struct {
	const char *name;
	enum shape shape;
} shapes[] = {
    {"aks-lines", AKS_LINES}, {"aks-eventhub", AKS_EVENTHUB}, {"gke-lines", GKE_LINES},
    {"gke-array", GKE_ARRAY}, {"cw-wrap", CW_WRAP},
};

/* Writes one input line in shape; n counts the records written before it. */
static int convert(enum shape shape, const char *line, size_t len, unsigned long long n,
		   unsigned long long page, int year)
{
	struct span ev = {line, len};
	int64_t ms;

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
		fprintf(stderr,
			"usage: cloud-export --to aks-lines|aks-eventhub|gke-lines|gke-array|"
			"cw-wrap [--page N] [--year Y] <in >out\n");
		free(line);
		return 2;
	}
	while (fgets(line, LINE_MAX_BYTES, stdin) != NULL) {
		size_t len = strcspn(line, "\r\n");

		if (len > 0)
			n += (unsigned long long)convert((enum shape)shape, line, len, n, page,
							 year);
	}
	if (shape == GKE_ARRAY)
		fputs(n == 0 ? "[]\n" : "\n]\n", stdout);
	else if ((shape == AKS_EVENTHUB && n % page != 0))
		fputs("]}\n", stdout);
	else if (shape == CW_WRAP && n % page != 0)
		fputs("\n    ]\n}\n", stdout);
	free(line);
	return ferror(stdout) ? 1 : 0;
}
