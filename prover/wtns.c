#include "wtns.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "zp_err.h"

int zp_wtns_parse(zp_wtns *w, const uint8_t *data, size_t len, const char *name)
{
	zp_bin b;
	zp_bin_cur c;
	memset(w, 0, sizeof(*w));
	int rc = zp_bin_parse(&b, data, len, name, "wtns");
	if (rc)
		goto out;
	if (b.version != 2) {
		rc = zp_err_set(ZP_EVERSION, "%s: wtns version %u, expected 2", name, b.version);
		goto out;
	}
	if ((rc = zp_bin_section_cur(&b, 1, 4 + 32 + 4, &c)) || (rc = zp_bin_check_fr_prime(&c)) ||
	    (rc = zp_bin_get_u32(&c, &w->n, "nWitness")))
		goto out;
	if (w->n == 0) {
		rc = zp_err_set(ZP_EFORMAT, "%s: section 1: nWitness is 0", name);
		goto out;
	}
	if ((rc = zp_bin_section_cur(&b, 2, (uint64_t)w->n * 32, &c)))
		goto out;
	w->w = malloc((size_t)w->n * sizeof(zp_fr));
	if (!w->w) {
		rc = zp_err_set(-ENOMEM, "%s: %u witness values", name, w->n);
		goto out;
	}
	for (uint32_t i = 0; i < w->n; i++) {
		const uint8_t *p = c.p + (size_t)i * 32;
		if (zp_fr_from_le(&w->w[i], p) != 0) {
			rc = zp_err_set(ZP_ENONCANON, "%s: section 2: witness value %u is >= r", name, i);
			goto out;
		}
	}
	if (!zp_fr_eq(&w->w[0], &ZP_FR_ONE))
		rc = zp_err_set(ZP_EFORMAT, "%s: section 2: w[0] must be 1 (the ONE wire)", name);
out:
	zp_bin_free(&b);
	if (rc)
		zp_wtns_free(w);
	return rc;
}

int zp_wtns_read(zp_wtns *w, const char *path)
{
	zp_bin_map m;
	int rc = zp_bin_map_file(&m, path);
	if (rc) {
		memset(w, 0, sizeof(*w));
		return rc;
	}
	rc = zp_wtns_parse(w, m.data, m.len, path);
	zp_bin_unmap(&m);
	return rc;
}

void zp_wtns_free(zp_wtns *w)
{
	free(w->w);
	w->w = NULL;
	w->n = 0;
}
