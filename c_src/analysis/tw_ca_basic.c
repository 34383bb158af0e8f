/* tw_ca_basic.c - the best total-dependent strategy (basic strategy) for a shoe and rules.
 *
 * A state is a hard or soft total with two cards, or with three cards or more, or a pair.  States of
 * three cards or more are decided successors first (hard 21..11, soft 21..12, hard 10..4: a hit
 * always leads to a state decided before), each taking stand or hit by the average EV of its hands
 * weighted by how often they are reached under the current strategy.  Two-card states and pairs are
 * then decided by the deal's odds of each hand, actions kept in order of preference (the first the
 * situation allows is played).  Reach weights depend on earlier decisions, so the whole is repeated
 * until nothing changes; with splitting, the pairs' split values are recomputed under the new table
 * and the loop goes round again.  The weights count unsplit hands only: split hands play the table.
 */
#include "tw_ca_int.h"

#include <stdlib.h>
#include <string.h>

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
    int idx[6], out[6], n = 0;
    for (int i = 0; i < k; i++) {
        int j = i;
        while (j > 0 && vals[idx[j - 1]] < vals[i]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    for (int i = 0; i < k; i++) {
        out[n++] = acts[idx[i]];
        if (acts[idx[i]] == TW_CA_STAND || acts[idx[i]] == TW_CA_HIT)
            break;
    }
    return pack(out, n);
}

/* A cell that stands (or hits): nothing need follow, both are always allowed. */
static uint16_t stand_first(int stand)
{
    return stand ? TW_CA_STAND : TW_CA_HIT;
}

/* Hands of three cards or more grouped by state, in decision order. */
static int build_order3(tw_ca_session *s)
{
    if (s->order3)
        return TW_CA_OK;
    s->order3 = malloc((size_t)(s->main.n + 1) * sizeof *s->order3);
    s->reach = calloc((size_t)s->main.n + 1, sizeof *s->reach);
    if (!s->order3 || !s->reach)
        return TW_CA_ENOMEM;
    int k = 0, st = 0;
    static const int groups[3][3] = { { 0, 21, 11 }, { 1, 21, 12 }, { 0, 10, 4 } };  /* soft, from, to */
    for (int g = 0; g < 3; g++)
        for (int t = groups[g][1]; t >= groups[g][2]; t--) {
            s->state_start[st] = k;
            s->state_total[st] = t;
            s->state_soft[st] = groups[g][0];
            for (int i = 0; i < s->main.n; i++) {
                const node *x = &s->main.v[i];
                if (x->ncards >= 3 && x->total == t && x->soft == groups[g][0])
                    s->order3[k++] = i;
            }
            st++;
        }
    s->state_start[st] = k;
    s->nstates = st;
    s->norder3 = k;
    return TW_CA_OK;
}

/* How often each hand is reached against u under the table: dealt, then hit. */
static void td_reach(tw_ca_session *s, int u)
{
    ctx *c = &s->main;
    for (int i = 0; i < c->n; i++)
        s->reach[i] = (c->v[i].ncards == 2 && c->v[i].total < 21) ? ca_deal_prob(s, &c->v[i], u) : 0.0;
    for (int i = 0; i < c->n; i++) {
        const node *x = &c->v[i];
        int R[NR], N;
        if (x->ncards < 2 || s->reach[i] <= 0.0 || x->total >= 21 || !ca_remaining(c, x, u, R, &N) || N <= 0)
            continue;
        unsigned allowed = 1u << TW_CA_STAND | 1u << TW_CA_HIT;
        if (x->ncards == 2) {
            if (s->r.surrender)
                allowed |= 1u << TW_CA_SURRENDER;
            if (ca_double_ok(&s->r, x))
                allowed |= 1u << TW_CA_DOUBLE;
            if (ca_split_allowed(s, x, u))
                allowed |= 1u << TW_CA_SPLIT;
        }
        int slot, cls = ca_class_of(x, &slot);
        if (ca_table_pick(s, u, cls, slot, allowed) != TW_CA_HIT)
            continue;
        for (int r = 0; r < NR; r++) {
            int j = x->child[r];
            if (R[r] > 0 && j >= 0)
                s->reach[j] += s->reach[i] * R[r] / N;
        }
    }
}

/* One state of three cards or more: stand or hit, by the reach-weighted EV of its hands (all its
 * hands equally when none is reached). */
static void td_state3(tw_ca_session *s, int u, int st)
{
    ctx *c = &s->main;
    int t = s->state_total[st], cls = s->state_soft[st] ? TW_CA_SOFT3 : TW_CA_HARD3;
    double sum_s = 0, sum_h = 0, w = 0, sum_s1 = 0, sum_h1 = 0;
    int can_hit = 0;
    for (int k = s->state_start[st]; k < s->state_start[st + 1]; k++) {
        int i = s->order3[k], R[NR], N;
        uval *v = &c->uv[u][i];
        if (!ca_remaining(c, &c->v[i], u, R, &N))
            continue;
        ca_eval_hit(c, i, u, TW_CA_TABLE, R, N);
        if (v->hi[TW_CA_TABLE] <= NONE)
            continue;
        can_hit = 1;
        sum_s += s->reach[i] * v->st;
        sum_h += s->reach[i] * v->hi[TW_CA_TABLE];
        w += s->reach[i];
        sum_s1 += v->st;
        sum_h1 += v->hi[TW_CA_TABLE];
    }
    if (w <= 0.0) {
        sum_s = sum_s1;
        sum_h = sum_h1;
    }
    s->table[u][cls][t] = (t >= 21 || !can_hit) ? stand_first(1) : stand_first(sum_s >= sum_h);
    int a = s->table[u][cls][t] & 15;
    for (int k = s->state_start[st]; k < s->state_start[st + 1]; k++)
        ca_set_val(&c->uv[u][s->order3[k]], TW_CA_TABLE, a);
}

/* The preference of two-card hand values: stand, hit, double and surrender as the rules allow. */
static uint16_t two_card_cell(const tw_ca_session *s, const node *shape, const double *sums)
{
    int acts[6], k = 0;
    double vals[6];
    acts[k] = TW_CA_STAND;
    vals[k++] = sums[TW_CA_STAND];
    if (sums[TW_CA_HIT] > NONE) {
        acts[k] = TW_CA_HIT;
        vals[k++] = sums[TW_CA_HIT];
    }
    if (ca_double_ok(&s->r, shape) && sums[TW_CA_DOUBLE] > NONE) {
        acts[k] = TW_CA_DOUBLE;
        vals[k++] = sums[TW_CA_DOUBLE];
    }
    if (shape->pair && sums[TW_CA_SPLIT] > NONE) {
        acts[k] = TW_CA_SPLIT;
        vals[k++] = sums[TW_CA_SPLIT];
    }
    if (s->r.surrender) {
        acts[k] = TW_CA_SURRENDER;
        vals[k++] = sums[TW_CA_SURRENDER];
    }
    return preference(acts, vals, k);
}

/* Two-card rows (by total, weighted by the deal) and pair rows (each pair's own values; split by its
 * value under the current table once known).  A total that only a pair makes (hard 4, hard 20,
 * soft 12) takes that pair's unsplit values. */
static void td_two_cards(tw_ca_session *s, int u)
{
    ctx *c = &s->main;
    double sums[2][TW_CA_SLOTS][6], ws[2][TW_CA_SLOTS];
    memset(sums, 0, sizeof sums);
    memset(ws, 0, sizeof ws);
    for (int i = 0; i < c->n; i++) {
        const node *x = &c->v[i];
        const uval *v = &c->uv[u][i];
        int R[NR], N;
        if (x->ncards != 2 || !ca_remaining(c, x, u, R, &N))
            continue;
        ca_eval_hit(c, i, u, TW_CA_TABLE, R, N);
        if (x->pair || x->total >= 21 || v->hi[TW_CA_TABLE] <= NONE)
            continue;
        double w = ca_deal_prob(s, x, u), *sm = sums[x->soft][x->total];
        ws[x->soft][x->total] += w;
        sm[TW_CA_STAND] += w * v->st;
        sm[TW_CA_HIT] += w * v->hi[TW_CA_TABLE];
        sm[TW_CA_DOUBLE] += w * v->db;
        sm[TW_CA_SURRENDER] += w * (-0.5 - 0.5 * v->pbj);
    }
    for (int soft = 0; soft < 2; soft++)
        for (int t = soft ? 12 : 4; t <= 21; t++) {
            int cls = soft ? TW_CA_SOFT2 : TW_CA_HARD2;
            node shape;
            memset(&shape, 0, sizeof shape);
            shape.ncards = 2;
            shape.total = (unsigned char)t;
            shape.soft = (unsigned char)soft;
            double *sm = sums[soft][t];
            sm[TW_CA_SPLIT] = NONE;
            if (t == 21) {
                s->table[u][cls][t] = stand_first(1);
                continue;
            }
            if (ws[soft][t] <= 0.0) {
                int p = soft ? 0 : (t == 4 ? 1 : t == 20 ? 9 : -1);
                unsigned char cnt[NR] = { 0 };
                int j = -1, R[NR], N;
                if (p >= 0) {
                    cnt[p] = 2;
                    j = ca_map_find(c, ca_key_of(cnt));
                }
                if (j < 0 || !ca_remaining(c, &c->v[j], u, R, &N)) {
                    s->table[u][cls][t] = stand_first(t >= (soft ? 18 : 17));
                    continue;
                }
                const uval *y = &c->uv[u][j];
                sm[TW_CA_STAND] = y->st;
                sm[TW_CA_HIT] = y->hi[TW_CA_TABLE];
                sm[TW_CA_DOUBLE] = y->db;
                sm[TW_CA_SURRENDER] = -0.5 - 0.5 * y->pbj;
            }
            s->table[u][cls][t] = two_card_cell(s, &shape, sm);
        }
    for (int p = 0; p < NR; p++) {
        unsigned char cnt[NR] = { 0 };
        cnt[p] = 2;
        int j = ca_map_find(c, ca_key_of(cnt)), R[NR], N;
        if (j < 0 || !ca_remaining(c, &c->v[j], u, R, &N)) {
            s->table[u][TW_CA_PAIR][p] = stand_first(0);
            continue;
        }
        const uval *y = &c->uv[u][j];
        double sm[6] = { 0 };
        sm[TW_CA_STAND] = y->st;
        sm[TW_CA_HIT] = y->hi[TW_CA_TABLE];
        sm[TW_CA_DOUBLE] = y->db;
        sm[TW_CA_SURRENDER] = -0.5 - 0.5 * y->pbj;
        sm[TW_CA_SPLIT] = ca_split_allowed(s, &c->v[j], u) && (s->split_ready[TW_CA_TABLE][p] & (1u << u))
                              ? s->split[TW_CA_TABLE][p][u] : NONE;
        s->table[u][TW_CA_PAIR][p] = two_card_cell(s, &c->v[j], sm);
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
            for (int t = 0; t < TW_CA_SLOTS; t++)
                s->table[u][cls][t] = cls == TW_CA_PAIR ? stand_first(0)
                                      : stand_first(t >= ((cls == TW_CA_SOFT2 || cls == TW_CA_SOFT3) ? 18 : 17));
    s->have_table = 1;
    ca_table_changed(s);
    uint32_t ups = 0;
    for (int u = 0; u < NR; u++)
        if (s->shoe[u] > 0) {
            ups |= 1u << u;
            /* stand and double values (and the optimal values, unused here) */
            if ((rc = ca_main_eval(s, u, TW_CA_OPTIMAL)))
                return rc;
        }
    for (int round = 0; round < 6; round++) {
        uint16_t before[NR][TW_CA_CLASSES][TW_CA_SLOTS];
        memcpy(before, s->table, sizeof before);
        for (int u = 0; u < NR; u++)
            if (ups & (1u << u))
                td_up(s, u);
        if (s->r.split_hands < 2)
            break;
        ca_table_changed(s);
        if ((rc = ca_ensure_splits(s, TW_CA_TABLE, ups)))
            return rc;
        for (int u = 0; u < NR; u++)
            if (ups & (1u << u))
                td_two_cards(s, u);
        if (!memcmp(before, s->table, sizeof before))
            break;
    }
    ca_table_changed(s);
    memcpy(table, s->table, sizeof s->table);
    return TW_CA_OK;
}
