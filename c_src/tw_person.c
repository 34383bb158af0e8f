/* tw_person.c - the table as the course program shows it to a person, in the course's words (tw_person.h). */
#include "tw_person.h"

/* A hand's cards with a space between them: "J 5 9". */
static void cards(const char* c, int n)
{
    for (int i = 0; i < n && i < 20 && c[i]; i++)
        printf(i ? " %c" : "%c", c[i]);
}

static int is_ten(char c) { return c == 'T' || c == 'J' || c == 'Q' || c == 'K'; }

static int blackjack(const char* c, int n)
{
    return n == 2 && ((c[0] == 'A' && is_ten(c[1])) || (c[1] == 'A' && is_ten(c[0])));
}

void tw_zh_round(int round)
{
    printf("\n========== 第 %d 局 ==========\n", round);
}

void tw_zh_shuffle(int shoe)
{
    printf("\n剩余的牌不足总数的1/4，重新洗牌、切牌（第 %d 次洗牌）\n", shoe);
}

void tw_zh_bet(int i, const Player* p)
{
    printf("玩家%d %s，剩余赌资 %d 元，请下注（不低于 %d 元）：", i + 1, p->name, p->account, MIN_BET);
    fflush(stdout);
}

/* Everybody's cards as dealt: the dealer's up card and X for the hole card, then each seat's two cards. */
static void deal(const Banker* b, Player (*players)[], int seats, const tw_zh_seat* info)
{
    printf("庄家：%c X（明牌 %c，暗牌朝下）\n", b->mycards[0], b->mycards[0]);
    for (int j = 0; j < seats; j++) {
        const Player* p = &(*players)[j];
        if (!info[j].in_round) {
            printf("  玩家%d %s：本局未参加（剩余赌资 %d）\n", j + 1, p->name, p->account);
            continue;
        }
        printf("  玩家%d %s：", j + 1, p->name);
        cards(p->mycards, 2);
        printf("（%d点%s）赌注 %d\n", calculate((char(*)[20])p->mycards, 2),
               blackjack(p->mycards, 2) ? "，黑杰克" : "", info[j].bet);
    }
}

void tw_zh_first(int i, const Banker* b, Player (*players)[], int seats, const tw_zh_seat* info)
{
    const Player* p = &(*players)[i];
    deal(b, players, seats, info);
    printf("玩家%d %s，你的牌：", i + 1, p->name);
    cards(p->mycards, 2);
    printf("（%d点），请选择（%sh 拿牌，s 停牌，d 加倍，u 投降）：", p->points, b->mycards[0] == 'A' ? "i 保险，" : "");
    fflush(stdout);
}

void tw_zh_continue(int i, const Player* p, int two_card_choices)
{
    printf("玩家%d %s，你的牌：", i + 1, p->name);
    cards(p->mycards, p->count);
    printf("（%d点），请选择（h 拿牌，s 停牌%s）：", p->points, two_card_choices ? "，d 加倍，u 投降" : "");
    fflush(stdout);
}

static const char* foul_words(const char* cause)
{
    if (!strcmp(cause, "illegal_insurance")) return "违规（庄家明牌不是 A，不能买保险）";
    if (!strcmp(cause, "unaffordable_insurance")) return "违规（赌资不够买保险）";
    return "违规";
}

void tw_zh_result(const Banker* b, Player (*players)[], int seats, const tw_zh_seat* info)
{
    int d = calculate((char(*)[20])b->mycards, b->count);
    printf("庄家的牌：");
    cards(b->mycards, b->count);
    printf("（%d点%s）\n", d, blackjack(b->mycards, b->count) ? "，黑杰克" : d > 21 ? "，爆掉" : "");
    for (int j = 0; j < seats; j++) {
        const Player* p = &(*players)[j];
        if (!info[j].in_round)
            continue;
        int change = p->account - info[j].account_before;
        printf("  玩家%d %s：", j + 1, p->name);
        cards(p->mycards, p->count);
        if (info[j].added) printf("（%d点）赌注 %d，加倍后 %d，", p->points, info[j].bet, info[j].bet + info[j].added);
        else printf("（%d点）赌注 %d，", p->points, info[j].bet);
        if (info[j].foul) printf("%s，", foul_words(info[j].foul));
        else if (info[j].surrendered) printf("投降，");
        else if (p->points > 21) printf("爆掉，");
        else if (blackjack(p->mycards, p->count)) printf("黑杰克，");
        printf("%s %+d，剩余赌资 %d\n", change > 0 ? "赢" : change == 0 ? "平局" : "输", change, p->account);
    }
    fflush(stdout);
}

void tw_zh_end(const char* reason, int rounds, int shoes, Player (*players)[], int pNum)
{
    const char* why = !strcmp(reason, "broke") ? "所有玩家的赌资都已输光"
                      : !strcmp(reason, "shuffles") ? "洗过5次牌，第6次洗牌时游戏停止"
                      : !strcmp(reason, "rounds") ? "总局数达到玩家数量*50局" : reason;
    printf("\n游戏结束：%s。共 %d 局，%d 次洗牌。\n", why, rounds, shoes);
    printf("排名（剩余赌资多的胜；赌资相等且大于零则并列；都为零则轮次多的胜）：\n");
    for (int r = 1; r <= pNum - 1; r++)
        for (int i = 0; i < pNum - 1; i++)
            if (tw_rank(players, pNum, i) == r) {
                const Player* p = &(*players)[i];
                printf("  第 %d 名：玩家%d %s，剩余赌资 %d，%d 局\n", r, i + 1, p->name, p->account, p->rounds);
            }
    fflush(stdout);
}
