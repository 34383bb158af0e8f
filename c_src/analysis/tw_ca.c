/* tw_ca.c - exact values of every decision of one hand off any shoe (see tw_ca.h).
 *
 * Player.  A context enumerates every hand reachable by hitting from a root hand (hard total <= 21).
 * A hand's cards are removed from the shoe exactly, both for the player's next card and for the
 * dealer's cards (tw_ca_dealer.c).  The dealer's hole card is not removed while the player draws:
 * every value is unconditioned, a dealer Black Jack counting as a loss of the initial bet when the
 * dealer peeks (the double and split values are corrected for that), of every stake when he does
 * not.  Values are computed children first: stand, double (two cards), hit, and the value of the hand
 * under the strategy: the best of stand and hit (composition-dependent optimal), or the policy table.
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
 * hand's own non-pair second card).  The sequences of second cards (pair card: one hand more, up to
 * the rules' maximum; other card: one hand completed) are walked with their exact probabilities, and
 * the hands of each ending are valued by N or X with the right a and b.  This is exact for the CDZ-
 * and table strategies with resplits to any number of hands (the method of Eric Farmer's paper on
 * pair splitting, written anew here).  A pair is always resplit when the rules allow it.
 */
#include "tw_ca_int.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------------ */
/* Keys, maps and contexts                                                                           */

uint64_t ca_key_of(const unsigned char *cnt)
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

/* Grow an open-addressing map (index + 1 per slot) to hold n + 1 keys at half load. */
static int map_grow(int **map, uint32_t *cap, int n, uint64_t (*key)(const void *, int), const void *owner)
{
    if (2 * (uint32_t)(n + 1) <= *cap)
        return TW_CA_OK;
    uint32_t c = *cap ? 2 * *cap : 1024;
    int *m = calloc(c, sizeof *m);
    if (!m)
        return TW_CA_ENOMEM;
    for (int i = 0; i < n; i++) {
        uint32_t h = hash64(key(owner, i)) & (c - 1);
        while (m[h])
            h = (h + 1) & (c - 1);
        m[h] = i + 1;
    }
    free(*map);
    *map = m;
    *cap = c;
    return TW_CA_OK;
}

static uint64_t node_key(const void *c, int i)
{
    return ((const ctx *)c)->v[i].key;
}

static uint64_t dealer_key(const void *s, int i)
{
    return ((const tw_ca_session *)s)->dealer[i].key;
}

int ca_map_find(const ctx *c, uint64_t key)
{
    if (!c->mapcap)
        return -1;
    uint32_t m = c->mapcap - 1, h = hash64(key) & m;
    while (c->map[h]) {
        if (c->v[c->map[h] - 1].key == key)
            return c->map[h] - 1;
        h = (h + 1) & m;
    }
    return -1;
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
    if (map_grow(&c->map, &c->mapcap, c->n, node_key, c))
        return -1;
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
    x->key = ca_key_of(cnt);
    x->main_idx = -1;
    shape(x);
    uint32_t m = c->mapcap - 1, h = hash64(x->key) & m;
    while (c->map[h])
        h = (h + 1) & m;
    c->map[h] = c->n + 1;
    return c->n++;
}

static void ctx_free(ctx *c)
{
    for (int u = 0; u < NR; u++)
        free(c->uv[u]);
    free(c->v);
    free(c->map);
    memset(c, 0, sizeof *c);
}

/* Every hand reachable from `root` by hitting, at most `depth` cards beyond it, breadth first (so a
 * hand's children always come after it). */
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
            int j = ca_map_find(c, ca_key_of(cnt));
            if (j < 0 && (j = ctx_add(c, cnt)) < 0)
                return TW_CA_ENOMEM;
            c->v[i].child[r] = j;
        }
    }
    return TW_CA_OK;
}

static uval *ctx_up(ctx *c, int u)
{
    if (!c->uv[u])
        c->uv[u] = calloc((size_t)c->n, sizeof **c->uv);
    return c->uv[u];
}

/* The shoe left for up card u once hand x is dealt; 0 if that is impossible. */
int ca_remaining(const ctx *c, const node *x, int u, int R[NR], int *N)
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

int ca_double_ok(const tw_ca_rules *r, const node *x)
{
    if (x->ncards != 2 || x->total >= 21)
        return 0;
    if (r->double_on == 0)
        return 1;
    if (r->double_on == 3)
        return 0;
    int lo = r->double_on == 1 ? 9 : 10;
    return !x->soft && x->total >= lo && x->total <= 11;
}

static int has_children(const node *x)
{
    for (int r = 0; r < NR; r++)
        if (x->child[r] != CHILD_NONE)
            return 1;
    return 0;
}

static int max_hands(const tw_ca_rules *r, int p)
{
    if (r->split_hands < 2)
        return 1;
    if (p == 0 && !r->resplit_aces)
        return 2;
    return r->split_hands > MAX_HANDS ? MAX_HANDS : r->split_hands;
}

/* ------------------------------------------------------------------------------------------------ */
/* Values                                                                                            */

/* The dealer's odds for up card u once the cards `out` are out of the shoe (and u), from the
 * session's cache: split contexts share most of them with each other and with unsplit hands. */
static const double *dealer_cached(tw_ca_session *s, const unsigned char *out, int u, const int R[NR], int N)
{
    uint64_t key = ca_key_of(out);
    if (map_grow(&s->dmap, &s->dmapcap, s->ndealer, dealer_key, s))
        return NULL;
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
        ca_dealer_probs(!!s->r.hit_soft_17, u, R, N, s->w, e->p[u]);
        e->ready |= 1u << u;
    }
    return e->p[u];
}

/* Stand value (and second moment, and the dealer's Black Jack odds) of hand i against u. */
static int stand_one(tw_ca_session *s, ctx *c, int i, int u)
{
    uval *v = &c->uv[u][i];
    if (v->have_st)
        return v->have_st == 1;
    const node *x = &c->v[i];
    int R[NR], N;
    v->have_st = 2;
    v->db = NONE;
    if (x->ncards < 2 || !ca_remaining(c, x, u, R, &N))
        return 0;
    unsigned char out[NR];
    for (int r = 0; r < NR; r++)
        out[r] = (unsigned char)(s->shoe[r] - c->base[r] + x->cnt[r]);
    const double *d = dealer_cached(s, out, u, R, N);
    if (!d)
        return 0;
    double bj = s->r.blackjack_pays;
    v->pbj = d[6];
    if (c->naturals && x->ncards == 2 && x->total == 21) {
        v->st = bj * (1.0 - d[6]);
        v->st2 = bj * bj * (1.0 - d[6]);
    } else {
        double win = d[5], lose = d[6];
        for (int k = 17; k <= 21; k++) {
            if (x->total > k)
                win += d[k - 17];
            else if (x->total < k)
                lose += d[k - 17];
        }
        v->st = win - lose;
        v->st2 = win + lose;
    }
    v->have_st = 1;
    return 1;
}

/* Double value of two-card hand i against u (its children's stand values are computed as needed). */
static void double_one(tw_ca_session *s, ctx *c, int i, int u)
{
    const node *x = &c->v[i];
    uval *v = &c->uv[u][i];
    int R[NR], N;
    v->db = NONE;
    v->db2 = 0.0;
    if (x->ncards != 2 || x->total >= 21 || !has_children(x) || !ca_remaining(c, x, u, R, &N) || N <= 0)
        return;
    double d = 0.0, d2 = 0.0;
    for (int r = 0; r < NR; r++) {
        if (R[r] <= 0)
            continue;
        double p = (double)R[r] / N;
        int j = x->child[r];
        if (j == CHILD_BUST) {
            d -= 2.0 * p;
            d2 += 4.0 * p;
        } else if (j >= 0 && stand_one(s, c, j, u)) {
            d += 2.0 * p * c->uv[u][j].st;
            d2 += 4.0 * p * c->uv[u][j].st2;
        }
    }
    if (s->r.peek) {
        d += v->pbj;
        d2 -= 3.0 * v->pbj;
    }
    v->db = d;
    v->db2 = d2;
}

/* The policy table's choice among `allowed` (bit per action). */
int ca_table_pick(const tw_ca_session *s, int u, int cls, int slot, unsigned allowed)
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

int ca_class_of(const node *x, int *slot)
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

void ca_set_val(uval *v, int m, int action)
{
    if (action == TW_CA_HIT && v->hi[m] > NONE) {
        v->val[m] = v->hi[m];
        v->val2[m] = v->hi2[m];
    } else if (action == TW_CA_DOUBLE && v->db > NONE) {
        v->val[m] = v->db;
        v->val2[m] = v->db2;
    } else {
        v->val[m] = v->st;
        v->val2[m] = v->st2;
    }
}

/* The hit value of hand i under mode m, from its children's values. */
void ca_eval_hit(const ctx *c, int i, int u, int m, const int R[NR], int N)
{
    const node *x = &c->v[i];
    uval *v = &c->uv[u][i];
    v->hi[m] = NONE;
    v->hi2[m] = 0.0;
    if (x->total >= 21 || N <= 0 || !has_children(x))
        return;
    double h = 0.0, h2 = 0.0;
    for (int r = 0; r < NR; r++) {
        if (R[r] <= 0)
            continue;
        double p = (double)R[r] / N;
        int j = x->child[r];
        if (j == CHILD_BUST) {
            h -= p;
            h2 += p;
        } else if (j >= 0) {
            h += p * c->uv[u][j].val[m];
            h2 += p * c->uv[u][j].val2[m];
        }
    }
    v->hi[m] = h;
    v->hi2[m] = h2;
}

/* Every value of every unsplit hand against u under mode m: hands of three cards or more stand or hit
 * (the better for OPTIMAL, the table's choice for TABLE); two-card hands get stand, hit and double. */
int ca_main_eval(tw_ca_session *s, int u, int m)
{
    ctx *c = &s->main;
    if (!ctx_up(c, u))
        return TW_CA_ENOMEM;
    if (!(c->st_ready & (1u << u))) {
        for (int i = c->n - 1; i >= 0; i--)
            stand_one(s, c, i, u);
        for (int i = c->n - 1; i >= 0; i--)
            double_one(s, c, i, u);
        c->st_ready |= 1u << u;
    }
    if (c->ready[m] & (1u << u))
        return TW_CA_OK;
    for (int i = c->n - 1; i >= 0; i--) {
        const node *x = &c->v[i];
        uval *v = &c->uv[u][i];
        int R[NR], N;
        v->val[m] = v->val2[m] = 0.0;
        v->hi[m] = NONE;
        if (x->ncards < 2 || !ca_remaining(c, x, u, R, &N))
            continue;
        ca_eval_hit(c, i, u, m, R, N);
        int a = TW_CA_STAND;
        if (x->ncards >= 3) {
            if (m == TW_CA_TABLE) {
                int slot, cls = ca_class_of(x, &slot);
                unsigned allowed = 1u << TW_CA_STAND | (v->hi[m] > NONE ? 1u << TW_CA_HIT : 0u);
                a = ca_table_pick(s, u, cls, slot, allowed);
            } else if (v->hi[m] > v->st) {
                a = TW_CA_HIT;
            }
        }
        ca_set_val(v, m, a);
    }
    c->ready[m] |= 1u << u;
    return TW_CA_OK;
}

/* Values of the hands of a split context against u under mode m.  Every hand of two cards or more
 * decides: two-card hands may double after splitting, a split ace with one card stands.  Stand
 * values (the dealer's odds) are computed only for hands the strategy stands on or doubles to. */
static int split_ctx_eval(tw_ca_session *s, ctx *c, int u, int m, int aces_one)
{
    if (!ctx_up(c, u))
        return TW_CA_ENOMEM;
    const uval *mv = s->main.uv[u];
    for (int i = c->n - 1; i >= 0; i--) {
        const node *x = &c->v[i];
        uval *v = &c->uv[u][i];
        int R[NR], N;
        v->val[m] = v->val2[m] = 0.0;
        v->hi[m] = NONE;
        v->db = NONE;
        if (x->ncards < 2 || !ca_remaining(c, x, u, R, &N))
            continue;
        int a = TW_CA_STAND;
        if (!aces_one) {
            ca_eval_hit(c, i, u, m, R, N);
            unsigned allowed = 1u << TW_CA_STAND;
            if (v->hi[m] > NONE)
                allowed |= 1u << TW_CA_HIT;
            if (s->r.double_after_split && ca_double_ok(&s->r, x) && has_children(x) && N > 0)
                allowed |= 1u << TW_CA_DOUBLE;
            if (m == TW_CA_TABLE) {
                int slot, cls = ca_class_of(x, &slot);
                a = ca_table_pick(s, u, cls, slot, allowed);
            } else if (x->main_idx >= 0) {
                /* CDZ-: as the same cards would be played unsplit */
                const uval *y = &mv[x->main_idx];
                double best = y->st;
                if ((allowed & (1u << TW_CA_HIT)) && y->hi[TW_CA_OPTIMAL] > best) {
                    best = y->hi[TW_CA_OPTIMAL];
                    a = TW_CA_HIT;
                }
                if ((allowed & (1u << TW_CA_DOUBLE)) && y->db > best)
                    a = TW_CA_DOUBLE;
            }
        }
        if (a == TW_CA_DOUBLE) {
            stand_one(s, c, i, u);
            double_one(s, c, i, u);
        } else if (a == TW_CA_STAND) {
            stand_one(s, c, i, u);
        }
        ca_set_val(v, m, a);
    }
    return TW_CA_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Splits                                                                                            */

typedef struct {
    int M;
    double n, m;
    const double (*X)[MAX_A], (*N)[MAX_A];
    int count_only;
} walk_t;

/* Sum over the sequences of second cards from this point: pending hands still to get one, h hands,
 * a pair cards and b other cards drawn so far, prob the sequence's probability. */
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

/* Value of splitting into at most M hands from X(a) and P(a), a = 0 .. 2M-4; n cards left after the
 * up card and the pair, m of them pair cards. */
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
    int M = max_hands(&s->r, p), rc;
    ups &= ~s->split_ready[m][p];
    if (M < 2 || !ups)
        return TW_CA_OK;
    int aces_one = p == 0 && s->r.split_aces_one_card;
    double X[MAX_A][NR], P[MAX_A][NR];
    memset(X, 0, sizeof X);
    memset(P, 0, sizeof P);
    if (m == TW_CA_OPTIMAL)
        for (int u = 0; u < NR; u++)
            if ((ups & (1u << u)) && (rc = ca_main_eval(s, u, TW_CA_OPTIMAL)))
                return rc;
    for (int a = 0; a <= 2 * M - 4 && s->shoe[p] >= a + 2; a++) {
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
            c.v[i].main_idx = ca_map_find(&s->main, c.v[i].key);
        for (int u = 0; u < NR; u++) {
            int R[NR], N;
            if (!(ups & (1u << u)) || !ca_remaining(&c, &c.v[0], u, R, &N) || N <= 0)
                continue;
            if (split_ctx_eval(s, &c, u, m, aces_one)) {
                ctx_free(&c);
                return TW_CA_ENOMEM;
            }
            double x = 0.0;
            for (int r = 0; r < NR; r++) {
                int j = c.v[0].child[r];
                if (R[r] > 0 && j >= 0)
                    x += (double)R[r] / N * c.uv[u][j].val[m];
            }
            X[a][u] = x;
            int j = c.v[0].child[p];
            P[a][u] = (R[p] > 0 && j >= 0) ? c.uv[u][j].val[m] : 0.0;
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
                /* each hand counted a dealer Black Jack as a lost bet; only the first is lost */
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

int ca_ensure_splits(tw_ca_session *s, int m, uint32_t ups)
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

/* ------------------------------------------------------------------------------------------------ */
/* Sessions                                                                                          */

static int rules_ok(const tw_ca_rules *r)
{
    return r->blackjack_pays >= 0.0 && r->blackjack_pays <= 100.0 && r->double_on >= 0 && r->double_on <= 3
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
    if (total < 3 || hard > 21) {
        *err = total < 3 ? TW_CA_EBADSHOE : TW_CA_EBADHAND;
        return NULL;
    }
    if (!rules_ok(rules)) {
        *err = TW_CA_EBADRULES;
        return NULL;
    }
    if ((rc = ca_tries_ready(rules->hit_soft_17))) {
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
    s->w = malloc((size_t)ca_trie_max_nodes() * sizeof *s->w);
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
    free(s->reach);
    free(s->order3);
    free(s);
}

void ca_table_changed(tw_ca_session *s)
{
    s->main.ready[TW_CA_TABLE] = 0;
    memset(s->split_ready[TW_CA_TABLE], 0, sizeof s->split_ready[TW_CA_TABLE]);
}

int tw_ca_set_table(tw_ca_session *s, const uint16_t *table)
{
    memcpy(s->table, table, sizeof s->table);
    s->have_table = 1;
    ca_table_changed(s);
    return TW_CA_OK;
}

int ca_split_allowed(const tw_ca_session *s, const node *x, int u)
{
    if (!x->pair || s->r.split_hands < 2)
        return 0;
    int p = x->pair - 1;
    return s->shoe[p] - (u == p) >= 2;
}

double ca_deal_prob(const tw_ca_session *s, const node *x, int u)
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

/* The first decision of two-card hand i against u: its action and value (value2 = second moment). */
static int first_decision(tw_ca_session *s, int i, int u, int m, double *value, double *value2)
{
    const node *x = &s->main.v[i];
    const uval *v = &s->main.uv[u][i];
    if (x->total == 21) {
        *value = v->st;
        *value2 = v->st2;
        return TW_CA_STAND;
    }
    double vals[6], v2s[6];
    unsigned allowed = 1u << TW_CA_STAND;
    vals[TW_CA_STAND] = v->st;
    v2s[TW_CA_STAND] = v->st2;
    if (v->hi[m] > NONE) {
        allowed |= 1u << TW_CA_HIT;
        vals[TW_CA_HIT] = v->hi[m];
        v2s[TW_CA_HIT] = v->hi2[m];
    }
    if (ca_double_ok(&s->r, x) && v->db > NONE) {
        allowed |= 1u << TW_CA_DOUBLE;
        vals[TW_CA_DOUBLE] = v->db;
        v2s[TW_CA_DOUBLE] = v->db2;
    }
    if (ca_split_allowed(s, x, u) && s->split[m][x->pair - 1][u] > NONE) {
        allowed |= 1u << TW_CA_SPLIT;
        vals[TW_CA_SPLIT] = s->split[m][x->pair - 1][u];
        v2s[TW_CA_SPLIT] = 0.0;
    }
    if (s->r.surrender) {
        allowed |= 1u << TW_CA_SURRENDER;
        vals[TW_CA_SURRENDER] = -0.5 - 0.5 * v->pbj;
        v2s[TW_CA_SURRENDER] = 0.25 * (1.0 - v->pbj) + v->pbj;
    }
    int a = TW_CA_STAND;
    if (m == TW_CA_TABLE) {
        int slot, cls = ca_class_of(x, &slot);
        a = ca_table_pick(s, u, cls, slot, allowed);
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
            if ((rc = ca_main_eval(s, u, mode)))
                return rc;
        }
    if ((rc = ca_ensure_splits(s, mode, ups)))
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
            if (x->ncards != 2 || !ca_remaining(&s->main, x, u, R, &N))
                continue;
            double w = ca_deal_prob(s, x, u), v, v2;
            if (w <= 0.0)
                continue;
            if (first_decision(s, i, u, mode, &v, &v2) == TW_CA_SPLIT)
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
    int idx = ca_map_find(&s->main, ca_key_of(cnt));
    if (idx < 0 || s->main.v[idx].ncards < 2)
        return TW_CA_EBADHAND;
    const node *x = &s->main.v[idx];
    int R[NR], N;
    if (!ca_remaining(&s->main, x, up, R, &N))
        return TW_CA_EBADUP;
    if ((rc = ca_main_eval(s, up, mode)))
        return rc;
    const uval *v = &s->main.uv[up][idx];
    memset(out, 0, sizeof *out);
    out->stand = v->st;
    out->stand2 = v->st2;
    out->hit = out->dbl = out->split = out->surrender = NONE;
    out->p_blackjack = v->pbj;
    out->natural = x->ncards == 2 && x->total == 21;
    if (out->natural)
        return TW_CA_OK;
    if (v->hi[mode] > NONE) {
        out->can_hit = 1;
        out->hit = v->hi[mode];
        out->hit2 = v->hi2[mode];
    }
    if (x->ncards != 2)
        return TW_CA_OK;
    if (ca_double_ok(&s->r, x) && v->db > NONE) {
        out->can_double = 1;
        out->dbl = v->db;
        out->dbl2 = v->db2;
    }
    if (s->r.surrender) {
        out->can_surrender = 1;
        out->surrender = -0.5 - 0.5 * v->pbj;
        out->surrender2 = 0.25 * (1.0 - v->pbj) + v->pbj;
    }
    if (ca_split_allowed(s, x, up)) {
        if ((rc = split_compute(s, mode, x->pair - 1, 1u << up)))
            return rc;
        if (s->split[mode][x->pair - 1][up] > NONE) {
            out->can_split = 1;
            out->split = s->split[mode][x->pair - 1][up];
        }
    }
    return TW_CA_OK;
}
