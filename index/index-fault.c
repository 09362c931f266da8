/*
 * index-fault.c - I/O faults for tests: SQLite's Nth write fails as a full
 * disk would (LEASETRAIL_FAULT=io:N in a -DLT_FAULT=ON build).
 *
 * A VFS shim made the default: every file SQLite opens is the real VFS's
 * file behind a forwarding layer whose xWrite fails once, on the Nth write
 * of the process, with SQLITE_FULL.  Without io armed nothing is installed.
 */
#include "index-int.h"

#include <string.h>

struct fault_file {
	sqlite3_file base; /* pMethods = &fault_methods */
	sqlite3_file *real;
};

static sqlite3_vfs fault_vfs;
static sqlite3_vfs *fault_real;

#define FAULT_REAL(f) (((struct fault_file *)(void *)(f))->real)

static int fault_close(sqlite3_file *f)
{
	return FAULT_REAL(f)->pMethods->xClose(FAULT_REAL(f));
}

static int fault_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
	return FAULT_REAL(f)->pMethods->xRead(FAULT_REAL(f), p, n, off);
}

static int fault_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
	if (lt_fault(LT_FAULT_IO))
		return SQLITE_FULL;
	return FAULT_REAL(f)->pMethods->xWrite(FAULT_REAL(f), p, n, off);
}

static int fault_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return FAULT_REAL(f)->pMethods->xTruncate(FAULT_REAL(f), size);
}

static int fault_sync(sqlite3_file *f, int flags)
{
	return FAULT_REAL(f)->pMethods->xSync(FAULT_REAL(f), flags);
}

static int fault_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return FAULT_REAL(f)->pMethods->xFileSize(FAULT_REAL(f), size);
}

static int fault_lock(sqlite3_file *f, int level)
{
	return FAULT_REAL(f)->pMethods->xLock(FAULT_REAL(f), level);
}

static int fault_unlock(sqlite3_file *f, int level)
{
	return FAULT_REAL(f)->pMethods->xUnlock(FAULT_REAL(f), level);
}

static int fault_reserved(sqlite3_file *f, int *out)
{
	return FAULT_REAL(f)->pMethods->xCheckReservedLock(FAULT_REAL(f), out);
}

static int fault_control(sqlite3_file *f, int op, void *arg)
{
	return FAULT_REAL(f)->pMethods->xFileControl(FAULT_REAL(f), op, arg);
}

static int fault_sector(sqlite3_file *f)
{
	return FAULT_REAL(f)->pMethods->xSectorSize(FAULT_REAL(f));
}

static int fault_device(sqlite3_file *f)
{
	return FAULT_REAL(f)->pMethods->xDeviceCharacteristics(FAULT_REAL(f));
}

static int fault_shm_map(sqlite3_file *f, int pg, int size, int extend, void volatile **out)
{
	return FAULT_REAL(f)->pMethods->xShmMap(FAULT_REAL(f), pg, size, extend, out);
}

static int fault_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return FAULT_REAL(f)->pMethods->xShmLock(FAULT_REAL(f), offset, n, flags);
}

static void fault_shm_barrier(sqlite3_file *f)
{
	FAULT_REAL(f)->pMethods->xShmBarrier(FAULT_REAL(f));
}

static int fault_shm_unmap(sqlite3_file *f, int del)
{
	return FAULT_REAL(f)->pMethods->xShmUnmap(FAULT_REAL(f), del);
}

static int fault_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **out)
{
	return FAULT_REAL(f)->pMethods->xFetch(FAULT_REAL(f), off, n, out);
}

static int fault_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return FAULT_REAL(f)->pMethods->xUnfetch(FAULT_REAL(f), off, p);
}

static const sqlite3_io_methods fault_methods = {
    .iVersion = 3,
    .xClose = fault_close,
    .xRead = fault_read,
    .xWrite = fault_write,
    .xTruncate = fault_truncate,
    .xSync = fault_sync,
    .xFileSize = fault_size,
    .xLock = fault_lock,
    .xUnlock = fault_unlock,
    .xCheckReservedLock = fault_reserved,
    .xFileControl = fault_control,
    .xSectorSize = fault_sector,
    .xDeviceCharacteristics = fault_device,
    .xShmMap = fault_shm_map,
    .xShmLock = fault_shm_lock,
    .xShmBarrier = fault_shm_barrier,
    .xShmUnmap = fault_shm_unmap,
    .xFetch = fault_fetch,
    .xUnfetch = fault_unfetch,
};

static int fault_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags,
		      int *out_flags)
{
	struct fault_file *f = (struct fault_file *)(void *)file;
	int rc;

	(void)vfs;
	f->real = (sqlite3_file *)(void *)(f + 1);
	rc = fault_real->xOpen(fault_real, name, f->real, flags, out_flags);
	/* the real file's methods are all version 3 (unix VFS); one closes what it opened */
	file->pMethods = rc == SQLITE_OK && f->real->pMethods != NULL ? &fault_methods : NULL;
	return rc;
}

void index_fault_vfs_install(void)
{
	if (!lt_fault_armed(LT_FAULT_IO) || (fault_real = sqlite3_vfs_find(NULL)) == NULL ||
	    fault_real->pNext == &fault_vfs)
		return;
	fault_vfs = *fault_real;
	fault_vfs.pNext = NULL;
	fault_vfs.zName = "leasetrail-fault";
	fault_vfs.szOsFile = (int)sizeof(struct fault_file) + fault_real->szOsFile;
	fault_vfs.xOpen = fault_open;
	sqlite3_vfs_register(&fault_vfs, 1);
}
