/*
 * parser-cluster.c - which cluster a record or a file belongs to, from what names it.
 *
 * A store may hold several clusters (formats.md, "Several clusters"); each
 * record is given its cluster by the first of: --cluster at ingest (the
 * loader's), the record's envelope (a CloudWatch @log / logGroupName, GKE's
 * resource.labels.cluster_name, AKS's resourceId), the file's path (an S3
 * export under a prefix that is the log group).  This file reads the names
 * out of those strings; it borrows, never copies, and accepts only names a
 * cloud could have given (lt_cluster_name_ok), so hostile text never becomes
 * a cluster.
 */
#include "parser-int.h"

#include <string.h>

/* EKS allows 100 characters, AKS 63, GKE 40. */
#define CLUSTER_NAME_MAX 100

int lt_cluster_name_ok(const char *s, size_t n)
{
	if (s == NULL || n == 0 || n > CLUSTER_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int alnum =
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || (c != '-' && c != '_' && c != '.')))
			return 0;
	}
	return 1;
}

static struct lt_str cluster_checked(const char *s, size_t n)
{
	return lt_cluster_name_ok(s, n) ? (struct lt_str){s, n} : (struct lt_str){NULL, 0};
}

/* s[0..n) starts with "aws/eks/NAME/cluster" ending at n or a '/': NAME, else absent. */
static struct lt_str cluster_eks_at(const char *s, size_t n)
{
	static const char head[] = "aws/eks/", tail[] = "/cluster";
	const size_t hl = sizeof head - 1, tl = sizeof tail - 1;
	const char *name, *slash;

	if (n < hl + 1 + tl || memcmp(s, head, hl) != 0)
		return (struct lt_str){NULL, 0};
	name = s + hl;
	slash = memchr(name, '/', n - hl);
	if (slash == NULL || (size_t)(s + n - slash) < tl || memcmp(slash, tail, tl) != 0)
		return (struct lt_str){NULL, 0};
	if (slash + tl != s + n && slash[tl] != '/')
		return (struct lt_str){NULL, 0};
	return cluster_checked(name, (size_t)(slash - name));
}

struct lt_str lt_cluster_from_log_group(struct lt_str group)
{
	const char *p = group.ptr;
	size_t n = group.len;
	const char *colon;

	if (p == NULL)
		return (struct lt_str){NULL, 0};
	/* Logs Insights' @log is "ACCOUNT:GROUP" */
	if ((colon = memchr(p, ':', n)) != NULL) {
		n -= (size_t)(colon + 1 - p);
		p = colon + 1;
	}
	if (n == 0 || *p != '/')
		return (struct lt_str){NULL, 0};
	p++, n--;
	/* the whole group, not a prefix of it */
	{
		struct lt_str c = cluster_eks_at(p, n);

		if (c.ptr != NULL && c.ptr + c.len + sizeof "/cluster" - 1 != p + n)
			return (struct lt_str){NULL, 0};
		return c;
	}
}

struct lt_str lt_cluster_from_path(const char *path)
{
	size_t n = path != NULL ? strlen(path) : 0;

	/* an S3 export's objects lie under PREFIX/TASK/STREAM/: a prefix naming the group names
	   the cluster; the rightmost such component wins (the nearest the file) */
	for (size_t i = n; i-- > 0;) {
		if (path[i] != '/' && i != 0)
			continue;
		{
			size_t at = path[i] == '/' ? i + 1 : i;
			struct lt_str c = cluster_eks_at(path + at, n - at);

			if (c.ptr != NULL)
				return c;
		}
	}
	return (struct lt_str){NULL, 0};
}

struct lt_str lt_cluster_from_resource_id(struct lt_str rid)
{
	static const char key[] = "/managedclusters/";
	const size_t kl = sizeof key - 1;

	for (size_t i = 0; rid.ptr != NULL && i + kl < rid.len; i++) {
		size_t j = 0, end;

		while (j < kl && (rid.ptr[i + j] | 0x20) == key[j])
			j++;
		if (j < kl)
			continue;
		for (end = i + kl; end < rid.len && rid.ptr[end] != '/';)
			end++;
		return cluster_checked(rid.ptr + i + kl, end - i - kl);
	}
	return (struct lt_str){NULL, 0};
}
