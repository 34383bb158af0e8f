/* twentyone.c - C versions of the course's helper functions, following twentyone/RULES.md.
 *
 * The course program (main.c) plays every round through these functions, and a student's mycodes.c
 * may call them too (the course's names and signatures).  Each helper works only on what it is
 * given: the cards array and position, the Banker, the players array.  In the course, pNum counts
 * the dealer too: the players are (*players)[0 .. pNum-2].
 *
 * What a Player's fields mean during a round (the engine's own copy; strategies get fresh copies):
 *   count > 0     the player was dealt in this round (round_init clears it, first_deal deals)
 *   state         the latest action: 'i' 'h' 's' 'd' 'u', 0 before the first one; 'f' after a foul
 *   mybets        the stake: doubled by dbl, 0 after a foul (everything staked is lost)
 *   points        calculate() of the hand, kept up to date by first_deal, hit and dbl
 * Insurance is paid out of account at once (I = mybets / 2); a surrender's refund, like every other
 * payment, is made by judge.
 */
#include "twentyone.h"
#include "tw_rng.h"

/* The generator behind shuffle_cards (the course reseeded rand() from the clock at every shuffle). */
static tw_rng tw_shuffle_rng = { 0 };

void tw_set_seed(unsigned long long seed)
{
    tw_rng_seed(&tw_shuffle_rng, (uint64_t)seed);
}

unsigned long long tw_get_seed(void)
{
    return (unsigned long long)tw_shuffle_rng.state;
}

/* N decks in order: deck by deck, four suits each, "A23456789TJQK". */
void init_cards(char* cards, int N)
{
    tw_init_cards(cards, N);
}

/* A fresh N-deck shoe in a uniform (Fisher-Yates) order. */
void shuffle_cards(char* cards, int N)
{
    tw_init_cards(cards, N);
    tw_shuffle(&tw_shuffle_rng, cards, N * 52);
}

/* Card values (A counts 1 here); anything that is not a card code counts 0. */
static const unsigned char tw_value[256] = {
    ['A'] = 1, ['2'] = 2, ['3'] = 3, ['4'] = 4, ['5'] = 5, ['6'] = 6, ['7'] = 7, ['8'] = 8, ['9'] = 9,
    ['T'] = 10, ['J'] = 10, ['Q'] = 10, ['K'] = 10,
};

/* The best total: each A counts 11 when that does not bust the hand, else 1. */
int calculate(char(*mycards)[20], int len)
{
    int hard = 0, ace = 0;
    for (int i = 0; i < len && i < 20; i++) {
        unsigned char c = (unsigned char)(*mycards)[i];
        hard += tw_value[c];
        ace |= c == 'A';
    }
    return (ace && hard <= 11) ? hard + 10 : hard;
}

/* The next card of the shoe. */
char getcard(const char* cards, int* ppos)
{
    return cards[(*ppos)++];
}

/* A hand holds at most 20 cards (a 21st is impossible: 20 cards that have not reached 21 are
 * ten aces, a 2 and eight more aces, and any 20th card ends the hand). */
static void add_card(Player* p, char card)
{
    if (p->count >= 0 && p->count < 20) {
        p->mycards[p->count++] = card;
        if (p->count < 20)
            p->mycards[p->count] = 0;
    }
    p->points = calculate(&p->mycards, p->count);
}

/* A new round: the dealer's hand and every player's hand, state and bet are cleared. */
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

/* Two cards face up to each player who bet, in seat order; then the dealer's up card and hole
 * card.  A player with no bet and less than MIN_BET is out of the game and gets no cards. */
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

/* Player i buys insurance: I = mybets / 2 leaves the account at once and is never refunded; judge
 * pays I + 2*I back if the dealer has Black Jack.  Insurance when the up card (tmpcards[0]) is not
 * an A, or that the player cannot pay for, is a foul. */
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

/* Player i takes one more card. */
void hit(int i, Player(*players)[], char card)
{
    Player* p = &(*players)[i];
    add_card(p, card);
    p->state = 'h';
}

/* Player i doubles: the stake grows by the bet and exactly one card is taken.  A player who cannot
 * pay the whole double doubles for less: the stake grows by what is left of the account, possibly
 * nothing.  Never a debt, never a foul (the course's program let the account go negative here). */
void dbl(int i, Player(*players)[], char card)
{
    Player* p = &(*players)[i];
    int add = p->account < p->mybets ? p->account : p->mybets;
    if (add < 0) add = 0;
    p->account -= add;
    p->mybets += add;
    add_card(p, card);
    p->state = 'd';
}

/* Player i surrenders: the hand ends; judge gives back mybets / 2. */
void surrender(int i, Player(*players)[])
{
    (*players)[i].state = 'u';
}

/* Player i fouls: the hand ends and everything staked this round is lost. */
void foul(int i, Player(*players)[])
{
    (*players)[i].state = 'f';
    (*players)[i].mybets = 0;
}

/* The dealer shows the hole card and draws until the total is at least 17 (stands on soft 17). */
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

/* Settle every hand dealt this round (count > 0), with B = mybets:
 *   foul: nothing back.  Dealer Black Jack: an insured hand (state 'i') gets 3 * (B / 2) back, a
 *   player Black Jack pushes (B back), everything else loses.  Otherwise: player Black Jack 3B back
 *   (wins 2x the bet), surrender B / 2, bust nothing, dealer bust or higher total 2B, equal total B.
 * *palive becomes the number of players with at least MIN_BET, and *ptotal_round counts the round.
 * (The players' rounds are counted when they bet, in main.c, so strategies see them during the round.) */
void judge(Banker* pbanker, Player(*players)[], int pNum, int* palive, int* ptotal_round)
{
    int dealer_bj = is_bj(pbanker->mycards, pbanker->count);
    int d = calculate(&pbanker->mycards, pbanker->count);
    int alive = 0;
    for (int i = 0; i < pNum - 1; i++) {
        Player* p = &(*players)[i];
        int b = p->mybets;
        if (p->count > 0 && p->state != 'f') {
            int bj = is_bj(p->mycards, p->count);
            int t = calculate(&p->mycards, p->count);
            if (dealer_bj) {
                if (p->state == 'i') p->account += 3 * (b / 2);
                if (bj) p->account += b;
            }
            else if (bj) p->account += 3 * b;
            else if (p->state == 'u') p->account += b / 2;
            else if (t > 21) { /* bust: lost, even if the dealer busts too */ }
            else if (d > 21 || t > d) p->account += 2 * b;
            else if (t == d) p->account += b;
        }
        if (p->account >= MIN_BET)
            alive++;
    }
    *palive = alive;
    (*ptotal_round)++;
}

/* 1 + the number of players ranked above player i: more money first; at zero money, more rounds
 * first; equal money above zero ties. */
int tw_rank(Player(*players)[], int pNum, int i)
{
    const Player* a = &(*players)[i];
    int rank = 1;
    for (int j = 0; j < pNum - 1; j++) {
        const Player* q = &(*players)[j];
        if (q->account > a->account || (q->account == a->account && a->account == 0 && q->rounds > a->rounds))
            rank++;
    }
    return rank;
}

/* The final ranking, best first (players of equal rank in seat order). */
void show_result(Player(*players)[], int pNum)
{
    for (int r = 1; r <= pNum - 1; r++)
        for (int i = 0; i < pNum - 1; i++)
            if (tw_rank(players, pNum, i) == r) {
                const Player* p = &(*players)[i];
                printf("%d. seat %d %.20s: %d after %d rounds\n", r, i + 1, p->name, p->account, p->rounds);
            }
}
