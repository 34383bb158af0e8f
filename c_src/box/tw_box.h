/* tw_box.h - what the box program (tw_box.c) asks of the code that serves a match in it.
 *
 * The course's serve loop (c_src/bridge/tw_serve.c) implements both for a mycodes.c; another game played in
 * the box (the judge problem of seed 004) brings its own.
 */
#ifndef TW_BOX_H
#define TW_BOX_H

#include <stddef.h>
#include "tw_confine.h"

/* Called before the process is confined: set up what needs a system call the filter refuses later. */
void tw_box_prepare(const tw_box_config *cfg);
/* Serve the match on the request and reply pipes, each student call limited to cpu_usec of CPU time;
 * never returns. */
void tw_box_serve(int in, int out, int k, long cpu_usec);
/* Write one reply frame (and len bytes of text after it); 0, or -1 when the engine has gone. */
int tw_box_frame(int fd, char tag, int value, const char *text, size_t len);

#endif
