/*
 * index-raw.h - what the raw records' writer (index-raw.c, its blocks index-rawblock.c) and
 * reader (index-rawread.c) share:
 * the stored values' codecs (byte 0 of every compressed value and block), the bytes of a
 * writer's first block that serve as its later blocks' dictionary, and the allocator every zstd
 * allocation of both goes through (LEASETRAIL_FAULT=zstd:N fails it: an error, never a crash).
 * Private to those three files; index-int.h declares what the rest of index/ calls.
 */
#ifndef INDEX_RAW_H
#define INDEX_RAW_H

#include <stddef.h>
#include <stdint.h>

struct index_raw_writer;
struct ZSTD_CCtx_s;
struct lt_error;

enum index_raw_codec {
	INDEX_RAW_ZSTD = 1,	 /* a zstd frame of its own */
	INDEX_RAW_ZSTD_DICT = 2, /* a zstd frame that needs raw_dicts.id */
	INDEX_RAW_BLOCK =
	    3, /* a block of records (schema 9): audit_blocks.data, lines_blocks.data */
	INDEX_RAW_BLOCK_DICT = 4, /* a block with an earlier one's content as dictionary */
};

/*
 * A writer's later blocks are compressed with the first INDEX_RAW_BLOCK_DICT_BYTES bytes of its
 * first block's content as a raw dictionary (zstd's rawContent: no training, nothing more stored:
 * the reader decodes that block to get it); bench/RESULTS.md measured the sizes
 */
#define INDEX_RAW_BLOCK_DICT_BYTES (32u * 1024)

/*
 * For tests: 0 makes the block writers that start after it compress their blocks on their own
 * thread, as when no thread can be started; 1 (the default) gives each a compressor thread.
 * The stored bytes are the same either way (unit.index, test_raw_blocks_fit).
 */
void index_raw_set_threads(int on);

/* zstd's customAlloc and customFree for every file: failable by fault injection. */
void *index_raw_alloc(void *opaque, size_t n);
void index_raw_free(void *opaque, void *p);

/* the longest header of a compressed value: codec, two varints of 64 bits */
#define INDEX_RAW_HEADER_MAX (1 + 10 + 10)

/* What index-raw.c gives the block writer (index-rawblock.c). */
/* Writes v as a varint at dst (room for 10 bytes); the bytes written. */
size_t index_raw_varint(unsigned char *dst, uint64_t v);
/* A context for magicless frames without checksum, size or dict id; NULL: no memory. */
struct ZSTD_CCtx_s *index_raw_cctx_new(void);
/*
 * Makes dict (n bytes: a block's content when raw_content, else a trained dictionary or raw
 * bytes as zstd tells them apart) w's dictionary; -1: no memory, and w unchanged.
 */
int index_raw_cdict_load(struct index_raw_writer *w, const void *dict, size_t n, int raw_content);
int index_raw_nomem(struct lt_error *err, const char *what);
/* 1 when w's table is stored in blocks (every raw table but lines.fields). */
int index_raw_in_blocks(const struct index_raw_writer *w);

/* What index-rawread.c gives the others: reads a varint at *p (before end); 0, or -1 when it
 * runs past end or past 64 bits. */
int index_raw_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out);

/* What the block writer gives index-raw.c: stops w's compressor thread and frees its jobs. */
void index_raw_async_free(struct index_raw_writer *w);

#endif
