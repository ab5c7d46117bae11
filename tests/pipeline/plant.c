/*
 * plant — what another local user (or a process without the service's secret) would leave in shared
 * memory for the service to find, made with the project's own code as an attacker would (tests/pipeline/plant.sh):
 *
 *   plant region NAME REAL_KEY OWN_ZKEY [SECRET_DIR]
 *       a complete key region NAME holding OWN_ZKEY (the planter's own setup of the same circuit) but
 *       carrying REAL_KEY's identity (format "zkey", device, inode, size, mtime: public through stat),
 *       sealed; MACed under SECRET_DIR's secret when given (else a random one of this process)
 *   plant proc ARENA PID NAME
 *       a process-table entry in ARENA for PID (someone else's process, its public start time) as the
 *       synthd NAME, with a heartbeat of long ago
 */
#include "arena.h"
#include "keystore.h"
#include "zkey.h"
#include "zp_err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int region(int argc, char **argv)
{
	zp_zkey z;
	zp_g16_key gk;
	uint8_t ident[16];
	zp_keystore_key ks;
#if ZP_KREG_VERSION > 1 /* (a build from before the MAC has no secret: this line is all that differs) */
	if (argc > 5 && zp_keyregion_secret_load(argv[5]))
		return fprintf(stderr, "plant: secret %s: %s\n", argv[5], zp_err_msg()), 1;
#endif
	if (zp_keyregion_file_ident(argv[3], "zkey", ident))
		return fprintf(stderr, "plant: %s\n", zp_err_msg()), 1;
	if (zp_zkey_read(&z, argv[4]) || zp_g16_key_init(&gk, &z, ZP_H_SNARKJS))
		return fprintf(stderr, "plant: %s: %s\n", argv[4], zp_err_msg()), 1;
	if (zp_keystore_put(&ks, argv[2], NULL, ident, "zkey", "chain", &gk))
		return fprintf(stderr, "plant: region %s: %s\n", argv[2], zp_err_msg()), 1;
	printf("planted key region %s\n", argv[2]);
	return 0;
}

static int proc(char **argv)
{
	struct zp_arena *a;
	zp_proc_h h;
	if (zp_arena_attach(argv[2], 0, NULL, NULL, &a))
		return fprintf(stderr, "plant: %s\n", zp_err_msg()), 1;
	if (zp_arena_proc_register(a, atoi(argv[3]), ZP_ROLE_SYNTHD, argv[4], &h))
		return fprintf(stderr, "plant: %s\n", zp_err_msg()), 1;
	zp_arena_proc_heartbeat_at(a, h, 1);
	printf("planted process entry %u: pid %s as %s\n", h.idx, argv[3], argv[4]);
	zp_arena_close(a);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "region"))
		return region(argc, argv);
	if (argc == 5 && !strcmp(argv[1], "proc"))
		return proc(argv);
	fprintf(stderr, "usage: plant region NAME REAL_KEY OWN_ZKEY [SECRET_DIR] | plant proc ARENA PID NAME\n");
	return 2;
}
