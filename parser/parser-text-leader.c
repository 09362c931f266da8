/*
 * parser-text-leader.c - the leader-lease memory of one text log: the lease
 * each leader-election process last named, in a small fixed table
 * (PARSER_TEXT_LEADERS slots, the oldest given up first), so that the lines
 * that do not name it land on its timeline all the same.
 */
#include "parser-text.h"

#include <assert.h>
#include <string.h>

/* The slot of the line's process, or NULL. */
static struct parser_text_leader *text_leader_of(struct parser_textlog *t, struct lt_str component,
						 int64_t pid)
{
	for (unsigned i = 0; i < PARSER_TEXT_LEADERS; i++) {
		struct parser_text_leader *e = &t->leaders[i];

		/* a JSON log line names no thread: it is of the component's process */
		if (e->lease[0] != '\0' && (e->pid == pid || e->pid < 0 || pid < 0) &&
		    lt_str_eq(component, e->component))
			return e;
	}
	return NULL;
}

/*
 * client-go's leader election names its lease when it tries, gets or
 * fails to renew it ("attempting to acquire leader lease kube-system/
 * kube-scheduler..."), not when it loses it ("leaderelection lost"), a
 * lock update fails or it sees a new leader ("new leader elected: HOLDER"
 * names the holder).  Those take the lease their process named last, so
 * they land on that lease's timeline.  A process is its component and pid;
 * a container's log (no component known) is one process per thread id.
 */
void parser_text_leader_lease(struct parser_textlog *t, struct lt_log_line *ln)
{
	struct lt_str comp = ln->component.ptr ? ln->component : (struct lt_str){"", 0};
	struct parser_text_leader *e;

	if (ln->kind == NULL || strncmp(ln->kind, "leader-", 7) != 0 ||
	    comp.len >= sizeof e->component)
		return;
	e = text_leader_of(t, comp, ln->pid);
	if (ln->subject.ptr == NULL) {
		if (e != NULL)
			ln->subject = (struct lt_str){e->lease, strlen(e->lease)};
		return;
	}
	if (ln->subject.len >= sizeof e->lease)
		return;
	assert(comp.len < sizeof e->component && ln->subject.len < sizeof e->lease);
	if (e == NULL) {
		e = &t->leaders[t->leaders_next++ % PARSER_TEXT_LEADERS];
		memcpy(e->component, comp.ptr, comp.len);
		e->component[comp.len] = '\0';
		e->pid = ln->pid;
	}
	memcpy(e->lease, ln->subject.ptr, ln->subject.len);
	e->lease[ln->subject.len] = '\0';
}
