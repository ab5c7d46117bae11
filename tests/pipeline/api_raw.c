/*
 * api_raw — send one request, byte for byte, to the supervisor's client API and print the
 * reply: the tests' way to send what `zkpipe` never would (unknown fields, wrong types,
 * control characters, a request over the 1 MiB limit).
 *
 *   api_raw URL FILE [TIMEOUT_MS]    exit 0: a reply was printed; 3: no reply in time
 */
#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return fprintf(stderr, "usage: api_raw URL FILE [TIMEOUT_MS]\n"), 2;
	FILE *f = fopen(argv[2], "rb");
	if (!f)
		return perror(argv[2]), 2;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	char *req = malloc((size_t)len + 1);
	if (!req || fread(req, 1, (size_t)len, f) != (size_t)len)
		return fprintf(stderr, "read %s\n", argv[2]), 2;
	fclose(f);
	int s = nn_socket(AF_SP, NN_REQ), t = argc > 3 ? atoi(argv[3]) : 5000, never = 1 << 30;
	nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVTIMEO, &t, sizeof t);
	nn_setsockopt(s, NN_SOL_SOCKET, NN_SNDTIMEO, &t, sizeof t);
	nn_setsockopt(s, NN_REQ, NN_REQ_RESEND_IVL, &never, sizeof never); /* one send: a silence is a silence */
	if (nn_connect(s, argv[1]) < 0 || nn_send(s, req, (size_t)len, 0) < 0)
		return fprintf(stderr, "send: %s\n", nn_strerror(nn_errno())), 2;
	char *m = NULL;
	int n = nn_recv(s, &m, NN_MSG, 0);
	if (n < 0)
		return fprintf(stderr, "no reply: %s\n", nn_strerror(nn_errno())), 3;
	printf("%.*s\n", n, m);
	nn_freemsg(m);
	nn_close(s);
	free(req);
	return 0;
}
