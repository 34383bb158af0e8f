/* tw_person.h - what the course program shows a person at the table, in the course's words (Chinese).
 *
 * The manual game of a file with #define PERSON on (./twentyone-c without arguments, built by
 * make c-program) shows the table before each question the student's own functions ask with scanf and
 * getche: the bet, the first action, each later action; then every hand's result at the end of the round,
 * the reshuffles and the final ranking.  The words are the course document's (庄家, 明牌, 暗牌, 赌注,
 * 赌资, 保险, 拿牌, 停牌, 加倍, 投降, 爆掉, 黑杰克, 平局, 违规).  Output is UTF-8.
 */
#ifndef TW_PERSON_H
#define TW_PERSON_H

#include "twentyone.h"

/* What a round's record holds for one seat, beyond the course's Player struct. */
typedef struct {
    int in_round;        /* dealt in this round */
    int bet;             /* the bet as placed */
    int added;           /* what a double added to it (0 without a double) */
    int account_before;  /* money before the bet */
    int surrendered;
    const char* foul;    /* NULL, or the round log's cause */
} tw_zh_seat;

/* A new round; a new shoe (not the first). */
void tw_zh_round(int round);
void tw_zh_shuffle(int shoe);
/* Before betK: whose turn, the money, the minimum. */
void tw_zh_bet(int i, const Player* p);
/* Before first_actionK: the dealer's up card and hole card (X), every hand dealt, then the choices. */
void tw_zh_first(int i, const Banker* b, Player (*players)[], int seats, const tw_zh_seat* info);
/* Before continue_actionK: the player's cards and total, then the choices (h s, or h s d u after insurance). */
void tw_zh_continue(int i, const Player* p, int two_card_choices);
/* The end of a round: the dealer's hand and every seat's cards, bet, result and money. */
void tw_zh_result(const Banker* b, Player (*players)[], int seats, const tw_zh_seat* info);
/* The end of the match: why, and the ranking. */
void tw_zh_end(const char* reason, int rounds, int shoes, Player (*players)[], int pNum);

#endif
