/*
 * files.c — the files the pipeline writes and reads by name (files.h): job manifests and a job's
 * output directory and assembled proof (opened through the confined walk of paths.c), written with
 * common/zp_file.h's atomic writer.
 */
#include "files.h"
#include "config.h"
#include "paths.h"
#include "sys.h"
#include "zp_err.h"
#include "zp_file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int zp_out_open(const struct zp_pipe_config *c, const char *out)
{
	return zp_path_open_dir((char (*)[PATH_MAX])c->allow_out, c->n_out, out, false, 0);
}

int zp_out_write(const struct zp_pipe_config *c, const char *out, const char *name, const void *buf, size_t len)
{
	int dfd = zp_out_open(c, out);
	if (dfd < 0)
		return dfd;
	zp_file_write_opts o = { .mode = c->public_access ? 0644 : 0600 };
	int r = zp_file_write_atomic_at(dfd, name, buf, len, &o);
	close(dfd);
	return r ? zp_err_set(r, "%s/%s", out, name) : 0;
}

bool zp_out_has(const struct zp_pipe_config *c, const char *out, const char *name)
{
	int dfd = zp_out_open(c, out);
	struct stat st;
	bool r = dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	if (dfd >= 0)
		close(dfd);
	return r;
}

int zp_manifest_write(const char *path, const char *const *inputs, uint32_t n)
{
	size_t len = 0;
	for (uint32_t i = 0; i < n; i++)
		len += strlen(inputs[i]) + 1;
	char *buf = malloc(len + 1), *p = buf;
	if (!buf)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		p += sprintf(p, "%s\n", inputs[i]);
	int r = zp_file_write_atomic(path, buf, len, NULL);
	free(buf);
	return r;
}

int zp_manifest_line(const char *path, uint32_t part, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return zp_err_set(-errno, "manifest %s", path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t l;
	int r = zp_err_set(ZP_ERANGE, "manifest %s: no line for partition %u", path, part);
	for (uint32_t i = 0; (l = getline(&line, &cap, f)) >= 0; i++) {
		if (i != part)
			continue;
		if (l && line[l - 1] == '\n')
			line[--l] = 0;
		r = (size_t)l < n ? (memcpy(buf, line, (size_t)l + 1), 0) : -ENAMETOOLONG;
		break;
	}
	free(line);
	fclose(f);
	return r;
}

/* A part file of the output, read without following a symlink (a planted one would copy another
 * file into proofs.json). */
static json_t *load_part(int dfd, const char *name, json_error_t *e)
{
	char *txt = NULL;
	int r = zp_file_read(dfd, name, O_NOFOLLOW, ZP_FILE_JSON_MAX, &txt, NULL);
	if (r) {
		snprintf(e->text, sizeof e->text, "%s: %s", name, r == -ELOOP ? "a symlink" : zp_strerror(r));
		return NULL;
	}
	json_t *j = json_loads(txt, 0, e);
	free(txt);
	return j;
}

/* part-<p>.proof.json + part-<p>.public.json → one array element */
int zp_job_assemble(const struct zp_pipe_config *c, const char *out, uint64_t job, const char *key, uint32_t nparts)
{
	int dfd = zp_out_open(c, out);
	if (dfd < 0)
		return zp_err_wrap(dfd, "assemble %s", out);
	json_t *root = json_pack("{s:I, s:s, s:[]}", "job", (json_int_t)job, "key", key, "partitions");
	json_t *arr = json_object_get(root, "partitions");
	int r = 0;
	for (uint32_t p = 0; p < nparts && !r; p++) {
		char a[64], b[64];
		json_error_t e;
		snprintf(a, sizeof a, "part-%u.proof.json", p);
		snprintf(b, sizeof b, "part-%u.public.json", p);
		json_t *pf = load_part(dfd, a, &e), *pu = pf ? load_part(dfd, b, &e) : NULL;
		if (!pf || !pu)
			r = zp_err_set(-ENOENT, "assemble %s: partition %u: %s", out, p, e.text);
		else
			json_array_append_new(arr, json_pack("{s:O, s:O}", "proof", pf, "public", pu));
		json_decref(pf);
		json_decref(pu);
	}
	if (!r) {
		char *txt = json_dumps(root, JSON_INDENT(1));
		zp_file_write_opts o = { .mode = c->public_access ? 0644 : 0600 };
		r = txt ? zp_file_write_atomic_at(dfd, "proofs.json", txt, strlen(txt), &o) : -ENOMEM;
		free(txt);
	}
	close(dfd);
	json_decref(root);
	return r;
}
