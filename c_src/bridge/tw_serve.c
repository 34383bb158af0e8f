/* tw_serve.c - the course's match, served in the box program (c_src/box/tw_box.c) of a sandboxed C strategy.
 *
 * Linked by twentyone/players/c/build.py into every submission's box program.  Once the process is confined
 * and the student's initialisers have run, tw_box_serve(in, out, k, cpu_usec) reads each request, calls the
 * student's function on fresh zero-filled copies and writes the reply, all in C, and never returns.  The
 * frames are the ones twentyone/players/sandbox/wire.py lays out:
 *
 *   request  16 bytes { char op; unsigned char n; unsigned char k; char pad; int a, b, c; } and then a body,
 *            for function set k (0: the one the box was started with; one box serves every set of one
 *            submission seated at a table, as the course program does: they share its statics):
 *            'B'  betK(a)                               no body
 *            'F'  first_actionK(tmpcards, a)            n bytes of tmpcards
 *            'C'  continue_actionK(players)             n Player structs
 *            'S'  showK(banker, players, a, b, c)       one Banker struct, then n Player structs
 *            'Q'  the match is over: close the output, exit
 *   reply     8 bytes { char tag = 'R'; char pad[3]; int value; }, one per request.  A reply is written as
 *            soon as its call returns, unless the next request is in the buffer already (the engine sends
 *            show and the next bet together): then the replies go out together, in one write, once the
 *            buffer is drained (the engine takes both in one read); a crash or a call past its CPU limit
 *            writes the pending replies first
 *            (tw_box_flush, from tw_box.c's handler), so the engine always knows which call it belongs to.
 *
 * Anything else from the engine ends the child (exit status 7).  The strategy only ever sees the
 * copies; writing to them, or beyond them, changes nothing the engine holds.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "tw_bridge.h"
#include "tw_box.h"

#define TW_MAX_SEATS 8
#define TW_MAX_TMPCARDS 64

typedef struct { char op; unsigned char n; unsigned char k; char pad; int a, b, c; } tw_request;
typedef struct { char tag; char pad[3]; int value; } tw_reply;

typedef char tw_player_is_64_bytes[sizeof(Player) == 64 ? 1 : -1];
typedef char tw_banker_is_32_bytes[sizeof(Banker) == 32 ? 1 : -1];
typedef char tw_request_is_16_bytes[sizeof(tw_request) == 16 ? 1 : -1];

/* Read until buf holds at least need bytes; -1 at end of file or on an error. */
static int tw_fill(int fd, char *buf, size_t *have, size_t need, size_t cap)
{
    while (*have < need) {
        ssize_t r = read(fd, buf + *have, cap - *have);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        *have += (size_t)r;
    }
    return 0;
}

/* Replies not written yet (the next request was already in the buffer), and where they go. */
static char tw_pending[8 * 8];
static size_t tw_npending;
static int tw_reply_fd = -1;

static int tw_write_all(int fd, const char *p, size_t left)
{
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        left -= (size_t)w;
    }
    return 0;
}

/* Write the replies held back; called by the crash handler too (async-signal-safe: one write). */
void tw_box_flush(void)
{
    if (tw_npending && tw_reply_fd >= 0) tw_write_all(tw_reply_fd, tw_pending, tw_npending);
    tw_npending = 0;
}

static int tw_reply_value(int fd, int value, int more)
{
    tw_reply r;
    memset(&r, 0, sizeof r);
    r.tag = 'R';
    r.value = value;
    memcpy(tw_pending + tw_npending, &r, sizeof r);
    tw_npending += sizeof r;
    if (more && tw_npending < sizeof tw_pending) return 0;
    size_t n = tw_npending;
    tw_npending = 0;
    return tw_write_all(fd, tw_pending, n);
}

/* The decision's CPU limit: a profiling timer armed before each student call counts this process's CPU
 * time (user and system), not the wall clock, so a busy or stalled machine never charges the student.
 * Waiting for the next request costs no CPU, so the timer is re-armed, never disarmed.  When it runs
 * out, SIGPROF's default action ends the child, and the engine reports a time-out. */
static void tw_arm(long cpu_usec)
{
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = cpu_usec / 1000000;
    t.it_value.tv_usec = cpu_usec % 1000000;
    if (cpu_usec > 0) setitimer(ITIMER_PROF, &t, NULL);
}

/* Before confinement: the student's output goes to the capture file (descriptor 1), with a cap above the
 * file-size limit, so a flood hits RLIMIT_FSIZE and the process dies of SIGXFSZ (a fault, not a silent cut);
 * the signals the engine's Python ignored (and exec kept ignored) get their default actions back, and the
 * terminal's Ctrl-C is the engine's to handle. */
void tw_box_prepare(const tw_box_config *cfg)
{
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    signal(SIGPROF, SIG_DFL);
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    /* stdio's own streams (C++'s cout and cerr write through them) get buffers now: stdio would otherwise ask
     * fstat() for a size at their first use, a call the filter refuses. */
    static char out_buffer[4096], err_buffer[256];
    setvbuf(stdout, out_buffer, _IOLBF, sizeof out_buffer);
    setvbuf(stderr, err_buffer, _IONBF, sizeof err_buffer);
    tw_capture_fd(1, 4 * (long)cfg->output_bytes);
}

void tw_box_serve(int in, int out, int k, long cpu_usec)
{
    static char buf[4096];
    size_t have = 0;
    tw_reply_fd = out;
    for (;;) {
        tw_request q;
        size_t body;
        if (tw_fill(in, buf, &have, sizeof q, sizeof buf)) break;
        memcpy(&q, buf, sizeof q);
        switch (q.op) {
        case 'B': case 'Q': body = 0; break;
        case 'F': body = q.n; break;
        case 'C': body = (size_t)q.n * sizeof(Player); break;
        case 'S': body = sizeof(Banker) + (size_t)q.n * sizeof(Player); break;
        default: _exit(7);
        }
        if (q.n > (q.op == 'F' ? TW_MAX_TMPCARDS - 1 : TW_MAX_SEATS)) _exit(7);
        if (q.op == 'Q') break;
        int kk = q.k ? q.k : k;
        if (kk < 1 || kk > 5) _exit(7);
        if (tw_fill(in, buf, &have, sizeof q + body, sizeof buf)) break;

        /* fresh zero-filled copies, then the frame leaves the buffer before any student code runs */
        char tmpcards[TW_MAX_TMPCARDS];
        Player players[TW_MAX_SEATS];
        Banker banker;
        const char *p = buf + sizeof q;
        if (q.op == 'F') {
            memset(tmpcards, 0, sizeof tmpcards);
            memcpy(tmpcards, p, body);
        } else if (q.op == 'C') {
            memset(players, 0, sizeof players);
            memcpy(players, p, body);
        } else if (q.op == 'S') {
            memcpy(&banker, p, sizeof banker);
            memset(players, 0, sizeof players);
            memcpy(players, p + sizeof banker, body - sizeof banker);
        }
        have -= sizeof q + body;
        memmove(buf, buf + sizeof q + body, have);

        int value = 0;
        tw_arm(cpu_usec);
        switch (q.op) {
        case 'B': value = tw_bet(kk, q.a); break;
        case 'F': value = (unsigned char)tw_first_action(kk, tmpcards, q.a); break;
        case 'C': value = (unsigned char)tw_continue_action(kk, players); break;
        default: tw_show(kk, &banker, players, q.a, q.b, q.c); break;
        }
        /* Held back while a whole next request is already here (show, then the bet sent with it). */
        int more = 0;
        if (have >= sizeof q) {
            tw_request next;
            memcpy(&next, buf, sizeof next);
            size_t nb = next.op == 'F' ? next.n : next.op == 'C' ? (size_t)next.n * sizeof(Player)
                      : next.op == 'S' ? sizeof(Banker) + (size_t)next.n * sizeof(Player) : 0;
            more = have >= sizeof q + nb && next.op != 'Q';
        }
        if (tw_reply_value(out, value, more)) break;
    }
    tw_box_flush();
    tw_capture_close();
    _exit(0);
}
