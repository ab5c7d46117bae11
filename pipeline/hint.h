/*
 * hint.h — nanomsg sockets (hint.c): the hints between the daemons, and the client API.
 *
 * Hints are never truth (the arena is): every send is non-blocking and a lost one is harmless,
 * since every waiter also wakes on its own timeout and rescans the arena.
 */
#ifndef ZP_PIPE_HINT_H
#define ZP_PIPE_HINT_H

#include <stddef.h>

/* Sockets with a receive fd for poll(); all sends are non-blocking, all drops harmless. */
int zp_hint_pull(const char *url);          /* bind */
int zp_hint_sub(const char *url);           /* connect, subscribe all */
int zp_hint_pub(const char *url);           /* bind */
int zp_hint_push(void);                     /* connect with zp_hint_connect */
int zp_hint_connect(int s, const char *url);
void zp_hint_send(int s, const char *what);
int zp_hint_fd(int s);                      /* NN_RCVFD */
void zp_hint_drain(int s);
void zp_hint_close(int s);

/* ---------------------------------------------------------------- client API */
/* One JSON request, one JSON reply (both NUL-terminated text). The caller frees *reply.
 * Messages are capped at 1 MiB: the client refuses to send more; the server receives up to
 * ZP_API_RCV_HARD and answers a request over 1 MiB with ok: false (hint.c says why). */
#define ZP_API_MAX_MSG (1u << 20)
#define ZP_API_RCV_HARD (64u << 20)
int zp_api_call(const char *url, const char *req, char **reply, int timeout_ms);
/* Server side: bind a REP socket; serve every queued request through fn(ctx, ...) (returns a
 * malloc'ed reply). serve_one returns 1 when it served one, 0 when none was waiting. */
int zp_api_rep(const char *url);
int zp_api_serve_one(int s, char *(*fn)(void *ctx, const char *req, size_t len), void *ctx);
/* Default API url for a run directory. */
int zp_api_default_url(char *buf, size_t n, const char *run_dir);

#endif
