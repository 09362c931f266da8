/*
 * fuzz-common.h - what the fuzz targets share: scratch files for inputs that
 * must be files (the input layer, sniffing, ingest), scratch stores, gzip
 * members made from fuzz bytes, and the replay main() of builds without
 * libFuzzer.
 *
 * Every target defines LLVMFuzzerTestOneInput.  Built with -DLT_LIBFUZZER
 * (-DLT_FUZZ=ON, clang) libFuzzer drives it; otherwise fuzz-common.c's main()
 * replays the files and directories named on the command line (ctest runs
 * each target over its corpus, tests/fuzz/corpus/TARGET/).  Scratch files
 * live in $LT_FUZZ_TMP, else /dev/shm (memory), else $TMPDIR or /tmp, named
 * after the process so that parallel jobs never meet; a target removes them
 * before it returns.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "lt_queries.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A scratch path of this process ending in name ("log", "db"...). */
void fuzz_path(struct lt_buf *out, const char *name);

/* Writes data to path (created or truncated); aborts when it cannot. */
void fuzz_write(const char *path, const void *data, size_t size);

/* Removes a store and its -wal, -shm and -journal. */
void fuzz_remove_store(const char *path);

/*
 * Appends to out data[0..size) gzip-compressed as nmembers members (1..4),
 * cut at even offsets: what `cat a.gz b.gz` makes.
 */
void fuzz_gzip(struct lt_buf *out, const uint8_t *data, size_t size, int nmembers);

/* Opens a fresh writable store at path (removed first); aborts when it cannot. */
struct lt_store *fuzz_store_new(const char *path);

/* Aborts with a message: a broken invariant is a crash libFuzzer keeps. */
_Noreturn void fuzz_fail(const char *what, const char *detail);

#endif
