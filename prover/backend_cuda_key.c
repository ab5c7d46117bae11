/*
 * backend_cuda_key.c — the CUDA backend's key residency (backend_cuda_impl.h): each key array resident or
 * left in host memory as the plan says (cu_key_upload), a device-made key adopted, a key kept on the device
 * across processes (dev_keep: kalloc/cu_kfree, dk_adopt, cu_dk_export), the held-back copies of create in one
 * pipeline (cu_flush_up) and the split MSM bases, from the key's store or made and offered to it
 * (cu_apply_split).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_cuda_impl.h"
#include "backends.h"
#include "progress.h"

/* A key array: a kept allocation when the key is kept on the device (s->dk_on), else dmalloc's. */
static int kalloc(struct cu *s, void **p, size_t bytes, const char *what)
{
	if (!s->dk_on)
		return dmalloc(p, bytes, what);
	if (s->n_dk == sizeof s->dk / sizeof s->dk[0])
		return zp_err_set(ZP_ERANGE, "CUDA backend: too many kept arrays");
	int fd, rc = zp_cuda_dkeep_alloc(p, bytes, &fd);
	if (rc)
		return zp_err_set(rc, "CUDA backend: %s (%zu bytes, kept on the device): %s", what, bytes, zp_err_msg());
	s->dk[s->n_dk].p = *p;
	s->dk[s->n_dk].bytes = zp_cuda_dkeep_size(bytes);
	s->dk[s->n_dk++].fd = fd;
	return 0;
}

static int dk_find(const struct cu *s, const void *p)
{
	for (unsigned i = 0; i < s->n_dk; i++)
		if (s->dk[i].p == p)
			return (int)i;
	return -1;
}

/* Free what kalloc (or an adoption) gave, or what dmalloc did. */
void cu_kfree(struct cu *s, void *p)
{
	int i = p ? dk_find(s, p) : -1;
	if (i < 0) {
		zp_cuda_free(p);
		return;
	}
	zp_cuda_dkeep_free(s->dk[i].p, s->dk[i].bytes);
	close(s->dk[i].fd);
	s->dk[i] = s->dk[--s->n_dk];
}


/* The key's host point arrays A, B1, B2, C and the H query of its H mode, of the key's curve. */
static void cu_key_pts(const zp_g16_key *key, const void **a, const void **b1, const void **b2, const void **c,
		       const void **h)
{
	const zp_zkey *k = key->zkey;
	if (zp_zkey_is_bn254(k)) {   /* snarkjs's H query only (cu_curve) */
		*a = k->bn.a, *b1 = k->bn.b1, *b2 = k->bn.b2, *c = k->bn.c, *h = k->bn.h;
		return;
	}
	*a = k->a;
	*b1 = k->b1;
	*b2 = k->b2;
	*c = k->c;
	*h = key->h_mode == ZP_H_SNARKJS ? (const void *)k->h : (const void *)key->h_coeff;
}


/* Host arrays to the device, the page-locking overlapped with the copies (cuda/upload.c; ZP_CUDA_UPLOAD
 * picks the way: 0 auto = pinning overlapped, 1 register whole then copy, 2 pinning overlapped, 3 bounce
 * ring). Memory registered already (a gpud arena, a caller's pin) goes up directly. */
static int key_copy_segs(struct cu *s, const zp_cuda_up_seg *seg, unsigned n, const char *what)
{
	int rc;
	const zp_knob_num *k = &zp_knobs()->cuda_upload;
	if ((rc = zp_knob_get(k, CU_WHO)))
		return rc;
	/* segments marked keep: their registrations kept until destroy (create flushes its copies once) */
	zp_cuda_up_opts o = { .how = (int)k->v, .kept = s->kept ? NULL : &s->kept };
	zp_cuda_up_stats st;
	if ((rc = zp_cuda_upload(seg, n, &o, &st)))
		return rc;
	if (verbose())
		fprintf(stderr, "CUDA backend: %s: %.2f GiB up in %.3f s (%.1f GB/s; %s, %zu pieces of %zu MiB, %u threads, "
			"%u streams; pinning %.3f s, unpinning %.3f s)\n", what, st.bytes / 1073741824.0, st.secs,
			st.bytes / (st.secs > 0 ? st.secs : 1e-9) / 1e9, zp_cuda_upload_name(st.how), st.pieces, st.chunk >> 20,
			st.threads, st.streams, st.pin_s, st.unpin_s);
	return 0;
}

/* The held-back copies of create (the key, and the split bases from the store when there are), in one
 * pipeline (cuda/upload.c). */
int cu_flush_up(struct cu *s, const char *what)
{
	size_t tot = 0;
	int rc;
	if (!s->n_up)
		return 0;
	for (unsigned i = 0; i < s->n_up; i++)
		tot += s->up[i].len;
	zp_progress_stage("uploading the key to the GPU", tot, "bytes");
	rc = key_copy_segs(s, s->up, s->n_up, what);
	s->n_up = 0;
	return rc;
}

/* The key's arrays from an earlier start's kept set (key->dev_keep with n != 0): each mapped and checked
 * against its checksum (a killed gpud's stray write shows). 0: adopted (no upload; the split bases come
 * with them); 1: not (s->dk_why says why): the set's fds are closed either way, so memory that is not
 * adopted goes back to the device before this backend allocates its own. */
static int dk_adopt(struct cu *s, const zp_g16_key *key)
{
	zp_cuda_dkeep *in = key->dev_keep;
	void **dst[ZP_CUDA_DKEEP_N] = { &s->d_a, &s->d_b1, &s->d_b2, &s->d_c, &s->d_h };
	int rc = 1;
	unsigned i = 0;
	if (!in || !in->n)
		return 1;
	double t0 = mono_s();
	if (in->n != ZP_CUDA_DKEEP_N || in->nv != s->nv || in->dom != s->dom || in->curve != (uint32_t)zp_curve_of(key->zkey->curve)->id) {
		s->dk_why = "it was made for another key shape";
	} else {
		for (i = 0; i < ZP_CUDA_DKEEP_N; i++) {
			void *p;
			uint64_t sum = 0;
			int fd;
			if (zp_cuda_dkeep_import(&p, in->bytes[i], in->fd[i])) {
				s->dk_why = "an array could not be imported";
				break;
			}
			if ((fd = dup(in->fd[i])) < 0 || s->n_dk == sizeof s->dk / sizeof s->dk[0]) {
				if (fd >= 0)
					close(fd);
				zp_cuda_dkeep_free(p, in->bytes[i]);
				s->dk_why = "no descriptor for an array";
				break;
			}
			s->dk[s->n_dk].p = p, s->dk[s->n_dk].bytes = in->bytes[i], s->dk[s->n_dk++].fd = fd;
			*dst[i] = p;
			if (zp_cuda_checksum(p, in->bytes[i], &sum, s->st) || sum != in->sum[i]) {
				s->dk_why = "an array's checksum differs from the one it was kept with";
				break;
			}
		}
		if (i == ZP_CUDA_DKEEP_N)
			rc = 0;
	}
	if (rc)
		for (unsigned j = 0; j < ZP_CUDA_DKEEP_N; j++)
			cu_kfree(s, *dst[j]), *dst[j] = NULL;
	for (unsigned j = 0; j < in->n && j < ZP_CUDA_DKEEP_N; j++)
		close(in->fd[j]);
	in->n = 0;
	if (rc) {
		if (verbose())
			fprintf(stderr, "CUDA backend: the kept device key was not adopted: %s%s%s\n", s->dk_why,
				zp_err_msg()[0] ? ": " : "", zp_err_msg());
		zp_err_clear();
		return 1;
	}
	size_t tot_b = 0, key_b, fr = 0, tot = 0;
	for (unsigned j = 0; j < ZP_CUDA_DKEEP_N; j++)
		tot_b += in->bytes[j];
	s->dk_adopted = 1;
	s->dk_hsplit = in->hsplit;
	s->dk_wsplit = in->wsplit;
	s->in.key_on_device = 1;
	if (cu_mem_info(s, &fr, &tot))
		return zp_err_set(ZP_ECUDA, "CUDA backend: %s", zp_err_msg());
	/* placed as if the kept arrays (and their split bases) were not there: the choice of their first start,
	 * unless the memory (or its cap) changed since: then they go and the key is placed anew */
	if (zp_cuda_plan_key(&s->plan, &s->in, fr + tot_b, tot) || s->plan.kstream) {
		s->dk_why = "the memory plan no longer keeps the whole key on the device";
		for (unsigned j = 0; j < ZP_CUDA_DKEEP_N; j++)
			cu_kfree(s, *dst[j]), *dst[j] = NULL;
		s->dk_adopted = 0;
		if (verbose())
			fprintf(stderr, "CUDA backend: the kept device key was not adopted: %s\n", s->dk_why);
		zp_err_clear();
		return 1;
	}
	key_b = s->plan.key_bytes;
	s->dk_extra = tot_b > key_b ? tot_b - key_b : 0;
	if (verbose())
		fprintf(stderr, "CUDA backend: key adopted from the device (%.2f GiB kept by the supervisor, split H %u, "
			"witness %u; mapped and checked in %.3f s)\n", tot_b / 1073741824.0, s->dk_hsplit, s->dk_wsplit,
			mono_s() - t0);
	return 0;
}

/* The key's arrays as kept allocations for the next process (key->dev_keep): when every one is. */
void cu_dk_export(struct cu *s, const zp_g16_key *key)
{
	zp_cuda_dkeep *out = key->dev_keep, o;
	void *arr[ZP_CUDA_DKEEP_N] = { s->d_a, s->d_b1, s->d_b2, s->d_c, s->d_h };
	if (!out || !s->dk_on)
		return;
	memset(&o, 0, sizeof o);
	for (unsigned i = 0; i < ZP_CUDA_DKEEP_N; i++) {
		int j = dk_find(s, arr[i]);
		if (j < 0 || zp_cuda_checksum(arr[i], s->dk[j].bytes, &o.sum[i], s->st) || (o.fd[i] = dup(s->dk[j].fd)) < 0) {
			for (unsigned k = 0; k < i; k++)
				close(o.fd[k]);
			zp_err_clear();
			return;
		}
		o.bytes[i] = s->dk[j].bytes;
	}
	o.n = ZP_CUDA_DKEEP_N;
	o.hsplit = (uint32_t)s->hsplit;
	o.wsplit = (uint32_t)s->wsplit;
	o.curve = (uint32_t)zp_curve_of(key->zkey->curve)->id;
	o.nv = s->nv;
	o.dom = s->dom;
	*out = o;
}

/* The plan's first step, its choice said when verbose. */
static int place_key(struct cu *s, size_t fr, size_t tot)
{
	zp_cuda_plan *p = &s->plan;
	int rc = zp_cuda_plan_key(p, &s->in, fr, tot);
	if (rc || !verbose())
		return rc;
	if (!p->kstream) {
		fprintf(stderr, "CUDA backend: key of %zu bytes resident (%zu bytes free of %zu)\n", p->key_bytes, fr, tot);
		return 0;
	}
	static const char *nm[ZP_CUDA_NARR] = { "A", "B1", "B2", "C", "H" };
	char res[64] = "", str[64] = "";
	for (int i = 0; i < ZP_CUDA_NARR; i++) {
		char *d = p->res[i] ? res : str;
		snprintf(d + strlen(d), 64 - strlen(d), "%s%s", *d ? " " : "", nm[i]);
	}
	fprintf(stderr, "CUDA backend: key of %zu bytes: resident [%s], streamed from host memory [%s]; %s input set; "
		"%zu bytes from host memory a proof beyond the input (%zu bytes free of %zu%s%s)\n", p->key_bytes, res, str,
		p->lean ? "lean (a, b on the device; w and c from host copies)" : "full", p->moved, fr, tot,
		s->in.key_stream ? ", ZP_CUDA_KEY_STREAM=1" : "", s->in.cap_mb ? ", capped" : "");
	return 0;
}

/* A device-made key's array i that the plan streams: copied into page-locked host memory of this
 * backend's (plain memory if that is refused) and freed on the device. */
static int dev_to_host(struct cu *s, int i, void **d, size_t len)
{
	void *h = NULL;
	int rc;
	if (zp_cuda_alloc_host(&h, len)) {
		zp_err_clear();
		return zp_err_set(-ENOMEM, "CUDA backend: %zu bytes of page-locked host memory for the key's streamed array", len);
	}
	if ((rc = zp_cuda_copy_to_host(h, *d, len, NULL))) {
		zp_cuda_free_host(h);
		return rc;
	}
	zp_cuda_free(*d);
	*d = NULL;
	s->h_own[i] = h;
	s->h_pts[i] = h;
	return 0;
}

/* A device-made array moved into a kept allocation (key->dev_keep): on the device when both copies fit
 * for a moment, else through host memory, so the key never needs two copies on the device at once. */
static int dev_to_kept(struct cu *s, void **d, size_t len)
{
	size_t fr = 0, tot = 0;
	void *n = NULL, *h = NULL;
	int rc;
	if ((rc = zp_cuda_mem_info(&fr, &tot)))
		return rc;
	if (fr > len + ((size_t)1 << 30)) {
		if ((rc = kalloc(s, &n, len, "the key kept on the device")) || (rc = zp_cuda_copy_on_dev(n, *d, len, s->st)) ||
		    (rc = zp_cuda_stream_sync(s->st))) {
			cu_kfree(s, n);
			return rc;
		}
		zp_cuda_free(*d);
		*d = n;
		return 0;
	}
	if (!(h = malloc(len)))
		return zp_err_set(-ENOMEM, "CUDA backend: %zu bytes of host memory to move the key into a kept allocation", len);
	if ((rc = zp_cuda_copy_to_host(h, *d, len, NULL)))
		goto out;
	zp_cuda_free(*d);
	*d = NULL;
	if ((rc = kalloc(s, &n, len, "the key kept on the device")) || (rc = zp_cuda_copy_to_dev(n, h, len, NULL)) ||
	    (rc = zp_cuda_stream_sync(NULL))) {
		cu_kfree(s, n);
		goto out;
	}
	*d = n;
out:
	free(h);
	return rc;
}

/* The key's points: each array resident in device memory or, as the plan says (cuda/plan.c), left in
 * host memory (page-locked where the system allows) and staged range by range. A key already made in
 * device memory is adopted instead (its streamed arrays copied to host memory); destroy frees the
 * pointers either way. */
int cu_key_upload(struct cu *s, const zp_g16_key *key)
{
	int rc;
	size_t g1 = s->pt[0], g2 = s->pt[1], fr = 0, tot = 0;
	const size_t hl[5] = { max2(s->an[0], 1) * g1, max2(s->an[1], 1) * g1, max2(s->an[2], 1) * g2,
			       max2(s->an[3], 1) * g1, s->an[4] * g1 };
	void **dv[5] = { &s->d_a, &s->d_b1, &s->d_b2, &s->d_c, &s->d_h };
	const void *ka, *kb1, *kb2, *kc, *hpts;
	cu_key_pts(key, &ka, &kb1, &kb2, &kc, &hpts);
	if (key->dev_points) {
		/* setup = device: the key's points are already on this device; adopt them */
		zp_cuda_key_dev *kd = key->dev_points;
		s->d_a = kd->a;
		s->d_b1 = kd->b1;
		s->d_b2 = kd->b2;
		s->d_c = kd->c;
		s->d_h = kd->h;
		memset(kd, 0, sizeof *kd);
		size_t on_dev = 0;
		for (int i = 0; i < 5; i++)
			on_dev += hl[i];
		/* planned as if not there yet: the card's free bytes with the key's counted free, then the
		 * cap (GPU_MEMORY) applied; capping first would count the made key as another's use */
		if ((rc = zp_cuda_mem_info(&fr, &tot)))
			return rc;
		fr = fr + on_dev < tot ? fr + on_dev : tot;
		zp_cuda_plan_cap(&s->in, &fr, &tot);
		if ((rc = place_key(s, fr, tot)))
			return rc;
		if (s->plan.kstream) { /* the arrays the plan streams go to host memory; such a key is not kept */
			s->kstream = 1;
			for (int i = 0; i < 5; i++)
				if (!s->plan.res[i] && (rc = dev_to_host(s, i, dv[i], hl[i])))
					return rc;
			return 0;
		}
		if (key->dev_keep) { /* kept across processes: each array moved into a kept allocation (one at a time) */
			s->dk_on = 1;
			for (int i = 0; i < ZP_CUDA_DKEEP_N; i++)
				if ((rc = dev_to_kept(s, dv[i], hl[i])))
					return rc;
		}
		return 0;
	}
	s->dk_on = key->dev_keep != NULL;
	if ((rc = dk_adopt(s, key)) <= 0) /* an earlier start's arrays still on the device: no upload */
		return rc;
	if (!hpts)
		return zp_err_set(ZP_ERANGE, "CUDA backend: the key has no H query for its H mode");
	if ((rc = cu_mem_info(s, &fr, &tot)) || (rc = place_key(s, fr, tot)))
		return rc;
	const void *hp[5] = { ka, kb1, kb2, kc, hpts };
	static const char *what[5] = { "the key's A", "the key's B1", "the key's B2", "the key's C", "the key's H" };
	const int keep = key->host_stays;
	if (s->plan.kstream) {
		s->kstream = 1;
		s->dk_on = 0;   /* only a whole key is kept on the device across processes */
	}
	s->n_up = 0;
	for (int i = 0; i < 5; i++) {
		if (!s->plan.res[i]) {
			s->h_pts[i] = hp[i];
			if (!zp_cuda_host_pin_ro(hp[i], hl[i]))
				s->h_reg[i] = (void *)hp[i];
			else
				zp_err_clear();   /* staged from pageable memory: slower, not wrong */
			continue;
		}
		if ((rc = kalloc(s, dv[i], hl[i], what[i])))
			return rc;
		/* copied by flush_up: once the split bases are known (apply_split) */
		s->up[s->n_up++] = (zp_cuda_up_seg){ *dv[i], hp[i], s->an[i] * s->pt[i == ZP_CUDA_ARR_B2], keep };
	}
	return 0;
}


/* Replace *d (len points) with the parts·len split bases 2^(256j/parts)·P_i made from it (tmp: their scratch). */
static int make_split(struct cu *s, int g2, void **d, size_t len, unsigned parts, void *tmp, size_t tmp_len,
		      const char *what)
{
	int rc = 0;
	size_t pt = s->pt[g2];
	void *d4;
	if ((rc = kalloc(s, &d4, parts * len * pt, what)))
		return rc;
	rc = s->cc->split_bases(g2, d4, *d, len, parts, tmp, tmp_len, s->st);
	if (!rc)
		rc = zp_cuda_stream_sync(s->st);
	if (rc) {
		cu_kfree(s, d4);
		return rc;
	}
	cu_kfree(s, *d);
	*d = d4;
	return 0;
}

/* The split arrays the plan asks for, in order: H in hsplit parts, and (wsplit) A, B1, B2, C in 4. */
static unsigned split_set(const struct cu *s, zp_g16_split_arr *set, void ***d, int *g2)
{
	const zp_cuda_plan *p = &s->plan;
	unsigned n = 0;
	struct cu *w = (struct cu *)s;
	if (!p->hsplit)
		return 0;
	set[n] = (zp_g16_split_arr){ "h", (unsigned)p->hsplit, s->dom, (unsigned)s->pt[0] }, d[n] = (void **)&w->d_h, g2[n++] = 0;
	if (p->wsplit) {
		set[n] = (zp_g16_split_arr){ "a", 4, max2(s->an[0], 1), (unsigned)s->pt[0] }, d[n] = (void **)&w->d_a, g2[n++] = 0;
		set[n] = (zp_g16_split_arr){ "b1", 4, max2(s->an[1], 1), (unsigned)s->pt[0] }, d[n] = (void **)&w->d_b1, g2[n++] = 0;
		set[n] = (zp_g16_split_arr){ "b2", 4, max2(s->an[2], 1), (unsigned)s->pt[1] }, d[n] = (void **)&w->d_b2, g2[n++] = 1;
		set[n] = (zp_g16_split_arr){ "c", 4, max2(s->an[3], 1), (unsigned)s->pt[0] }, d[n] = (void **)&w->d_c, g2[n++] = 0;
	}
	return n;
}

/* The split bases from the key's store (made by an earlier start from this very key): each array's
 * copy 0 is the key's own points (device to device), the others go up from the store. 1 when the store
 * has none. */
static int split_from_store(struct cu *s, const zp_g16_split_store *ss, const zp_g16_split_arr *set, void ***d, unsigned n)
{
	const void *host[8];
	void *d4[8] = { 0 };
	int rc;
	if (ss->get(ss->ctx, set, n, host))
		return 1;
	if (s->n_up + n > sizeof s->up / sizeof s->up[0])
		return zp_err_set(ZP_ERANGE, "CUDA backend: %u copies held back", s->n_up + n);
	for (unsigned i = 0; i < n; i++) {
		size_t one = set[i].points * set[i].pt_bytes;
		zp_cuda_up_seg *key_seg = NULL;
		for (unsigned k = 0; k < s->n_up; k++)
			if (s->up[k].d == *d[i])
				key_seg = &s->up[k];
		if (key_seg) /* the key's array not sent yet: it goes straight into copy 0 of the split array */
			cu_kfree(s, *d[i]), *d[i] = NULL;
		if ((rc = kalloc(s, &d4[i], set[i].parts * one, "the split bases")))
			goto err;
		if (key_seg)
			key_seg->d = d4[i];
		else if ((rc = zp_cuda_copy_on_dev(d4[i], *d[i], one, s->st)))
			goto err;
		/* the store's mapping goes after create (gpud): never kept registered */
		s->up[s->n_up++] = (zp_cuda_up_seg){ (char *)d4[i] + one, host[i], (set[i].parts - 1) * one, 0 };
	}
	if ((rc = cu_flush_up(s, "the key and its split bases from the store")) || (rc = zp_cuda_stream_sync(s->st)))
		goto err;
	for (unsigned i = 0; i < n; i++) {
		cu_kfree(s, *d[i]);
		*d[i] = d4[i];
	}
	return 0;
err:
	for (unsigned i = 0; i < n; i++)
		if (!*d[i]) /* its array was freed for d4: d4 is the array now (destroy frees it) */
			*d[i] = d4[i];
		else
			cu_kfree(s, d4[i]);
	return rc;
}

/* Offer the split bases just made to the store (its copies 1..parts−1 of each array); a failure only
 * costs the next start. */
static void split_to_store(struct cu *s, const zp_g16_split_store *ss, const zp_g16_split_arr *set, void ***d, unsigned n)
{
	void *host[8];
	int rc = ss->begin(ss->ctx, set, n, host);
	for (unsigned i = 0; !rc && i < n; i++) {
		size_t one = set[i].points * set[i].pt_bytes, len = (set[i].parts - 1) * one;
		int pinned = !zp_cuda_host_pin(host[i], len); /* the store faulted its pages in: pinning is quick */
		rc = zp_cuda_copy_to_host(host[i], (const char *)*d[i] + one, len, NULL);
		if (pinned)
			zp_cuda_host_unpin(host[i]);
	}
	ss->end(ss->ctx, rc);
}

/* The split bases the plan asks for: from the key's store when it has them, else made on the device
 * (and then offered to the store). */
int cu_apply_split(struct cu *s, const zp_g16_key *key)
{
	const zp_cuda_plan *p = &s->plan;
	zp_g16_split_arr set[8];
	void **d[8];
	int g2[8];
	void *tmp;
	int rc;
	unsigned n = split_set(s, set, d, g2);
	if (s->dk_adopted) { /* the kept arrays are the split bases of the plan they were made with */
		if ((uint32_t)p->hsplit != s->dk_hsplit || (uint32_t)p->wsplit != s->dk_wsplit)
			return zp_err_set(-EAGAIN, "CUDA backend: the kept device key holds the split bases of another plan "
					  "(H %u, witness %u parts; this start's plan: %d, %d)", s->dk_hsplit, s->dk_wsplit,
					  p->hsplit, p->wsplit);
		s->split_how = "kept on the device";
		s->hsplit = p->hsplit;
		s->hpass = p->hpass;
		s->wsplit = p->wsplit;
		return 0;
	}
	if (!n)
		return 0;
	const zp_g16_split_store *ss = zp_knobs()->cuda_split_keep.v ? key->split_store : NULL;
	if (ss && !(rc = split_from_store(s, ss, set, d, n))) {
		s->split_how = "from the store";
	} else {
		if (ss && rc < 0)
			return rc;
		if ((rc = cu_flush_up(s, "the key"))) /* the split bases are made from the key's points on the device */
			return rc;
		if ((rc = dmalloc(&tmp, p->split_tmp, "scratch for the split bases")))
			return rc;
		for (unsigned i = 0; !rc && i < n; i++)
			rc = make_split(s, g2[i], d[i], set[i].points, set[i].parts, tmp, p->split_tmp,
					i ? "split witness bases" : set[i].parts == 4 ? "the split H bases" : "the split H bases (2 parts)");
		zp_cuda_free(tmp);
		if (rc)
			return rc;
		s->split_how = "made on the device";
		if (ss) {
			double t0 = mono_s();
			split_to_store(s, ss, set, d, n);
			if (verbose())
				fprintf(stderr, "CUDA backend: split bases offered to the key's store in %.3f s\n", mono_s() - t0);
		}
	}
	s->hsplit = p->hsplit;
	s->hpass = p->hpass;
	s->wsplit = p->wsplit;
	return 0;
}

