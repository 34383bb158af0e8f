/* Blackjack.h - the judge problem's interface (seed 004, "遊戲:外傳"), as its statement gives it.
 *
 * Write void play() in your .cpp file and #include "Blackjack.h".  The judge calls play() once per hand
 * until the test is decided; in play(), bet with init_game() and play the hand with the calls below.
 * Cards are 1 .. 13: A, 2 .. 10, J, Q, K.  Do not read standard input or write standard output (standard
 * error is kept in a file and otherwise ignored).  twentyone/judge/JUDGE.md describes every call and the
 * rulings where the statement is silent; c_src/judge/tw_judge_client.cpp implements them.
 */
#ifndef BLACKJACK_H
#define BLACKJACK_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

using namespace std;

void play();

/* Bet `bet` (1 .. your money): {your first card, your second card, the dealer's up card}. */
vector<int> init_game(int bet);
/* Must be called when the dealer shows an A: insure 0 .. bet/2; 1 if the dealer has a Black Jack (then call
 * stand()), else 0. */
int buy_insurance(int insurance_bet);
/* Stake the bet again and take one card (returned); stand() must follow. */
int double_down();
/* Split a pair: {the first hand's new card, the second hand's}; stakes the bet again. */
vector<int> split();
/* After split(): the first hand, then (after stand_1()) the second. stand_2() returns the dealer's hand. */
int hit_1();
void stand_1();
int hit_2();
vector<int> stand_2();
/* One more card; stand() ends the hand and returns the dealer's whole hand. */
int hit();
vector<int> stand();

/* Helpers, computed in your own program. */
bool is_blackjack(vector<int> v);
vector<int> cal_point(vector<int> v);
int cal_max_point(vector<int> v);
int win(vector<int> a, vector<int> b);
int bet_you_have();

#endif
