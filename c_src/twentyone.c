/* twentyone.c - C versions of the course's helper functions, following twentyone/RULES.md.
 *
 * These are what a student's mycodes.c may call (the course's names and signatures).  The C
 * program (main.c) uses calculate, init_cards, shuffle_cards, getcard and show_result; its round
 * logic mirrors the Python engine (twentyone/table.py) so both write the same round log.
 * In the course, pNum counts the dealer too: the players are (*players)[0 .. pNum-2].
 */
#include "twentyone.h"
#include "tw_rng.h"

static tw_rng tw_shuffle_rng = { 0 };

void tw_set_seed(unsigned long long seed)
{
    tw_rng_seed(&tw_shuffle_rng, (uint64_t)seed);
}

void init_cards(char* cards, int N)
{
    tw_init_cards(cards, N);
}

void shuffle_cards(char* cards, int N)
{
    tw_init_cards(cards, N);
    tw_shuffle(&tw_shuffle_rng, cards, N * 52);
}

int calculate(char(*mycards)[20], int len)
{
    int hard = 0, ace = 0;
    for (int i = 0; i < len && i < 20; i++) {
        char c = (*mycards)[i];
        if (c == 'A') { hard += 1; ace = 1; }
        else if (c == 'T' || c == 'J' || c == 'Q' || c == 'K') hard += 10;
        else if (c >= '2' && c <= '9') hard += c - '0';
    }
    return (ace && hard <= 11) ? hard + 10 : hard;
}

char getcard(const char* cards, int* ppos)
{
    return cards[(*ppos)++];
}

static void add_card(Player* p, char card)
{
    if (p->count < 19) {
        p->mycards[p->count++] = card;
        p->mycards[p->count] = 0;
    }
    p->points = calculate(&p->mycards, p->count);
}

void round_init(Banker* pbanker, Player(*players)[], int pNum)
{
    memset(pbanker, 0, sizeof *pbanker);
    pbanker->state = 'd';
    for (int i = 0; i < pNum - 1; i++) {
        Player* p = &(*players)[i];
        memset(p->mycards, 0, sizeof p->mycards);
        p->count = 0;
        p->state = 0;
        p->mybets = 0;
        p->points = 0;
    }
}

void first_deal(const char* cards, int* ppos, Banker* pbanker, Player(*pplayers)[], int pNum)
{
    for (int i = 0; i < pNum - 1; i++) {
        Player* p = &(*pplayers)[i];
        if (p->account < MIN_BET && p->mybets == 0)
            continue;  /* out of the game */
        add_card(p, getcard(cards, ppos));
        add_card(p, getcard(cards, ppos));
    }
    pbanker->mycards[0] = getcard(cards, ppos);
    pbanker->mycards[1] = getcard(cards, ppos);
    pbanker->count = 2;
    pbanker->state = 'd';
    pbanker->points = calculate(&pbanker->mycards, 1);  /* only the up card is known */
}

void insurance(Banker* pbanker, int i, Player(*players)[], char* tmpcards)
{
    Player* p = &(*players)[i];
    int cost = p->mybets / 2;
    (void)pbanker;
    if (tmpcards[0] != 'A' || p->account < cost) {
        foul(i, players);
        return;
    }
    p->account -= cost;
    p->state = 'i';
}

void hit(int i, Player(*players)[], char card)
{
    Player* p = &(*players)[i];
    add_card(p, card);
    p->state = 'h';
}

void dbl(int i, Player(*players)[], char card)
{
    Player* p = &(*players)[i];
    if (p->account < p->mybets) {  /* a double that cannot be paid is a foul, never a debt */
        foul(i, players);
        return;
    }
    p->account -= p->mybets;
    p->mybets *= 2;
    add_card(p, card);
    p->state = 'd';
}

void surrender(int i, Player(*players)[])
{
    (*players)[i].state = 'u';
}

void foul(int i, Player(*players)[])
{
    (*players)[i].state = 'f';
    (*players)[i].mybets = 0;  /* everything staked is lost */
}

void banker_continue(Banker* pbanker, const char* cards, int* ppos)
{
    pbanker->state = 'l';
    pbanker->points = calculate(&pbanker->mycards, pbanker->count);
    while (pbanker->points < 17 && pbanker->count < 19) {
        pbanker->mycards[pbanker->count++] = getcard(cards, ppos);
        pbanker->points = calculate(&pbanker->mycards, pbanker->count);
    }
}

static int is_bj(const char* c, int count)
{
    int ten0 = c[0] == 'T' || c[0] == 'J' || c[0] == 'Q' || c[0] == 'K';
    int ten1 = c[1] == 'T' || c[1] == 'J' || c[1] == 'Q' || c[1] == 'K';
    return count == 2 && ((c[0] == 'A' && ten1) || (c[1] == 'A' && ten0));
}

void judge(Banker* pbanker, Player(*players)[], int pNum, int* palive, int* ptotal_round)
{
    int dealer_bj = is_bj(pbanker->mycards, pbanker->count);
    int d = calculate(&pbanker->mycards, pbanker->count);
    int alive = 0;
    for (int i = 0; i < pNum - 1; i++) {
        Player* p = &(*players)[i];
        int b = p->mybets;
        if (b > 0 && p->state != 'f') {
            int bj = is_bj(p->mycards, p->count);
            int t = calculate(&p->mycards, p->count);
            if (dealer_bj) { if (bj) p->account += b; }
            else if (bj) p->account += 3 * b;
            else if (p->state == 'u') p->account += b / 2;
            else if (t > 21) { /* bust: lost */ }
            else if (d > 21 || t > d) p->account += 2 * b;
            else if (t == d) p->account += b;
            p->rounds++;
        }
        if (p->account >= MIN_BET)
            alive++;
    }
    *palive = alive;
    (*ptotal_round)++;
}

void show_result(Player(*players)[], int pNum)
{
    int n = pNum - 1;
    int order[8];
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 0; i < n; i++)          /* richest first; at zero, more rounds first */
        for (int j = i + 1; j < n; j++) {
            Player* a = &(*players)[order[i]];
            Player* b = &(*players)[order[j]];
            int b_first = b->account > a->account ||
                          (b->account == a->account && a->account == 0 && b->rounds > a->rounds);
            if (b_first) { int t = order[i]; order[i] = order[j]; order[j] = t; }
        }
    for (int i = 0; i < n; i++) {
        Player* p = &(*players)[order[i]];
        int rank = 1;
        for (int j = 0; j < n; j++) {
            Player* q = &(*players)[j];
            if (q->account > p->account || (q->account == p->account && p->account == 0 && q->rounds > p->rounds))
                rank++;
        }
        printf("%d. %s: %d after %d rounds\n", rank, p->name, p->account, p->rounds);
    }
}
