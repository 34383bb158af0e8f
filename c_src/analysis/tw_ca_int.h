/* tw_ca_int.h - internals shared by tw_ca_dealer.c, tw_ca.c and tw_ca_basic.c (not part of the API).
 *
 * Ranks are indexed 0 = ace .. 9 = ten-valued; up cards likewise.  Values are per initial bet and
 * unconditioned (see tw_ca.h).
 */
#ifndef TW_CA_INT_H
#define TW_CA_INT_H

#include "tw_ca.h"

#include <stdint.h>

#define NR 10
#define NONE (-1.0e9)
#define MAX_DEPTH 24
#define MAX_HANDS 8
#define MAX_A (2 * MAX_HANDS)
#define CHILD_BUST (-1)
#define CHILD_NONE (-2)

/* ---- dealer (tw_ca_dealer.c) ---- */

/* Build the dealer tries for one rule (stands or hits soft 17), once. */
int ca_tries_ready(int hit_soft_17);
/* The most nodes of any trie: the size of a scratch buffer for ca_dealer_probs. */
int ca_trie_max_nodes(void);
/* P(17..21, bust, Black Jack) for up card `up` from counts n (up card out), N their sum. */
void ca_dealer_probs(int hit_soft_17, int up, const int *n, int N, double *w, double out[7]);

/* ---- hands and contexts (tw_ca.c) ---- */

/* A hand's values against one up card; [2] is by strategy mode (TW_CA_OPTIMAL, TW_CA_TABLE). */
typedef struct {
    double st, st2, pbj, db, db2;
    double hi[2], hi2[2], val[2], val2[2];
    unsigned char have_st;  /* 0 not yet, 1 computed, 2 impossible hand for this up card */
} uval;

typedef struct {
    uint64_t key;
    unsigned char cnt[NR];
    unsigned char ncards, total, soft, pair;  /* pair: rank + 1 when two equal cards, else 0 */
    int child[NR];    /* node index, CHILD_BUST, or CHILD_NONE (no such card, or not hit here) */
    int main_idx;     /* in a split context: the same cards in the session's main context */
} node;

/* Every hand reachable by hitting from a root, drawn from `base` (the shoe less extra cards). */
typedef struct {
    int base[NR];
    node *v;
    int n, cap;
    int *map;         /* open addressing, node index + 1 */
    uint32_t mapcap;
    int naturals;     /* two-card 21 is a Black Jack here (not after a split) */
    uval *uv[NR];     /* values by up card, allocated on first use */
    uint32_t st_ready, ready[2];
} ctx;

struct dentry {
    uint64_t key;
    uint32_t ready;
    double p[NR][7];
};

struct tw_ca_session {
    int shoe[NR];
    tw_ca_rules r;
    int root[NR];
    int empty_root;
    ctx main;
    uint16_t table[NR][TW_CA_CLASSES][TW_CA_SLOTS];
    int have_table;
    double split[2][NR][NR];      /* [mode][pair][up] */
    uint32_t split_ready[2][NR];  /* [mode][pair] bit per up */
    double *w;                    /* trie scratch */
    struct dentry *dealer;        /* dealer odds by the cards out of the shoe */
    int ndealer, capdealer;
    int *dmap;
    uint32_t dmapcap;
    double *reach;                /* basic strategy: how often each main hand is reached */
    int *order3;                  /* basic strategy: hands of three cards or more, by state */
    int norder3;
    int state_start[64], state_total[64], state_soft[64], nstates;
};

uint64_t ca_key_of(const unsigned char *cnt);
int ca_map_find(const ctx *c, uint64_t key);
int ca_remaining(const ctx *c, const node *x, int u, int R[NR], int *N);
int ca_double_ok(const tw_ca_rules *r, const node *x);
int ca_class_of(const node *x, int *slot);
int ca_table_pick(const tw_ca_session *s, int u, int cls, int slot, unsigned allowed);
void ca_set_val(uval *v, int m, int action);
void ca_eval_hit(const ctx *c, int i, int u, int m, const int R[NR], int N);
int ca_main_eval(tw_ca_session *s, int u, int m);
int ca_ensure_splits(tw_ca_session *s, int m, uint32_t ups);
int ca_split_allowed(const tw_ca_session *s, const node *x, int u);
double ca_deal_prob(const tw_ca_session *s, const node *x, int u);
void ca_table_changed(tw_ca_session *s);

#endif
