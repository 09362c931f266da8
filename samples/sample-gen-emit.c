/*
 * sample-gen-emit.c - writing audit Events: the objectRef, responseStatus
 * and responseObject parts, the whole Event on its apiserver's stream
 * (buffered, flushed every GEN_FLUSH_AT bytes) and a Lease as JSON.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample-gen-sim.h"

/* Writes out the buffered bytes of o; remembers a write error. */
void gen_flush(struct gen_out *o)
{
	if (o->buf.len && o->f && fwrite(o->buf.p, 1, o->buf.len, o->f) != o->buf.len)
		o->failed = true;
	o->buf.len = 0;
}

/* Appends an objectRef for r. */
static void gen_put_ref(struct gen_buf *b, const struct gen_ref *r)
{
	GEN_LIT(b, "\"objectRef\":{\"resource\":");
	gen_put_json(b, r->resource);
	if (r->ns) {
		GEN_LIT(b, ",\"namespace\":");
		gen_put_json(b, r->ns);
	}
	if (r->name) {
		GEN_LIT(b, ",\"name\":");
		gen_put_json(b, r->name);
	}
	if (r->uid) {
		GEN_LIT(b, ",\"uid\":");
		gen_put_json(b, r->uid);
	}
	if (r->group) {
		GEN_LIT(b, ",\"apiGroup\":");
		gen_put_json(b, r->group);
	}
	GEN_LIT(b, ",\"apiVersion\":");
	gen_put_json(b, r->version ? r->version : "v1");
	if (r->rv) {
		GEN_LIT(b, ",\"resourceVersion\":\"");
		gen_put_u64(b, r->rv);
		GEN_LIT(b, "\"");
	}
	if (r->sub) {
		GEN_LIT(b, ",\"subresource\":");
		gen_put_json(b, r->sub);
	}
	GEN_LIT(b, "}");
}

/* Appends the body shared by responseStatus and a Status object (obj), from
 * `"metadata":{}` to the closing brace; a successful Status object has no code. */
void gen_put_status_tail(struct gen_buf *b, const struct gen_ev *e, bool obj)
{
	GEN_LIT(b, "\"metadata\":{}");
	if (e->st != GEN_ST_PLAIN) {
		if (e->st == GEN_ST_FAIL) {
			GEN_LIT(b, ",\"status\":\"Failure\",\"message\":");
			gen_put_json(b, e->msg);
			GEN_LIT(b, ",\"reason\":");
			gen_put_json(b, e->reason);
		} else {
			GEN_LIT(b, ",\"status\":\"Success\"");
		}
		GEN_LIT(b, ",\"details\":{\"name\":");
		gen_put_json(b, e->ref.name);
		if (e->ref.group) {
			GEN_LIT(b, ",\"group\":");
			gen_put_json(b, e->ref.group);
		}
		GEN_LIT(b, ",\"kind\":");
		gen_put_json(b, e->ref.resource);
		if (e->st == GEN_ST_DELETED) {
			GEN_LIT(b, ",\"uid\":");
			gen_put_json(b, e->del_uid);
		}
		GEN_LIT(b, "}");
	}
	if (!obj || e->st != GEN_ST_DELETED) {
		GEN_LIT(b, ",\"code\":");
		gen_put_u64(b, (uint64_t)e->code);
	}
	GEN_LIT(b, "}");
}

/* Renders e as one JSON line into the stream of its apiserver. */
void gen_emit(struct gen_ctx *g, const struct gen_ev *e)
{
	struct gen_out *o = &g->outs[e->server % g->nouts];
	struct gen_buf *b = &o->buf;
	GEN_LIT(b, "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":");
	gen_put_json(b, e->level);
	GEN_LIT(b, ",\"auditID\":\"");
	gen_put(b, e->id, 36);
	GEN_LIT(b, "\",\"stage\":");
	gen_put_json(b, e->stage);
	GEN_LIT(b, ",\"requestURI\":");
	gen_put_json(b, e->uri);
	GEN_LIT(b, ",\"verb\":");
	gen_put_json(b, e->verb);
	GEN_LIT(b, ",");
	gen_put(b, e->who->frag.p, e->who->frag.len);
	gen_put_ref(b, &e->ref);
	GEN_LIT(b, ",\"responseStatus\":{");
	gen_put_status_tail(b, e, false);
	if (e->reqobj) {
		GEN_LIT(b, ",\"requestObject\":");
		gen_put(b, e->reqobj->p, e->reqobj->len);
	}
	if (e->respobj) {
		GEN_LIT(b, ",\"responseObject\":");
		gen_put(b, e->respobj->p, e->respobj->len);
	}
	GEN_LIT(b, ",\"requestReceivedTimestamp\":");
	gen_put_ts(b, e->t0, true);
	GEN_LIT(b, ",\"stageTimestamp\":");
	gen_put_ts(b, e->t1, true);
	GEN_LIT(b, ",\"annotations\":{\"authorization.k8s.io/decision\":\"allow\","
		   "\"authorization.k8s.io/reason\":");
	gen_put_json(b, e->who->authz);
	GEN_LIT(b, "}}\n");
	if (b->len >= GEN_FLUSH_AT)
		gen_flush(o);
}

/* Appends a Lease object; stored adds the server-set uid, resourceVersion and
 * creationTimestamp (absent from a create request). */
void gen_put_lease(struct gen_buf *b, const struct gen_lease *l, bool stored)
{
	GEN_LIT(b, "{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{"
		   "\"name\":");
	gen_put_json(b, l->name);
	GEN_LIT(b, ",\"namespace\":");
	gen_put_json(b, l->ns);
	if (stored) {
		GEN_LIT(b, ",\"uid\":");
		gen_put_json(b, l->uid);
		GEN_LIT(b, ",\"resourceVersion\":\"");
		gen_put_u64(b, l->rv);
		GEN_LIT(b, "\",\"creationTimestamp\":");
		gen_put_ts(b, l->created, false);
	}
	if (l->labels) {
		GEN_LIT(b, ",\"labels\":");
		gen_puts(b, l->labels);
	}
	if (l->owner_uid) {
		GEN_LIT(b,
			",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":");
		gen_put_json(b, l->name);
		GEN_LIT(b, ",\"uid\":");
		gen_put_json(b, l->owner_uid);
		GEN_LIT(b, "}]");
	}
	GEN_LIT(b, "},\"spec\":{\"holderIdentity\":");
	gen_put_json(b, l->holder);
	GEN_LIT(b, ",\"leaseDurationSeconds\":");
	gen_put_u64(b, (uint64_t)l->duration);
	if (l->acquire) {
		GEN_LIT(b, ",\"acquireTime\":");
		gen_put_ts(b, l->acquire, true);
	}
	GEN_LIT(b, ",\"renewTime\":");
	gen_put_ts(b, l->renew, true);
	if (l->transitions >= 0) {
		GEN_LIT(b, ",\"leaseTransitions\":");
		gen_put_u64(b, (uint64_t)l->transitions);
	}
	GEN_LIT(b, "}}");
}
