/* tw_ca_dealer.c - the dealer's outcome odds for any shoe, from tries of card multisets.
 *
 * Every card sequence the dealer can draw (hole card, then hits until the rules make him stand) is
 * enumerated once per up card and rule (stands or hits soft 17) and grouped by the multiset of its
 * cards: off the top of a shoe, every ordering of one multiset has the same probability,
 * prod n_r (n_r - 1) ... / N (N - 1) ...  The multisets are stored in a trie, ranks in increasing
 * order, each terminal with its outcome and its number of valid orderings; for a given shoe one pass
 * over the trie (one multiply per node) gives the outcome probabilities.  Busted multisets are left
 * out (bust = 1 - the rest) when the shoe holds at least as many cards as the dealer can ever draw;
 * otherwise the full trie is used, and whatever is missing is the chance that the cards run out.
 */
#include "tw_ca_int.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* Dealer tries                                                                                      */

typedef struct {
    int32_t parent;
    uint8_t rk;      /* rank * MAX_KR + count of that rank before it: the factor n_rank - count */
    uint8_t depth;   /* cards before it: the divisor N - depth */
} tnode;

#define MAX_KR 16

typedef struct {
    int n;                    /* nodes; node 0 is the empty multiset */
    tnode *node;
    int nterm;
    int *term;                /* terminal node indices */
    unsigned char *term_out;  /* their outcome 0..6 */
    double *term_ways;        /* their number of valid orderings */
    int maxdepth;             /* most cards a multiset holds */
} trie;

static trie TRIES[2][2][NR];  /* [hit_soft_17][with busts][up] */
static int TRIES_READY[2];
static int TRIE_MAX_NODES;

typedef struct {
    int child[NR];
    int parent;
    unsigned char rank, kr, depth;
    signed char out;
    double ways;
} bnode;

typedef struct {
    bnode *v;
    int n, cap, failed;
} builder;

static int b_add(builder *b, int parent, int rank, int kr, int depth)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 1024;
        bnode *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v) {
            b->failed = 1;
            return -1;
        }
        b->v = v;
        b->cap = cap;
    }
    bnode *x = &b->v[b->n];
    memset(x, 0, sizeof *x);
    x->parent = parent;
    x->rank = (unsigned char)rank;
    x->kr = (unsigned char)kr;
    x->depth = (unsigned char)depth;
    x->out = -1;
    return b->n++;
}

static void b_insert(builder *b, const int *cards, int k, int out)
{
    int s[MAX_DEPTH], cnt[NR] = { 0 }, cur = 0;
    for (int i = 0; i < k; i++) {
        int j = i;
        while (j > 0 && s[j - 1] > cards[i]) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = cards[i];
    }
    for (int i = 0; i < k && !b->failed; i++) {
        int r = s[i], c = b->v[cur].child[r];
        if (!c) {
            c = b_add(b, cur, r, cnt[r], i);
            if (c < 0)
                return;
            b->v[cur].child[r] = c;
        }
        cnt[r]++;
        cur = c;
    }
    if (!b->failed) {
        b->v[cur].out = (signed char)out;
        b->v[cur].ways += 1.0;
    }
}

static void b_deal(builder *b, int h17, int busts, int hard, int ace, int ncards, int *cards, int k)
{
    int soft = ace && hard <= 11, total = soft ? hard + 10 : hard;
    if (ncards >= 2) {
        if (ncards == 2 && total == 21) {
            b_insert(b, cards, k, 6);
            return;
        }
        if (total > 21) {
            if (busts)
                b_insert(b, cards, k, 5);
            return;
        }
        if (total >= 18 || (total == 17 && !(soft && h17))) {
            b_insert(b, cards, k, total - 17);
            return;
        }
    }
    if (k >= MAX_DEPTH - 1) {
        b->failed = 1;
        return;
    }
    for (int r = 0; r < NR; r++) {
        cards[k] = r;
        b_deal(b, h17, busts, hard + r + 1, ace || r == 0, ncards + 1, cards, k + 1);
    }
}

static int trie_build(trie *t, int h17, int busts, int up)
{
    builder b = { 0 };
    int cards[MAX_DEPTH];
    b_add(&b, -1, 0, 0, 0);
    b_deal(&b, h17, busts, up + 1, up == 0, 1, cards, 0);
    if (b.failed) {
        free(b.v);
        return TW_CA_ENOMEM;
    }
    t->n = b.n;
    t->node = malloc((size_t)b.n * sizeof *t->node);
    t->nterm = 0;
    for (int i = 0; i < b.n; i++)
        t->nterm += b.v[i].out >= 0;
    t->term = malloc((size_t)(t->nterm + 1) * sizeof *t->term);
    t->term_out = malloc((size_t)t->nterm + 1);
    t->term_ways = malloc((size_t)(t->nterm + 1) * sizeof *t->term_ways);
    if (!t->node || !t->term || !t->term_out || !t->term_ways) {
        free(b.v);
        return TW_CA_ENOMEM;
    }
    t->maxdepth = 0;
    int j = 0;
    for (int i = 0; i < b.n; i++) {
        if (b.v[i].kr >= MAX_KR) {
            free(b.v);
            return TW_CA_ENOMEM;
        }
        t->node[i].parent = b.v[i].parent;
        t->node[i].rk = (uint8_t)(b.v[i].rank * MAX_KR + b.v[i].kr);
        t->node[i].depth = b.v[i].depth;
        if (b.v[i].depth + 1 > t->maxdepth)
            t->maxdepth = b.v[i].depth + 1;
        if (b.v[i].out >= 0) {
            t->term[j] = i;
            t->term_out[j] = (unsigned char)b.v[i].out;
            t->term_ways[j] = b.v[i].ways;
            j++;
        }
    }
    if (b.n > TRIE_MAX_NODES)
        TRIE_MAX_NODES = b.n;
    free(b.v);
    return TW_CA_OK;
}

int ca_tries_ready(int h17)
{
    h17 = !!h17;
    if (TRIES_READY[h17])
        return TW_CA_OK;
    for (int busts = 0; busts < 2; busts++)
        for (int up = 0; up < NR; up++) {
            int rc = trie_build(&TRIES[h17][busts][up], h17, busts, up);
            if (rc)
                return rc;
        }
    TRIES_READY[h17] = 1;
    return TW_CA_OK;
}

/* Outcome probabilities for `up` from the counts n (up card already out), N = sum of n. */
void ca_dealer_probs(int h17, int up, const int *n, int N, double *w, double out[7])
{
    int full = N < TRIES[h17][1][up].maxdepth;
    const trie *t = &TRIES[h17][full][up];
    double inv[MAX_DEPTH + 1], fac[NR * MAX_KR];
    for (int d = 0; d <= t->maxdepth; d++)
        inv[d] = N - d > 0 ? 1.0 / (N - d) : 0.0;
    for (int r = 0; r < NR; r++)
        for (int k = 0; k < MAX_KR; k++)
            fac[r * MAX_KR + k] = n[r] - k > 0 ? n[r] - k : 0;
    w[0] = 1.0;
    const tnode *node = t->node;
    for (int i = 1; i < t->n; i++)
        w[i] = w[node[i].parent] * fac[node[i].rk] * inv[node[i].depth];
    for (int o = 0; o < 7; o++)
        out[o] = 0.0;
    for (int j = 0; j < t->nterm; j++)
        out[t->term_out[j]] += w[t->term[j]] * t->term_ways[j];
    if (!full) {
        double s = out[0] + out[1] + out[2] + out[3] + out[4] + out[6];
        out[5] = 1.0 - s > 0.0 ? 1.0 - s : 0.0;
    }
}

int ca_trie_max_nodes(void)
{
    return TRIE_MAX_NODES;
}

int tw_ca_dealer(const int shoe[10], int up, int hit_soft_17, double out[7])
{
    int N = 0, rc;
    if (up < 0 || up >= NR)
        return TW_CA_EBADUP;
    for (int r = 0; r < NR; r++) {
        if (shoe[r] < 0)
            return TW_CA_EBADSHOE;
        N += shoe[r];
    }
    if ((rc = ca_tries_ready(hit_soft_17)))
        return rc;
    double *w = malloc((size_t)TRIE_MAX_NODES * sizeof *w);
    if (!w)
        return TW_CA_ENOMEM;
    ca_dealer_probs(!!hit_soft_17, up, shoe, N, w, out);
    free(w);
    return TW_CA_OK;
}
