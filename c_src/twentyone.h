/* twentyone.h - the course's structs, constants and helper functions (21点游戏).
 *
 * Field order and types are the course's: students index these structs and take their sizes.
 * The helpers are implemented in twentyone.c; the rules they follow are twentyone/RULES.md.
 */
#ifndef TWENTYONE_H
#define TWENTYONE_H

#include <stdio.h>
#include <conio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#define TOTAL_MONEY 1000   /* starting money per player */
#define MIN_BET 10         /* minimum bet; below it a player leaves */
#define THD 3/4            /* N*52*THD: reshuffle once more cards than this have been dealt */
#define SHUFFLE_TIMES 5    /* shoes played at most */
#define ROUNDS 50          /* rounds per player seat at most */

typedef struct {
    char name[20];
    int account;
    char mycards[20];
    int count;
    char state;
    int mybets;
    int points;
    int rounds;
} Player;

typedef struct {
    char mycards[20];
    int count;
    char state;     /* 'd' hole card down, 'l' shown */
    int points;
} Banker;

void init_cards(char* cards, int N);
void shuffle_cards(char* cards, int N);
void first_deal(const char* cards, int* ppos, Banker* pbanker, Player(*pplayers)[], int pNum);
void round_init(Banker* pbanker, Player(*players)[], int pNum);
char getcard(const char* cards, int* ppos);
void insurance(Banker* pbanker, int i, Player(*players)[], char* tmpcards);
void hit(int i, Player(*players)[], char card);
void dbl(int i, Player(*players)[], char card);
void surrender(int i, Player(*players)[]);
void foul(int i, Player(*players)[]);
int calculate(char(*mycards)[20], int len);
void banker_continue(Banker* pbanker, const char* cards, int* ppos);
void judge(Banker* pbanker, Player(*players)[], int pNum, int* palive, int* ptotal_round);
void show_result(Player(*players)[], int pNum);

/* Not in the course: seed the generator behind shuffle_cards (the course used the clock), and read
 * its state back (tw_set_seed(tw_get_seed()) continues exactly where the generator was). */
void tw_set_seed(unsigned long long seed);
unsigned long long tw_get_seed(void);
/* Not in the course: player i's place in the final ranking, 1 = best (ties share a place). */
int tw_rank(Player(*players)[], int pNum, int i);

#endif
