/* tw_ca.c - exact combinatorial analysis (see tw_ca.h).
 *
 * Method.
 *
 * Dealer.  Every card sequence the dealer can draw (hole card, then hits until the rules make him
 * stand) is enumerated once per up card and rule (stands or hits soft 17), and grouped by the multiset
 * of its cards: off the top of a shoe, every ordering of one multiset has the same probability,
 * prod n_r (n_r - 1) ... / N (N - 1) ...  The multisets are stored in a trie, ranks in increasing order,
 * with each terminal's outcome and number of valid orderings; for a given shoe one pass over the trie
 * (one multiply per node) gives the outcome probabilities.  Busted multisets are left out (bust = 1 -
 * the rest) when the shoe holds at least as many cards as the dealer can ever draw; otherwise the
 * full trie is used and whatever is missing is the chance that the cards run out (counted as a push).
 *
 * Player.  A context enumerates every hand reachable by hitting from a root hand (hard total <= 21).
 * A hand's cards are removed from the shoe exactly, both for the player's next card and for the
 * dealer's cards.  The dealer's hole card is not removed while the player draws: every value is
 * unconditioned, a dealer Black Jack counting as a loss of the initial bet when the dealer peeks
 * (the double and split values are corrected for that), of every stake when he does not.  Values are
 * computed children first: stand, double (two cards), hit, and the value of the hand under the
 * strategy: the best of stand and hit (composition-dependent optimal), or the policy table.
 *
 * Splits.  A split hand is played from a context whose shoe lacks the other pair card and `a` further
 * pair cards (those drawn to resplit), rooted at one pair card.  Each hand's value depends only on its
 * own cards and the dealer's, because the strategy of a split hand looks at its own cards only: the
 * optimal strategy plays each split hand as the same cards would be played unsplit ("CDZ-"), the
 * table strategy by its chart.  By linearity and exchangeability the split's value is the sum over
 * hands of E[value | the pair and non-pair second cards dealt so far], and:
 *   X(a)    = value of a split hand whose second card is any card, `a` extra pair cards out;
 *   P(a)    = the same when its second card is the pair card (played, not resplit);
 *   N(a, 0) = (X(a) - q P(a)) / (1 - q), second card known not to be a pair card, q = P(pair card);
 *   F(a, b) = (F(a, b-1) - q F(a+1, b-1)) / (1 - q) for b further cards known not to be pair cards,
 * since removing an unseen card changes no expectation (for N, q is taken from the shoe less the
 * hand's own non-pair second card).  The sequences of second cards (pair card:
 * one hand more, up to the rules' maximum; other card: one hand completed) are walked with their
 * exact probabilities, and the hands of each ending are valued by N or X with the right a and b.
 * This is exact for the CDZ- and table strategies with resplits to any number of hands (the method of
 * Eric Farmer's paper on pair splitting, written anew here).  A pair is always resplit when allowed.
 *
 * Basic strategy.  The best total-dependent strategy is found state by state (hard/soft total, two
 * cards or more, pair), successors first, each state taking the action with the best average EV over
 * the hands that reach it, weighted by how often they are reached under the current strategy; the
 * weights are recomputed and the sweep repeated until nothing changes.
 */
#include "tw_ca.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NR 10
#define NONE (-1.0e9)
#define MAX_DEPTH 24
#define MAX_HANDS 8
#define MAX_A (2 * MAX_HANDS)
#define CHILD_BUST (-1)
#define CHILD_NONE (-2)
#define ALL_UPS 0x3FFu

/* ------------------------------------------------------------------------------------------------ */
/* Dealer tries                                                                                      */

typedef struct {
    int n;                    /* nodes; node 0 is the empty multiset */
    int *parent;
    unsigned char *rank, *kr, *depth;   /* rank added, its count before, cards before */
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
    t->parent = malloc((size_t)b.n * sizeof *t->parent);
    t->rank = malloc((size_t)b.n);
    t->kr = malloc((size_t)b.n);
    t->depth = malloc((size_t)b.n);
    t->nterm = 0;
    for (int i = 0; i < b.n; i++)
        t->nterm += b.v[i].out >= 0;
    t->term = malloc((size_t)(t->nterm + 1) * sizeof *t->term);
    t->term_out = malloc((size_t)t->nterm + 1);
    t->term_ways = malloc((size_t)(t->nterm + 1) * sizeof *t->term_ways);
    if (!t->parent || !t->rank || !t->kr || !t->depth || !t->term || !t->term_out || !t->term_ways) {
        free(b.v);
        return TW_CA_ENOMEM;
    }
    t->maxdepth = 0;
    int j = 0;
    for (int i = 0; i < b.n; i++) {
        t->parent[i] = b.v[i].parent;
        t->rank[i] = b.v[i].rank;
        t->kr[i] = b.v[i].kr;
        t->depth[i] = b.v[i].depth;
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

static int tries_ready(int h17)
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
static void dealer_probs(int h17, int up, const int *n, int N, double *w, double out[7])
{
    int full = N < TRIES[h17][1][up].maxdepth;
    const trie *t = &TRIES[h17][full][up];
    double inv[MAX_DEPTH + 1];
    for (int d = 0; d <= MAX_DEPTH; d++)
        inv[d] = N - d > 0 ? 1.0 / (N - d) : 0.0;
    w[0] = 1.0;
    const int *parent = t->parent;
    const unsigned char *rank = t->rank, *kr = t->kr, *depth = t->depth;
    for (int i = 1; i < t->n; i++) {
        int a = n[rank[i]] - kr[i];
        w[i] = a > 0 ? w[parent[i]] * a * inv[depth[i]] : 0.0;
    }
    for (int o = 0; o < 7; o++)
        out[o] = 0.0;
    for (int j = 0; j < t->nterm; j++)
        out[t->term_out[j]] += w[t->term[j]] * t->term_ways[j];
    if (!full) {
        double s = out[0] + out[1] + out[2] + out[3] + out[4] + out[6];
        out[5] = 1.0 - s > 0.0 ? 1.0 - s : 0.0;
    }
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
    if ((rc = tries_ready(hit_soft_17)))
        return rc;
    double *w = malloc((size_t)TRIE_MAX_NODES * sizeof *w);
    if (!w)
        return TW_CA_ENOMEM;
    dealer_probs(!!hit_soft_17, up, shoe, N, w, out);
    free(w);
    return TW_CA_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Hands and contexts                                                                                */

typedef struct {
    uint64_t key;
    unsigned char cnt[NR];
    unsigned char ncards, total, soft, pair;  /* pair: rank + 1 when two equal cards, else 0 */
    int child[NR];
    int main_idx;
    double st[NR], st2[NR], pbj[NR], db[NR], db2[NR];
    double hi[2][NR], hi2[2][NR], val[2][NR], val2[2][NR];
    double reach;
} node;

typedef struct {
    int base[NR];     /* the shoe minus the context's extra cards; hands are taken from it */
    node *v;
    int n, cap;
    int *map;         /* open addressing, node index + 1 */
    uint32_t mapcap;
    int naturals;     /* two-card 21 is a Black Jack here (not after a split) */
    uint32_t st_ready, ready[2];
} ctx;

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
    double *w;
    /* dealer outcome odds by the cards out of the shoe (a hand plus a split's extra pair cards) */
    struct dentry { uint64_t key; uint32_t ready; double p[NR][7]; } *dealer;
    int ndealer, capdealer;
    int *dmap;
    uint32_t dmapcap;
    int *order3;                  /* three-card-or-more hands in basic-strategy order */
    int norder3;
    int state_start[64], state_total[64], state_soft[64], nstates;
};

static uint64_t key_of(const unsigned char *cnt)
{
    uint64_t k = 1;
    for (int r = 0; r < NR; r++)
        k |= (uint64_t)cnt[r] << (1 + 5 * r);
    return k;
}

static uint32_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return (uint32_t)k;
}

/* The dealer's outcome odds for up card u once the cards `out` are out of the shoe (and u), from the
 * session's cache: split contexts share most of them with each other and with unsplit hands. */
static const double *dealer_cached(tw_ca_session *s, const unsigned char *out, int u, const int R[NR], int N)
{
    uint64_t key = key_of(out);
    if (2 * (uint32_t)(s->ndealer + 1) > s->dmapcap) {
        uint32_t cap = s->dmapcap ? 2 * s->dmapcap : 4096;
        int *map = calloc(cap, sizeof *map);
        if (!map)
            return NULL;
        for (int i = 0; i < s->ndealer; i++) {
            uint32_t h = hash64(s->dealer[i].key) & (cap - 1);
            while (map[h])
                h = (h + 1) & (cap - 1);
            map[h] = i + 1;
        }
        free(s->dmap);
        s->dmap = map;
        s->dmapcap = cap;
    }
    uint32_t m = s->dmapcap - 1, h = hash64(key) & m;
    while (s->dmap[h] && s->dealer[s->dmap[h] - 1].key != key)
        h = (h + 1) & m;
    int i = s->dmap[h] - 1;
    if (i < 0) {
        if (s->ndealer == s->capdealer) {
            int cap = s->capdealer ? 2 * s->capdealer : 1024;
            struct dentry *v = realloc(s->dealer, (size_t)cap * sizeof *v);
            if (!v)
                return NULL;
            s->dealer = v;
            s->capdealer = cap;
        }
        i = s->ndealer++;
        s->dealer[i].key = key;
        s->dealer[i].ready = 0;
        s->dmap[h] = i + 1;
    }
    struct dentry *e = &s->dealer[i];
    if (!(e->ready & (1u << u))) {
        dealer_probs(!!s->r.hit_soft_17, u, R, N, s->w, e->p[u]);
        e->ready |= 1u << u;
    }
    return e->p[u];
}

static int map_find(const ctx *c, uint64_t key)
{
    uint32_t m = c->mapcap - 1, h = hash64(key) & m;
    while (c->map[h]) {
        if (c->v[c->map[h] - 1].key == key)
            return c->map[h] - 1;
        h = (h + 1) & m;
    }
    return -1;
}

static int map_put(ctx *c, uint64_t key, int idx)
{
    if (2 * (uint32_t)(c->n + 1) > c->mapcap) {
        uint32_t cap = c->mapcap ? 2 * c->mapcap : 1024;
        int *map = calloc(cap, sizeof *map);
        if (!map)
            return TW_CA_ENOMEM;
        for (int i = 0; i < c->n; i++) {
            uint32_t h = hash64(c->v[i].key) & (cap - 1);
            while (map[h])
                h = (h + 1) & (cap - 1);
            map[h] = i + 1;
        }
        free(c->map);
        c->map = map;
        c->mapcap = cap;
    }
    uint32_t m = c->mapcap - 1, h = hash64(key) & m;
    while (c->map[h])
        h = (h + 1) & m;
    c->map[h] = idx + 1;
    return TW_CA_OK;
}

static void shape(node *x)
{
    int hard = 0, n = 0, pair = 0;
    for (int r = 0; r < NR; r++) {
        hard += x->cnt[r] * (r + 1);
        n += x->cnt[r];
        if (x->cnt[r] == 2)
            pair = r + 1;
    }
    x->ncards = (unsigned char)n;
    x->soft = x->cnt[0] > 0 && hard <= 11;
    x->total = (unsigned char)(x->soft ? hard + 10 : hard);
    x->pair = (unsigned char)(n == 2 ? pair : 0);
}

static int ctx_add(ctx *c, const unsigned char *cnt)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 256;
        node *v = realloc(c->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        c->v = v;
        c->cap = cap;
    }
    node *x = &c->v[c->n];
    memset(x, 0, sizeof *x);
    memcpy(x->cnt, cnt, NR);
    x->key = key_of(cnt);
    x->main_idx = -1;
    shape(x);
    if (map_put(c, x->key, c->n))
        return -1;
    return c->n++;
}

static void ctx_free(ctx *c)
{
    free(c->v);
    free(c->map);
    memset(c, 0, sizeof *c);
}

/* Every hand reachable from `root` by hitting, at most `depth` cards beyond it, breadth first. */
static int ctx_init(ctx *c, const int base[NR], const int root[NR], int depth, int naturals)
{
    unsigned char cnt[NR];
    int rootn = 0;
    memset(c, 0, sizeof *c);
    memcpy(c->base, base, sizeof c->base);
    c->naturals = naturals;
    for (int r = 0; r < NR; r++) {
        cnt[r] = (unsigned char)root[r];
        rootn += root[r];
    }
    if (ctx_add(c, cnt) < 0)
        return TW_CA_ENOMEM;
    for (int i = 0; i < c->n; i++) {
        for (int r = 0; r < NR; r++)
            c->v[i].child[r] = CHILD_NONE;
        if (c->v[i].ncards - rootn >= depth || (c->v[i].ncards >= 2 && c->v[i].total >= 21))
            continue;
        for (int r = 0; r < NR; r++) {
            if (base[r] - c->v[i].cnt[r] <= 0)
                continue;
            memcpy(cnt, c->v[i].cnt, NR);
            cnt[r]++;
            int hard = 0;
            for (int k = 0; k < NR; k++)
                hard += cnt[k] * (k + 1);
            if (hard > 21) {
                c->v[i].child[r] = CHILD_BUST;
                continue;
            }
            int j = map_find(c, key_of(cnt));
            if (j < 0 && (j = ctx_add(c, cnt)) < 0)
                return TW_CA_ENOMEM;
            c->v[i].child[r] = j;
        }
    }
    return TW_CA_OK;
}

/* The shoe left for up card u once hand x is dealt; 0 if that is impossible. */
static int remaining(const ctx *c, const node *x, int u, int R[NR], int *N)
{
    int s = 0;
    for (int r = 0; r < NR; r++) {
        R[r] = c->base[r] - x->cnt[r] - (r == u);
        if (R[r] < 0)
            return 0;
        s += R[r];
    }
    *N = s;
    return 1;
}

static int double_ok(const tw_ca_rules *r, const node *x)
{
    if (x->ncards != 2 || x->total >= 21)
        return 0;
    if (r->double_on == 0)
        return 1;
    int lo = r->double_on == 1 ? 9 : 10;
    return !x->soft && x->total >= lo && x->total <= 11;
}

static int max_hands(const tw_ca_rules *r, int p)
{
    if (r->split_hands < 2)
        return 1;
    if (p == 0 && !r->resplit_aces)
        return 2;
    return r->split_hands;
}

static int has_children(const node *x);

/* Stand and double values (and the dealer's Black Jack odds) of every hand against u. */
static void eval_stand(tw_ca_session *s, ctx *c, int u)
{
    if (c->st_ready & (1u << u))
        return;
    int peek = !!s->r.peek;
    double bj = s->r.blackjack_pays;
    for (int i = c->n - 1; i >= 0; i--) {
        node *x = &c->v[i];
        int R[NR], N;
        x->st[u] = x->st2[u] = x->pbj[u] = 0.0;
        x->db[u] = NONE;
        x->db2[u] = 0.0;
        if (x->ncards < 2 || !remaining(c, x, u, R, &N))
            continue;
        unsigned char out[NR];
        for (int r = 0; r < NR; r++)
            out[r] = (unsigned char)(s->shoe[r] - c->base[r] + x->cnt[r]);
        const double *d = dealer_cached(s, out, u, R, N);
        if (!d)
            continue;
        x->pbj[u] = d[6];
        if (c->naturals && x->ncards == 2 && x->total == 21) {
            x->st[u] = bj * (1.0 - d[6]);
            x->st2[u] = bj * bj * (1.0 - d[6]);
        } else {
            double win = d[5], lose = d[6];
            for (int k = 17; k <= 21; k++) {
                if (x->total > k)
                    win += d[k - 17];
                else if (x->total < k)
                    lose += d[k - 17];
            }
            x->st[u] = win - lose;
            x->st2[u] = win + lose;
        }
        if (x->ncards == 2 && x->total < 21 && N > 0 && has_children(x)) {
            double v = 0.0, v2 = 0.0;
            for (int r = 0; r < NR; r++) {
                if (R[r] <= 0)
                    continue;
                double p = (double)R[r] / N;
                int j = x->child[r];
                if (j == CHILD_BUST) {
                    v -= 2.0 * p;
                    v2 += 4.0 * p;
                } else if (j >= 0) {
                    v += 2.0 * p * c->v[j].st[u];
                    v2 += 4.0 * p * c->v[j].st2[u];
                }
            }
            if (peek) {
                v += x->pbj[u];
                v2 -= 3.0 * x->pbj[u];
            }
            x->db[u] = v;
            x->db2[u] = v2;
        }
    }
    c->st_ready |= 1u << u;
}

/* The policy table's choice among `allowed` (bit per action). */
static int table_pick(const tw_ca_session *s, int u, int cls, int slot, unsigned allowed)
{
    unsigned cell = s->table[u][cls][slot];
    for (int k = 0; k < 4; k++) {
        unsigned a = (cell >> (4 * k)) & 15u;
        if (!a)
            break;
        if (allowed & (1u << a))
            return (int)a;
    }
    return TW_CA_STAND;
}

static int class_of(const node *x, int *slot)
{
    if (x->ncards == 2 && x->pair) {
        *slot = x->pair - 1;
        return TW_CA_PAIR;
    }
    *slot = x->total;
    if (x->ncards == 2)
        return x->soft ? TW_CA_SOFT2 : TW_CA_HARD2;
    return x->soft ? TW_CA_SOFT3 : TW_CA_HARD3;
}

static void set_val(node *x, int m, int u, int action)
{
    if (action == TW_CA_HIT && x->hi[m][u] > NONE) {
        x->val[m][u] = x->hi[m][u];
        x->val2[m][u] = x->hi2[m][u];
    } else if (action == TW_CA_DOUBLE && x->db[u] > NONE) {
        x->val[m][u] = x->db[u];
        x->val2[m][u] = x->db2[u];
    } else {
        x->val[m][u] = x->st[u];
        x->val2[m][u] = x->st2[u];
    }
}

/* True if x was given children (it may be hit in its context). */
static int has_children(const node *x)
{
    for (int r = 0; r < NR; r++)
        if (x->child[r] != CHILD_NONE)
            return 1;
    return 0;
}

/* The hit value of x under mode m, from its children's values. */
static void eval_hit(const ctx *c, node *x, int u, int m, const int R[NR], int N)
{
    x->hi[m][u] = NONE;
    x->hi2[m][u] = 0.0;
    if (x->total >= 21 || N <= 0 || !has_children(x))
        return;
    double v = 0.0, v2 = 0.0;
    for (int r = 0; r < NR; r++) {
        if (R[r] <= 0)
            continue;
        double p = (double)R[r] / N;
        int j = x->child[r];
        if (j == CHILD_BUST) {
            v -= p;
            v2 += p;
        } else if (j >= 0) {
            v += p * c->v[j].val[m][u];
            v2 += p * c->v[j].val2[m][u];
        }
    }
    x->hi[m][u] = v;
    x->hi2[m][u] = v2;
}

/* Hit values and strategy values of every hand against u.  In the main context a hand of three
 * cards or more stands or hits; in a split context (split != 0) every hand of two cards or more
 * decides, two-card hands may double after splitting, and a split ace with one card stands. */
static void eval_play(tw_ca_session *s, ctx *c, int u, int m, int split, int aces_one)
{
    if (!split && (c->ready[m] & (1u << u)))
        return;
    for (int i = c->n - 1; i >= 0; i--) {
        node *x = &c->v[i];
        int R[NR], N;
        x->val[m][u] = x->val2[m][u] = 0.0;
        x->hi[m][u] = NONE;
        x->hi2[m][u] = 0.0;
        if (x->ncards < 2 || !remaining(c, x, u, R, &N))
            continue;
        eval_hit(c, x, u, m, R, N);
        if (!split && x->ncards < 3) {
            set_val(x, m, u, TW_CA_STAND);
            continue;
        }
        if (split && aces_one) {
            set_val(x, m, u, TW_CA_STAND);
            continue;
        }
        unsigned allowed = 1u << TW_CA_STAND;
        if (x->hi[m][u] > NONE)
            allowed |= 1u << TW_CA_HIT;
        if (split && s->r.double_after_split && double_ok(&s->r, x) && x->db[u] > NONE)
            allowed |= 1u << TW_CA_DOUBLE;
        int a = TW_CA_STAND;
        if (m == TW_CA_TABLE) {
            int slot, cls = class_of(x, &slot);
            a = table_pick(s, u, cls, slot, allowed);
        } else {
            /* optimal: unsplit hands by their own values; split hands as the same cards unsplit (CDZ-) */
            const node *y = split ? (x->main_idx >= 0 ? &s->main.v[x->main_idx] : NULL) : x;
            if (y) {
                double best = y->st[u];
                if ((allowed & (1u << TW_CA_HIT)) && y->hi[0][u] > best) {
                    best = y->hi[0][u];
                    a = TW_CA_HIT;
                }
                if ((allowed & (1u << TW_CA_DOUBLE)) && y->db[u] > best)
                    a = TW_CA_DOUBLE;
            }
        }
        set_val(x, m, u, a);
    }
    if (!split)
        c->ready[m] |= 1u << u;
}

static void main_eval(tw_ca_session *s, int u, int m)
{
    eval_stand(s, &s->main, u);
    eval_play(s, &s->main, u, m, 0, 0);
}

/* ------------------------------------------------------------------------------------------------ */
/* Splits                                                                                            */

typedef struct {
    int M;
    double n, m;
    const double (*X)[MAX_A], (*N)[MAX_A];
    int count_only;
} walk_t;

static double walk(const walk_t *w, int pending, int h, int a, int b, double prob)
{
    if (h == w->M) {
        if (w->count_only)
            return prob * h;
        return prob * ((b > 0 ? b * w->N[w->M - 2][b - 1] : 0.0) + pending * w->X[w->M - 2][b]);
    }
    if (pending == 0)
        return w->count_only ? prob * h : prob * h * w->N[h - 2][h - 1];
    double den = w->n - a - b;
    if (den <= 0.0)
        return 0.0;
    double qp = w->m - a > 0 ? (w->m - a) / den : 0.0, qx = w->n - w->m - b > 0 ? (w->n - w->m - b) / den : 0.0;
    double v = 0.0;
    if (qp > 0.0)
        v += walk(w, pending + 1, h + 1, a + 1, b, prob * qp);
    if (qx > 0.0)
        v += walk(w, pending - 1, h, a, b + 1, prob * qx);
    return v;
}

/* Value of splitting into at most M hands, from X(a) and P(a) for a = 0 .. 2M-4. */
static double split_combine(int M, double n, double m, const double *X, const double *P)
{
    double Xt[MAX_A][MAX_A], Nt[MAX_A][MAX_A];
    int amax = 2 * M - 4;
    memset(Xt, 0, sizeof Xt);
    memset(Nt, 0, sizeof Nt);
    for (int a = 0; a <= amax; a++) {
        double q = (m - a > 0 && n - a > 0) ? (m - a) / (n - a) : 0.0;
        Xt[a][0] = X[a];
        Nt[a][0] = q < 1.0 ? (X[a] - q * P[a]) / (1.0 - q) : 0.0;
    }
    /* One more unseen non-pair card out: it comes from the n - a - (b - 1) cards left, or, for a hand
     * whose own second card is known not to be a pair card (N), from those cards less that one. */
    for (int b = 1; b <= amax; b++)
        for (int a = 0; a + b <= amax; a++) {
            double den = n - a - b + 1, q = (m - a > 0 && den > 0) ? (m - a) / den : 0.0;
            if (q < 1.0)
                Xt[a][b] = (Xt[a][b - 1] - q * Xt[a + 1][b - 1]) / (1.0 - q);
            den -= 1.0;
            q = (m - a > 0 && den > 0) ? (m - a) / den : 0.0;
            if (q < 1.0)
                Nt[a][b] = (Nt[a][b - 1] - q * Nt[a + 1][b - 1]) / (1.0 - q);
        }
    walk_t w = { M, n, m, (const double (*)[MAX_A])Xt, (const double (*)[MAX_A])Nt, 0 };
    return walk(&w, 2, 2, 0, 0, 1.0);
}

static double expected_hands(int M, double n, double m)
{
    walk_t w = { M, n, m, NULL, NULL, 1 };
    return walk(&w, 2, 2, 0, 0, 1.0);
}

/* Split values of pair p against every up card in `ups`, under mode m. */
static int split_compute(tw_ca_session *s, int m, int p, uint32_t ups)
{
    int M = max_hands(&s->r, p);
    ups &= ~s->split_ready[m][p];
    if (M < 2 || !ups)
        return TW_CA_OK;
    if (M > MAX_HANDS)
        M = MAX_HANDS;
    int aces_one = p == 0 && s->r.split_aces_one_card;
    double X[MAX_A][NR], P[MAX_A][NR];
    memset(X, 0, sizeof X);
    memset(P, 0, sizeof P);
    if (m == TW_CA_OPTIMAL)
        for (int u = 0; u < NR; u++)
            if (ups & (1u << u))
                main_eval(s, u, TW_CA_OPTIMAL);
    for (int a = 0; a <= 2 * M - 4; a++) {
        if (s->shoe[p] < a + 2)
            break;
        int base[NR], root[NR] = { 0 };
        memcpy(base, s->shoe, sizeof base);
        base[p] -= a + 1;
        root[p] = 1;
        ctx c;
        if (ctx_init(&c, base, root, aces_one ? 1 : 64, 0)) {
            ctx_free(&c);
            return TW_CA_ENOMEM;
        }
        for (int i = 0; i < c.n; i++)
            c.v[i].main_idx = map_find(&s->main, c.v[i].key);
        for (int u = 0; u < NR; u++) {
            int R[NR], N;
            if (!(ups & (1u << u)) || !remaining(&c, &c.v[0], u, R, &N) || N <= 0)
                continue;
            eval_stand(s, &c, u);
            eval_play(s, &c, u, m, 1, aces_one);
            double x = 0.0;
            for (int r = 0; r < NR; r++) {
                int j = c.v[0].child[r];
                if (R[r] > 0 && j >= 0)
                    x += (double)R[r] / N * c.v[j].val[m][u];
            }
            X[a][u] = x;
            int j = c.v[0].child[p];
            P[a][u] = (R[p] > 0 && j >= 0) ? c.v[j].val[m][u] : 0.0;
        }
        ctx_free(&c);
    }
    for (int u = 0; u < NR; u++) {
        if (!(ups & (1u << u)))
            continue;
        int Z[NR], n = 0;
        memcpy(Z, s->shoe, sizeof Z);
        Z[u]--;
        Z[p] -= 2;
        for (int r = 0; r < NR; r++)
            n += Z[r];
        double xs[MAX_A], ps[MAX_A];
        for (int a = 0; a < MAX_A; a++) {
            xs[a] = X[a][u];
            ps[a] = P[a][u];
        }
        double v = NONE;
        if (Z[u] >= 0 && Z[p] >= 0 && n > 0) {
            v = split_combine(M, n, Z[p], xs, ps);
            if (s->r.peek && (u == 0 || u == 9)) {
                int hole = u == 0 ? 9 : 0;
                double pbj = (double)Z[hole] / n;
                if (pbj > 0.0)
                    v += (expected_hands(M, n - 1, Z[p] - (hole == p)) - 1.0) * pbj;
            }
        }
        s->split[m][p][u] = v;
        s->split_ready[m][p] |= 1u << u;
    }
    return TW_CA_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Sessions                                                                                          */

static int rules_ok(const tw_ca_rules *r)
{
    return r->blackjack_pays >= 0.0 && r->blackjack_pays <= 100.0 && r->double_on >= 0 && r->double_on <= 2
           && r->split_hands >= 1 && r->split_hands <= MAX_HANDS;
}

tw_ca_session *tw_ca_new(const int shoe[10], const tw_ca_rules *rules, const int root[10], int *err)
{
    int total = 0, rc, rootv[NR] = { 0 }, hard = 0, empty = 1;
    *err = TW_CA_OK;
    for (int r = 0; r < NR; r++) {
        if (shoe[r] < 0 || shoe[r] > 100000) {
            *err = TW_CA_EBADSHOE;
            return NULL;
        }
        total += shoe[r];
        if (root) {
            rootv[r] = root[r];
            if (root[r] < 0 || root[r] > shoe[r]) {
                *err = TW_CA_EBADHAND;
                return NULL;
            }
            hard += root[r] * (r + 1);
            empty &= root[r] == 0;
        }
    }
    if (total < 3) {
        *err = TW_CA_EBADSHOE;
        return NULL;
    }
    if (hard > 21) {
        *err = TW_CA_EBADHAND;
        return NULL;
    }
    if (!rules_ok(rules)) {
        *err = TW_CA_EBADRULES;
        return NULL;
    }
    if ((rc = tries_ready(rules->hit_soft_17))) {
        *err = rc;
        return NULL;
    }
    tw_ca_session *s = calloc(1, sizeof *s);
    if (!s) {
        *err = TW_CA_ENOMEM;
        return NULL;
    }
    memcpy(s->shoe, shoe, sizeof s->shoe);
    s->r = *rules;
    memcpy(s->root, rootv, sizeof s->root);
    s->empty_root = empty;
    s->w = malloc((size_t)TRIE_MAX_NODES * sizeof *s->w);
    if (!s->w || ctx_init(&s->main, s->shoe, s->root, 64, 1)) {
        tw_ca_free(s);
        *err = TW_CA_ENOMEM;
        return NULL;
    }
    return s;
}

void tw_ca_free(tw_ca_session *s)
{
    if (!s)
        return;
    ctx_free(&s->main);
    free(s->w);
    free(s->dealer);
    free(s->dmap);
    free(s->order3);
    free(s);
}

static void table_changed(tw_ca_session *s)
{
    s->main.ready[TW_CA_TABLE] = 0;
    memset(s->split_ready[TW_CA_TABLE], 0, sizeof s->split_ready[TW_CA_TABLE]);
}

int tw_ca_set_table(tw_ca_session *s, const uint16_t *table)
{
    memcpy(s->table, table, sizeof s->table);
    s->have_table = 1;
    table_changed(s);
    return TW_CA_OK;
}

static int split_allowed(const tw_ca_session *s, const node *x, int u)
{
    if (!x->pair || s->r.split_hands < 2)
        return 0;
    int p = x->pair - 1;
    return s->shoe[p] - (u == p) >= 2;
}

static double deal_prob(const tw_ca_session *s, const node *x, int u)
{
    double n[NR], N = 0;
    for (int r = 0; r < NR; r++) {
        n[r] = s->shoe[r] - (r == u);
        N += n[r];
    }
    if (N < 2)
        return 0.0;
    int a = -1, b = -1;
    for (int r = 0; r < NR; r++)
        for (int k = 0; k < x->cnt[r]; k++) {
            if (a < 0)
                a = r;
            else
                b = r;
        }
    if (a == b)
        return n[a] > 1 ? n[a] * (n[a] - 1) / (N * (N - 1)) : 0.0;
    return 2.0 * n[a] * n[b] / (N * (N - 1));
}

/* The first decision of two-card hand x against u: its action and value (value2 = second moment). */
static int first_decision(tw_ca_session *s, const node *x, int u, int m, double *value, double *value2)
{
    if (x->total == 21) {
        *value = x->st[u];
        *value2 = x->st2[u];
        return TW_CA_STAND;
    }
    double vals[6], v2s[6];
    unsigned allowed = 1u << TW_CA_STAND;
    vals[TW_CA_STAND] = x->st[u];
    v2s[TW_CA_STAND] = x->st2[u];
    if (x->hi[m][u] > NONE) {
        allowed |= 1u << TW_CA_HIT;
        vals[TW_CA_HIT] = x->hi[m][u];
        v2s[TW_CA_HIT] = x->hi2[m][u];
    }
    if (double_ok(&s->r, x) && x->db[u] > NONE) {
        allowed |= 1u << TW_CA_DOUBLE;
        vals[TW_CA_DOUBLE] = x->db[u];
        v2s[TW_CA_DOUBLE] = x->db2[u];
    }
    if (split_allowed(s, x, u) && s->split[m][x->pair - 1][u] > NONE) {
        allowed |= 1u << TW_CA_SPLIT;
        vals[TW_CA_SPLIT] = s->split[m][x->pair - 1][u];
        v2s[TW_CA_SPLIT] = 0.0;
    }
    if (s->r.surrender) {
        double pbj = x->pbj[u];
        allowed |= 1u << TW_CA_SURRENDER;
        vals[TW_CA_SURRENDER] = -0.5 - 0.5 * pbj;
        v2s[TW_CA_SURRENDER] = 0.25 * (1.0 - pbj) + pbj;
    }
    int a = TW_CA_STAND;
    if (m == TW_CA_TABLE) {
        int slot, cls = class_of(x, &slot);
        a = table_pick(s, u, cls, slot, allowed);
    } else {
        static const int order[] = { TW_CA_HIT, TW_CA_DOUBLE, TW_CA_SPLIT, TW_CA_SURRENDER };
        for (int k = 0; k < 4; k++)
            if ((allowed & (1u << order[k])) && vals[order[k]] > vals[a])
                a = order[k];
    }
    *value = vals[a];
    *value2 = v2s[a];
    return a;
}

static int ensure_splits(tw_ca_session *s, int m, uint32_t ups)
{
    if (s->r.split_hands < 2)
        return TW_CA_OK;
    for (int p = 0; p < NR; p++) {
        int rc = split_compute(s, m, p, ups);
        if (rc)
            return rc;
    }
    return TW_CA_OK;
}

int tw_ca_overall(tw_ca_session *s, int mode, double ev[10], double e2[10], double p[10], int *exact_e2)
{
    int total = 0, rc;
    if (!s->empty_root)
        return TW_CA_EBADHAND;
    if (mode == TW_CA_TABLE && !s->have_table)
        return TW_CA_ENOTABLE;
    for (int r = 0; r < NR; r++)
        total += s->shoe[r];
    uint32_t ups = 0;
    for (int u = 0; u < NR; u++)
        if (s->shoe[u] > 0) {
            ups |= 1u << u;
            main_eval(s, u, mode);
        }
    if ((rc = ensure_splits(s, mode, ups)))
        return rc;
    *exact_e2 = 1;
    for (int u = 0; u < NR; u++) {
        ev[u] = e2[u] = 0.0;
        p[u] = (double)s->shoe[u] / total;
        if (!(ups & (1u << u)))
            continue;
        for (int i = 0; i < s->main.n; i++) {
            const node *x = &s->main.v[i];
            int R[NR], N;
            if (x->ncards != 2 || !remaining(&s->main, x, u, R, &N))
                continue;
            double w = deal_prob(s, x, u), v, v2;
            if (w <= 0.0)
                continue;
            int a = first_decision(s, x, u, mode, &v, &v2);
            if (a == TW_CA_SPLIT)
                *exact_e2 = 0;
            ev[u] += w * v;
            e2[u] += w * v2;
        }
    }
    return TW_CA_OK;
}

int tw_ca_hand(tw_ca_session *s, const int hand[10], int up, int mode, tw_ca_values *out)
{
    unsigned char cnt[NR];
    int rc;
    if (up < 0 || up >= NR)
        return TW_CA_EBADUP;
    if (mode == TW_CA_TABLE && !s->have_table)
        return TW_CA_ENOTABLE;
    for (int r = 0; r < NR; r++) {
        if (hand[r] < 0 || hand[r] > 31)
            return TW_CA_EBADHAND;
        cnt[r] = (unsigned char)hand[r];
    }
    int idx = map_find(&s->main, key_of(cnt));
    if (idx < 0)
        return TW_CA_EBADHAND;
    node *x = &s->main.v[idx];
    int R[NR], N;
    if (x->ncards < 2)
        return TW_CA_EBADHAND;
    if (!remaining(&s->main, x, up, R, &N))
        return TW_CA_EBADUP;
    main_eval(s, up, mode);
    memset(out, 0, sizeof *out);
    out->stand = x->st[up];
    out->stand2 = x->st2[up];
    out->hit = out->dbl = out->split = out->surrender = NONE;
    out->p_blackjack = x->pbj[up];
    out->natural = x->ncards == 2 && x->total == 21;
    if (out->natural)
        return TW_CA_OK;
    if (x->hi[mode][up] > NONE) {
        out->can_hit = 1;
        out->hit = x->hi[mode][up];
        out->hit2 = x->hi2[mode][up];
    }
    if (x->ncards != 2)
        return TW_CA_OK;
    if (double_ok(&s->r, x) && x->db[up] > NONE) {
        out->can_double = 1;
        out->dbl = x->db[up];
        out->dbl2 = x->db2[up];
    }
    if (s->r.surrender) {
        out->can_surrender = 1;
        out->surrender = -0.5 - 0.5 * x->pbj[up];
        out->surrender2 = 0.25 * (1.0 - x->pbj[up]) + x->pbj[up];
    }
    if (split_allowed(s, x, up)) {
        if ((rc = split_compute(s, mode, x->pair - 1, 1u << up)))
            return rc;
        if (s->split[mode][x->pair - 1][up] > NONE) {
            out->can_split = 1;
            out->split = s->split[mode][x->pair - 1][up];
        }
    }
    return TW_CA_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Basic (total-dependent) strategy                                                                  */

static uint16_t pack(const int *acts, int k)
{
    uint16_t cell = 0;
    for (int i = 0; i < k && i < 4; i++)
        cell |= (uint16_t)(acts[i] << (4 * i));
    return cell;
}

/* Actions sorted by value, best first (ties keep the order given), up to the first stand or hit. */
static uint16_t preference(const int *acts, const double *vals, int k)
{
    int idx[6];
    for (int i = 0; i < k; i++) {
        int j = i;
        while (j > 0 && vals[idx[j - 1]] < vals[i]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    int out[6], n = 0;
    for (int i = 0; i < k; i++) {
        out[n++] = acts[idx[i]];
        if (acts[idx[i]] == TW_CA_STAND || acts[idx[i]] == TW_CA_HIT)
            break;
    }
    return pack(out, n);
}

static int first_action(uint16_t cell)
{
    return cell & 15;
}

/* Three-card-or-more hands grouped by state, in an order that puts every state after the states
 * its hits lead to: hard 21..11, soft 21..12, hard 10..4. */
static int build_order3(tw_ca_session *s)
{
    if (s->order3)
        return TW_CA_OK;
    s->order3 = malloc((size_t)(s->main.n + 1) * sizeof *s->order3);
    if (!s->order3)
        return TW_CA_ENOMEM;
    int k = 0, st = 0;
    for (int g = 0; g < 3; g++) {
        int soft = g == 1, hi = 21, lo = g == 0 ? 11 : g == 1 ? 12 : 4;
        if (g == 2)
            hi = 10;
        for (int t = hi; t >= lo; t--) {
            s->state_start[st] = k;
            s->state_total[st] = t;
            s->state_soft[st] = soft;
            for (int i = 0; i < s->main.n; i++) {
                const node *x = &s->main.v[i];
                if (x->ncards >= 3 && x->total == t && x->soft == soft)
                    s->order3[k++] = i;
            }
            st++;
        }
    }
    s->state_start[st] = k;
    s->nstates = st;
    s->norder3 = k;
    return TW_CA_OK;
}

static void td_reach(tw_ca_session *s, int u)
{
    ctx *c = &s->main;
    unsigned init_allowed = 1u << TW_CA_STAND | 1u << TW_CA_HIT;
    if (s->r.surrender)
        init_allowed |= 1u << TW_CA_SURRENDER;
    for (int i = 0; i < c->n; i++)
        c->v[i].reach = (c->v[i].ncards == 2 && c->v[i].total < 21) ? deal_prob(s, &c->v[i], u) : 0.0;
    for (int i = 0; i < c->n; i++) {
        node *x = &c->v[i];
        int R[NR], N;
        if (x->ncards < 2 || x->reach <= 0.0 || x->total >= 21 || !remaining(c, x, u, R, &N) || N <= 0)
            continue;
        unsigned allowed = 1u << TW_CA_STAND | 1u << TW_CA_HIT;
        if (x->ncards == 2) {
            allowed = init_allowed;
            if (double_ok(&s->r, x))
                allowed |= 1u << TW_CA_DOUBLE;
            if (split_allowed(s, x, u))
                allowed |= 1u << TW_CA_SPLIT;
        }
        int slot, cls = class_of(x, &slot);
        if (table_pick(s, u, cls, slot, allowed) != TW_CA_HIT)
            continue;
        for (int r = 0; r < NR; r++) {
            int j = x->child[r];
            if (R[r] > 0 && j >= 0)
                c->v[j].reach += x->reach * R[r] / N;
        }
    }
}

/* One state of three cards or more: stand or hit, by the reach-weighted EV of its hands. */
static void td_state3(tw_ca_session *s, int u, int st)
{
    ctx *c = &s->main;
    int t = s->state_total[st], soft = s->state_soft[st], cls = soft ? TW_CA_SOFT3 : TW_CA_HARD3;
    double sum_s = 0, sum_h = 0, w = 0, sum_s1 = 0, sum_h1 = 0, w1 = 0;
    int can_hit = 0;
    for (int k = s->state_start[st]; k < s->state_start[st + 1]; k++) {
        node *x = &c->v[s->order3[k]];
        int R[NR], N;
        if (!remaining(c, x, u, R, &N))
            continue;
        eval_hit(c, x, u, TW_CA_TABLE, R, N);
        if (x->hi[TW_CA_TABLE][u] <= NONE)
            continue;
        can_hit = 1;
        sum_s += x->reach * x->st[u];
        sum_h += x->reach * x->hi[TW_CA_TABLE][u];
        w += x->reach;
        sum_s1 += x->st[u];
        sum_h1 += x->hi[TW_CA_TABLE][u];
        w1 += 1;
    }
    if (w <= 0.0) {
        sum_s = sum_s1;
        sum_h = sum_h1;
        w = w1;
    }
    int acts[2] = { TW_CA_STAND, TW_CA_HIT };
    double vals[2] = { sum_s, sum_h };
    if (t >= 21 || !can_hit) {
        vals[0] = 1;
        vals[1] = 0;
    }
    s->table[u][cls][t] = preference(acts, vals, 2);
    int a = first_action(s->table[u][cls][t]);
    for (int k = s->state_start[st]; k < s->state_start[st + 1]; k++)
        set_val(&c->v[s->order3[k]], TW_CA_TABLE, u, a);
}

/* Two-card rows (by total) and pair rows (by rank), from the first-decision values. */
static void td_two_cards(tw_ca_session *s, int u)
{
    ctx *c = &s->main;
    double sums[2][TW_CA_SLOTS][6], ws[2][TW_CA_SLOTS];
    int have[2][TW_CA_SLOTS];
    memset(sums, 0, sizeof sums);
    memset(ws, 0, sizeof ws);
    memset(have, 0, sizeof have);
    for (int i = 0; i < c->n; i++) {
        node *x = &c->v[i];
        int R[NR], N;
        if (x->ncards != 2 || !remaining(c, x, u, R, &N))
            continue;
        eval_hit(c, x, u, TW_CA_TABLE, R, N);
        if (x->pair || x->total >= 21)
            continue;
        double w = deal_prob(s, x, u);
        int soft = x->soft, t = x->total;
        have[soft][t] = 1;
        ws[soft][t] += w;
        sums[soft][t][TW_CA_STAND] += w * x->st[u];
        sums[soft][t][TW_CA_HIT] += w * x->hi[TW_CA_TABLE][u];
        if (x->db[u] > NONE)
            sums[soft][t][TW_CA_DOUBLE] += w * x->db[u];
        sums[soft][t][TW_CA_SURRENDER] += w * (-0.5 - 0.5 * x->pbj[u]);
    }
    for (int soft = 0; soft < 2; soft++)
        for (int t = soft ? 12 : 4; t <= 21; t++) {
            int cls = soft ? TW_CA_SOFT2 : TW_CA_HARD2;
            node fake;
            memset(&fake, 0, sizeof fake);
            fake.ncards = 2;
            fake.total = (unsigned char)t;
            fake.soft = (unsigned char)soft;
            int acts[6], k = 0;
            double vals[6], *sm = sums[soft][t];
            if (t == 21) {
                s->table[u][cls][t] = TW_CA_STAND;
                continue;
            }
            if (!have[soft][t] || ws[soft][t] <= 0.0) {
                /* no hand of this kind but a pair (hard 4, hard 20, soft 12): that pair's values */
                int p = soft ? 0 : (t == 4 ? 1 : t == 20 ? 9 : -1);
                unsigned char cnt[NR] = { 0 };
                int j = -1;
                if (p >= 0) {
                    cnt[p] = 2;
                    j = map_find(c, key_of(cnt));
                }
                int R[NR], N;
                if (j < 0 || !remaining(c, &c->v[j], u, R, &N)) {
                    s->table[u][cls][t] = t >= 17 ? pack((int[]){ TW_CA_STAND, TW_CA_HIT }, 2)
                                                  : pack((int[]){ TW_CA_HIT, TW_CA_STAND }, 2);
                    continue;
                }
                const node *y = &c->v[j];
                sm[TW_CA_STAND] = y->st[u];
                sm[TW_CA_HIT] = y->hi[TW_CA_TABLE][u];
                sm[TW_CA_DOUBLE] = y->db[u];
                sm[TW_CA_SURRENDER] = -0.5 - 0.5 * y->pbj[u];
            }
            acts[k] = TW_CA_STAND;
            vals[k++] = sm[TW_CA_STAND];
            acts[k] = TW_CA_HIT;
            vals[k++] = sm[TW_CA_HIT];
            if (double_ok(&s->r, &fake)) {
                acts[k] = TW_CA_DOUBLE;
                vals[k++] = sm[TW_CA_DOUBLE];
            }
            if (s->r.surrender) {
                acts[k] = TW_CA_SURRENDER;
                vals[k++] = sm[TW_CA_SURRENDER];
            }
            s->table[u][cls][t] = preference(acts, vals, k);
        }
    for (int p = 0; p < NR; p++) {
        unsigned char cnt[NR] = { 0 };
        cnt[p] = 2;
        int j = map_find(c, key_of(cnt)), R[NR], N;
        if (j < 0 || !remaining(c, &c->v[j], u, R, &N)) {
            s->table[u][TW_CA_PAIR][p] = pack((int[]){ TW_CA_HIT, TW_CA_STAND }, 2);
            continue;
        }
        const node *y = &c->v[j];
        int acts[6], k = 0;
        double vals[6];
        acts[k] = TW_CA_STAND;
        vals[k++] = y->st[u];
        if (y->hi[TW_CA_TABLE][u] > NONE) {
            acts[k] = TW_CA_HIT;
            vals[k++] = y->hi[TW_CA_TABLE][u];
        }
        if (double_ok(&s->r, y) && y->db[u] > NONE) {
            acts[k] = TW_CA_DOUBLE;
            vals[k++] = y->db[u];
        }
        if (split_allowed(s, y, u) && (s->split_ready[TW_CA_TABLE][p] & (1u << u))
            && s->split[TW_CA_TABLE][p][u] > NONE) {
            acts[k] = TW_CA_SPLIT;
            vals[k++] = s->split[TW_CA_TABLE][p][u];
        }
        if (s->r.surrender) {
            acts[k] = TW_CA_SURRENDER;
            vals[k++] = -0.5 - 0.5 * y->pbj[u];
        }
        s->table[u][TW_CA_PAIR][p] = preference(acts, vals, k);
    }
}

static void td_up(tw_ca_session *s, int u)
{
    for (int iter = 0; iter < 40; iter++) {
        uint16_t old[TW_CA_CLASSES][TW_CA_SLOTS];
        memcpy(old, s->table[u], sizeof old);
        td_reach(s, u);
        for (int st = 0; st < s->nstates; st++)
            td_state3(s, u, st);
        td_two_cards(s, u);
        if (!memcmp(old, s->table[u], sizeof old))
            break;
    }
}

int tw_ca_basic(tw_ca_session *s, uint16_t *table)
{
    int rc;
    if (!s->empty_root)
        return TW_CA_EBADHAND;
    if ((rc = build_order3(s)))
        return rc;
    for (int u = 0; u < NR; u++)
        for (int cls = 0; cls < TW_CA_CLASSES; cls++)
            for (int t = 0; t < TW_CA_SLOTS; t++) {
                int stand = cls == TW_CA_PAIR ? 0 : t >= ((cls == TW_CA_SOFT2 || cls == TW_CA_SOFT3) ? 18 : 17);
                s->table[u][cls][t] = stand ? pack((int[]){ TW_CA_STAND, TW_CA_HIT }, 2)
                                            : pack((int[]){ TW_CA_HIT, TW_CA_STAND }, 2);
            }
    s->have_table = 1;
    table_changed(s);
    uint32_t ups = 0;
    for (int u = 0; u < NR; u++)
        if (s->shoe[u] > 0) {
            ups |= 1u << u;
            eval_stand(s, &s->main, u);
        }
    for (int round = 0; round < 6; round++) {
        uint16_t before[NR][TW_CA_CLASSES][TW_CA_SLOTS];
        memcpy(before, s->table, sizeof before);
        for (int u = 0; u < NR; u++)
            if (ups & (1u << u))
                td_up(s, u);
        if (s->r.split_hands < 2)
            break;
        table_changed(s);
        if ((rc = ensure_splits(s, TW_CA_TABLE, ups)))
            return rc;
        for (int u = 0; u < NR; u++)
            if (ups & (1u << u))
                td_two_cards(s, u);
        if (!memcmp(before, s->table, sizeof before))
            break;
    }
    table_changed(s);
    memcpy(table, s->table, sizeof s->table);
    return TW_CA_OK;
}
