/*
 * http.c — GET /metrics (Prometheus text format), GET /status (the API's status JSON) and GET /
 * (the live status page that draws /status),
 * served by libmicrohttpd on its own thread. Read-only: arena atomics and the children
 * table (read racily, for display).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sup.h"
#include "sys.h"
#include "zp_err.h"

/* status_page.c, generated from status_page.html by embed.py */
extern const char sup_status_page[];
extern const size_t sup_status_page_len;

struct buf { char *p; size_t n, cap; };

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->n) {
			b->n += (size_t)n;
			return;
		}
		size_t cap = b->cap * 2 + (size_t)n + 256;
		char *p = realloc(b->p, cap);
		if (!p)
			return;
		b->p = p, b->cap = cap;
	}
}

static char *metrics(struct sup *sup, size_t *len)
{
	struct buf b = { malloc(4096), 0, 4096 };
	if (!b.p)
		return NULL;
#define ZP_X(nm, help) put(&b, "# HELP zkpipe_%s %s\n# TYPE zkpipe_%s counter\n", #nm, help, #nm); \
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) \
		put(&b, "zkpipe_%s{group=\"%s\"} %llu\n", #nm, sup->cfg.groups[g].name, \
		    (unsigned long long)zp_arena_load64(&zp_arena_hdr(sup->g[g].a)->counters.nm));
	ZP_ARENA_COUNTERS(ZP_X)
#undef ZP_X
	put(&b, "# HELP zkpipe_slots slots by state\n# TYPE zkpipe_slots gauge\n");
	for (unsigned g = 0; g < sup->cfg.n_groups; g++) {
		const struct zp_arena_hdr *h = zp_arena_hdr(sup->g[g].a);
		unsigned n[4] = { 0 };
		for (uint32_t i = 0; i < h->slot_count; i++)
			n[zp_word_state(zp_arena_load64(&zp_arena_slot_rec(sup->g[g].a, i)->word)) & 3]++;
		for (unsigned s = 0; s < 4; s++)
			put(&b, "zkpipe_slots{group=\"%s\",state=\"%s\"} %u\n", sup->cfg.groups[g].name, zp_slot_state_name(s), n[s]);
	}
	put(&b, "# HELP zkpipe_arena_bytes arena size (slots x slot size + tables)\n# TYPE zkpipe_arena_bytes gauge\n");
	for (unsigned g = 0; g < sup->cfg.n_groups; g++)
		put(&b, "zkpipe_arena_bytes{group=\"%s\"} %llu\n", sup->cfg.groups[g].name,
		    (unsigned long long)zp_arena_hdr(sup->g[g].a)->total_size);
	put(&b, "# HELP zkpipe_process_restarts restarts per daemon\n# TYPE zkpipe_process_restarts counter\n");
	for (unsigned k = 0; k < sup->nch; k++)
		put(&b, "zkpipe_process_restarts{group=\"%s\",role=\"%s\",index=\"%u\"} %u\n",
		    sup->cfg.groups[sup->ch[k].group].name, zp_role_name(sup->ch[k].role), sup->ch[k].index, sup->ch[k].restarts);
	put(&b, "# HELP zkpipe_process_peak_rss_bytes peak resident memory per daemon\n"
		"# TYPE zkpipe_process_peak_rss_bytes gauge\n");
	for (unsigned k = 0; k < sup->nch; k++)
		put(&b, "zkpipe_process_peak_rss_bytes{group=\"%s\",role=\"%s\",index=\"%u\"} %llu\n",
		    sup->cfg.groups[sup->ch[k].group].name, zp_role_name(sup->ch[k].role), sup->ch[k].index,
		    (unsigned long long)sup->ch[k].peak_rss_kib * 1024);
	char *hist = NULL;
	size_t hn = 0;
	FILE *f = open_memstream(&hist, &hn);
	if (f) {
		sup_observe_metrics(sup, f);
		fclose(f);
		put(&b, "%s", hist ? hist : "");
	}
	free(hist);
	*len = b.n;
	return b.p;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *ver, const char *data, size_t *size, void **state)
{
	struct sup *sup = cls;
	(void)ver, (void)data, (void)size, (void)state;
	char *body = NULL;
	size_t len = 0;
	const char *type = "text/plain; version=0.0.4";
	unsigned code = MHD_HTTP_OK;
	if (strcmp(method, "GET")) {
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
		body = strdup("GET only\n");
	} else if (!strcmp(url, "/metrics")) {
		body = metrics(sup, &len);
	} else if (!strcmp(url, "/") || !strcmp(url, "/index.html")) {
		/* the live status page (supervisor/status_page.html, embedded at build time): it draws /status */
		body = malloc(sup_status_page_len);
		if (body)
			memcpy(body, sup_status_page, sup_status_page_len);
		len = sup_status_page_len;
		type = "text/html; charset=utf-8";
	} else if (!strcmp(url, "/status")) {
		json_t *j = sup_status_json(sup);
		body = json_dumps(j, JSON_INDENT(1));
		json_decref(j);
		type = "application/json";
	} else {
		code = MHD_HTTP_NOT_FOUND;
		body = strdup("not found: /, /metrics or /status\n");
	}
	if (!body)
		return MHD_NO;
	if (!len)
		len = strlen(body);
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", type);
	enum MHD_Result ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

int sup_http_start(struct sup *sup)
{
	char host[64];
	snprintf(host, sizeof host, "%s", sup->cfg.http);
	char *colon = strrchr(host, ':');
	if (!colon)
		return zp_err_set(-EINVAL, "[run] http = %s: use host:port", sup->cfg.http);
	*colon = 0;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1)) };
	if (inet_pton(AF_INET, host[0] ? host : "127.0.0.1", &sa.sin_addr) != 1)
		return zp_err_set(-EINVAL, "[run] http = %s: not an IPv4 address", sup->cfg.http);
	/* Idle and slow clients are bounded three ways: at most `limit` connections (the rest are
	 * closed on accept), each closed after http_timeout_s without traffic, and `limit` never
	 * more than the fds main.c left over for HTTP, so the client API, pidfds and the job scan
	 * keep theirs. epoll (MHD_USE_AUTO), not select: fds above 1023 are fine. */
	unsigned limit = sup->cfg.http_connections < sup->http_fd_budget ? sup->cfg.http_connections : sup->http_fd_budget;
	if (limit < 1)
		return zp_err_set(-EMFILE, "no file descriptors left for HTTP (RLIMIT_NOFILE too low)");
	if (limit < sup->cfg.http_connections)
		zp_log("supervisor", "http: %u connections at most (the fd limit's budget; http_connections = %u)", limit,
		       sup->cfg.http_connections);
	sup->http = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG,
			       ntohs(sa.sin_port), NULL, NULL, handle, sup, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			       MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_CONNECTION_TIMEOUT, sup->cfg.http_timeout_s,
			       MHD_OPTION_END);
	return sup->http ? 0 : zp_err_set(-EADDRINUSE, "cannot listen on %s", sup->cfg.http);
}

void sup_http_stop(struct sup *sup)
{
	if (sup->http)
		MHD_stop_daemon(sup->http);
	sup->http = NULL;
}
