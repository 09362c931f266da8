/*
 * parser-audit.c - one audit Event record to struct lt_audit_event, with yajl.
 *
 * yajl's callback parser walks the record; a small stack of contexts says
 * where we are (root, user, objectRef, responseObject.spec, ...), and each
 * scalar is kept or ignored by (context, key).  Strings are copied into one
 * arena and turned into pointers when the record is done, since the arena
 * may move while it grows.  Key order, whitespace and unknown fields do not
 * matter; duplicate keys keep the last value, as Go's decoder does.
 *
 * The identity behind the user name (docs/formats.md, "Who, really"): the
 * authenticator's keys in user.extra (EKS's arn, canonicalArn, sessionName,
 * principalId; AKS's AAD oid; a bound token's pod; the GKE LogEntry's
 * principalSubject and delegation, written there by parser-gke.c) are kept,
 * the first value of each, and joined into one short text by the rules of
 * audit_identity_parts[] (audit_identity).
 */
#include "parser-json.h"

#include <stdlib.h>
#include <string.h>

#define AUDIT_MAX_DEPTH 64
#define AUDIT_MAX_KEY	64
/* At most this much of one user.extra value goes into the identity. */
#define AUDIT_MAX_IDENTITY_PART 256

enum audit_ctx {
	AC_OTHER, /* a subtree we ignore */
	AC_ROOT,
	AC_USER,
	AC_GROUPS,
	AC_IMPERSONATED,
	AC_SOURCE_IPS,
	AC_OBJREF,
	AC_STATUS,
	AC_ANNOTATIONS,
	AC_METADATA,
	AC_REQ_OBJ,
	AC_RESP_OBJ,
	AC_REQ_SPEC,
	AC_RESP_SPEC,
	AC_EXTRA,	 /* user.extra */
	AC_EXTRA_VALUES, /* one key's array of strings in user.extra (the last: audit_keys_by_ctx)
			  */
};

/* String fields, in the order of the table below. */
enum audit_field {
	F_KIND,
	F_API_VERSION,
	F_LEVEL,
	F_AUDIT_ID,
	F_STAGE,
	F_REQUEST_URI,
	F_VERB,
	F_USERNAME,
	F_GROUPS,
	F_IMPERSONATED,
	F_SOURCE_IP,
	F_USER_AGENT,
	F_RESOURCE,
	F_SUBRESOURCE,
	F_NAMESPACE,
	F_NAME,
	F_API_GROUP,
	F_OBJ_API_VERSION,
	F_OBJ_UID,
	F_RESOURCE_VERSION,
	F_STATUS,
	F_REASON,
	F_MESSAGE,
	F_AUTHZ_DECISION,
	F_AUTHZ_REASON,
	F_RECEIVED_TS,
	F_STAGE_TS,
	F_TIMESTAMP,
	F_CREATION_TS,
	F_REQ_HOLDER,
	F_RESP_HOLDER,
	F_REQ_RENEW,
	F_RESP_RENEW,
	F_REQ_ACQUIRE,
	F_RESP_ACQUIRE,
	F_X_ARN, /* user.extra: the first value of each key that says who */
	F_X_CANONICAL_ARN,
	F_X_PRINCIPAL_ID,
	F_X_SESSION,
	F_X_OID,
	F_X_POD,
	F_X_SUBJECT,
	F_X_DELEGATION,
	F_IDENTITY, /* what audit_identity made of them */
	F_COUNT
};

/* Number fields. */
enum audit_num { N_CODE, N_REQ_DURATION, N_RESP_DURATION, N_REQ_TRANS, N_RESP_TRANS, N_COUNT };

/*
 * Which (context, key) feeds which field; a field of -1 means "a number, see
 * num".  One table per context (audit_keys_by_ctx): a lookup reads only the
 * keys of the context it is in.
 */
struct audit_key {
	enum audit_ctx ctx;
	const char *key;
	size_t len; /* of key: lookups compare lengths first */
	int field;
	int num;
};

#define AUDIT_KEY(ctx, key, field, num)                                                            \
	{                                                                                          \
		ctx, key, sizeof key - 1, field, num                                               \
	}

static const struct audit_key audit_root_keys[] = {
    AUDIT_KEY(AC_ROOT, "kind", F_KIND, -1),
    AUDIT_KEY(AC_ROOT, "apiVersion", F_API_VERSION, -1),
    AUDIT_KEY(AC_ROOT, "level", F_LEVEL, -1),
    AUDIT_KEY(AC_ROOT, "auditID", F_AUDIT_ID, -1),
    AUDIT_KEY(AC_ROOT, "stage", F_STAGE, -1),
    AUDIT_KEY(AC_ROOT, "requestURI", F_REQUEST_URI, -1),
    AUDIT_KEY(AC_ROOT, "verb", F_VERB, -1),
    AUDIT_KEY(AC_ROOT, "userAgent", F_USER_AGENT, -1),
    AUDIT_KEY(AC_ROOT, "requestReceivedTimestamp", F_RECEIVED_TS, -1),
    AUDIT_KEY(AC_ROOT, "stageTimestamp", F_STAGE_TS, -1),
    AUDIT_KEY(AC_ROOT, "timestamp", F_TIMESTAMP, -1),
};

static const struct audit_key audit_metadata_keys[] = {
    AUDIT_KEY(AC_METADATA, "creationTimestamp", F_CREATION_TS, -1),
};

static const struct audit_key audit_user_keys[] = {
    AUDIT_KEY(AC_USER, "username", F_USERNAME, -1),
};

static const struct audit_key audit_impersonated_keys[] = {
    AUDIT_KEY(AC_IMPERSONATED, "username", F_IMPERSONATED, -1),
};

static const struct audit_key audit_objref_keys[] = {
    AUDIT_KEY(AC_OBJREF, "resource", F_RESOURCE, -1),
    AUDIT_KEY(AC_OBJREF, "subresource", F_SUBRESOURCE, -1),
    AUDIT_KEY(AC_OBJREF, "namespace", F_NAMESPACE, -1),
    AUDIT_KEY(AC_OBJREF, "name", F_NAME, -1),
    AUDIT_KEY(AC_OBJREF, "apiGroup", F_API_GROUP, -1),
    AUDIT_KEY(AC_OBJREF, "apiVersion", F_OBJ_API_VERSION, -1),
    AUDIT_KEY(AC_OBJREF, "uid", F_OBJ_UID, -1),
    AUDIT_KEY(AC_OBJREF, "resourceVersion", F_RESOURCE_VERSION, -1),
};

static const struct audit_key audit_status_keys[] = {
    AUDIT_KEY(AC_STATUS, "status", F_STATUS, -1),
    AUDIT_KEY(AC_STATUS, "reason", F_REASON, -1),
    AUDIT_KEY(AC_STATUS, "message", F_MESSAGE, -1),
    AUDIT_KEY(AC_STATUS, "code", -1, N_CODE),
};

static const struct audit_key audit_annotations_keys[] = {
    AUDIT_KEY(AC_ANNOTATIONS, "authorization.k8s.io/decision", F_AUTHZ_DECISION, -1),
    AUDIT_KEY(AC_ANNOTATIONS, "authorization.k8s.io/reason", F_AUTHZ_REASON, -1),
};

static const struct audit_key audit_req_spec_keys[] = {
    AUDIT_KEY(AC_REQ_SPEC, "holderIdentity", F_REQ_HOLDER, -1),
    AUDIT_KEY(AC_REQ_SPEC, "renewTime", F_REQ_RENEW, -1),
    AUDIT_KEY(AC_REQ_SPEC, "acquireTime", F_REQ_ACQUIRE, -1),
    AUDIT_KEY(AC_REQ_SPEC, "leaseDurationSeconds", -1, N_REQ_DURATION),
    AUDIT_KEY(AC_REQ_SPEC, "leaseTransitions", -1, N_REQ_TRANS),
};

static const struct audit_key audit_resp_spec_keys[] = {
    AUDIT_KEY(AC_RESP_SPEC, "holderIdentity", F_RESP_HOLDER, -1),
    AUDIT_KEY(AC_RESP_SPEC, "renewTime", F_RESP_RENEW, -1),
    AUDIT_KEY(AC_RESP_SPEC, "acquireTime", F_RESP_ACQUIRE, -1),
    AUDIT_KEY(AC_RESP_SPEC, "leaseDurationSeconds", -1, N_RESP_DURATION),
    AUDIT_KEY(AC_RESP_SPEC, "leaseTransitions", -1, N_RESP_TRANS),
};

static const struct audit_key audit_extra_keys[] = {
    /* EKS (aws-iam-authenticator): the IAM principal behind a mapped user name */
    AUDIT_KEY(AC_EXTRA, "arn", F_X_ARN, -1),
    AUDIT_KEY(AC_EXTRA, "canonicalArn", F_X_CANONICAL_ARN, -1),
    AUDIT_KEY(AC_EXTRA, "principalId", F_X_PRINCIPAL_ID, -1),
    AUDIT_KEY(AC_EXTRA, "sessionName", F_X_SESSION, -1),
    /* AKS (Azure AD through guard or kubelogin): the object id */
    AUDIT_KEY(AC_EXTRA, "oid", F_X_OID, -1),
    AUDIT_KEY(AC_EXTRA, "http://schemas.microsoft.com/identity/claims/objectidentifier", F_X_OID,
	      -1),
    /* a bound service account token: the pod it was mounted in */
    AUDIT_KEY(AC_EXTRA, "authentication.kubernetes.io/pod-name", F_X_POD, -1),
    /* GKE: authenticationInfo, written into user.extra by parser-gke.c */
    AUDIT_KEY(AC_EXTRA, "principalSubject", F_X_SUBJECT, -1),
    AUDIT_KEY(AC_EXTRA, "serviceAccountDelegationInfo", F_X_DELEGATION, -1),
};

/* The keys kept in each context (none in the others). */
struct audit_keys_of {
	const struct audit_key *keys;
	size_t n;
};

#define AUDIT_KEYS(a)                                                                              \
	{                                                                                          \
		a, sizeof a / sizeof *a                                                            \
	}

static const struct audit_keys_of audit_keys_by_ctx[AC_EXTRA_VALUES + 1] = {
    [AC_ROOT] = AUDIT_KEYS(audit_root_keys),
    [AC_METADATA] = AUDIT_KEYS(audit_metadata_keys),
    [AC_USER] = AUDIT_KEYS(audit_user_keys),
    [AC_IMPERSONATED] = AUDIT_KEYS(audit_impersonated_keys),
    [AC_OBJREF] = AUDIT_KEYS(audit_objref_keys),
    [AC_STATUS] = AUDIT_KEYS(audit_status_keys),
    [AC_ANNOTATIONS] = AUDIT_KEYS(audit_annotations_keys),
    [AC_REQ_SPEC] = AUDIT_KEYS(audit_req_spec_keys),
    [AC_RESP_SPEC] = AUDIT_KEYS(audit_resp_spec_keys),
    [AC_EXTRA] = AUDIT_KEYS(audit_extra_keys),
};

/*
 * How the identity is written: one part per row, in this order, separated by
 * a space.  Of the rows of one group only the first with a value shows (an
 * arn names its role and session; without it the role, else the principal).
 * A value that only repeats the user name ("user:NAME") adds nothing.
 */
static const struct audit_identity_part {
	int field;
	int group;
	const char *label; /* before the value */
} audit_identity_parts[] = {
    {.field = F_X_ARN, .group = 1, .label = ""},
    {.field = F_X_CANONICAL_ARN, .group = 1, .label = ""},
    {.field = F_X_PRINCIPAL_ID, .group = 1, .label = "principal="},
    {.field = F_X_SESSION, .group = 2, .label = "session="},
    {.field = F_X_OID, .group = 3, .label = "oid="},
    {.field = F_X_SUBJECT, .group = 4, .label = "subject="},
    {.field = F_X_DELEGATION, .group = 5, .label = "via="},
    {.field = F_X_POD, .group = 6, .label = "pod="},
};

/* Which (parent, key) opens which context. */
struct audit_child {
	enum audit_ctx parent;
	const char *key;
	size_t len;
	enum audit_ctx child;
};

#define AUDIT_CHILD(parent, key, child)                                                            \
	{                                                                                          \
		parent, key, sizeof key - 1, child                                                 \
	}

static const struct audit_child audit_children[] = {
    AUDIT_CHILD(AC_ROOT, "user", AC_USER),
    AUDIT_CHILD(AC_USER, "groups", AC_GROUPS),
    AUDIT_CHILD(AC_USER, "extra", AC_EXTRA),
    AUDIT_CHILD(AC_ROOT, "impersonatedUser", AC_IMPERSONATED),
    AUDIT_CHILD(AC_ROOT, "sourceIPs", AC_SOURCE_IPS),
    AUDIT_CHILD(AC_ROOT, "objectRef", AC_OBJREF),
    AUDIT_CHILD(AC_ROOT, "responseStatus", AC_STATUS),
    AUDIT_CHILD(AC_ROOT, "annotations", AC_ANNOTATIONS),
    AUDIT_CHILD(AC_ROOT, "metadata", AC_METADATA),
    AUDIT_CHILD(AC_ROOT, "requestObject", AC_REQ_OBJ),
    AUDIT_CHILD(AC_ROOT, "responseObject", AC_RESP_OBJ),
    AUDIT_CHILD(AC_REQ_OBJ, "spec", AC_REQ_SPEC),
    AUDIT_CHILD(AC_RESP_OBJ, "spec", AC_RESP_SPEC),
};

struct parser_audit_decoder {
	struct lt_buf arena;
	size_t off[F_COUNT], len[F_COUNT];
	unsigned char set[F_COUNT];
	int64_t num[N_COUNT];
	unsigned char num_set[N_COUNT];
	enum audit_ctx stack[AUDIT_MAX_DEPTH];
	int depth; /* number of open containers; may exceed the stack, then AC_OTHER */
	char key[AUDIT_MAX_KEY + 1];
	size_t key_len;	   /* AUDIT_MAX_KEY + 1 when the key was longer than any we want */
	int kind_type_bad; /* "kind" was not a string */
	int groups_open;   /* the groups array has had at least one entry */
	int extra_field;   /* the field an open user.extra array feeds, or -1 */
	int root_is_object;
};

struct parser_audit_decoder *parser_audit_decoder_new(void)
{
	struct parser_audit_decoder *d = lt_xcalloc(1, sizeof *d);

	lt_buf_init(&d->arena);
	return d;
}

void parser_audit_decoder_free(struct parser_audit_decoder *d)
{
	if (d == NULL)
		return;
	lt_buf_release(&d->arena);
	free(d);
}

static enum audit_ctx audit_top(const struct parser_audit_decoder *d)
{
	if (d->depth == 0 || d->depth > AUDIT_MAX_DEPTH)
		return AC_OTHER;
	return d->stack[d->depth - 1];
}

static int audit_key_is(const struct parser_audit_decoder *d, const char *key, size_t n)
{
	return d->key_len == n && memcmp(d->key, key, n) == 0;
}

/* The context a container opened under the current key gets. */
static enum audit_ctx audit_child_ctx(const struct parser_audit_decoder *d)
{
	enum audit_ctx top = audit_top(d);

	if (d->depth == 0)
		return AC_ROOT;
	if (top == AC_OTHER)
		return AC_OTHER; /* an ignored subtree is ignored all the way down */
	if (top == AC_EXTRA)
		return AC_EXTRA_VALUES; /* whatever the key: audit_open says whether it is kept */
	for (size_t i = 0; i < sizeof audit_children / sizeof *audit_children; i++)
		if (audit_children[i].parent == top &&
		    audit_key_is(d, audit_children[i].key, audit_children[i].len))
			return audit_children[i].child;
	return AC_OTHER;
}

static const struct audit_key *audit_lookup(const struct parser_audit_decoder *d);

static int audit_open(struct parser_audit_decoder *d)
{
	enum audit_ctx child = audit_child_ctx(d);
	const struct audit_key *k;

	if (d->depth == 0)
		d->root_is_object = 1;
	if (child == AC_GROUPS)
		d->groups_open = 0;
	if (child == AC_EXTRA_VALUES) {
		k = audit_lookup(d);
		d->extra_field = k != NULL ? k->field : -1;
	}
	if (d->depth < AUDIT_MAX_DEPTH)
		d->stack[d->depth] = child;
	d->depth++;
	d->key_len = 0;
	return 1;
}

static int audit_close(void *ctx)
{
	struct parser_audit_decoder *d = ctx;

	d->depth--;
	d->key_len = 0;
	return 1;
}

static int audit_start_map(void *ctx)
{
	return audit_open(ctx);
}

static int audit_start_array(void *ctx)
{
	struct parser_audit_decoder *d = ctx;

	if (d->depth == 0)
		d->root_is_object = 0;
	return audit_open(ctx);
}

static int audit_map_key(void *ctx, const unsigned char *key, size_t len)
{
	struct parser_audit_decoder *d = ctx;

	if (d->depth > 0 && audit_top(d) == AC_OTHER)
		return 1; /* nothing under an ignored subtree is looked up by key */
	if (len > AUDIT_MAX_KEY) {
		d->key_len = AUDIT_MAX_KEY + 1;
		return 1;
	}
	memcpy(d->key, key, len);
	d->key_len = len;
	return 1;
}

/* The table entry for the current (context, key), or NULL. */
static const struct audit_key *audit_lookup(const struct parser_audit_decoder *d)
{
	const struct audit_keys_of *of = &audit_keys_by_ctx[audit_top(d)];

	for (size_t i = 0; i < of->n; i++)
		if (audit_key_is(d, of->keys[i].key, of->keys[i].len))
			return &of->keys[i];
	return NULL;
}

static void audit_keep(struct parser_audit_decoder *d, int field, const unsigned char *s, size_t n)
{
	d->off[field] = d->arena.len;
	d->len[field] = n;
	d->set[field] = 1;
	lt_buf_append(&d->arena, s, n);
}

/*
 * Array members: groups are joined with ',', only the first source IP is kept,
 * and the first non-empty value of a user.extra key that says who.
 */
static void audit_array_string(struct parser_audit_decoder *d, const unsigned char *s, size_t n)
{
	enum audit_ctx top = audit_top(d);

	if (top == AC_EXTRA_VALUES && d->extra_field >= 0 && !d->set[d->extra_field] && n > 0) {
		audit_keep(d, d->extra_field, s, n);
	} else if (top == AC_SOURCE_IPS && !d->set[F_SOURCE_IP]) {
		audit_keep(d, F_SOURCE_IP, s, n);
	} else if (top == AC_GROUPS) {
		if (!d->groups_open) {
			audit_keep(d, F_GROUPS, s, n);
			d->groups_open = 1;
		} else {
			/* the groups are the last thing appended, so they stay contiguous */
			lt_buf_putc(&d->arena, ',');
			lt_buf_append(&d->arena, s, n);
			d->len[F_GROUPS] += n + 1;
		}
	}
}

static int audit_string(void *ctx, const unsigned char *s, size_t n)
{
	struct parser_audit_decoder *d = ctx;
	const struct audit_key *k;

	audit_array_string(d, s, n);
	k = audit_lookup(d);
	if (k != NULL && k->field >= 0)
		audit_keep(d, k->field, s, n);
	return 1;
}

/* Parses an integral JSON number; values with a fraction or exponent are ignored. */
static int audit_integer(int64_t *out, const char *s, size_t n)
{
	int64_t v = 0;
	size_t i = 0;
	int neg = 0;

	if (n > 0 && s[0] == '-')
		neg = 1, i = 1;
	if (i == n || n - i > 18)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

static int audit_number(void *ctx, const char *s, size_t n)
{
	struct parser_audit_decoder *d = ctx;
	const struct audit_key *k = audit_lookup(d);
	int64_t v;

	if (k != NULL && k->num >= 0 && audit_integer(&v, s, n) == 0) {
		d->num[k->num] = v;
		d->num_set[k->num] = 1;
	}
	if (k != NULL && k->field == F_KIND)
		d->kind_type_bad = 1;
	return 1;
}

/* null and booleans: only "kind" cares, to say it was not a string. */
static int audit_other_scalar(struct parser_audit_decoder *d)
{
	const struct audit_key *k = audit_lookup(d);

	if (k != NULL && k->field == F_KIND)
		d->kind_type_bad = 1;
	return 1;
}

static int audit_null(void *ctx)
{
	return audit_other_scalar(ctx);
}

static int audit_boolean(void *ctx, int b)
{
	(void)b;
	return audit_other_scalar(ctx);
}

static const yajl_callbacks audit_callbacks = {
    .yajl_null = audit_null,
    .yajl_boolean = audit_boolean,
    .yajl_number = audit_number,
    .yajl_string = audit_string,
    .yajl_start_map = audit_start_map,
    .yajl_map_key = audit_map_key,
    .yajl_end_map = audit_close,
    .yajl_start_array = audit_start_array,
    .yajl_end_array = audit_close,
};

static void audit_reset(struct parser_audit_decoder *d)
{
	lt_buf_reset(&d->arena);
	memset(d->set, 0, sizeof d->set);
	memset(d->num_set, 0, sizeof d->num_set);
	d->depth = 0;
	d->key_len = 0;
	d->kind_type_bad = 0;
	d->groups_open = 0;
	d->extra_field = -1;
	d->root_is_object = 0;
}

static struct lt_str audit_str(const struct parser_audit_decoder *d, int field)
{
	struct lt_str s = {NULL, 0};

	if (d->set[field]) {
		s.ptr = d->arena.ptr + d->off[field];
		s.len = d->len[field];
	}
	return s;
}

/* Parses an RFC 3339 field into *out; 1 when present and valid, 0 absent, -1 malformed. */
static int audit_time(const struct parser_audit_decoder *d, int field, int64_t *out)
{
	struct lt_str s = audit_str(d, field);

	if (s.ptr == NULL)
		return 0;
	return lt_time_parse(out, s.ptr, s.len) == 0 ? 1 : -1;
}

/*
 * Sets both timestamps.  Legacy events only carry `timestamp` (or
 * metadata.creationTimestamp); an event with one of the two modern fields
 * lends it to the other.
 */
static int audit_times(const struct parser_audit_decoder *d, struct lt_audit_event *ev,
		       char *reason, size_t size)
{
	static const int fields[] = {F_RECEIVED_TS, F_STAGE_TS, F_TIMESTAMP, F_CREATION_TS};
	static const char *const names[] = {"requestReceivedTimestamp", "stageTimestamp",
					    "timestamp", "metadata.creationTimestamp"};
	int64_t t[4] = {0};
	int ok[4];

	for (int i = 0; i < 4; i++) {
		ok[i] = audit_time(d, fields[i], &t[i]);
		if (ok[i] < 0) {
			snprintf(reason, size, "not an audit event: %s is not an RFC 3339 time",
				 names[i]);
			return LT_ERR_FORMAT;
		}
	}
	if (!ok[2] && ok[3])
		ok[2] = 1, t[2] = t[3];
	if (!ok[0] && !ok[1] && !ok[2]) {
		snprintf(reason, size, "not an audit event: no stageTimestamp or timestamp");
		return LT_ERR_FORMAT;
	}
	ev->stage_us = ok[1] ? t[1] : ok[2] ? t[2] : t[0];
	ev->received_us = ok[0] ? t[0] : ok[2] ? t[2] : t[1];
	ev->received_given = ok[0];
	return 0;
}

/* The Lease spec: the response (what was stored) over the request (what was asked). */
static void audit_lease(const struct parser_audit_decoder *d, struct lt_audit_event *ev)
{
	int resp = d->set[F_RESP_HOLDER] || d->set[F_RESP_RENEW] || d->num_set[N_RESP_DURATION] ||
		   d->num_set[N_RESP_TRANS] || d->set[F_RESP_ACQUIRE];
	int req = d->set[F_REQ_HOLDER] || d->set[F_REQ_RENEW] || d->num_set[N_REQ_DURATION] ||
		  d->num_set[N_REQ_TRANS] || d->set[F_REQ_ACQUIRE];
	int dur = resp ? N_RESP_DURATION : N_REQ_DURATION;
	int trans = resp ? N_RESP_TRANS : N_REQ_TRANS;
	int64_t t;

	ev->lease_duration_s = -1;
	ev->lease_transitions = -1;
	ev->lease_renew_us = 0;
	ev->lease_acquire_us = 0;
	ev->has_lease = (resp || req) && lt_str_eq(ev->resource, "leases");
	if (!ev->has_lease)
		return;
	ev->lease_holder = audit_str(d, resp ? F_RESP_HOLDER : F_REQ_HOLDER);
	if (d->num_set[dur])
		ev->lease_duration_s = d->num[dur];
	if (d->num_set[trans])
		ev->lease_transitions = d->num[trans];
	if (audit_time(d, resp ? F_RESP_RENEW : F_REQ_RENEW, &t) > 0)
		ev->lease_renew_us = t;
	if (audit_time(d, resp ? F_RESP_ACQUIRE : F_REQ_ACQUIRE, &t) > 0)
		ev->lease_acquire_us = t;
}

/* Says why a well-formed JSON value is not an audit Event, or returns 0. */
static int audit_check_event(const struct parser_audit_decoder *d, char *reason, size_t size)
{
	struct lt_str kind = audit_str(d, F_KIND);
	struct lt_buf shown;

	if (!d->root_is_object) {
		snprintf(reason, size, "not an audit event: not a JSON object");
		return LT_ERR_FORMAT;
	}
	if (d->kind_type_bad) {
		snprintf(reason, size, "not an audit event: \"kind\" is not a string");
		return LT_ERR_FORMAT;
	}
	if (kind.ptr != NULL && !lt_str_eq(kind, "Event")) {
		lt_buf_init(&shown);
		lt_sanitize(&shown, kind.ptr, kind.len < 40 ? kind.len : 40);
		snprintf(reason, size, "not an audit event: kind is \"%s\"", shown.ptr);
		lt_buf_release(&shown);
		return LT_ERR_FORMAT;
	}
	/* nothing of an Event at all: say what else it is not, too */
	if (!d->set[F_VERB] && kind.ptr == NULL && !d->set[F_AUDIT_ID]) {
		snprintf(reason, size,
			 "a JSON record of another kind: neither an audit Event (no \"verb\","
			 " \"auditID\" or \"kind\") nor a journal entry (no"
			 " \"__REALTIME_TIMESTAMP\")");
		return LT_ERR_FORMAT;
	}
	if (!d->set[F_VERB]) {
		snprintf(reason, size, "not an audit event: no \"verb\"");
		return LT_ERR_FORMAT;
	}
	return 0;
}

/* 1 when v says no more than the user name: the name itself, or "PREFIX:NAME". */
static int audit_repeats_user(struct lt_str v, struct lt_str user)
{
	if (user.ptr == NULL || user.len == 0 || v.len < user.len)
		return 0;
	if (memcmp(v.ptr + v.len - user.len, user.ptr, user.len) != 0)
		return 0;
	return v.len == user.len || v.ptr[v.len - user.len - 1] == ':';
}

/* 1 when the session is already the last word of the ARN shown ("…/assumed-role/ROLE/SESSION"). */
static int audit_session_shown(struct lt_str session, struct lt_str arn)
{
	return arn.ptr != NULL && arn.len > session.len &&
	       memcmp(arn.ptr + arn.len - session.len, session.ptr, session.len) == 0 &&
	       arn.ptr[arn.len - session.len - 1] == '/';
}

/* Whether part i of audit_identity_parts[] shows, given the part shown last in its group. */
static int audit_part_shows(const struct parser_audit_decoder *d, size_t i, int group_done)
{
	const struct audit_identity_part *p = &audit_identity_parts[i];
	struct lt_str v = audit_str(d, p->field);
	struct lt_str arn = audit_str(d, d->set[F_X_ARN] ? F_X_ARN : F_X_CANONICAL_ARN);

	if (v.ptr == NULL || v.len == 0 || group_done)
		return 0;
	if (audit_repeats_user(v, audit_str(d, F_USERNAME)))
		return 0;
	return p->field != F_X_SESSION || !audit_session_shown(v, arn);
}

/*
 * Joins the identity parts into F_IDENTITY, in the arena (before audit_fill
 * takes pointers into it); nothing is set when no part shows.
 */
static void audit_identity(struct parser_audit_decoder *d)
{
	size_t start = d->arena.len,
	       n_parts = sizeof audit_identity_parts / sizeof *audit_identity_parts;
	int done_group = 0;
	char part[AUDIT_MAX_IDENTITY_PART];

	for (size_t i = 0; i < n_parts; i++) {
		const struct audit_identity_part *p = &audit_identity_parts[i];
		struct lt_str v;
		size_t n;

		if (!audit_part_shows(d, i, done_group == p->group))
			continue;
		/* the value lies in the arena, which the appends may move: copy it out first */
		v = audit_str(d, p->field);
		n = v.len < AUDIT_MAX_IDENTITY_PART ? v.len : AUDIT_MAX_IDENTITY_PART;
		memcpy(part, v.ptr, n);
		if (d->arena.len > start)
			lt_buf_putc(&d->arena, ' ');
		lt_buf_append(&d->arena, p->label, strlen(p->label));
		lt_buf_append(&d->arena, part, n);
		done_group = p->group;
	}
	if (d->arena.len > start) {
		d->off[F_IDENTITY] = start;
		d->len[F_IDENTITY] = d->arena.len - start;
		d->set[F_IDENTITY] = 1;
	}
}

/* Moves the decoded fields into the public struct. */
static void audit_fill(const struct parser_audit_decoder *d, struct lt_audit_event *ev)
{
	ev->api_version = audit_str(d, F_API_VERSION);
	ev->level = audit_str(d, F_LEVEL);
	ev->audit_id = audit_str(d, F_AUDIT_ID);
	ev->stage = audit_str(d, F_STAGE);
	ev->request_uri = audit_str(d, F_REQUEST_URI);
	ev->verb = audit_str(d, F_VERB);
	ev->username = audit_str(d, F_USERNAME);
	ev->groups = audit_str(d, F_GROUPS);
	ev->impersonated_user = audit_str(d, F_IMPERSONATED);
	ev->source_ip = audit_str(d, F_SOURCE_IP);
	ev->user_agent = audit_str(d, F_USER_AGENT);
	ev->resource = audit_str(d, F_RESOURCE);
	ev->subresource = audit_str(d, F_SUBRESOURCE);
	ev->namespace_ = audit_str(d, F_NAMESPACE);
	ev->name = audit_str(d, F_NAME);
	ev->api_group = audit_str(d, F_API_GROUP);
	ev->obj_api_version = audit_str(d, F_OBJ_API_VERSION);
	ev->obj_uid = audit_str(d, F_OBJ_UID);
	ev->resource_version = audit_str(d, F_RESOURCE_VERSION);
	ev->code = d->num_set[N_CODE] ? (int)d->num[N_CODE] : 0;
	ev->status = audit_str(d, F_STATUS);
	ev->reason = audit_str(d, F_REASON);
	ev->message = audit_str(d, F_MESSAGE);
	ev->authz_decision = audit_str(d, F_AUTHZ_DECISION);
	ev->authz_reason = audit_str(d, F_AUTHZ_REASON);
	ev->identity = audit_str(d, F_IDENTITY);
	audit_lease(d, ev);
}

int parser_audit_decode(struct parser_audit_decoder *d, struct lt_audit_event *out,
			const char *json, size_t len, char *reason, size_t size)
{
	int rc;

	memset(out, 0, sizeof *out);
	audit_reset(d);
	rc = parser_json_run(&audit_callbacks, d, NULL, "invalid JSON", json, len, reason, size);
	if (rc == 0)
		rc = audit_check_event(d, reason, size);
	if (rc == 0)
		rc = audit_times(d, out, reason, size);
	if (rc != 0)
		return rc;
	out->raw.ptr = json;
	out->raw.len = len;
	audit_identity(d);
	audit_fill(d, out);
	return 0;
}

int lt_audit_stage_rank(struct lt_str stage)
{
	if (lt_str_eq(stage, "RequestReceived"))
		return 0;
	if (lt_str_eq(stage, "ResponseStarted"))
		return 1;
	return 2;
}
