#include "mycodes.h"
//#define PERSON
/* mycodes.c - your strategy for the 21 game.
 *
 * Function set K (K = 1..5) plays seat K: betK, first_actionK, continue_actionK and showK.
 * Write your strategy between "#else" and "#endif" in each function; leave the rest alone.
 * Remove the // in front of "#define PERSON" on line 2 to play by hand at the keyboard.
 *
 * tmpcards: [0] the dealer's up card, [1] 'X' (the hole card), then two cards per seat:
 * seat K's cards are tmpcards[2*K] and tmpcards[2*K+1]; '-' marks an empty seat.
 * Actions: 'i' insurance (dealer shows an A), 'h' hit, 's' stand, 'd' double, 'u' surrender.
 */

/* The total of the two cards of seat K in tmpcards. */
static int seat_total(const char* tmpcards, int K)
{
    char cards[20] = { 0 };
    cards[0] = tmpcards[2 * K];
    cards[1] = tmpcards[2 * K + 1];
    return calculate(&cards, 2);
}

int bet1(int N)
{
#ifdef PERSON
    int money = 0;
    printf("player 1, your bet (at least %d, %d decks): ", MIN_BET, N);
    if (scanf("%d", &money) != 1) money = MIN_BET;
    return money;
#else
    (void)N;
    return MIN_BET;
#endif
}

char first_action1(char* tmpcards, int len)
{
#ifdef PERSON
    (void)len;
    printf("dealer shows %c, you (player 1) hold %c%c: i/h/s/d/u? ", tmpcards[0], tmpcards[2 * 1], tmpcards[2 * 1 + 1]);
    return (char)getche();
#else
    (void)len;
    return seat_total(tmpcards, 1) < 17 ? 'h' : 's';
#endif
}

char continue_action1(Player(*players)[])
{
#ifdef PERSON
    printf("\nplayer 1 holds %s (%d): h/s? ", (*players)[0].mycards, (*players)[0].points);
    return (char)getche();
#else
    return (*players)[0].points < 17 ? 'h' : 's';
#endif
}

void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)
{
#ifdef PERSON
    printf("\ndealer %s (%d)\n", pbanker->mycards, pbanker->points);
    for (int i = 0; i < pNum - 1; i++)
        printf("  %s: %s (%d), money %d\n", (*players)[i].name, (*players)[i].mycards, (*players)[i].points, (*players)[i].account);
    (void)N; (void)pos;
#else
    (void)pbanker; (void)players; (void)pNum; (void)N; (void)pos;
#endif
}

int bet2(int N)
{
#ifdef PERSON
    int money = 0;
    printf("player 2, your bet (at least %d, %d decks): ", MIN_BET, N);
    if (scanf("%d", &money) != 1) money = MIN_BET;
    return money;
#else
    (void)N;
    return MIN_BET;
#endif
}

char first_action2(char* tmpcards, int len)
{
#ifdef PERSON
    (void)len;
    printf("dealer shows %c, you (player 2) hold %c%c: i/h/s/d/u? ", tmpcards[0], tmpcards[2 * 2], tmpcards[2 * 2 + 1]);
    return (char)getche();
#else
    (void)len;
    return seat_total(tmpcards, 2) < 17 ? 'h' : 's';
#endif
}

char continue_action2(Player(*players)[])
{
#ifdef PERSON
    printf("\nplayer 2 holds %s (%d): h/s? ", (*players)[0].mycards, (*players)[0].points);
    return (char)getche();
#else
    return (*players)[0].points < 17 ? 'h' : 's';
#endif
}

void show2(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)
{
#ifdef PERSON
    printf("\ndealer %s (%d)\n", pbanker->mycards, pbanker->points);
    for (int i = 0; i < pNum - 1; i++)
        printf("  %s: %s (%d), money %d\n", (*players)[i].name, (*players)[i].mycards, (*players)[i].points, (*players)[i].account);
    (void)N; (void)pos;
#else
    (void)pbanker; (void)players; (void)pNum; (void)N; (void)pos;
#endif
}

int bet3(int N)
{
#ifdef PERSON
    int money = 0;
    printf("player 3, your bet (at least %d, %d decks): ", MIN_BET, N);
    if (scanf("%d", &money) != 1) money = MIN_BET;
    return money;
#else
    (void)N;
    return MIN_BET;
#endif
}

char first_action3(char* tmpcards, int len)
{
#ifdef PERSON
    (void)len;
    printf("dealer shows %c, you (player 3) hold %c%c: i/h/s/d/u? ", tmpcards[0], tmpcards[2 * 3], tmpcards[2 * 3 + 1]);
    return (char)getche();
#else
    (void)len;
    return seat_total(tmpcards, 3) < 17 ? 'h' : 's';
#endif
}

char continue_action3(Player(*players)[])
{
#ifdef PERSON
    printf("\nplayer 3 holds %s (%d): h/s? ", (*players)[0].mycards, (*players)[0].points);
    return (char)getche();
#else
    return (*players)[0].points < 17 ? 'h' : 's';
#endif
}

void show3(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)
{
#ifdef PERSON
    printf("\ndealer %s (%d)\n", pbanker->mycards, pbanker->points);
    for (int i = 0; i < pNum - 1; i++)
        printf("  %s: %s (%d), money %d\n", (*players)[i].name, (*players)[i].mycards, (*players)[i].points, (*players)[i].account);
    (void)N; (void)pos;
#else
    (void)pbanker; (void)players; (void)pNum; (void)N; (void)pos;
#endif
}

int bet4(int N)
{
#ifdef PERSON
    int money = 0;
    printf("player 4, your bet (at least %d, %d decks): ", MIN_BET, N);
    if (scanf("%d", &money) != 1) money = MIN_BET;
    return money;
#else
    (void)N;
    return MIN_BET;
#endif
}

char first_action4(char* tmpcards, int len)
{
#ifdef PERSON
    (void)len;
    printf("dealer shows %c, you (player 4) hold %c%c: i/h/s/d/u? ", tmpcards[0], tmpcards[2 * 4], tmpcards[2 * 4 + 1]);
    return (char)getche();
#else
    (void)len;
    return seat_total(tmpcards, 4) < 17 ? 'h' : 's';
#endif
}

char continue_action4(Player(*players)[])
{
#ifdef PERSON
    printf("\nplayer 4 holds %s (%d): h/s? ", (*players)[0].mycards, (*players)[0].points);
    return (char)getche();
#else
    return (*players)[0].points < 17 ? 'h' : 's';
#endif
}

void show4(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)
{
#ifdef PERSON
    printf("\ndealer %s (%d)\n", pbanker->mycards, pbanker->points);
    for (int i = 0; i < pNum - 1; i++)
        printf("  %s: %s (%d), money %d\n", (*players)[i].name, (*players)[i].mycards, (*players)[i].points, (*players)[i].account);
    (void)N; (void)pos;
#else
    (void)pbanker; (void)players; (void)pNum; (void)N; (void)pos;
#endif
}

int bet5(int N)
{
#ifdef PERSON
    int money = 0;
    printf("player 5, your bet (at least %d, %d decks): ", MIN_BET, N);
    if (scanf("%d", &money) != 1) money = MIN_BET;
    return money;
#else
    (void)N;
    return MIN_BET;
#endif
}

char first_action5(char* tmpcards, int len)
{
#ifdef PERSON
    (void)len;
    printf("dealer shows %c, you (player 5) hold %c%c: i/h/s/d/u? ", tmpcards[0], tmpcards[2 * 5], tmpcards[2 * 5 + 1]);
    return (char)getche();
#else
    (void)len;
    return seat_total(tmpcards, 5) < 17 ? 'h' : 's';
#endif
}

char continue_action5(Player(*players)[])
{
#ifdef PERSON
    printf("\nplayer 5 holds %s (%d): h/s? ", (*players)[0].mycards, (*players)[0].points);
    return (char)getche();
#else
    return (*players)[0].points < 17 ? 'h' : 's';
#endif
}

void show5(Banker* pbanker, Player(*players)[], int pNum, int N, int pos)
{
#ifdef PERSON
    printf("\ndealer %s (%d)\n", pbanker->mycards, pbanker->points);
    for (int i = 0; i < pNum - 1; i++)
        printf("  %s: %s (%d), money %d\n", (*players)[i].name, (*players)[i].mycards, (*players)[i].points, (*players)[i].account);
    (void)N; (void)pos;
#else
    (void)pbanker; (void)players; (void)pNum; (void)N; (void)pos;
#endif
}
