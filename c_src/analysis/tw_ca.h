/* tw_ca.h - exact combinatorial analysis of one blackjack hand played off the top of any shoe.
 *
 * A shoe is ten counts, indexed by rank: 0 = ace, 1..8 = two..nine, 9 = ten-valued cards.
 * Every expected value here is per initial bet and UNCONDITIONED: a dealer Black Jack is part
 * of the average (with a peeking dealer it costs exactly the initial bet, without one every
 * stake).  twentyone.analysis converts to "given no dealer Black Jack" where the player knows it.
 *
 * This header is read into cffi's cdef (preprocessor lines stripped), so it holds only plain
 * enums, typedefs, structs and prototypes.  The method is described in tw_ca.c.
 */
#ifndef TW_CA_H
#define TW_CA_H

#include <stdint.h>

enum {
    TW_CA_RANKS = 10,
    TW_CA_OUTCOMES = 7,    /* dealer totals 17, 18, 19, 20, 21, then bust, then Black Jack */
    TW_CA_CLASSES = 5,     /* rows of a policy table, below */
    TW_CA_SLOTS = 32       /* totals 0..31 (or pair rank 0..9) within a class */
};

/* Actions; a policy cell is a preference list of up to four of them, one per nibble, first choice in
 * the low nibble, ended by 0: the first allowed one is played. */
enum {
    TW_CA_END = 0,
    TW_CA_STAND = 1,
    TW_CA_HIT = 2,
    TW_CA_DOUBLE = 3,
    TW_CA_SPLIT = 4,
    TW_CA_SURRENDER = 5
};

/* Policy classes: two-card hands (first decision, and split hands after their second card), hands
 * of three cards or more, and pairs (slot = pair rank). */
enum {
    TW_CA_HARD2 = 0,
    TW_CA_SOFT2 = 1,
    TW_CA_HARD3 = 2,
    TW_CA_SOFT3 = 3,
    TW_CA_PAIR = 4
};

/* Strategy modes. */
enum {
    TW_CA_OPTIMAL = 0,     /* composition-dependent: best EV for each hand; split hands CDZ- */
    TW_CA_TABLE = 1        /* the session's policy table (a total-dependent chart) */
};

/* Return codes. */
enum {
    TW_CA_OK = 0,
    TW_CA_EBADSHOE = -1,
    TW_CA_EBADRULES = -2,
    TW_CA_ENOMEM = -3,
    TW_CA_EBADHAND = -4,
    TW_CA_EBADUP = -5,
    TW_CA_ENOTABLE = -6
};

typedef struct {
    int hit_soft_17;          /* dealer hits soft 17 */
    int peek;                 /* dealer checks for Black Jack: a dealer Black Jack costs the initial bet only */
    double blackjack_pays;    /* 2.0 for 2:1, 1.5 for 3:2 ... */
    int surrender;            /* late surrender of the first two cards */
    int double_on;            /* 0 any two cards, 1 hard 9-11, 2 hard 10-11, 3 none */
    int split_hands;          /* most hands after splitting: 1 no split, 2 one split, up to 8 */
    int split_aces_one_card;  /* a split ace takes one card and stands */
    int resplit_aces;         /* an ace drawn to a split ace may be split again */
    int double_after_split;   /* the two-card hands of a split may double */
} tw_ca_rules;

typedef struct {
    double stand, hit, dbl, split, surrender;   /* EVs, -1e9 when not allowed */
    double stand2, hit2, dbl2, surrender2;      /* second moments (0 when unknown) */
    double p_blackjack;                         /* P(dealer Black Jack | up card and these cards) */
    int can_hit, can_double, can_split, can_surrender, natural;
} tw_ca_values;

typedef struct tw_ca_session tw_ca_session;

/* Dealer outcome probabilities for `up` when `shoe` holds every unseen card except the up card. */
int tw_ca_dealer(const int shoe[10], int up, int hit_soft_17, double out[7]);

/* A session plays hands made of `root` plus cards drawn from `shoe` (the shoe the round is dealt
 * from, root and up card still in it).  root NULL is the empty hand: every hand of the round. */
tw_ca_session *tw_ca_new(const int shoe[10], const tw_ca_rules *rules, const int root[10], int *err);
void tw_ca_free(tw_ca_session *s);

/* Install a policy table of TW_CA_RANKS * TW_CA_CLASSES * TW_CA_SLOTS cells [up][class][slot]. */
int tw_ca_set_table(tw_ca_session *s, const uint16_t *table);
/* Derive the best total-dependent table (basic strategy) for a session rooted at the empty hand,
 * install it and copy it to `table` (TW_CA_RANKS * TW_CA_CLASSES * TW_CA_SLOTS cells). */
int tw_ca_basic(tw_ca_session *s, uint16_t *table);

/* Values of `hand` (a superset of the session's root) against `up` under `mode`.  A two-card hand is
 * taken as a first decision (double, surrender and split as the rules allow). */
int tw_ca_hand(tw_ca_session *s, const int hand[10], int up, int mode, tw_ca_values *out);

/* The round's EV by up card under `mode` for a session rooted at the empty hand: ev[u], the
 * second moment e2[u] (valid when *exact_e2 is 1: no hand was split), and the up-card odds p[u]. */
int tw_ca_overall(tw_ca_session *s, int mode, double ev[10], double e2[10], double p[10], int *exact_e2);

#endif
