/* tw_fast.c - a plain match under the course rules, its rounds played in C (tw_fast.h says when and why).
 *
 * Each step follows twentyone/table.py and twentyone/match.py, the reference, under the course rules only: the
 * dealer peeks, insurance against an A, double and surrender on the first two cards, no split, the dealer stands
 * on every 17, a Black Jack gets 3 x the bet back, insurance 3 x its stake.  What a box is sent is what the
 * Python client sends (twentyone/players/sandbox/client.py, twentyone/view.py): fresh records of every seat in
 * the order its function set K expects, this seat moved to index K-1.  tests/test_fast.py plays the same
 * matches both ways and compares them.  A box's reply is read as the client reads it, blocking, with the calls in
 * flight numbered where the engine's watchdog looks (tw_fast_seat.flight).
 */
#define _GNU_SOURCE
#include "tw_fast.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include "tw_rng.h"

#define MAX_DECKS 8
#define MAX_CARDS 24
#define PLAYER_SIZE 64
#define BANKER_SIZE 32
#define PY_RECORD (2 + 3 * (5 + MAX_CARDS) + 5 * 5)  /* a Player tuple in marshal data, at most */

typedef struct {
    const tw_fast_seat *how;
    int account, rounds, in_game, in_round;
    char cards[MAX_CARDS];
    int ncards, hard, ace;
    char state;                 /* the latest action, 0 before the first */
    int bet, insurance, insured, surrendered, done, bj;
    int ahead, ahead_bet;       /* the next round's bet, fetched with show */
    int ahead_first;            /* the next first_action's answer, fetched with the bet: its value and request */
    int first_value;
    int shown;                  /* replies of show (and what came with it) not read yet */
    char first_req[16 + 2 + 2 * 8];
    size_t first_len;
} seat_t;

typedef struct {
    tw_fast_match *m;
    seat_t seat[TW_FAST_MAX_SEATS];
    int n;
    tw_rng rng;
    char shoe[MAX_DECKS * 52];
    int size, pos, shuffles, round_no;
    char up, hole;
    char dealer[MAX_CARDS];
    int ndealer, hole_shown;
} table_t;

/* A card's value; A counts 1.  Index 0 (A) .. 9 (ten-valued) is value - 1. */
static int value(char c)
{
    switch (c) {
    case 'A': return 1;
    case 'T': case 'J': case 'Q': case 'K': return 10;
    default: return c - '0';
    }
}

static int is_ten(char c) { return c == 'T' || c == 'J' || c == 'Q' || c == 'K'; }

static int best(int hard, int ace) { return ace && hard <= 11 ? hard + 10 : hard; }

static int total(const seat_t *s) { return best(s->hard, s->ace); }

static void shuffle(table_t *t)
{
    tw_init_cards(t->shoe, t->m->decks);
    tw_shuffle(&t->rng, t->shoe, t->size);
    t->pos = 0;
    t->shuffles++;
}

static char getcard(table_t *t)
{
    if (t->pos >= t->size) shuffle(t);  /* the shoe ran out in the middle of a round */
    return t->shoe[t->pos++];
}

static int needs_shuffle(const table_t *t) { return t->size - t->pos < t->m->threshold; }

static void take(seat_t *s, char c)
{
    if (s->ncards < MAX_CARDS) s->cards[s->ncards++] = c;
    s->hard += value(c);
    if (c == 'A') s->ace = 1;
}

/* -- the frames: wire.py's REQUEST {op, n, k, pad, a, b, c}, REPLY {tag, pad[3], value} ------------------- */
static void header(char *p, char op, int n, int k, int a, int b, int c)
{
    p[0] = op;
    p[1] = (char)n;
    p[2] = (char)k;
    p[3] = 0;
    memcpy(p + 4, &a, 4);
    memcpy(p + 8, &b, 4);
    memcpy(p + 12, &c, 4);
}

/* The C Player struct (wire.PLAYER) of seat s; a seat of none (j < 0) is zeros. */
static void record(const table_t *t, int j, char *p)
{
    memset(p, 0, PLAYER_SIZE);
    if (j < 0) return;
    const seat_t *s = &t->seat[j];
    int count = s->ncards, points = best(s->hard, s->ace);
    memcpy(p, s->how->name, 19);
    memcpy(p + 20, &s->account, 4);
    memcpy(p + 24, s->cards, count < 19 ? (size_t)count : 19);
    memcpy(p + 44, &count, 4);
    p[48] = s->state;
    memcpy(p + 52, &s->bet, 4);
    memcpy(p + 56, &points, 4);
    memcpy(p + 60, &s->rounds, 4);
}

/* -- a Python box's bodies: marshal data (wire.py_players, wire.py_show), written as marshal.loads reads them --- */
static char *m_int(char *p, int v) { *p++ = 'i'; memcpy(p, &v, 4); return p + 4; }

static char *m_str(char *p, const char *text, int n)
{
    *p++ = 'u';  /* UTF-8 */
    memcpy(p, &n, 4);
    memcpy(p + 4, text, (size_t)n);
    return p + 4 + n;
}

/* wire._py_player of seat j (a seat of none, j < 0: Player()'s defaults). */
static char *py_record(const table_t *t, int j, char *p)
{
    *p++ = ')';
    *p++ = 8;
    if (j < 0) {
        for (int f = 0; f < 8; f++) p = f == 0 || f == 2 || f == 4 ? m_str(p, "", 0) : m_int(p, 0);
        return p;
    }
    const seat_t *s = &t->seat[j];
    p = m_str(p, s->how->name, (int)strnlen(s->how->name, 19));
    p = m_int(p, s->account);
    p = m_str(p, s->cards, s->ncards);
    p = m_int(p, s->ncards);
    p = m_str(p, &s->state, s->state ? 1 : 0);
    p = m_int(p, s->bet);
    p = m_int(p, best(s->hard, s->ace));
    return m_int(p, s->rounds);
}

/* The seats in the order function set k expects, this seat (index i) at k-1: seat indices, -1 for none. */
static int order(const table_t *t, int i, int k, int *out)
{
    int n = t->n > k ? t->n : k;
    for (int j = 0; j < n; j++) out[j] = j < t->n ? j : -1;
    out[i] = out[k - 1];
    out[k - 1] = i;
    return n;
}

static int fail(table_t *t, int seat, int why)
{
    if (!t->m->handover) {
        t->m->handover = why;
        t->m->handover_seat = seat + 1;
    }
    return -1;
}

/* Send a request; -1 (the match is handed over) when the box does not take it whole. */
static int send_request(table_t *t, int i, const char *req, size_t len)
{
    const tw_fast_seat *how = t->seat[i].how;
    ssize_t w;
    int seq = how->flight[1] + 1;
    __atomic_store_n(&how->flight[1], seq, __ATOMIC_RELAXED);
    __atomic_store_n(&how->flight[0], seq, __ATOMIC_RELAXED);  /* the write too: a box that never reads is watched */
    do w = write(how->wfd, req, len); while (w < 0 && errno == EINTR);
    if (w != (ssize_t)len) return fail(t, i, w < 0 && errno != EAGAIN ? TW_FAST_ENDED : TW_FAST_FULL);
    t->m->calls++;
    return 0;
}

/* Read `replies` values; -1 (the match is handed over) on anything but whole 'R' frames. */
static int read_replies(table_t *t, int i, int replies, int *values)
{
    const tw_fast_seat *how = t->seat[i].how;
    char buf[24];
    size_t have = 0, need = (size_t)8 * replies;
    while (have < need) {  /* blocking: the watchdog ends a box that does not answer, and the read meets its end */
        ssize_t got = read(how->rfd, buf + have, need - have);
        if (got < 0 && errno == EINTR) return fail(t, i, TW_FAST_INTERRUPTED);
        if (got <= 0) return fail(t, i, TW_FAST_ENDED);
        have += (size_t)got;
    }
    __atomic_store_n(&how->flight[0], 0, __ATOMIC_RELAXED);
    for (int r = 0; r < replies; r++) {
        if (buf[8 * r] != 'R') return fail(t, i, TW_FAST_REPLY);
        memcpy(&values[r], buf + 8 * r + 4, 4);
    }
    return 0;
}

/* A round trip: the request, then its `replies` values. */
static int call(table_t *t, int i, const char *req, size_t len, int replies, int *values)
{
    if (send_request(t, i, req, len)) return -1;
    return read_replies(t, i, replies, values);
}

static int action(table_t *t, int i, int v, char *a)
{
    if (v < 0 || v > 255) return fail(t, i, TW_FAST_REPLY);
    *a = (char)v;
    return 0;
}

/* -- the decisions ---------------------------------------------------------------------------------------- */
/* The 'F' request of box seat i: tmpcards made of the up card and each seat's first two cards (dealt), '-' for a
 * seat not in the round (in); its length. */
static size_t first_request(const table_t *t, int i, char up, char dealt[][2], const int *in, char *req)
{
    int k = t->seat[i].how->k, who[8] = { 0 }, n = order(t, i, k, who);
    char *p = req + 16;
    *p++ = up;
    *p++ = 'X';
    for (int j = 0; j < n; j++) {
        if (who[j] < 0 || !in[who[j]]) { *p++ = '-'; *p++ = '-'; }
        else { *p++ = dealt[who[j]][0]; *p++ = dealt[who[j]][1]; }
    }
    header(req, 'F', 2 + 2 * n, k, 2 + 2 * n, 0, 0);
    return (size_t)(p - req);
}

/* When a deal is foreseen: while this round's bets are placed, or at the end of a round for the next (after a new
 * shoe, or not). */
enum { DURING_BETS, NEXT, NEXT_NEW_SHOE };

/* A deal worked out before it is made (nothing changes): who is in it, their first two cards and the up card, from
 * the shoe as it will be (refilled if it runs out).  Returns whether the first actions will be asked: not when a ten
 * is up over an A. */
static int next_deal(const table_t *t, int when, char dealt[][2], int *in, char *up)
{
    int reshuffle = when == NEXT_NEW_SHOE;
    char fresh[MAX_DECKS * 52];
    tw_rng rng = t->rng;
    const char *shoe = t->shoe;
    int pos = t->pos;
    if (reshuffle) {
        tw_init_cards(fresh, t->m->decks);
        tw_shuffle(&rng, fresh, t->size);
        shoe = fresh;
        pos = 0;
    }
    char deal[2 * TW_FAST_MAX_SEATS + 2];
    int need = 2;
    for (int j = 0; j < t->n; j++) {
        /* in this round: every seat still in the game bets; in the next, those that can pay the minimum */
        in[j] = t->seat[j].in_game && (when == DURING_BETS || t->seat[j].account >= t->m->min_bet);
        need += 2 * in[j];
    }
    for (int c = 0; c < need; c++) {
        if (pos >= t->size) {  /* refilled in the middle of the deal: never twice, a shoe holds 52 cards at least */
            tw_init_cards(fresh, t->m->decks);
            tw_shuffle(&rng, fresh, t->size);
            shoe = fresh;
            pos = 0;
        }
        deal[c] = shoe[pos++];
    }
    int c = 0;
    for (int j = 0; j < t->n; j++)
        if (in[j]) { dealt[j][0] = deal[c++]; dealt[j][1] = deal[c++]; }
    *up = deal[c];
    return !(is_ten(deal[c]) && deal[c + 1] == 'A');
}

/* Append box seat i's first_action of the deal to come to a request being made (its answer comes with the others),
 * when that call is sure to be the seat's next; how many bytes were added. */
static size_t prefetch_first(table_t *t, int i, int when, char *at)
{
    char dealt[TW_FAST_MAX_SEATS][2], up;
    int in[TW_FAST_MAX_SEATS];
    seat_t *s = &t->seat[i];
    if (!next_deal(t, when, dealt, in, &up) || !in[i]) return 0;
    s->first_len = first_request(t, i, up, dealt, in, s->first_req);
    memcpy(at, s->first_req, s->first_len);
    return s->first_len;
}

static int ask_bet(table_t *t, int i, int *bet)
{
    seat_t *s = &t->seat[i];
    if (s->how->kind == TW_FAST_STAND || s->how->kind == TW_FAST_BASIC) {
        *bet = 10;
        return 0;
    }
    if (s->ahead) {
        s->ahead = 0;
        *bet = s->ahead_bet;
        return 0;
    }
    /* the match's first bet, and the first_action that follows it */
    char req[16 + sizeof s->first_req];
    int v[2];
    header(req, 'B', 0, s->how->k, t->m->decks, 0, 0);
    size_t more = prefetch_first(t, i, DURING_BETS, req + 16);
    if (call(t, i, req, 16 + more, more ? 2 : 1, v)) return -1;
    *bet = v[0];
    s->ahead_first = more > 0;
    s->first_value = v[1];
    return 0;
}

static char basic_later(const table_t *t, const seat_t *s)
{
    int tot = total(s);
    if (tot >= 21) return 's';
    int soft = tot != s->hard;
    return t->m->basic_later[(soft * 32 + tot) * 10 + value(t->up) - 1];
}

static int ask_first(table_t *t, int i, char *a)
{
    seat_t *s = &t->seat[i];
    if (s->how->kind == TW_FAST_STAND) { *a = 's'; return 0; }
    if (s->how->kind == TW_FAST_BASIC) {
        *a = total(s) >= 21 ? 's'
           : t->m->basic_first[((value(t->up) - 1) * 10 + value(s->cards[0]) - 1) * 10 + value(s->cards[1]) - 1];
        return 0;
    }
    char req[sizeof s->first_req], dealt[TW_FAST_MAX_SEATS][2];
    int in[TW_FAST_MAX_SEATS], v;
    for (int j = 0; j < t->n; j++) {
        in[j] = t->seat[j].in_round;
        dealt[j][0] = t->seat[j].cards[0];
        dealt[j][1] = t->seat[j].cards[1];
    }
    size_t len = first_request(t, i, t->up, dealt, in, req);
    if (s->ahead_first) {  /* answered already: to exactly this request, or the match is handed back */
        s->ahead_first = 0;
        if (len != s->first_len || memcmp(req, s->first_req, len)) return fail(t, i, TW_FAST_UNSUPPORTED);
        return action(t, i, s->first_value, a);
    }
    if (call(t, i, req, len, 1, &v)) return -1;
    return action(t, i, v, a);
}

static int ask_continue(table_t *t, int i, char *a)
{
    seat_t *s = &t->seat[i];
    if (s->how->kind == TW_FAST_STAND) { *a = 's'; return 0; }
    if (s->how->kind == TW_FAST_BASIC) {
        if (s->ncards == 2) return fail(t, i, TW_FAST_UNSUPPORTED);  /* basic never insures: never asked so */
        *a = basic_later(t, s);
        return 0;
    }
    int k = s->how->k, who[8] = { 0 }, n = order(t, i, k, who), v;
    char req[16 + 8 * PY_RECORD];
    size_t len;
    if (s->how->py) {  /* a list of Player tuples */
        char *p = req + 16;
        *p++ = '[';
        memcpy(p, &n, 4);
        p += 4;
        for (int j = 0; j < n; j++) p = py_record(t, j == 0 ? i : who[j], p);
        len = (size_t)(p - req);
        header(req, 'C', 0, k, (int)(len - 16), 0, 0);
    } else {
        for (int j = 0; j < n; j++) record(t, j == 0 ? i : who[j], req + 16 + j * PLAYER_SIZE);
        len = 16 + (size_t)n * PLAYER_SIZE;
        header(req, 'C', n, k, 0, 0, 0);
    }
    if (call(t, i, req, len, 1, &v)) return -1;
    return action(t, i, v, a);
}

/* showK at the end of the round, and in the same round trip the next bet when it is sure to be asked, and the
 * next first_action when that is sure to be the seat's next call (the cards it will see are in the shoe already;
 * `reshuffle`: a new shoe comes first).  The box answers them in order, as the course program would call them. */
static int show(table_t *t, int i, int bet_follows, int reshuffle)
{
    seat_t *s = &t->seat[i];
    if (s->how->kind != TW_FAST_BOX) return 0;
    int k = s->how->k, who[8] = { 0 }, n;
    if (k == i + 1) {
        n = t->n;
        for (int j = 0; j < n; j++) who[j] = j;
    } else {
        n = order(t, i, k, who);
    }
    char req[16 + 64 + 8 * PY_RECORD + 32 + 16 + sizeof s->first_req];
    char *b = req + 16, state = t->hole_shown ? 'l' : 'd';
    int count = t->ndealer, points, hard = 0, ace = 0;
    for (int j = 0; j < t->ndealer; j++) {
        hard += value(t->dealer[j]);
        ace |= t->dealer[j] == 'A';
    }
    points = count ? best(hard, ace) : 0;
    int pnum = (t->n > k ? t->n : k) + 1;
    size_t len;
    if (s->how->py) {  /* ((mycards, count, state, points), [Player tuples], pNum, N, pos) */
        char *p = b;
        *p++ = ')';
        *p++ = 5;
        *p++ = ')';
        *p++ = 4;
        p = m_str(p, t->dealer, count);
        p = m_int(p, count);
        p = m_str(p, &state, 1);
        p = m_int(p, points);
        *p++ = '[';
        memcpy(p, &n, 4);
        p += 4;
        for (int j = 0; j < n; j++) p = py_record(t, who[j], p);
        p = m_int(p, pnum);
        p = m_int(p, t->m->decks);
        p = m_int(p, t->pos);
        len = (size_t)(p - req);
        header(req, 'S', 0, k, (int)(len - 16), 0, 0);
    } else {
        memset(b, 0, BANKER_SIZE);
        memcpy(b, t->dealer, count < 19 ? (size_t)count : 19);
        memcpy(b + 20, &count, 4);
        b[24] = state;
        memcpy(b + 28, &points, 4);
        for (int j = 0; j < n; j++) record(t, who[j], req + 16 + BANKER_SIZE + j * PLAYER_SIZE);
        header(req, 'S', n, k, pnum, t->m->decks, t->pos);
        len = 16 + BANKER_SIZE + (size_t)n * PLAYER_SIZE;
    }
    if (!bet_follows) {
        s->shown = 1;
        return send_request(t, i, req, len);
    }
    header(req + len, 'B', 0, k, t->m->decks, 0, 0);
    size_t more = prefetch_first(t, i, reshuffle ? NEXT_NEW_SHOE : NEXT, req + len + 16);
    s->shown = more ? 3 : 2;
    return send_request(t, i, req, len + 16 + more);
}

/* The replies to show (and to the bet and first_action sent with it). */
static int shown(table_t *t, int i)
{
    seat_t *s = &t->seat[i];
    int v[3], n = s->shown;
    if (!n) return 0;
    s->shown = 0;
    if (read_replies(t, i, n, v)) return -1;
    if (n >= 2) {
        s->ahead = 1;
        s->ahead_bet = v[1];
    }
    s->ahead_first = n == 3;
    s->first_value = v[2];
    return 0;
}

/* -- the actions (table.py's hit, stand, dbl, surrender, insurance) --------------------------------------- */
static void note(seat_t *s, char a) { s->state = a; }

static void hit(table_t *t, seat_t *s)
{
    note(s, 'h');
    take(s, getcard(t));
    if (total(s) >= 21) s->done = 1;
}

static void dbl(table_t *t, seat_t *s)
{
    int add = s->account < s->bet ? s->account : s->bet;
    if (add < 0) add = 0;
    s->account -= add;
    s->bet += add;
    note(s, 'd');
    take(s, getcard(t));
    s->done = 1;
}

/* A two-card decision takes effect, then continue_action plays the hand out (h or s). */
static int take_effect(table_t *t, int i, char a)
{
    seat_t *s = &t->seat[i];
    if (s->bj) {
        note(s, a);
        s->done = 1;
        return 0;
    }
    switch (a) {
    case 'h': hit(t, s); break;
    case 's': note(s, 's'); s->done = 1; break;
    case 'd': dbl(t, s); break;
    default: note(s, 'u'); s->surrendered = s->done = 1; break;
    }
    while (!s->done) {
        char c;
        if (ask_continue(t, i, &c)) return -1;
        if (c == 'h') hit(t, s);
        else if (c == 's') { note(s, 's'); s->done = 1; }
        else return fail(t, i, TW_FAST_FOUL);
    }
    return 0;
}

static int two_card(char a) { return a == 'h' || a == 's' || a == 'd' || a == 'u'; }

/* Insurance (only against an A, and affordable: else a foul). */
static int insure(table_t *t, int i)
{
    seat_t *s = &t->seat[i];
    int cost = s->bet / 2;
    if (t->up != 'A' || s->state != 0 || s->account < cost) return fail(t, i, TW_FAST_FOUL);
    s->account -= cost;
    s->insurance = cost;
    s->insured = 1;
    note(s, 'i');
    return 0;
}

static int after_insurance(table_t *t, int i)
{
    seat_t *s = &t->seat[i];
    if (s->bj) { s->done = 1; return 0; }
    char c;
    if (ask_continue(t, i, &c)) return -1;
    if (!two_card(c)) return fail(t, i, TW_FAST_FOUL);
    return take_effect(t, i, c);
}

static int capped(long long v) { return v > INT_MAX ? INT_MAX : (int)v; }

/* -- a round ---------------------------------------------------------------------------------------------- */
static int play_round(table_t *t, int *active, int na)
{
    tw_fast_match *m = t->m;
    for (int q = 0; q < na; q++) {
        seat_t *s = &t->seat[active[q]];
        s->in_round = 1;
        s->rounds++;
        int b;
        if (ask_bet(t, active[q], &b)) return -1;
        if (b < m->min_bet) b = m->min_bet;
        if (b > s->account) b = s->account;
        s->bet = b;
        s->account -= b;
    }
    for (int q = 0; q < na; q++) {
        seat_t *s = &t->seat[active[q]];
        take(s, getcard(t));
        take(s, getcard(t));
        s->bj = s->hard == 11 && s->ace && s->ncards == 2;
    }
    t->up = getcard(t);
    t->hole = getcard(t);
    t->dealer[0] = t->up;
    t->ndealer = 1;
    char up = t->up, hole = t->hole;
    int dealer_bj = (up == 'A' && is_ten(hole)) || (is_ten(up) && hole == 'A');
    if (is_ten(up) && dealer_bj) {
        /* revealed at once: nobody is asked */
    } else if (up == 'A') {
        char chosen[TW_FAST_MAX_SEATS] = { 0 };
        for (int q = 0; q < na; q++) {
            int i = active[q];
            char a;
            if (t->seat[i].done) continue;
            if (ask_first(t, i, &a)) return -1;
            if (a == 'i') {
                if (insure(t, i)) return -1;
            } else if (two_card(a)) {
                chosen[i] = a;
            } else {
                return fail(t, i, TW_FAST_FOUL);
            }
        }
        for (int q = 0; q < na; q++) {
            int i = active[q];
            seat_t *s = &t->seat[i];
            if (dealer_bj) {
                if (chosen[i]) note(s, chosen[i]);
                continue;
            }
            if (s->done) continue;
            if (chosen[i]) {
                if (take_effect(t, i, chosen[i])) return -1;
            } else if (s->insured) {
                if (after_insurance(t, i)) return -1;
            }
        }
    } else {
        for (int q = 0; q < na; q++) {
            int i = active[q];
            char a;
            if (t->seat[i].done) continue;
            if (ask_first(t, i, &a)) return -1;
            if (!two_card(a)) return fail(t, i, TW_FAST_FOUL);  /* insurance without an A is a foul too */
            if (take_effect(t, i, a)) return -1;
        }
    }
    for (int q = 0; q < na; q++)  /* a first_action answered ahead and never asked: a deal foreseen wrong */
        if (t->seat[active[q]].ahead_first) return fail(t, active[q], TW_FAST_UNSUPPORTED);
    int hard = value(up) + value(hole), ace = up == 'A' || hole == 'A';
    t->hole_shown = 1;
    t->dealer[t->ndealer++] = hole;
    if (!dealer_bj) {
        while (best(hard, ace) < 17) {
            char c = getcard(t);
            if (t->ndealer < MAX_CARDS) t->dealer[t->ndealer++] = c;
            hard += value(c);
            if (c == 'A') ace = 1;
        }
    }
    /* judge; a payment that would take an account past a C int stops at INT_MAX, as table.py's does */
    int d = best(hard, ace), dealer_bust = d > 21;
    for (int q = 0; q < na; q++) {
        seat_t *s = &t->seat[active[q]];
        if (dealer_bj) {
            if (s->insured) s->account = capped((long long)s->account + 3LL * s->insurance);
            if (s->bj) s->account += s->bet;
            continue;
        }
        if (s->bj) { s->account = capped((long long)s->account + 3LL * s->bet); continue; }
        if (s->surrendered) { s->account += s->bet / 2; continue; }
        int tot = total(s);
        if (tot > 21) continue;
        if (dealer_bust || tot > d) s->account = capped((long long)s->account + 2LL * s->bet);
        else if (tot == d) s->account += s->bet;
    }
    return 0;
}


int tw_fast_play(tw_fast_match *m, const tw_fast_seat *seats)
{
    table_t t;
    memset(&t, 0, sizeof t);
    t.m = m;
    t.n = m->seats;
    m->handover = m->handover_seat = m->calls = 0;
    m->reason = TW_FAST_BROKE;
    if (t.n < 1 || t.n > TW_FAST_MAX_SEATS || m->decks < 1 || m->decks > MAX_DECKS)
        return fail(&t, 0, TW_FAST_UNSUPPORTED), m->handover;
    for (int i = 0; i < t.n; i++) {
        t.seat[i].how = &seats[i];
        t.seat[i].account = m->start_money;
        t.seat[i].in_game = 1;
        if (seats[i].kind == TW_FAST_BOX && (seats[i].k < 1 || seats[i].k > 5))
            return fail(&t, i, TW_FAST_UNSUPPORTED), m->handover;
    }
    t.size = m->decks * 52;
    tw_rng_seed(&t.rng, m->seed);
    shuffle(&t);
    int max_rounds = m->rounds_per_seat * t.n, max_shoes = m->max_shoes;
    for (;;) {
        t.round_no++;
        t.ndealer = t.hole_shown = 0;
        int active[TW_FAST_MAX_SEATS], na = 0;
        for (int i = 0; i < t.n; i++) {
            seat_t *s = &t.seat[i];
            s->ncards = s->hard = s->ace = 0;
            s->state = 0;
            s->bet = s->insurance = s->insured = s->surrendered = s->done = s->bj = s->in_round = 0;
            if (s->in_game && s->account < m->min_bet) s->in_game = 0;
            if (s->in_game) active[na++] = i;
        }
        if (!na) {
            t.round_no--;
            m->reason = TW_FAST_BROKE;
            break;
        }
        if (play_round(&t, active, na)) return m->handover;
        int last = t.round_no >= max_rounds
                   || t.shuffles > max_shoes || (needs_shuffle(&t) && t.shuffles >= max_shoes);
        for (int i = 0; i < t.n; i++) {
            seat_t *s = &t.seat[i];
            if (show(&t, i, !last && s->in_game && s->account >= m->min_bet, !last && needs_shuffle(&t)))
                return m->handover;
        }
        for (int i = 0; i < t.n; i++)  /* every box shows at once; then their replies */
            if (shown(&t, i)) return m->handover;
        if (t.round_no >= max_rounds) { m->reason = TW_FAST_ROUNDS; break; }
        int any = 0;
        for (int i = 0; i < t.n; i++) any |= t.seat[i].in_game && t.seat[i].account >= m->min_bet;
        if (!any) { m->reason = TW_FAST_BROKE; break; }
        if (t.shuffles > max_shoes) { m->reason = TW_FAST_SHUFFLES; break; }
        if (needs_shuffle(&t)) {
            if (t.shuffles >= max_shoes) { m->reason = TW_FAST_SHUFFLES; break; }
            shuffle(&t);
        }
    }
    m->rounds = t.round_no;
    m->shuffles = t.shuffles;
    for (int i = 0; i < t.n; i++) {
        m->account[i] = t.seat[i].account;
        m->seat_rounds[i] = t.seat[i].rounds;
    }
    return 0;
}
