// SPDX-License-Identifier: GPL-2.0
/*
 * jr_rec.c - write and read jitread recordings (see jr_rec.h).
 *
 * The reader trusts nothing: a bad magic, an unknown version, a short
 * header, a torn last record or a field out of range each give one line
 * naming the file and the record, never a crash.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "jitmod_abi.h"
#include "common/jr_safe.h"
#include "core/jr_rec.h"

/*
 * Vectors past jitmod's table (a newer kernel's) print as numbers; more
 * than 32 softirqs would not fit the kernel's pending mask.
 */
#define JR_MAX_SOFTIRQ 31

#define JR_REC_BUF (256 << 10)

/* jr_writer_open - a new recording at path (through jr_safe), its header
 * written; 0 or -errno with e filled. */
int jr_writer_open(FILE **f, const char *path, const struct jr_sysinfo *sys,
		   struct jr_err *e)
{
	struct jr_file_hdr hdr;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, JR_MAGIC, sizeof(hdr.magic));
	hdr.version = JR_FILE_VERSION;
	hdr.rec_size = sizeof(struct jr_rec);
	hdr.sys = *sys;
	*f = jr_safe_fopen(path, e);
	if (!*f)
		return -EIO;
	/* records come in bursts of a sub-buffer: write them out in fewer,
	 * larger writes than stdio's default */
	setvbuf(*f, NULL, _IOFBF, JR_REC_BUF);
	if (fwrite(&hdr, sizeof(hdr), 1, *f) != 1) {
		fclose(*f);
		*f = NULL;
		return jr_fail(e, -EIO, "%s: write failed", path);
	}
	return 0;
}

int jr_write(FILE *f, const struct jr_rec *r)
{
	return fwrite(r, sizeof(*r), 1, f) == 1 ? 0 : -EIO;
}

/* jr_rec_size - a record's size on disk in a file of @version. */
static size_t jr_rec_size(uint32_t version)
{
	return version == 1 ? JR_REC_V1_SIZE : sizeof(struct jr_rec);
}

/*
 * jr_widen_v1 - a version 1 record (v[5]) in today's layout.  The fields
 * after v keep their order, so they move up by the two new values.
 */
static void jr_widen_v1(struct jr_rec *r)
{
	const size_t old_v = offsetof(struct jr_rec, v) + 5 * sizeof(r->v[0]);
	const size_t new_v = offsetof(struct jr_rec, cpu);

	memmove((char *)r + new_v, (char *)r + old_v, JR_REC_V1_SIZE - old_v);
	r->v[5] = r->v[6] = 0;
}

/* jr_cstr_ok - a fixed char array holds a NUL-terminated string. */
static int jr_cstr_ok(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

static int jr_parse_header(const void *buf, size_t len, struct jr_file_hdr *hdr,
			   struct jr_err *e)
{
	if (len < sizeof(*hdr)) {
		jr_fail(e, -EINVAL, "truncated header (%zu of %zu bytes)", len,
			sizeof(*hdr));
		return -EINVAL;
	}
	memcpy(hdr, buf, sizeof(*hdr));
	if (memcmp(hdr->magic, JR_MAGIC, sizeof(hdr->magic))) {
		jr_fail(e, -EINVAL, "not a jitread recording (bad magic)");
		return -EINVAL;
	}
	if (hdr->version < 1 || hdr->version > JR_FILE_VERSION) {
		jr_fail(e, -EINVAL,
			"recording version %u; this jitread reads versions 1 to %d",
			hdr->version, JR_FILE_VERSION);
		return -EINVAL;
	}
	if (hdr->rec_size != jr_rec_size(hdr->version)) {
		jr_fail(e, -EINVAL, "record size %u, want %zu", hdr->rec_size,
			jr_rec_size(hdr->version));
		return -EINVAL;
	}
	if (!jr_cstr_ok(hdr->sys.kernel, sizeof(hdr->sys.kernel)) ||
	    !jr_cstr_ok(hdr->sys.cpu_model, sizeof(hdr->sys.cpu_model)) ||
	    !jr_cstr_ok(hdr->sys.cmdline, sizeof(hdr->sys.cmdline)) ||
	    !jr_cstr_ok(hdr->sys.params, sizeof(hdr->sys.params)) ||
	    !jr_cstr_ok(hdr->sys.argv, sizeof(hdr->sys.argv))) {
		jr_fail(e, -EINVAL, "garbage in the header's strings");
		return -EINVAL;
	}
	return 0;
}

/* jr_reader_attach - read the header of an open stream; f stays open. */
int jr_reader_attach(struct jr_reader *rd, FILE *f, const char *name,
		     struct jr_err *e)
{
	char buf[sizeof(struct jr_file_hdr)];
	size_t n;

	memset(rd, 0, sizeof(*rd));
	rd->path = name;
	rd->f = f;
	n = fread(buf, 1, sizeof(buf), f);
	if (jr_parse_header(buf, n, &rd->hdr, e))
		return -EINVAL;
	rd->rec_size = jr_rec_size(rd->hdr.version);
	return 0;
}

int jr_reader_open(struct jr_reader *rd, const char *path, struct jr_err *e)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	int ret;

	if (!f) {
		ret = -errno;
		jr_fail(e, -EINVAL, "%s", strerror(errno));
		return ret;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		return jr_fail(e, -EISDIR, "a directory, not a recording");
	}
	ret = jr_reader_attach(rd, f, path, e);
	if (ret) {
		fclose(f);
		rd->f = NULL;
	}
	return ret;
}

/* jr_rec_check - every field of a record is in its range. */
int jr_rec_check(const struct jr_rec *r, struct jr_err *e)
{
	if (r->type >= JR_NR_TYPES) {
		jr_fail(e, -EINVAL, "unknown record type %u", r->type);
		return -EINVAL;
	}
	if (r->cpu >= JR_MAX_CPUS) {
		jr_fail(e, -EINVAL, "cpu %u out of range", r->cpu);
		return -EINVAL;
	}
	if (!jr_cstr_ok(r->name, sizeof(r->name))) {
		jr_fail(e, -EINVAL, "unterminated name");
		return -EINVAL;
	}
	if (r->type == JR_GAP && (r->cls < 0 || r->cls >= JIT_NOISE_NR)) {
		jr_fail(e, -EINVAL, "gap class %d out of range", r->cls);
		return -EINVAL;
	}
	if (r->type == JR_SUMMARY && (r->cls < 0 || r->cls > 1)) {
		jr_fail(e, -EINVAL, "summary irqs_off %d not 0 or 1", r->cls);
		return -EINVAL;
	}
	if (r->type == JR_SOFTIRQ && (r->cls < 0 || r->cls > JR_MAX_SOFTIRQ)) {
		jr_fail(e, -EINVAL, "softirq vector %d out of range", r->cls);
		return -EINVAL;
	}
	if (r->type == JR_DETAIL &&
	    (r->cls < 0 || r->cls >= JIT_DETAIL_NR ||
	     (r->id2 != JIT_NOISE_IRQ && r->id2 != JIT_NOISE_SOFTIRQ &&
	      r->id2 != JIT_NOISE_THREAD))) {
		jr_fail(e, -EINVAL, "detail kind %d in class %d out of range",
			r->cls, r->id2);
		return -EINVAL;
	}
	return 0;
}

/* jr_read - next record: 1, or 0 at a clean end, or -EINVAL with err. */
int jr_read(struct jr_reader *rd, struct jr_rec *r, struct jr_err *e)
{
	struct jr_err why;
	size_t n;

	memset(r, 0, sizeof(*r));
	n = fread(r, 1, rd->rec_size, rd->f);
	if (n == 0 && feof(rd->f))
		return 0;
	if (n != rd->rec_size) {
		jr_fail(e, -EINVAL,
			"truncated: record %llu has %zu of %zu bytes",
			(unsigned long long)rd->index, n, rd->rec_size);
		return -EINVAL;
	}
	if (rd->rec_size == JR_REC_V1_SIZE)
		jr_widen_v1(r);
	if (jr_rec_check(r, &why)) {
		jr_fail(e, -EINVAL, "garbage at record %llu: %s",
			(unsigned long long)rd->index, why.msg);
		return -EINVAL;
	}
	rd->index++;
	return 1;
}
