/*
 * parser-text-component.c - who wrote a line: the component a CloudWatch
 * stream, a syslog identifier, a classified kind or the file's name stands
 * for, and the stream folder of an S3 export object.
 */
#define _GNU_SOURCE /* memmem */
#include "parser-text.h"

#include <string.h>

const char *parser_stream_component(struct lt_str stream)
{
	static const char *const comps[] = {
	    "kube-apiserver-audit",
	    "kube-controller-manager",
	    "cloud-controller-manager",
	    "kube-scheduler",
	    "kube-apiserver",
	    "authenticator",
	    "kubelet",
	};

	for (size_t i = 0; stream.ptr && i < sizeof comps / sizeof *comps; i++)
		if (parser_text_prefix(stream.ptr, stream.len, comps[i]))
			return comps[i];
	return NULL;
}

/* kubelet under its other names; other units keep their own. */
static struct lt_str text_ident_component(struct lt_str ident, int is_klog)
{
	static const char *const kubelets[] = {"kubelet", "kubenswrapper", "hyperkube"};

	for (size_t i = 0; i < sizeof kubelets / sizeof *kubelets; i++)
		if (lt_str_eq(ident, kubelets[i]))
			return (struct lt_str){"kubelet", 7};
	/* a containerized kubelet logs as docker[PID]: klog there is the kubelet's */
	if (is_klog && (lt_str_eq(ident, "docker") || lt_str_eq(ident, "dockerd")))
		return (struct lt_str){"kubelet", 7};
	return ident;
}

static const char *text_kind_owner(const char *kind)
{
	for (const struct lt_log_kind *k = lt_log_kinds(); kind && k->kind; k++)
		if (k->kind == kind)
			return strcmp(k->component, "any") == 0 ? NULL : k->component;
	return NULL;
}

void parser_text_component(struct parser_textlog *t, struct lt_log_line *ln)
{
	const char *c;

	if (ln->component.ptr != NULL)
		return;
	if (ln->ident.ptr != NULL)
		ln->component = text_ident_component(ln->ident, ln->severity != 0);
	else if ((c = text_kind_owner(ln->kind)) != NULL || (c = t->path_component) != NULL)
		ln->component = (struct lt_str){c, strlen(c)};
}

/* A CRI pod log's name: "0.log", rotated "0.log.20240405-060404" or "0.log.…gz". */
static int text_cri_log_name(const char *base)
{
	const char *p = base;

	while (parser_text_is_digit(*p))
		p++;
	return p > base && strncmp(p, ".log", 4) == 0 && (p[4] == '\0' || p[4] == '.');
}

/*
 * The component a file name hints at, for bare klog files that say
 * nothing else.  A CRI pod log (/var/log/pods/NS_POD_UID/CONTAINER/0.log)
 * is named by its folder, the container.
 */
const char *parser_text_path_component(const char *path)
{
	const char *base = strrchr(path, '/'), *dir;
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (text_cri_log_name(base) && base - path >= 2) {
		for (dir = base - 1; dir > path && dir[-1] != '/'; dir--)
			;
		len = (size_t)(base - 1 - dir);
		base = dir;
	}
	if (memmem(base, len, "controller-manager", 18) || memmem(base, len, "kcm", 3))
		return "kube-controller-manager";
	if (memmem(base, len, "scheduler", 9))
		return "kube-scheduler";
	if (memmem(base, len, "kubelet", 7))
		return "kubelet";
	return NULL;
}

/* An S3 export object sits in a folder named after its stream: ".../STREAM/000000.gz". */
void parser_text_path_stream(struct parser_textlog *t, const char *path)
{
	const char *end = strrchr(path, '/'), *start;
	struct lt_str dir;

	if (end == NULL)
		return;
	for (start = end; start > path && start[-1] != '/'; start--)
		;
	dir = (struct lt_str){start, (size_t)(end - start)};
	if (dir.len < sizeof t->stream && parser_stream_component(dir) != NULL) {
		memcpy(t->stream, dir.ptr, dir.len);
		t->stream[dir.len] = '\0';
	}
}
