/*
 * payload_zp.c — zkpipe's slot payload layout (payload_zp.h).
 */
#include "payload_zp.h"

uint64_t zp_payload_layout(struct zp_slot_payload *p, uint32_t n_vars, uint32_t domain)
{
	uint64_t fr = 32;
	p->magic = ZP_PAYLOAD_MAGIC;
	p->n_vars = n_vars;
	p->domain = domain;
	p->off_w = 4096;
	p->off_a = p->off_w + ((uint64_t)n_vars * fr + 63) / 64 * 64;
	p->off_b = p->off_a + (uint64_t)domain * fr;
	p->off_c = p->off_b + (uint64_t)domain * fr;
	p->bytes = p->off_c + (uint64_t)domain * fr;
	return p->bytes;
}
