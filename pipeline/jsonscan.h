/*
 * jsonscan.h — a client's input.json checked in full in bounded memory (jsonscan.c): well-formed
 * JSON whose top level is an object, read through a 64 KiB buffer, nesting at most 256 deep,
 * numbers of any length (circom's and snarkjs's inputs hold field elements beyond 64 bits).
 * No tree is built: memory is the buffer and the nesting, whatever the file's size.
 */
#ifndef ZP_PIPE_JSONSCAN_H
#define ZP_PIPE_JSONSCAN_H

/* Scan the open file fd (read from offset 0 with pread; name is used in messages). 0 when it is
 * one JSON object and nothing but blanks after it; ZP_EFORMAT naming the line, column and what
 * was expected; -errno on a read error. */
int zp_json_scan_object(int fd, const char *name);

#endif
