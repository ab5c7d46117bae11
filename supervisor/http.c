/*
 * http.c — GET /metrics (Prometheus text format), GET /status (the API's status JSON) and GET /
 * (the live status page that draws /status),
 * served by libmicrohttpd on its own thread (HEAD as GET, without the body). Read-only: arena
 * atomics and the children table (read racily, for display).
 *
 * Connections are tracked (struct conn, libmicrohttpd's socket context) so that one client cannot
 * hold them all: at most http_per_address per client address and http_connections in all; a new
 * connection beyond either evicts the oldest idle one (of its address, else of all), where idle
 * means no request being answered and the age counts from the accept or the last response. A
 * slow client that never finishes its request is idle, so it is what goes first. All of it runs on
 * libmicrohttpd's one polling thread: no lock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
		    sup->cfg.groups[sup->ch[k].group].name, sup_child_role(&sup->ch[k]), sup->ch[k].index, sup->ch[k].restarts);
	put(&b, "# HELP zkpipe_process_peak_rss_bytes peak resident memory per daemon\n"
		"# TYPE zkpipe_process_peak_rss_bytes gauge\n");
	for (unsigned k = 0; k < sup->nch; k++)
		put(&b, "zkpipe_process_peak_rss_bytes{group=\"%s\",role=\"%s\",index=\"%u\"} %llu\n",
		    sup->cfg.groups[sup->ch[k].group].name, sup_child_role(&sup->ch[k]), sup->ch[k].index,
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

/* One TCP connection, from accept to close; a list in accept order. */
struct conn {
	struct conn *prev, *next;
	uint32_t addr;    /* the client's IPv4 address (network order) */
	int fd;
	bool busy;        /* a request is being answered */
	bool evicted;     /* shut down by us; libmicrohttpd closes it at its next turn */
	uint64_t since;   /* ms: accepted, or its last response sent */
};
struct conns {
	struct conn *head, *tail;
	unsigned per_address, total; /* the limits */
	unsigned long long evictions;
};

static void evict(struct conns *t, struct conn *c)
{
	c->evicted = true;
	t->evictions++;
	/* the fd is libmicrohttpd's and stays open until it has seen the CLOSED notification (below),
	 * so this is never another file's fd; the shutdown makes the socket readable at EOF */
	shutdown(c->fd, SHUT_RDWR);
}

/* The oldest idle connection (of addr when by_addr), not the new one n unless nothing else is. */
static struct conn *oldest_idle(struct conns *t, struct conn *n, bool by_addr)
{
	struct conn *best = NULL;
	for (struct conn *c = t->head; c; c = c->next)
		if (c != n && !c->evicted && !c->busy && (!by_addr || c->addr == n->addr) && (!best || c->since < best->since))
			best = c;
	return best ? best : n;
}

static void notify_conn(void *cls, struct MHD_Connection *mc, void **ctx, enum MHD_ConnectionNotificationCode toe)
{
	struct conns *t = cls;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		struct conn *c = *ctx;
		if (!c)
			return;
		*(c->prev ? &c->prev->next : &t->head) = c->next;
		*(c->next ? &c->next->prev : &t->tail) = c->prev;
		free(c);
		*ctx = NULL;
		return;
	}
	const union MHD_ConnectionInfo *fd = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *ad = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	struct conn *n = calloc(1, sizeof *n);
	if (!n || !fd) {
		free(n);
		return;
	}
	n->fd = fd->connect_fd;
	if (ad && ad->client_addr && ad->client_addr->sa_family == AF_INET)
		n->addr = ((const struct sockaddr_in *)(const void *)ad->client_addr)->sin_addr.s_addr;
	n->since = zp_mono_ms();
	n->prev = t->tail;
	*(t->tail ? &t->tail->next : &t->head) = n;
	t->tail = n;
	*ctx = n;
	unsigned mine = 0, all = 0;
	for (struct conn *c = t->head; c; c = c->next)
		if (!c->evicted)
			all++, mine += c->addr == n->addr;
	if (mine > t->per_address)
		evict(t, oldest_idle(t, n, true));
	else if (all > t->total)
		evict(t, oldest_idle(t, n, false));
}

static struct conn *conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return i ? i->socket_context : NULL;
}

static void request_done(void *cls, struct MHD_Connection *mc, void **state, enum MHD_RequestTerminationCode toe)
{
	(void)cls, (void)state, (void)toe;
	struct conn *c = conn_of(mc);
	if (c)
		c->busy = false, c->since = zp_mono_ms();
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
	struct conn *cn = conn_of(c);
	if (cn)
		cn->busy = true; /* until request_done: never evicted while its answer is on the way */
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) { /* HEAD: libmicrohttpd sends the headers only */
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
		body = strdup("GET or HEAD only\n");
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
	if (limit < 2)
		return zp_err_set(-EMFILE, "no file descriptors left for HTTP (RLIMIT_NOFILE too low)");
	if (limit < sup->cfg.http_connections)
		zp_log("supervisor", "http: %u connections at most (the fd limit's budget; http_connections = %u)", limit,
		       sup->cfg.http_connections);
	/* libmicrohttpd refuses at accept past its limit, so the eviction keeps the live connections a
	 * margin below it: the evicted ones count until its next turn closes them, and it accepts up to
	 * 10 in one turn */
	struct conns *t = calloc(1, sizeof *t);
	if (!t)
		return zp_err_set(-ENOMEM, "http: out of memory");
	unsigned margin = limit > 40 ? 20 : limit / 2;
	t->total = limit - margin;
	t->per_address = sup->cfg.http_per_address && sup->cfg.http_per_address < t->total ? sup->cfg.http_per_address
											 : t->total;
	sup->http_conns = t;
	sup->http = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG,
			       ntohs(sa.sin_port), NULL, NULL, handle, sup, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			       MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_CONNECTION_TIMEOUT, sup->cfg.http_timeout_s,
			       MHD_OPTION_NOTIFY_CONNECTION, notify_conn, t, MHD_OPTION_NOTIFY_COMPLETED, request_done, t,
			       MHD_OPTION_END);
	if (!sup->http) {
		free(t);
		sup->http_conns = NULL;
		return zp_err_set(-EADDRINUSE, "cannot listen on %s", sup->cfg.http);
	}
	zp_log("supervisor", "http: %u connections, %u per client address (the oldest idle one evicted beyond)",
	       t->total, t->per_address);
	return 0;
}

void sup_http_stop(struct sup *sup)
{
	if (sup->http)
		MHD_stop_daemon(sup->http); /* closes every connection: each CLOSED notification frees its conn */
	sup->http = NULL;
	free(sup->http_conns);
	sup->http_conns = NULL;
}
