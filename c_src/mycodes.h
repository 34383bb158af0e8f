/* mycodes.h - the functions a student writes in mycodes.c: set K (1..5) plays seat K.
 *
 * betK(N): the bet for a round, N = decks.  first_actionK(tmpcards, len): i h s d or u after the deal.
 * continue_actionK(players): h or s while the hand is live ((*players)[0] is the player).
 * showK(pbanker, players, pNum, N, pos): every card of the finished round.
 */
#ifndef MYCODES_H
#define MYCODES_H

#include "twentyone.h"

int bet1(int N);
char first_action1(char* tmpcards, int len);
char continue_action1(Player(*players)[]);
void show1(Banker* pbanker, Player(*players)[], int pNum, int N, int pos);

int bet2(int N);
char first_action2(char* tmpcards, int len);
char continue_action2(Player(*players)[]);
void show2(Banker* pbanker, Player(*players)[], int pNum, int N, int pos);

int bet3(int N);
char first_action3(char* tmpcards, int len);
char continue_action3(Player(*players)[]);
void show3(Banker* pbanker, Player(*players)[], int pNum, int N, int pos);

int bet4(int N);
char first_action4(char* tmpcards, int len);
char continue_action4(Player(*players)[]);
void show4(Banker* pbanker, Player(*players)[], int pNum, int N, int pos);

int bet5(int N);
char first_action5(char* tmpcards, int len);
char continue_action5(Player(*players)[]);
void show5(Banker* pbanker, Player(*players)[], int pNum, int N, int pos);

#endif
