/*
 * queries-kinds.c - the kinds of timeline rows, as one table.
 *
 * A kind's name is what the store's episodes table, the views and every
 * output format say; its meaning is the one line help and reports print;
 * its strip cell and tone are how a heartbeat strip and a row are drawn.
 * Code compares enum values, never names: the name is looked up here once,
 * where a stored row is read back.
 */
#include "lt_queries.h"

#include <assert.h>
#include <string.h>

static const struct lt_episode_kind_info episode_kinds[LT_EP_COUNT] = {
    [LT_EP_NONE] = {.name = "UNKNOWN", .meaning = "a kind this leasetrail does not know"},
    [LT_EP_CREATED] = {.name = "CREATED",
		       .meaning = "the lease was created (201)",
		       .strip = LT_STRIP_RENEWED,
		       .tone = LT_TONE_OK},
    [LT_EP_RENEWING] = {.name = "RENEWING",
			.meaning = "renewed on time by one holder",
			.strip = LT_STRIP_RENEWED,
			.tone = LT_TONE_OK},
    [LT_EP_GAP] = {.name = "GAP",
		   .meaning = "no renew for longer than the lease's gap threshold",
		   .strip = LT_STRIP_GAP,
		   .tone = LT_TONE_WARN,
		   .flags = LT_EPF_ANOMALY},
    [LT_EP_NOT_FOUND] = {.name = "NOT_FOUND",
			 .meaning = "requests answered 404: the lease (or its node) was gone",
			 .strip = LT_STRIP_404,
			 .tone = LT_TONE_NOT_FOUND,
			 .flags = LT_EPF_ANOMALY},
    [LT_EP_DELETED] = {.name = "DELETED",
		       .meaning = "the lease was deleted (by the GC after its node, or by hand)",
		       .strip = LT_STRIP_DELETED,
		       .tone = LT_TONE_DELETED},
    [LT_EP_RECREATED] = {.name = "RE-CREATED",
			 .meaning = "created again after a delete or a run of 404s",
			 .strip = LT_STRIP_RENEWED,
			 .tone = LT_TONE_OK},
    [LT_EP_AUTH_FAILURE] = {.name = "AUTH_FAILURE",
			    .meaning = "requests refused 401 or 403",
			    .strip = LT_STRIP_AUTH,
			    .tone = LT_TONE_AUTH,
			    .flags = LT_EPF_ANOMALY},
    [LT_EP_SLOW] = {.name = "SLOW",
		    .meaning = "renews slower than the slow threshold",
		    .strip = LT_STRIP_RENEWED,
		    .tone = LT_TONE_WARN,
		    .flags = LT_EPF_ANOMALY},
    [LT_EP_HOLDER_CHANGE] = {.name = "HOLDER_CHANGE",
			     .meaning = "another holder took the lease (leader election)",
			     .strip = LT_STRIP_HOLDER,
			     .tone = LT_TONE_WARN},
    [LT_EP_RELEASED] = {.name = "RELEASED",
			.meaning = "the holder gave the lease up (holderIdentity \"\")",
			.strip = LT_STRIP_RENEWED,
			.tone = LT_TONE_WARN},
    [LT_EP_STALE] = {.name = "STALE",
		     .meaning = "no renew since, up to the end of the logs",
		     .tone = LT_TONE_WARN},
    [LT_EP_NODE_REGISTERED] = {.name = "NODE_REGISTERED",
			       .meaning = "the kubelet created its Node object",
			       .tone = LT_TONE_OK,
			       .flags = LT_EPF_NODE_OBJECT},
    [LT_EP_NODE_REGISTER_FAILED] = {.name = "NODE_REGISTER_FAILED",
				    .meaning = "creating the Node object failed",
				    .tone = LT_TONE_NOT_FOUND,
				    .flags = LT_EPF_NODE_OBJECT},
    [LT_EP_NODE_DELETED] = {.name = "NODE_DELETED",
			    .meaning = "the Node object was deleted",
			    .tone = LT_TONE_DELETED,
			    .flags = LT_EPF_NODE_OBJECT},
    [LT_EP_NODE_DELETE_FAILED] = {.name = "NODE_DELETE_FAILED",
				  .meaning = "deleting the Node object failed",
				  .tone = LT_TONE_NOT_FOUND,
				  .flags = LT_EPF_NODE_OBJECT},
    [LT_EP_NODE_STATUS] = {.name = "NODE_STATUS",
			   .meaning = "the Node's status was written",
			   .flags = LT_EPF_NODE_OBJECT | LT_EPF_RUN},
    [LT_EP_NODE_STATUS_FAILED] = {.name = "NODE_STATUS_FAILED",
				  .meaning = "writing the Node's status failed",
				  .tone = LT_TONE_NOT_FOUND,
				  .flags = LT_EPF_NODE_OBJECT | LT_EPF_RUN},
    [LT_EP_NODE_UPDATED] = {.name = "NODE_UPDATED",
			    .meaning = "the Node object was updated or patched",
			    .flags = LT_EPF_NODE_OBJECT},
    [LT_EP_NOT_READY] = {.name = "NOT_READY",
			 .meaning = "the node was NotReady (Ready Unknown or False): its cause, "
				    "taints and evictions",
			 .strip = LT_STRIP_NOT_READY,
			 .tone = LT_TONE_NOT_READY,
			 .flags = LT_EPF_NODE_OBJECT},
    [LT_EP_NODE_GONE] = {.name = "NODE_GONE",
			 .meaning =
			     "the lease lives on though its Node was deleted and not created "
			     "again (a lease without owner the garbage collector leaves alone)",
			 .tone = LT_TONE_DELETED,
			 .flags = LT_EPF_ANOMALY},
};

const struct lt_episode_kind_info *lt_episode_kind_info(enum lt_episode_kind k)
{
	assert(k >= 0 && k < LT_EP_COUNT);
	return &episode_kinds[k >= 0 && k < LT_EP_COUNT ? k : LT_EP_NONE];
}

const char *lt_episode_kind_name(enum lt_episode_kind k)
{
	return lt_episode_kind_info(k)->name;
}

enum lt_episode_kind lt_episode_kind_parse(const char *name, size_t len)
{
	for (int k = LT_EP_NONE + 1; k < LT_EP_COUNT; k++)
		if (strlen(episode_kinds[k].name) == len &&
		    memcmp(episode_kinds[k].name, name, len) == 0)
			return (enum lt_episode_kind)k;
	return LT_EP_NONE;
}
