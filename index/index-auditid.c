/*
 * index-auditid.c - auditIDs stored in 16 bytes (schema 7), provenance ids in BCD (schema 10).
 *
 * The API server gives each request a random UUID, written as 36 characters of lowercase
 * hex and dashes; a client may send its own Audit-ID header instead, any string.  The store
 * keeps the canonical form as the 16 bytes it spells (a blob) and anything else as the text
 * it is, in audit.audit_id and counted_requests.audit_id.  Packing is a pure function of the
 * text and a blob never equals a text, so equality on the column is the equality of the
 * auditIDs, exactly: dedupe (load_is_duplicate, the supersede updates, counted_requests)
 * needs no other change.  The events view spells a blob back (INDEX_AUDIT_ID_SQL) in plain
 * SQL, so the sqlite3 shell reads it too; lt_audit_id_pack is the packer in SQL, for the
 * upgrade of older stores' text rows.
 *
 * counted_requests keeps less (schema 9): an 8-byte hash of the auditID's text
 * (index_audit_id_hash), under the second the request was received.  That table only answers
 * "was this request counted already?", so two different requests received in the same second
 * whose hashes are equal (a chance of 2^-64 for each such pair) would count as one: a count
 * in resource_counts one short.  lt_audit_id_hash is the same hash in SQL, for the upgrade of
 * a schema-8 store's rows (packed or text).
 *
 * audit_ext's provenance ids (schema 10) are packed the same way where they are all digits
 * (a CloudWatch eventId: 56 of them): BCD, two a byte, which hex() spells back exactly,
 * leading zeros included (INDEX_EXT_ID_SQL); nothing compares them, the view shows them.
 */
#include "index-int.h"

#include <stdint.h>
#include <string.h>

/* The canonical UUID: 8-4-4-4-12 lowercase hex digits; the dashes' offsets. */
enum { AUDITID_TEXT_LEN = 36 };
static const unsigned char auditid_dash[AUDITID_TEXT_LEN] = {[8] = 1, [13] = 1, [18] = 1, [23] = 1};

/* The value of a lowercase hex digit, or -1 (uppercase is not canonical: kept as text). */
static int auditid_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int index_audit_id_pack(unsigned char out[INDEX_AUDIT_ID_BYTES], const char *s, size_t len)
{
	size_t o = 0;

	if (s == NULL || len != AUDITID_TEXT_LEN)
		return 0;
	for (size_t i = 0; i < len; i++) {
		int hi, lo;

		if (auditid_dash[i]) {
			if (s[i] != '-')
				return 0;
			continue;
		}
		hi = auditid_nibble(s[i]);
		lo = i + 1 < len ? auditid_nibble(s[i + 1]) : -1;
		if (hi < 0 || lo < 0 || auditid_dash[i + 1])
			return 0;
		out[o++] = (unsigned char)(hi << 4 | lo);
		i++;
	}
	return o == INDEX_AUDIT_ID_BYTES;
}

void index_audit_id_bind(sqlite3_stmt *s, int col, const char *p, size_t len,
			 unsigned char buf[INDEX_AUDIT_ID_BYTES])
{
	if (p == NULL)
		return;
	/* static bindings: a bind that copied could fail to allocate, and leave the id NULL */
	if (index_audit_id_pack(buf, p, len))
		sqlite3_bind_blob(s, col, buf, INDEX_AUDIT_ID_BYTES, SQLITE_STATIC);
	else
		sqlite3_bind_text(s, col, p, (int)len, SQLITE_STATIC);
}

/* The BCD of s (len digits, 2..2 * INDEX_EXT_ID_BYTES) into out; its length, or 0 if not digits. */
static size_t extid_pack(unsigned char out[INDEX_EXT_ID_BYTES], const char *s, size_t len)
{
	if (s == NULL || len < 2 || len > 2 * INDEX_EXT_ID_BYTES)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	for (size_t i = 0; i < len; i += 2) {
		unsigned lo = i + 1 < len ? (unsigned)(s[i + 1] - '0') : 0xfu;

		out[i / 2] = (unsigned char)((unsigned)(s[i] - '0') << 4 | lo);
	}
	return (len + 1) / 2;
}

void index_ext_id_bind(sqlite3_stmt *s, int col, const char *p, size_t len,
		       unsigned char buf[INDEX_EXT_ID_BYTES])
{
	size_t n;

	if (p == NULL)
		return;
	/* static bindings, as index_audit_id_bind's */
	if ((n = extid_pack(buf, p, len)) != 0)
		sqlite3_bind_blob(s, col, buf, (int)n, SQLITE_STATIC);
	else
		sqlite3_bind_text(s, col, p, (int)len, SQLITE_STATIC);
}

/* FNV-1a over the bytes, then splitmix64's finalizer so that every bit depends on every byte. */
int64_t index_audit_id_hash(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * UINT64_C(0x100000001b3);
	h = (h ^ (h >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	h = (h ^ (h >> 27)) * UINT64_C(0x94d049bb133111eb);
	h ^= h >> 31;
	return (int64_t)h;
}

/* The canonical text of packed auditID b, into out (AUDITID_TEXT_LEN bytes, no NUL). */
static void auditid_spell(char out[AUDITID_TEXT_LEN], const unsigned char b[INDEX_AUDIT_ID_BYTES])
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < INDEX_AUDIT_ID_BYTES; i++) {
		if (auditid_dash[o])
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 15];
	}
}

/* lt_audit_id_hash(x): index_audit_id_hash of auditID x as stored (packed, or text). */
static void auditid_hash_sql(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	char text[AUDITID_TEXT_LEN];
	const void *p = sqlite3_value_blob(argv[0]);
	int n = sqlite3_value_bytes(argv[0]);

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_BLOB && n == INDEX_AUDIT_ID_BYTES) {
		auditid_spell(text, p);
		sqlite3_result_int64(cx, index_audit_id_hash(text, sizeof text));
	} else if (sqlite3_value_type(argv[0]) != SQLITE_NULL) {
		p = sqlite3_value_text(argv[0]);
		n = sqlite3_value_bytes(argv[0]);
		sqlite3_result_int64(cx, index_audit_id_hash(p, (size_t)n));
	} else
		sqlite3_result_null(cx);
}

/* lt_audit_id_pack(x): x packed when it is a canonical UUID's text, else x as it is. */
static void auditid_sql(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	unsigned char b[INDEX_AUDIT_ID_BYTES];

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_TEXT &&
	    index_audit_id_pack(b, (const char *)sqlite3_value_text(argv[0]),
				(size_t)sqlite3_value_bytes(argv[0])))
		sqlite3_result_blob(cx, b, (int)sizeof b, SQLITE_TRANSIENT);
	else
		sqlite3_result_value(cx, argv[0]);
}

int index_audit_id_register(struct lt_store *st, struct lt_error *err)
{
	if (sqlite3_create_function_v2(st->db, "lt_audit_id_pack", 1,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, auditid_sql, NULL,
				       NULL, NULL) != SQLITE_OK)
		return index_store_db_error(st, err, "cannot register lt_audit_id_pack");
	if (sqlite3_create_function_v2(st->db, "lt_audit_id_hash", 1,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, auditid_hash_sql,
				       NULL, NULL, NULL) != SQLITE_OK)
		return index_store_db_error(st, err, "cannot register lt_audit_id_hash");
	return 0;
}
