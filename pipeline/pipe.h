/*
 * pipe.h — an umbrella over pipeline/'s concept headers, kept only while gpud/ and supraseal/
 * still include it (issue 19 item 3: they move to the concept headers once gpud's split lands,
 * and this file goes). New code includes what it uses:
 *   config.h      the config file          rundir.h   the run directory's layout and names
 *   payload_zp.h  zkpipe's slot payload    files.h    atomic writes, manifests, job outputs
 *   paths.h       client-named paths       hint.h     hints and the client API
 *   health.h      key shapes, gpud health  witgen.h   witness generators
 *   sys.h         logging, process helpers
 */
#ifndef ZP_PIPE_H
#define ZP_PIPE_H

#include "config.h"
#include "files.h"
#include "health.h"
#include "hint.h"
#include "paths.h"
#include "payload_zp.h"
#include "rundir.h"
#include "sys.h"
#include "witgen.h"

#endif
