/*
 * index-pipe.c - parsing on a worker thread while this thread writes the store.
 *
 * index_pipe_parse() has lt_parse_input()'s contract: the sink's callbacks run on
 * the calling thread, in input order, so batching, commits and resume
 * offsets work exactly as without it.  The worker copies each callback's
 * arguments into a batch (one arena of items); full batches go through a
 * bounded queue, so memory stays bounded whatever the input size.
 *
 * With a prep (index-load.c's), the worker also makes each log line's fields
 * check (schema 10: index_fields_derives, whether lines.fields is stored as the
 * mark) on the line as the writer will see it, and compresses the fields that
 * stay text with the dictionary their writer settled on: the writer hands its
 * share over between batches, and binds what the worker made when it was
 * made with the dictionary it holds (index_raw_pack_coded), so the store
 * holds the same bytes.  Fields parsed before the writer settled are
 * compressed by it.  (Raw records go in blocks the writer compresses whole.)
 */
#define _GNU_SOURCE /* memmem */
#include "index-int.h"

#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PIPE_BATCH_BYTES (1024 * 1024)
#define PIPE_BATCH_ITEMS 2048
#define PIPE_DEPTH	 4	     /* batches queued at most */
#define PIPE_FIRST_CAP	 (64 * 1024) /* a new batch's first allocation */

/* The queue's shape, under p->mu: head and tail set together, queued counts the list. */
#define PIPE_QUEUE_OK(p)                                                                           \
	((p)->queued >= 0 && (p)->queued <= PIPE_DEPTH &&                                          \
	 ((p)->head == NULL) == ((p)->tail == NULL) &&                                             \
	 ((p)->queued == 0) == ((p)->head == NULL) &&                                              \
	 ((p)->tail == NULL || (p)->tail->next == NULL))

enum pipe_item_type { PIPE_AUDIT, PIPE_LOG, PIPE_REJECT, PIPE_PROGRESS, PIPE_MARK };

/* One callback's arguments; strings hold offsets from the item start (+1; 0 = absent). */
struct pipe_item {
	uint32_t type;
	uint32_t size; /* of the whole item, header included, 8-byte aligned */
	struct lt_where at;
	uint64_t a, b;				     /* progress: done, size */
	struct lt_str blob[INDEX_PIPE_SLOTS];	     /* coded raw records (ptr NULL: as text) */
	struct index_raw_share by[INDEX_PIPE_SLOTS]; /* what made them (settled 0: nothing) */
	enum index_fields_verdict verdict;	     /* the line's fields check */
	union {
		struct lt_audit_event ev;
		struct lt_log_line ln;
		struct lt_input_mark mark;
	} u;
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
	struct pipe_batch *spare;	/* replayed batches, for the worker to refill */
	int queued;
	int done, abort;
	struct pipe_batch *cur; /* the worker's batch being filled */
	/* the worker's inputs and results */
	struct lt_input *in;
	struct lt_sink worker_sink; /* the caller's resume offset and year hints */
	int has_log;
	int rc;
	enum lt_format fmt;
	struct lt_error err;
	/* compressing on the worker (prep NULL: not) */
	const struct index_pipe_prep *prep;
	struct index_raw_share share;			 /* the fields writer's, under mu */
	struct index_raw_share wshare;			 /* the worker's copy, for its batch */
	struct index_raw_coder *coder[INDEX_PIPE_SLOTS]; /* the worker's */
	struct index_fields_check check;		 /* the worker's */
};

#define PIPE_EV(f) offsetof(struct pipe_item, u.ev.f)
#define PIPE_LN(f) offsetof(struct pipe_item, u.ln.f)

/* Every borrowed string of an audit item, so items can carry them. */
static const size_t pipe_audit_strs[] = {
    offsetof(struct pipe_item, at.ext_id),
    offsetof(struct pipe_item, at.stream),
    offsetof(struct pipe_item, at.cluster),
    PIPE_EV(raw),
    PIPE_EV(api_version),
    PIPE_EV(level),
    PIPE_EV(audit_id),
    PIPE_EV(stage),
    PIPE_EV(request_uri),
    PIPE_EV(verb),
    PIPE_EV(username),
    PIPE_EV(groups),
    PIPE_EV(impersonated_user),
    PIPE_EV(source_ip),
    PIPE_EV(user_agent),
    PIPE_EV(resource),
    PIPE_EV(subresource),
    PIPE_EV(namespace_),
    PIPE_EV(name),
    PIPE_EV(api_group),
    PIPE_EV(obj_api_version),
    PIPE_EV(obj_uid),
    PIPE_EV(resource_version),
    PIPE_EV(status),
    PIPE_EV(reason),
    PIPE_EV(message),
    PIPE_EV(authz_decision),
    PIPE_EV(identity),
    PIPE_EV(authz_reason),
    PIPE_EV(lease_holder),
};

/* ... and of a log line item (kind is a static string: it travels as it is). */
static const size_t pipe_log_strs[] = {
    offsetof(struct pipe_item, at.ext_id),
    offsetof(struct pipe_item, at.stream),
    offsetof(struct pipe_item, at.cluster),
    PIPE_LN(raw),
    PIPE_LN(host),
    PIPE_LN(ident),
    PIPE_LN(component),
    PIPE_LN(location),
    PIPE_LN(message),
    PIPE_LN(fields),
    PIPE_LN(subject),
    PIPE_LN(obj_kind),
    PIPE_LN(obj_namespace),
    PIPE_LN(obj_uid),
    offsetof(struct pipe_item, blob[INDEX_PIPE_FIELDS]),
};

#define PIPE_N(t) (sizeof t / sizeof *t)

/*
 * A string of an item that is bytes [at, at + its length) of another, copied before it: it
 * travels as an offset into that one's copy, not as bytes of its own (off 0: none).
 */
struct pipe_alias {
	size_t off, in, at;
};

static struct lt_str *pipe_str(void *item, size_t off)
{
	return (struct lt_str *)(void *)((char *)item + off);
}

/* ---- worker side ------------------------------------------------------ */

/* Hands the current batch to the queue, waiting while it is full. */
static int pipe_push(struct pipe *p)
{
	int abort;

	pthread_mutex_lock(&p->mu);
	while (p->queued >= PIPE_DEPTH && !p->abort)
		pthread_cond_wait(&p->changed, &p->mu);
	assert(PIPE_QUEUE_OK(p) && !p->done); /* only the worker pushes, before it is done */
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

/* A spare batch, or a new one: reusing them spares a fresh mapping per megabyte. */
static struct pipe_batch *pipe_take_spare(struct pipe *p)
{
	struct pipe_batch *b;

	pthread_mutex_lock(&p->mu);
	b = p->spare;
	if (b != NULL)
		p->spare = b->next;
	p->wshare = p->share; /* the dictionary settled by now */
	pthread_mutex_unlock(&p->mu);
	if (b == NULL)
		return lt_xcalloc(1, sizeof *b);
	b->len = b->items = 0;
	b->next = NULL;
	return b;
}

/* Room for an item of size bytes in the current batch; returns its offset. */
static size_t pipe_reserve(struct pipe *p, size_t size)
{
	struct pipe_batch *b = p->cur;
	size_t at;

	assert(size % 8 == 0 && size <= UINT32_MAX); /* items stay aligned; item.size holds it */
	if (b == NULL)
		b = p->cur = pipe_take_spare(p);
	if (b->len + size > b->cap)
		b->data =
		    lt_grow(b->data, &b->cap,
			    b->len + size < PIPE_FIRST_CAP ? PIPE_FIRST_CAP : b->len + size, 1);
	at = b->len;
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

/*
 * Copies item (a header with borrowed strings at offs) and the strings into the batch; the
 * string a (when a->off) names is no copy but an offset into the copy of the one it lies in.
 */
static int pipe_put(struct pipe *p, struct pipe_item *item, const size_t *offs, size_t n,
		    const struct pipe_alias *a)
{
	size_t size = sizeof *item, start, pos;

	for (size_t i = 0; i < n; i++)
		size += offs[i] == a->off ? 0 : pipe_str(item, offs[i])->len;
	start = pipe_reserve(p, pipe_align(size));
	pos = start + sizeof *item;
	for (size_t i = 0; i < n; i++) {
		struct lt_str *s = pipe_str(item, offs[i]);

		if (offs[i] == a->off)
			continue;
		if (s->ptr != NULL && s->len > 0)
			memcpy(p->cur->data + pos, s->ptr, s->len);
		/* an offset + 1 in place of the pointer; 0 keeps "absent" */
		s->ptr = s->ptr != NULL ? (const char *)(uintptr_t)(pos - start + 1) : NULL;
		pos += s->len;
	}
	if (a->off != 0) {
		struct lt_str *s = pipe_str(item, a->off), *in = pipe_str(item, a->in);

		assert(a->in < a->off && in->ptr != NULL && a->at + s->len <= in->len);
		s->ptr = (const char *)((uintptr_t)in->ptr + a->at);
	}
	item->size = (uint32_t)pipe_align(size);
	memcpy(p->cur->data + start, item, sizeof *item);
	return pipe_added(p);
}

/* Compresses s into the item's slot as the fields writer would, once it settled. */
static void pipe_code(struct pipe *p, struct pipe_item *it, enum index_pipe_slot slot,
		      struct lt_str s)
{
	struct index_raw_coded c;

	index_raw_coder_encode(p->coder[slot], &p->wshare, s.ptr, s.len, &c);
	it->by[slot] = c.by;
	it->blob[slot] = (struct lt_str){c.blob, c.len};
}

static int pipe_put_audit(const struct lt_audit_event *ev, const struct lt_where *at, void *ctx)
{
	struct pipe *p = ctx;
	struct pipe_item it;

	memset(&it, 0, sizeof it);
	it.type = PIPE_AUDIT;
	it.at = *at;
	it.u.ev = *ev;
	return pipe_put(p, &it, pipe_audit_strs, PIPE_N(pipe_audit_strs), &(struct pipe_alias){0});
}

/*
 * The line's fields check as the writer would make it (index-logs.c's logs_prepare_fields):
 * the mark exactly when decoder 1 on the raw line after the message gives the parser's fields.
 */
static enum index_fields_verdict pipe_fields_verdict(struct pipe *p, const struct lt_log_line *ln,
						     ptrdiff_t msg_at)
{
	if (ln->message.ptr != NULL && ln->message.len == 0)
		return INDEX_FIELDS_UNCHECKED; /* the writer places an empty message itself */
	if (msg_at >= 0 &&
	    index_fields_derives(&p->check, ln->raw, (size_t)msg_at + ln->message.len, ln->fields))
		return INDEX_FIELDS_MARK;
	return INDEX_FIELDS_TEXT;
}

static int pipe_put_log(const struct lt_log_line *ln, const struct lt_where *at, void *ctx)
{
	struct pipe *p = ctx;
	const ptrdiff_t msg_at = index_log_message_at(ln);
	struct pipe_alias a = {0};
	struct pipe_item it;

	memset(&it, 0, sizeof it);
	it.type = PIPE_LOG;
	it.at = *at;
	it.u.ln = *ln;
	if (p->prep != NULL) {
		it.verdict = pipe_fields_verdict(p, ln, msg_at);
		/* a mark stores no fields: nothing to compress */
		if (it.verdict != INDEX_FIELDS_MARK)
			pipe_code(p, &it, INDEX_PIPE_FIELDS, ln->fields);
	}
	/* the message as the writer would find it in the raw line: its first occurrence there,
	   carried as a slice of the raw line's copy (one copy fewer, and no search) */
	if (msg_at >= 0 && ln->message.len > 0)
		a = (struct pipe_alias){
		    .off = PIPE_LN(message), .in = PIPE_LN(raw), .at = (size_t)msg_at};
	return pipe_put(p, &it, pipe_log_strs, PIPE_N(pipe_log_strs), &a);
}

static int pipe_put_reject(const struct lt_where *at, const char *reason, void *ctx)
{
	struct pipe *p = ctx;
	size_t n = strlen(reason) + 1, size = pipe_align(sizeof(struct pipe_item) + n);
	size_t start = pipe_reserve(p, size);
	struct pipe_item *it = (struct pipe_item *)(void *)(p->cur->data + start);

	memset(it, 0, sizeof *it);
	it->type = PIPE_REJECT;
	it->size = (uint32_t)size;
	it->at = *at;
	it->at.ext_id = it->at.stream = it->at.cluster = (struct lt_str){NULL, 0}; /* borrowed */
	memcpy(p->cur->data + start + sizeof *it, reason, n);
	return pipe_added(p);
}

static void pipe_put_progress(uint64_t done, uint64_t size, void *ctx)
{
	struct pipe *p = ctx;
	size_t start = pipe_reserve(p, sizeof(struct pipe_item));
	struct pipe_item *it = (struct pipe_item *)(void *)(p->cur->data + start);

	memset(it, 0, sizeof *it);
	it->type = PIPE_PROGRESS;
	it->size = sizeof *it;
	it->a = done;
	it->b = size;
}

static void pipe_put_mark(const struct lt_input_mark *m, void *ctx)
{
	struct pipe *p = ctx;
	size_t start = pipe_reserve(p, sizeof(struct pipe_item));
	struct pipe_item *it = (struct pipe_item *)(void *)(p->cur->data + start);

	memset(it, 0, sizeof *it);
	it->type = PIPE_MARK;
	it->size = sizeof *it;
	it->u.mark = *m;
}

static void *pipe_worker(void *arg)
{
	struct pipe *p = arg;
	struct lt_sink sink = p->worker_sink;
	int rc;

	sink.audit = pipe_put_audit;
	sink.log = p->has_log ? pipe_put_log : NULL;
	sink.reject = pipe_put_reject;
	sink.progress = pipe_put_progress;
	sink.mark = p->worker_sink.mark ? pipe_put_mark : NULL;
	for (int i = 0; p->prep != NULL && i < INDEX_PIPE_SLOTS; i++)
		p->coder[i] = index_raw_coder_new(); /* NULL (no memory): the writer compresses */
	index_fields_check_init(&p->check);
	rc = lt_parse_input(p->in, &sink, p, &p->fmt, &p->err);
	index_fields_check_release(&p->check);
	for (int i = 0; i < INDEX_PIPE_SLOTS; i++)
		index_raw_coder_free(p->coder[i]);

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
	assert(PIPE_QUEUE_OK(p));
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

/* Gives a replayed batch back to the worker, with the fields writer's share as it is now. */
static void pipe_recycle(struct pipe *p, struct pipe_batch *b, void *ctx)
{
	struct index_raw_share now = {0};

	if (p->prep != NULL)
		p->prep->share(&now, ctx);
	pthread_mutex_lock(&p->mu);
	b->next = p->spare;
	p->spare = b;
	if (p->prep != NULL)
		p->share = now;
	pthread_mutex_unlock(&p->mu);
}

/* Turns an item's string offsets back into pointers. */
static void pipe_restore(struct pipe_item *it, const size_t *offs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct lt_str *s = pipe_str(it, offs[i]);

		if (s->ptr != NULL)
			s->ptr = (const char *)it + ((uintptr_t)s->ptr - 1);
	}
}

/* The item's coded records, as prep's audit and log take them. */
static void pipe_coded(const struct pipe_item *it, struct index_raw_coded coded[INDEX_PIPE_SLOTS])
{
	for (int i = 0; i < INDEX_PIPE_SLOTS; i++)
		coded[i] = (struct index_raw_coded){
		    .by = it->by[i],
		    .blob = it->blob[i].ptr,
		    .len = it->blob[i].len,
		    .verdict = i == INDEX_PIPE_FIELDS ? it->verdict : INDEX_FIELDS_UNCHECKED};
}

/* Replays one item to the sink (a line to prep, when there is one). */
static int pipe_replay(struct pipe_item *it, const struct lt_sink *sink,
		       const struct index_pipe_prep *prep, void *ctx)
{
	struct index_raw_coded coded[INDEX_PIPE_SLOTS];

	switch (it->type) {
	case PIPE_AUDIT:
		pipe_restore(it, pipe_audit_strs, PIPE_N(pipe_audit_strs));
		return sink->audit(&it->u.ev, &it->at, ctx);
	case PIPE_LOG:
		pipe_restore(it, pipe_log_strs, PIPE_N(pipe_log_strs));
		if (prep == NULL)
			return sink->log(&it->u.ln, &it->at, ctx);
		pipe_coded(it, coded);
		return prep->log(&it->u.ln, &it->at, coded, ctx);
	case PIPE_REJECT:
		return sink->reject(&it->at, (const char *)(it + 1), ctx);
	case PIPE_MARK:
		sink->mark(&it->u.mark, ctx);
		return 0;
	default:
		if (sink->progress)
			sink->progress(it->a, it->b, ctx);
		return 0;
	}
}

static int pipe_replay_batch(struct pipe_batch *b, const struct lt_sink *sink,
			     const struct index_pipe_prep *prep, void *ctx)
{
	size_t pos = 0;
	int rc = 0;

	for (size_t i = 0; i < b->items && rc == 0; i++) {
		struct pipe_item *it = (struct pipe_item *)(void *)(b->data + pos);

		/* items lie back to back, each whole inside the batch */
		assert(it->size >= sizeof *it && pos + it->size <= b->len);
		rc = pipe_replay(it, sink, prep, ctx);
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

int index_pipe_parse(struct lt_input *in, const struct lt_sink *sink,
		     const struct index_pipe_prep *prep, void *ctx, enum lt_format *format_out,
		     struct lt_error *err)
{
	struct pipe p = {
	    .in = in, .worker_sink = *sink, .has_log = sink->log != NULL, .prep = prep};
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
	assert(in != NULL && sink != NULL && sink->audit != NULL && sink->reject != NULL);
	while (rc == 0 && (b = pipe_pop(&p)) != NULL) {
		rc = pipe_replay_batch(b, sink, prep, ctx);
		pipe_recycle(&p, b, ctx);
	}
	if (rc != 0)
		pipe_stop(&p);
	pthread_join(worker, NULL);
	pipe_batch_free(p.cur);
	while ((b = p.spare) != NULL) {
		p.spare = b->next;
		pipe_batch_free(b);
	}
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.changed);
	if (format_out)
		*format_out = p.fmt;
	if (rc == 0 && p.rc != 0 && err != NULL)
		*err = p.err;
	return rc != 0 ? rc : p.rc;
}
