/* tw_fast.h - a plain match under the course rules, its rounds played in C in the engine's process.
 *
 * The Python engine (twentyone/table.py, twentyone/match.py) is the reference; this is a second reading of it for
 * the one case a grade plays thousands of times: a match that keeps no log, at a table of the built-in players
 * stand and basic and sandboxed compiled files, each in its own box.  A box is never in this process: its seat
 * sends it the frames twentyone/players/sandbox/wire.py lays out, on its pipes, exactly as the Python client
 * does, and reads its replies as the client does (blocking; the engine's watchdog ends a box that is blocked or
 * past its limit).  Anything that is not a plain round (a foul, a reply that is not a value, a box that ends, a
 * pipe that is full, an interrupt) stops the match at once, its cause in tw_fast_match.handover: the engine then
 * plays the whole match again in Python, in new boxes, and that result is the one that counts.  So this file
 * only ever gives the result the Python engine would give, or none.
 */
#ifndef TW_FAST_H
#define TW_FAST_H

#define TW_FAST_MAX_SEATS 5
/* What sits at a seat. */
enum { TW_FAST_STAND = 0, TW_FAST_BASIC = 1, TW_FAST_BOX = 2 };
/* tw_fast_match.reason */
enum { TW_FAST_BROKE = 0, TW_FAST_ROUNDS = 1, TW_FAST_SHUFFLES = 2 };
/* tw_fast_match.handover: why the match was handed back (0: it was not) */
enum { TW_FAST_FOUL = 1, TW_FAST_REPLY = 2, TW_FAST_ENDED = 3, TW_FAST_FULL = 5, TW_FAST_INTERRUPTED = 6,
       TW_FAST_UNSUPPORTED = 7 };

typedef struct {
    int kind;            /* TW_FAST_STAND, TW_FAST_BASIC or TW_FAST_BOX */
    int k;               /* a box: the function set it plays (1 .. 5) */
    int py;              /* a box: a Python file's (its continue_action and show bodies are marshal data) */
    int wfd, rfd;        /* a box: its request pipe (non-blocking) and its reply pipe (read blocking) */
    int *flight;         /* a box: [the call in flight (0: none), the last call], read by the engine's watchdog,
                          * which ends a box that is blocked or past its limit (the read then meets its end) */
    char name[20];       /* the seat's name as Player.name holds it (at most 19 bytes, NUL-padded) */
} tw_fast_seat;

typedef struct {
    int seats;                        /* 1 .. TW_FAST_MAX_SEATS */
    int decks;                        /* 1 .. 8 */
    unsigned long long seed;
    int start_money, min_bet, rounds_per_seat, max_shoes, threshold;
    /* basic's chart: first[up][c1][c2] the first decision on two cards (double and surrender allowed), then
     * later[soft][total][up] on three cards or more; card and up-card indices 0 (A) .. 9 (ten-valued). */
    const char *basic_first;          /* 1000 bytes */
    const char *basic_later;          /* 2 * 32 * 10 bytes */
    /* the result */
    int reason, rounds, shuffles;
    int account[5], seat_rounds[5];   /* TW_FAST_MAX_SEATS */
    int handover, handover_seat;      /* why, and at which seat (1-based; 0: none) */
    int calls;                        /* round trips made */
} tw_fast_match;

/* Play the match; 0 when it was played, else the handover cause (also in m->handover). */
int tw_fast_play(tw_fast_match *m, const tw_fast_seat *seats);

#endif
