/* Replays every file under tests/fuzz/regress/{r1cs,wtns,zkey,json}/ through its reader: each must
 * be rejected with an error message or parsed — never crash. Inputs the fuzzer (tests/fuzz/
 * run.sh) found interesting or crashing are committed there and checked on every test run. */
#include <dirent.h>

#include "g16_json.h"
#include "r1cs.h"
#include "util.h"
#include "wtns.h"
#include "zkey.h"

static int replay(const char *root, const char *kind)
{
	char dir[1024], path[2048];
	snprintf(dir, sizeof(dir), "%s/%s", root, kind);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "no %s\n", dir);
		return -1;
	}
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		size_t len;
		uint8_t *b = slurp(path, &len);
		int rc;
		zp_err_clear();
		if (!strcmp(kind, "r1cs")) {
			zp_r1cs x;
			if (!(rc = zp_r1cs_parse(&x, b, len, path)))
				zp_r1cs_free(&x);
		} else if (!strcmp(kind, "wtns")) {
			zp_wtns x;
			if (!(rc = zp_wtns_parse(&x, b, len, path)))
				zp_wtns_free(&x);
		} else if (!strcmp(kind, "zkey")) {
			zp_zkey x;
			if (!(rc = zp_zkey_parse(&x, b, len, path)))
				zp_zkey_free(&x);
		} else {
			zp_g16_proof p;
			zp_g16_vk vk;
			zp_fr *pub;
			uint32_t np;
			if (!(rc = zp_g16_vk_read_json(&vk, path)))
				zp_g16_vk_free(&vk);
			if (zp_g16_public_read_json(&pub, &np, path) == 0)
				free(pub);
			zp_g16_proof_read_json(&p, path);
		}
		CHECK(rc == 0 || strstr(zp_err_msg(), path), "%s: error without the file name", path);
		free(b);
		n++;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "tests/fuzz/regress";
	int total = 0;
	for (int i = 0; i < 4; i++) {
		int n = replay(root, (const char *[]){ "r1cs", "wtns", "zkey", "json" }[i]);
		CHECK(n > 0, "no inputs for kind %d", i);
		total += n;
	}
	if (test_failures)
		return 1;
	printf("%d inputs replayed\n", total);
	return 0;
}
