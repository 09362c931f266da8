/*
 * index-pipe.c - parsing on a worker thread while this thread writes the store.
 *
 * pipe_parse() has lt_parse_input()'s contract: the sink's callbacks run on
 * the calling thread, in input order, so batching, commits and resume
 * offsets work exactly as without it.  The worker copies each callback's
 * arguments into a batch (one arena of items); full batches go through a
 * bounded queue, so memory stays bounded whatever the input size.
 */
#include "index-int.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PIPE_BATCH_BYTES (1024 * 1024)
#define PIPE_BATCH_ITEMS 2048
#define PIPE_DEPTH	 4 /* batches queued at most */

enum pipe_item_type { PIPE_AUDIT, PIPE_REJECT, PIPE_PROGRESS };

struct pipe_item {
	uint32_t type;
	uint32_t size; /* of the whole item, header included, 8-byte aligned */
	struct lt_where at;
	uint64_t a, b;		  /* progress: done, size */
	struct lt_audit_event ev; /* strings hold offsets from the item start (+1; 0 = absent) */
};

struct pipe_batch {
	char *data; /* items back to back; malloc alignment suits struct pipe_item */
	size_t len, cap;
	size_t items;
	struct pipe_batch *next;
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t changed;
	struct pipe_batch *head, *tail; /* full batches, oldest first */
	int queued;
	int done, abort;
	struct pipe_batch *cur; /* the worker's batch being filled */
	/* the worker's inputs and results */
	struct lt_input *in;
	uint64_t resume_offset;
	int rc;
	enum lt_format fmt;
	struct lt_error err;
};

/* Every string member of struct lt_audit_event, so items can carry them. */
static const size_t pipe_str_fields[] = {
    offsetof(struct lt_audit_event, raw),
    offsetof(struct lt_audit_event, api_version),
    offsetof(struct lt_audit_event, level),
    offsetof(struct lt_audit_event, audit_id),
    offsetof(struct lt_audit_event, stage),
    offsetof(struct lt_audit_event, request_uri),
    offsetof(struct lt_audit_event, verb),
    offsetof(struct lt_audit_event, username),
    offsetof(struct lt_audit_event, groups),
    offsetof(struct lt_audit_event, impersonated_user),
    offsetof(struct lt_audit_event, source_ip),
    offsetof(struct lt_audit_event, user_agent),
    offsetof(struct lt_audit_event, resource),
    offsetof(struct lt_audit_event, subresource),
    offsetof(struct lt_audit_event, namespace_),
    offsetof(struct lt_audit_event, name),
    offsetof(struct lt_audit_event, api_group),
    offsetof(struct lt_audit_event, obj_api_version),
    offsetof(struct lt_audit_event, obj_uid),
    offsetof(struct lt_audit_event, resource_version),
    offsetof(struct lt_audit_event, status),
    offsetof(struct lt_audit_event, reason),
    offsetof(struct lt_audit_event, message),
    offsetof(struct lt_audit_event, authz_decision),
    offsetof(struct lt_audit_event, authz_reason),
    offsetof(struct lt_audit_event, lease_holder),
};

#define PIPE_NSTR (sizeof pipe_str_fields / sizeof *pipe_str_fields)

static struct lt_str *pipe_field(struct lt_audit_event *ev, size_t i)
{
	return (struct lt_str *)(void *)((char *)ev + pipe_str_fields[i]);
}

/* ---- worker side ------------------------------------------------------ */

/* Hands the current batch to the queue, waiting while it is full. */
static int pipe_push(struct pipe *p)
{
	int abort;

	pthread_mutex_lock(&p->mu);
	while (p->queued >= PIPE_DEPTH && !p->abort)
		pthread_cond_wait(&p->changed, &p->mu);
	abort = p->abort;
	if (!abort && p->cur != NULL && p->cur->items > 0) {
		if (p->tail)
			p->tail->next = p->cur;
		else
			p->head = p->cur;
		p->tail = p->cur;
		p->queued++;
		p->cur = NULL;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_mutex_unlock(&p->mu);
	return abort ? LT_ERR_ABORT : 0;
}

/* Room for a zeroed item of size bytes in the current batch; returns its offset. */
static size_t pipe_reserve(struct pipe *p, size_t size)
{
	struct pipe_batch *b = p->cur;
	size_t at;

	if (b == NULL)
		b = p->cur = lt_xcalloc(1, sizeof *b);
	if (b->len + size > b->cap) {
		b->cap = b->cap ? b->cap : 64 * 1024;
		while (b->len + size > b->cap)
			b->cap *= 2;
		b->data = lt_xrealloc(b->data, b->cap);
	}
	at = b->len;
	memset(b->data + at, 0, size);
	b->len += size;
	b->items++;
	return at;
}

/* Ends an item: pushes the batch when it is full. */
static int pipe_added(struct pipe *p)
{
	if (p->cur->len < PIPE_BATCH_BYTES && p->cur->items < PIPE_BATCH_ITEMS)
		return 0;
	return pipe_push(p);
}

static size_t pipe_align(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int pipe_put_audit(const struct lt_audit_event *ev, const struct lt_where *at, void *ctx)
{
	struct pipe *p = ctx;
	struct lt_audit_event copy = *ev;
	struct pipe_item *it;
	size_t size = sizeof *it, start, pos;

	for (size_t i = 0; i < PIPE_NSTR; i++)
		size += pipe_field(&copy, i)->len;
	start = pipe_reserve(p, pipe_align(size));
	pos = start + sizeof *it;
	for (size_t i = 0; i < PIPE_NSTR; i++) {
		struct lt_str *s = pipe_field(&copy, i);

		if (s->ptr != NULL && s->len > 0)
			memcpy(p->cur->data + pos, s->ptr, s->len);
		/* an offset + 1 in place of the pointer; 0 keeps "absent" */
		s->ptr = s->ptr != NULL ? (const char *)(uintptr_t)(pos - start + 1) : NULL;
		pos += s->len;
	}
	it = (struct pipe_item *)(void *)(p->cur->data + start);
	it->type = PIPE_AUDIT;
	it->size = (uint32_t)pipe_align(size);
	it->at = *at;
	it->ev = copy;
	return pipe_added(p);
}

static int pipe_put_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	struct pipe *p = ctx;
	size_t n = strlen(reason) + 1, size = pipe_align(sizeof(struct pipe_item) + n);
	size_t start = pipe_reserve(p, size);
	struct pipe_item *it = (struct pipe_item *)(void *)(p->cur->data + start);

	it->type = PIPE_REJECT;
	it->size = (uint32_t)size;
	it->at = *at;
	memcpy(p->cur->data + start + sizeof *it, reason, n);
	return pipe_added(p);
}

static void pipe_put_progress(uint64_t done, uint64_t size, void *ctx)
{
	struct pipe *p = ctx;
	size_t start = pipe_reserve(p, sizeof(struct pipe_item));
	struct pipe_item *it = (struct pipe_item *)(void *)(p->cur->data + start);

	it->type = PIPE_PROGRESS;
	it->size = sizeof *it;
	it->a = done;
	it->b = size;
}

static void *pipe_worker(void *arg)
{
	struct pipe *p = arg;
	struct lt_sink sink = {pipe_put_audit, pipe_put_reject, pipe_put_progress,
			       p->resume_offset};
	int rc = lt_parse_input(p->in, &sink, p, &p->fmt, &p->err);

	pipe_push(p);
	pthread_mutex_lock(&p->mu);
	p->rc = rc;
	p->done = 1;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- store side ------------------------------------------------------- */

/* The next full batch, or NULL when the worker is done and the queue empty. */
static struct pipe_batch *pipe_pop(struct pipe *p)
{
	struct pipe_batch *b;

	pthread_mutex_lock(&p->mu);
	while (p->head == NULL && !p->done)
		pthread_cond_wait(&p->changed, &p->mu);
	b = p->head;
	if (b != NULL) {
		p->head = b->next;
		if (p->head == NULL)
			p->tail = NULL;
		p->queued--;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_mutex_unlock(&p->mu);
	return b;
}

static void pipe_batch_free(struct pipe_batch *b)
{
	if (b == NULL)
		return;
	free(b->data);
	free(b);
}

/* Replays one item to the sink. */
static int pipe_replay(struct pipe_item *it, const struct lt_sink *sink, void *ctx)
{
	struct lt_audit_event ev;

	switch (it->type) {
	case PIPE_AUDIT:
		ev = it->ev;
		for (size_t i = 0; i < PIPE_NSTR; i++) {
			struct lt_str *s = pipe_field(&ev, i);

			if (s->ptr != NULL)
				s->ptr = (const char *)it + ((uintptr_t)s->ptr - 1);
		}
		return sink->audit(&ev, &it->at, ctx);
	case PIPE_REJECT:
		return sink->reject(&it->at, (const char *)(it + 1), ctx);
	default:
		if (sink->progress)
			sink->progress(it->a, it->b, ctx);
		return 0;
	}
}

static int pipe_replay_batch(struct pipe_batch *b, const struct lt_sink *sink, void *ctx)
{
	size_t pos = 0;
	int rc = 0;

	for (size_t i = 0; i < b->items && rc == 0; i++) {
		struct pipe_item *it = (struct pipe_item *)(void *)(b->data + pos);

		rc = pipe_replay(it, sink, ctx);
		pos += it->size;
	}
	return rc;
}

/* Stops the worker early and throws away what it queued. */
static void pipe_stop(struct pipe *p)
{
	struct pipe_batch *b;

	pthread_mutex_lock(&p->mu);
	p->abort = 1;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
	while ((b = pipe_pop(p)) != NULL)
		pipe_batch_free(b);
}

int pipe_parse(struct lt_input *in, const struct lt_sink *sink, void *ctx,
	       enum lt_format *format_out, struct lt_error *err)
{
	struct pipe p = {.in = in, .resume_offset = sink->resume_offset};
	struct pipe_batch *b;
	pthread_t worker;
	int rc = 0;

	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.changed, NULL);
	if (pthread_create(&worker, NULL, pipe_worker, &p) != 0) {
		pthread_mutex_destroy(&p.mu);
		pthread_cond_destroy(&p.changed);
		return lt_parse_input(in, sink, ctx, format_out, err);
	}
	while (rc == 0 && (b = pipe_pop(&p)) != NULL) {
		rc = pipe_replay_batch(b, sink, ctx);
		pipe_batch_free(b);
	}
	if (rc != 0)
		pipe_stop(&p);
	pthread_join(worker, NULL);
	pipe_batch_free(p.cur);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.changed);
	if (format_out)
		*format_out = p.fmt;
	if (rc == 0 && p.rc != 0 && err != NULL)
		*err = p.err;
	return rc != 0 ? rc : p.rc;
}
