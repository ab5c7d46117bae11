/*
 * ss_header.c — written against the installed <zkpipe-supraseal.h> only, built by
 * tests/supraseal/crate.sh with `pkg-config --cflags --libs zkpipe-supraseal` against a `meson install`
 * DESTDIR: the header stands alone, the .pc file links the library, and the calls behave as the
 * header says without a pipeline (ZKPIPE_CONFIG unset: EINVAL with a message naming it).
 * Prints "OK" and exits 0, else says what differs and exits 1.
 */
#define _POSIX_C_SOURCE 200809L /* unsetenv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zkpipe-supraseal.h>

int main(void)
{
	unsetenv("ZKPIPE_CONFIG");
	zkpipe_ss_srs srs = { 0 };
	zkpipe_ss_error e = create_SRS(&srs, "/nonexistent/porep.params", true);
	if (e.code != EINVAL || !e.message || !strstr(e.message, "ZKPIPE_CONFIG")) {
		printf("create_SRS without ZKPIPE_CONFIG: code %d, message %s\n", e.code, e.message ? e.message : "(none)");
		return 1;
	}
	free(e.message);
	void *m = create_gpu_mutex();
	if (!m) {
		printf("create_gpu_mutex gave NULL\n");
		return 1;
	}
	destroy_gpu_mutex(m);
	zkpipe_ss_proof p;
	zkpipe_ss_fr r = { { 0 } }, s = { { 0 } };
	zkpipe_ss_assignment a;
	memset(&a, 0, sizeof a);
	e = generate_groth16_proofs_c(&a, 1, &r, &s, &p, &srs, NULL, -1);
	if (e.code == 0) {
		printf("generate_groth16_proofs_c with no SRS succeeded\n");
		return 1;
	}
	free(e.message);
	printf("OK\n");
	return 0;
}
