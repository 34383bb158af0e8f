/* main.c - the course's 21点 program with the project's rulings applied (twentyone/RULES.md).
 *
 * The match loop is the course's: init_cards and shuffle_cards, then round after round round_init,
 * the bets (betK), first_deal, the first actions (first_actionK) carried out by insurance, hit,
 * dbl, surrender and foul, the later decisions (continue_actionK), banker_continue, judge and the
 * shows (showK); the shoe is reshuffled once fewer than a quarter of it remains; show_result at the
 * end.  The helpers are twentyone.c's.  What the rulings change is the order: the dealer peeks when
 * the up card is an A, and each player finishes the hand before the next one is asked (RULES.md).
 *
 * Without arguments it plays like the course: it asks for the number of people, their names and
 * the decks, then plays; under PERSON (in mycodes.c) the student's functions ask at the keyboard, and
 * the table is shown before each of their questions, in the course's words (Chinese, tw_person.c).
 * Built by make c-program, the automatic runs below play a second copy of the file with PERSON
 * switched off, as the Python engine does (TW_AUTO_OBJECT), and say so when it was on.
 * For automation:
 *     twentyone-c --seed S --decks N --seats K [--log FILE.jsonl] [--quiet [--output FILE]] [--source PATH]
 * seats 1..K are played by function sets 1..K, and --log writes the same JSONL round log as the
 * Python engine (twentyone/table.py), byte for byte; the log names the players PATH:K
 * (default mycodes.c:K), as the Python engine names them by their --player spec.  --quiet prints
 * only the result: what the players print goes to a file (--output FILE, by default the Python
 * engine's output folder), cut at 1 MiB, and the program says once where it is.
 * --matches M (with the above) plays M matches with seeds S, S+1, ... and prints rounds/s.
 */
#define _GNU_SOURCE  /* fopencookie: --quiet sends the players' printing to a capped file */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mycodes.h"
#ifdef TW_PERSON_SWITCHED_OFF
#include "tw_person.h"
#endif

/* A mycodes.c may fill in only some function sets: a missing one is a null pointer here. */
#pragma weak bet1
#pragma weak bet2
#pragma weak bet3
#pragma weak bet4
#pragma weak bet5
#pragma weak first_action1
#pragma weak first_action2
#pragma weak first_action3
#pragma weak first_action4
#pragma weak first_action5
#pragma weak continue_action1
#pragma weak continue_action2
#pragma weak continue_action3
#pragma weak continue_action4
#pragma weak continue_action5
#pragma weak show1
#pragma weak show2
#pragma weak show3
#pragma weak show4
#pragma weak show5

#define MAXS 5      /* player seats at most */
#define MAXACTS 24  /* decisions in one hand at most ('i', up to 18 'h', then 's') */

/* The students' functions, as the course's arrays of function pointers. */
static int (*bet_arr[MAXS])(int) = { bet1, bet2, bet3, bet4, bet5 };
static char (*first_action_arr[MAXS])(char*, int) = {
    first_action1, first_action2, first_action3, first_action4, first_action5 };
static char (*continue_action_arr[MAXS])(Player(*)[]) = {
    continue_action1, continue_action2, continue_action3, continue_action4, continue_action5 };
static void (*show_arr[MAXS])(Banker*, Player(*)[], int, int, int) = { show1, show2, show3, show4, show5 };

#ifdef TW_AUTO_OBJECT
/* make c-program links a second copy of the file (twentyone/players/c/program.py): the file as
 * `twentyone match` compiles it, #define PERSON switched off, every global renamed tw_auto_*.  The
 * automatic runs (--seed ...) play that copy; the manual game (no arguments) plays the file as it is.
 * A missing function set is a null pointer here too. */
#define TW_AUTO_SET(k)                                                                              \
    __attribute__((weak)) int tw_auto_bet##k(int);                                                    \
    __attribute__((weak)) char tw_auto_first_action##k(char*, int);                                   \
    __attribute__((weak)) char tw_auto_continue_action##k(Player(*)[]);                               \
    __attribute__((weak)) void tw_auto_show##k(Banker*, Player(*)[], int, int, int);
TW_AUTO_SET(1) TW_AUTO_SET(2) TW_AUTO_SET(3) TW_AUTO_SET(4) TW_AUTO_SET(5)

static void play_the_auto_copy(void)
{
#define TW_AUTO_USE(k)                                                                              \
    bet_arr[k - 1] = tw_auto_bet##k;                                                                  \
    first_action_arr[k - 1] = tw_auto_first_action##k;                                                \
    continue_action_arr[k - 1] = tw_auto_continue_action##k;                                          \
    show_arr[k - 1] = tw_auto_show##k;
    TW_AUTO_USE(1) TW_AUTO_USE(2) TW_AUTO_USE(3) TW_AUTO_USE(4) TW_AUTO_USE(5)
}
#endif

/* -- the course's variables ----------------------------------------------------------------- */
static int pNum;                 /* number of people, the dealer included */
static int N;                    /* decks */
static Player players[MAXS];
static Banker banker;
static char cards[2 * 8 * 52];   /* the shoe; cards[N*52 ..] holds the next shoe if it was shuffled early */
static int pos;                  /* cards dealt from the current shoe */
static int turns;                /* shuffles so far, mid-round refills included (= the shoe's number) */
static int total_rounds;         /* rounds played */
static int alive;                /* players with at least MIN_BET (judge counts them) */
static char tmpcards[2 + 2 * MAXS + 1];  /* what first_action sees: up card, X, two cards per seat */

/* -- what the course's structs have no field for: this round's record of each seat ---------- */
static int bet0[MAXS];            /* the bet as placed (players[i].mybets is doubled by dbl, 0 after foul) */
static int paid_insurance[MAXS];
static int doubled[MAXS], surrendered[MAXS], done[MAXS], account_before[MAXS];
static int added[MAXS];           /* what a double added: the bet, or less (a double for less) */
static const char* foul_cause[MAXS];
static char acts[MAXS][MAXACTS];  /* the actions taken, in order; the last one is what strategies see as state */
static int nacts[MAXS];

/* -- the shoe's generator and the early-shuffled next shoe ----------------------------------- */
/* shuffle_cards draws from one generator in twentyone.c, which a student's file may call too.  The
 * match's state is kept here and swapped in only for the engine's own shuffles, so the two never
 * disturb each other: a student's shuffle_cards sees the same sequence as in the Python engine. */
static unsigned long long shoe_state;
static int next_ready;

/* -- options ---------------------------------------------------------------------------------- */
static FILE* logf;
static int quiet;
/* The manual game of a file with #define PERSON (make c-program): the table is shown before each question
 * the student's functions ask, in the course's words (tw_person.c). */
static int person;
static const char* output_path;  /* --output FILE: where --quiet puts what the players print */
static unsigned long long seed;
static const char* source = "mycodes.c";

static int is_ten(char c) { return c == 'T' || c == 'J' || c == 'Q' || c == 'K'; }
static int is_hsdu(char a) { return a == 'h' || a == 's' || a == 'd' || a == 'u'; }
/* In the round: dealt by first_deal.  Black Jack: two cards making 21 (only an A and a ten do). */
#define IN_ROUND(i) (players[i].count > 0)
#define BJ(i) (players[i].count == 2 && players[i].points == 21)

/* -- JSON output, byte for byte what Python's json.dumps(ensure_ascii=False) writes ---------- */
static void json_chars(FILE* f, const char* s, int n)
{
    for (int i = 0; n < 0 ? s[i] != 0 : i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') fputs("\\\"", f);
        else if (c == '\\') fputs("\\\\", f);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c == '\b') fputs("\\b", f);
        else if (c == '\f') fputs("\\f", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
}

static void json_str(FILE* f, const char* s, int n)
{
    fputc('"', f);
    json_chars(f, s, n);
    fputc('"', f);
}

static const char* jbool(int b) { return b ? "true" : "false"; }

/* -- the shoe: init_cards, shuffle_cards, getcard ----------------------------------------------- */
static void shuffle_into(char* shoe)
{
    unsigned long long theirs = tw_get_seed();  /* where a student's own shuffle_cards calls left it */
    tw_set_seed(shoe_state);
    init_cards(shoe, N);
    shuffle_cards(shoe, N);
    shoe_state = tw_get_seed();
    tw_set_seed(theirs);
}

/* A full new shoe: at the start, after a round that left fewer than a quarter, or mid-round. */
static void new_shoe(int mid_round)
{
    if (next_ready) {
        memcpy(cards, cards + N * 52, (size_t)N * 52);
        next_ready = 0;
    } else {
        shuffle_into(cards);
    }
    pos = 0;
    turns++;
    if (logf) {
        fprintf(logf, "{\"type\":\"shuffle\",\"shoe\":%d,\"order\":", turns);
        json_str(logf, cards, N * 52);
        fprintf(logf, ",\"mid_round\":%s}\n", jbool(mid_round));
    }
}

/* getcard; if the shoe ran out in the middle of a round, it is refilled first. */
static char draw(void)
{
    if (pos >= N * 52)
        new_shoe(1);
    return getcard(cards, &pos);
}

/* first_deal and banker_continue take their cards with getcard straight from the array.  When fewer
 * than n cards are left, the next shoe is shuffled now into cards[N*52 ..]: only shuffles use the
 * generator, so that shoe is the same whenever it is shuffled.  A card taken from it is the
 * mid-round refill (spill), exactly as draw() would have made it. */
static void reserve(int n)
{
    if (N * 52 - pos < n && !next_ready) {
        shuffle_into(cards + N * 52);
        next_ready = 1;
    }
}

static void spill(void)
{
    if (pos > N * 52) {
        int over = pos - N * 52;
        new_shoe(1);
        pos = over;
    }
}

/* -- what strategies see: fresh zero-filled copies ----------------------------------------- */
static void view(int j, Player* p)
{
    const Player* s = &players[j];
    memset(p, 0, sizeof *p);
    memcpy(p->name, s->name, sizeof p->name - 1);
    p->account = s->account;
    memcpy(p->mycards, s->mycards, s->count < 19 ? (size_t)s->count : 19);
    p->count = s->count;
    p->state = nacts[j] ? acts[j][nacts[j] - 1] : 0;   /* a fouled hand shows its latest action */
    p->mybets = foul_cause[j] ? bet0[j] : s->mybets;   /* and its stake */
    p->points = s->points;
    p->rounds = s->rounds;
}

/* Every seat at its own index; the entries past the last seat are zeroed. */
static void views(Player* ps)
{
    for (int j = 0; j < MAXS; j++) {
        if (j < pNum - 1) view(j, &ps[j]);
        else memset(&ps[j], 0, sizeof ps[j]);
    }
}

#ifdef TW_PERSON_SWITCHED_OFF
/* What the round record holds of each seat, for the person's screen. */
static void seat_info(tw_zh_seat* info)
{
    for (int j = 0; j < pNum - 1; j++) {
        info[j].in_round = IN_ROUND(j);
        info[j].bet = bet0[j];
        info[j].account_before = account_before[j];
        info[j].surrendered = surrendered[j];
        info[j].foul = foul_cause[j];
        info[j].added = added[j];
    }
}
#endif

static char ask_first(int i)
{
    char t[sizeof tmpcards];
    memcpy(t, tmpcards, sizeof t);
#ifdef TW_PERSON_SWITCHED_OFF
    if (person) {
        tw_zh_seat info[MAXS];
        seat_info(info);
        tw_zh_first(i, &banker, &players, pNum - 1, info);
    }
#endif
    return first_action_arr[i](t, 2 + 2 * (pNum - 1));
}

/* (*players)[0] is the player itself, as the course passed it; it is also at [i]. */
static char ask_continue(int i)
{
    Player ps[MAXS];
    views(ps);
    view(i, &ps[0]);
#ifdef TW_PERSON_SWITCHED_OFF
    if (person)  /* right after insurance the hand still has its two-card choices */
        tw_zh_continue(i, &players[i], players[i].count == 2 && nacts[i] == 1 && acts[i][0] == 'i');
#endif
    return continue_action_arr[i](&ps);
}

static void show_all(void)
{
    Banker b;
    Player ps[MAXS];
    for (int i = 0; i < pNum - 1; i++) {
        memset(&b, 0, sizeof b);
        memcpy(b.mycards, banker.mycards, banker.count < 19 ? (size_t)banker.count : 19);
        b.count = banker.count;
        b.state = banker.state;
        b.points = banker.points;
        views(ps);
        show_arr[i](&b, &ps, pNum, N, pos);
    }
}

/* -- one player's decisions, carried out by the course's helpers ------------------------------- */
static void note(int i, char a)
{
    players[i].state = a;
    acts[i][nacts[i]++] = a;
}

static void do_foul(int i, const char* cause)
{
    foul_cause[i] = cause;
    foul(i, &players);
    done[i] = 1;
}

static void do_insurance(int i)
{
    int before = players[i].account;
    insurance(&banker, i, &players, tmpcards);
    if (players[i].state == 'f') {  /* no A up, or more than the player has */
        foul_cause[i] = tmpcards[0] == 'A' ? "unaffordable_insurance" : "illegal_insurance";
        done[i] = 1;
        return;
    }
    paid_insurance[i] = before - players[i].account;
    note(i, 'i');
}

static void do_hit(int i)
{
    note(i, 'h');
    hit(i, &players, draw());
    if (players[i].points >= 21) done[i] = 1;  /* 21 stands, more is bust */
}

static void do_stand(int i)
{
    note(i, 's');
    done[i] = 1;
}

static void do_dbl(int i)
{
    int before = players[i].mybets;
    note(i, 'd');
    dbl(i, &players, draw());
    added[i] = players[i].mybets - before;
    doubled[i] = done[i] = 1;
}

static void do_surrender(int i)
{
    note(i, 'u');
    surrender(i, &players);
    surrendered[i] = done[i] = 1;
}

/* A two-card decision h, s, d or u takes effect; then continue_action plays the hand out (h or s). */
static void play_hand(int i, char c)
{
    if (BJ(i)) {  /* a Black Jack makes no playing decision: every choice means stand */
        note(i, c);
        done[i] = 1;
        return;
    }
    switch (c) {
    case 'h': do_hit(i); break;
    case 's': do_stand(i); break;
    case 'd': do_dbl(i); break;
    default: do_surrender(i); break;
    }
    while (!done[i]) {
        c = ask_continue(i);
        if (c == 'h') do_hit(i);
        else if (c == 's') do_stand(i);
        else do_foul(i, "illegal_action");
    }
}

/* Insured, and the dealer has no Black Jack: the hand still has two cards, so h, s, d or u. */
static void after_insurance(int i)
{
    if (BJ(i)) { done[i] = 1; return; }
    char c = ask_continue(i);
    if (is_hsdu(c)) play_hand(i, c);
    else do_foul(i, "illegal_action");
}

/* -- the log and the screen -------------------------------------------------------------------- */
static void write_match(void)
{
    fprintf(logf, "{\"type\":\"match\",\"seed\":%llu,\"rules\":\"course\",\"decks\":%d,\"seats\":[", seed, N);
    for (int i = 0; i < pNum - 1; i++) {
        fprintf(logf, "%s{\"seat\":%d,\"name\":", i ? "," : "", i + 1);
        json_str(logf, players[i].name, -1);
        fputs(",\"player\":\"", logf);
        json_chars(logf, source, -1);
        fprintf(logf, ":%d\"}", i + 1);
    }
    fputs("]}\n", logf);
}

static void write_round(int shoe, int first, int dealer_bj)
{
    fprintf(logf, "{\"type\":\"round\",\"round\":%d,\"shoe\":%d,\"first_card\":%d,\"dealer\":", total_rounds, shoe,
            first);
    json_str(logf, banker.mycards, banker.count);
    fprintf(logf, ",\"dealer_bj\":%s,\"players\":[", jbool(dealer_bj));
    int k = 0;
    for (int i = 0; i < pNum - 1; i++) {
        if (!IN_ROUND(i)) continue;
        fprintf(logf, "%s{\"seat\":%d,\"account_before\":%d,\"bet\":%d,\"insurance\":%d,\"actions\":", k++ ? "," : "",
                i + 1, account_before[i], bet0[i], paid_insurance[i]);
        json_str(logf, acts[i], nacts[i]);
        fputs(",\"cards\":", logf);
        json_str(logf, players[i].mycards, players[i].count);
        fprintf(logf, ",\"bj\":%s,\"doubled\":%s", jbool(BJ(i)), jbool(doubled[i]));
        if (doubled[i] && added[i] < bet0[i])  /* a double for less */
            fprintf(logf, ",\"added\":%d", added[i]);
        fprintf(logf, ",\"surrendered\":%s,\"foul\":", jbool(surrendered[i]));
        if (foul_cause[i]) json_str(logf, foul_cause[i], -1);
        else fputs("null", logf);
        fprintf(logf, ",\"account_after\":%d}", players[i].account);
    }
    fputs("]}\n", logf);
}

static void print_round(void)
{
    printf("round %d: dealer %.*s (%d)\n", total_rounds, banker.count, banker.mycards, banker.points);
    for (int i = 0; i < pNum - 1; i++) {
        Player* p = &players[i];
        if (!IN_ROUND(i)) continue;
        printf("  %-10s %-8.*s %2d  bet %4d  %s%s money %d\n", p->name, p->count, p->mycards, p->points, bet0[i],
               foul_cause[i] ? foul_cause[i] : "", foul_cause[i] ? " " : "", p->account);
    }
}

static void write_end(const char* reason)
{
    if (logf) {
        fprintf(logf, "{\"type\":\"end\",\"reason\":\"%s\",\"rounds\":%d,\"ranking\":[", reason, total_rounds);
        int k = 0;
        for (int r = 1; r <= pNum - 1; r++)
            for (int i = 0; i < pNum - 1; i++)
                if (tw_rank(&players, pNum, i) == r)
                    fprintf(logf, "%s{\"rank\":%d,\"seat\":%d,\"account\":%d,\"rounds\":%d}", k++ ? "," : "", r, i + 1,
                            players[i].account, players[i].rounds);
        fputs("]}\n", logf);
    }
#ifdef TW_PERSON_SWITCHED_OFF
    if (person) {
        tw_zh_end(reason, total_rounds, turns, &players, pNum);
        return;
    }
#endif
    printf("match ended (%s) after %d rounds, %d shoes\n", reason, total_rounds, turns);
    show_result(&players, pNum);
}

/* -- the match: the course's main loop ------------------------------------------------------------ */
static const char* play_match(void)
{
    const char* reason = NULL;
    int i, threshold = N * 52 * THD;  /* reshuffle once more cards than this have been dealt */
    for (i = 0; i < pNum - 1; i++) {
        players[i].account = TOTAL_MONEY;
        players[i].rounds = 0;
    }
    shoe_state = seed;
    next_ready = 0;
    turns = total_rounds = 0;
    alive = pNum - 1;
    if (logf) write_match();
    new_shoe(0);  /* init_cards, shuffle_cards */
    do {
        round_init(&banker, &players, pNum);
#ifdef TW_PERSON_SWITCHED_OFF
        if (person) tw_zh_round(total_rounds + 1);
#endif

        /* bets: every player still in the game; below MIN_BET a player is out for good */
        for (i = 0; i < pNum - 1; i++) {
            account_before[i] = players[i].account;
            bet0[i] = paid_insurance[i] = doubled[i] = added[i] = surrendered[i] = done[i] = nacts[i] = 0;
            foul_cause[i] = NULL;
            if (players[i].account < MIN_BET) continue;
            players[i].rounds++;
#ifdef TW_PERSON_SWITCHED_OFF
            if (person) tw_zh_bet(i, &players[i]);  /* the student's scanf reads the bet */
#endif
            int mybet = bet_arr[i](N);
            if (mybet < MIN_BET) mybet = MIN_BET;
            if (mybet > players[i].account) mybet = players[i].account;
            players[i].mybets = bet0[i] = mybet;
            players[i].account -= mybet;
        }
        int shoe = turns, first = pos;

        reserve(2 * pNum);
        first_deal(cards, &pos, &banker, &players, pNum);
        spill();

        /* what everybody sees: the up card, X for the hole card, two cards per seat (- - if out) */
        char up = banker.mycards[0], hole = banker.mycards[1];
        int dealer_bj = (up == 'A' && is_ten(hole)) || (is_ten(up) && hole == 'A');
        tmpcards[0] = up;
        tmpcards[1] = 'X';
        for (i = 0; i < pNum - 1; i++) {
            tmpcards[2 + 2 * i] = IN_ROUND(i) ? players[i].mycards[0] : '-';
            tmpcards[3 + 2 * i] = IN_ROUND(i) ? players[i].mycards[1] : '-';
        }
        tmpcards[2 * pNum] = 0;

        if (is_ten(up) && dealer_bj) {
            /* the dealer's Black Jack is shown at once: nobody is asked for a decision */
        } else if (up == 'A') {
            /* everybody's first action; insurance is bought at once */
            char chosen[MAXS] = { 0 };
            for (i = 0; i < pNum - 1; i++) {
                if (!IN_ROUND(i)) continue;
                char c = ask_first(i);
                if (c == 'i') do_insurance(i);
                else if (is_hsdu(c)) chosen[i] = c;
                else do_foul(i, "illegal_action");
            }
            /* the dealer peeks: with Black Jack every other choice is void; without, they take effect */
            for (i = 0; i < pNum - 1; i++) {
                if (!IN_ROUND(i)) continue;
                if (dealer_bj) {
                    if (chosen[i]) note(i, chosen[i]);
                } else if (!done[i]) {
                    if (chosen[i]) play_hand(i, chosen[i]);
                    else if (players[i].state == 'i') after_insurance(i);
                }
            }
        } else {
            /* seat by seat: the first action, then the hand played out */
            for (i = 0; i < pNum - 1; i++) {
                if (!IN_ROUND(i)) continue;
                char c = ask_first(i);
                if (c == 'i') do_insurance(i);  /* no A up: a foul */
                else if (is_hsdu(c)) play_hand(i, c);
                else do_foul(i, "illegal_action");
            }
        }

        reserve((int)sizeof banker.mycards);
        banker_continue(&banker, cards, &pos);  /* the dealer always completes the hand */
        spill();

        judge(&banker, &players, pNum, &alive, &total_rounds);

        show_all();
        if (logf) write_round(shoe, first, dealer_bj);
#ifdef TW_PERSON_SWITCHED_OFF
        if (person) {
            tw_zh_seat info[MAXS];
            seat_info(info);
            tw_zh_result(&banker, &players, pNum - 1, info);
        } else
#endif
        if (!quiet) print_round();

        /* the end of the match, or a new shoe once fewer than a quarter of the cards remain */
        if (total_rounds >= ROUNDS * (pNum - 1)) reason = "rounds";
        else if (alive == 0) reason = "broke";
        else if (turns > SHUFFLE_TIMES) reason = "shuffles";  /* a mid-round refill was the 6th shuffle */
        else if (pos > threshold) {
            if (turns >= SHUFFLE_TIMES) reason = "shuffles";
            else {
                new_shoe(0);
#ifdef TW_PERSON_SWITCHED_OFF
                if (person) tw_zh_shuffle(turns);
#endif
            }
        }
    } while (!reason);
    return reason;
}

/* -- --quiet: what the players print goes to a file, as in the Python engine ------------------------ */
/* The players' stdio output (printf, puts, putchar ...) goes through a stdout of our own that writes
 * at most PRINTED_CAP bytes to the file and drops the rest, as the engine's capture does; what is
 * written to file descriptor 1 directly (or by a command they run) goes to the same file, uncapped.
 * The program's own result is printed after the match, on the real stdout. */
#define PRINTED_CAP (1L << 20)
static int printed_fd = -1, saved_fd = -1;
static long printed_bytes;
static int printed_cut;
static FILE* real_stdout;
static char printed_at[PATH_MAX];

static ssize_t printed_write(void* cookie, const char* buf, size_t n)
{
    (void)cookie;
    size_t room = printed_bytes < PRINTED_CAP ? (size_t)(PRINTED_CAP - printed_bytes) : 0;
    size_t keep = n < room ? n : room;
    if (keep < n) printed_cut = 1;
    for (size_t done = 0; done < keep;) {
        ssize_t w = write(printed_fd, buf + done, keep - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { printed_cut = 1; break; }
        done += (size_t)w;
    }
    printed_bytes += (long)keep;
    return (ssize_t)n;  /* the rest is dropped, never an error: a player's printf must not fail */
}

/* mkdir -p of the folders above path (path is changed in place and put back). */
static void make_parents(char* path)
{
    for (char* p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(path, 0777);
        *p = '/';
    }
}

/* The default file: <cache>/output/twentyone-c-seedS.out, where <cache> is $TWENTYONE_CACHE, or
 * $XDG_CACHE_HOME/twentyone, or ~/.cache/twentyone (the Python engine's output folder). */
static void default_output(char* buf, size_t n)
{
    const char* base = getenv("TWENTYONE_CACHE");
    const char* xdg = getenv("XDG_CACHE_HOME");
    const char* home = getenv("HOME");
    if (base && *base) snprintf(buf, n, "%s/output/twentyone-c-seed%llu.out", base, seed);
    else if (xdg && *xdg) snprintf(buf, n, "%s/twentyone/output/twentyone-c-seed%llu.out", xdg, seed);
    else if (home && *home) snprintf(buf, n, "%s/.cache/twentyone/output/twentyone-c-seed%llu.out", home, seed);
    else snprintf(buf, n, "twentyone-c-seed%llu.out", seed);
}

static int start_printed(void)
{
    char path[PATH_MAX];
    if (output_path) snprintf(path, sizeof path, "%s", output_path);
    else default_output(path, sizeof path);
    make_parents(path);
    printed_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (printed_fd < 0) {
        fprintf(stderr, "twentyone-c: error: cannot write the players' output to '%s': %s\n", path, strerror(errno));
        return 0;
    }
    if (!realpath(path, printed_at)) snprintf(printed_at, sizeof printed_at, "%s", path);
    cookie_io_functions_t io = { NULL, printed_write, NULL, NULL };
    FILE* f = fopencookie(NULL, "w", io);
    fflush(stdout);
    saved_fd = dup(1);
    if (!f || saved_fd < 0 || dup2(printed_fd, 1) < 0) {
        fprintf(stderr, "twentyone-c: error: cannot send the players' output to '%s'\n", printed_at);
        return 0;
    }
    real_stdout = stdout;
    stdout = f;  /* glibc: stdout is a variable (the players' printf reads it) */
    return 1;
}

static void end_printed(void)
{
    if (printed_fd < 0) return;
    fclose(stdout);
    stdout = real_stdout;
    dup2(saved_fd, 1);
    close(saved_fd);
    struct stat st;
    long long size = fstat(printed_fd, &st) == 0 ? (long long)st.st_size : printed_bytes;
    close(printed_fd);
    printed_fd = -1;
    if (size > 0)
        fprintf(stderr, "twentyone-c: what the players printed is in %s%s\n", printed_at,
                printed_cut ? " (cut at 1 MiB)" : "");
    else
        unlink(printed_at);
}

/* -- set-up ------------------------------------------------------------------------------------ */
static int check_sets(int n)
{
    for (int i = 0; i < n; i++) {
        if (!bet_arr[i] || !first_action_arr[i] || !continue_action_arr[i] || !show_arr[i]) {
            fprintf(stderr, "twentyone-c: error: mycodes.c has no function set %d (missing:%s%s%s%s)\n", i + 1,
                    bet_arr[i] ? "" : " bet", first_action_arr[i] ? "" : " first_action",
                    continue_action_arr[i] ? "" : " continue_action", show_arr[i] ? "" : " show");
            return 0;
        }
    }
    return 1;
}

static int usage(const char* msg)
{
    fprintf(stderr, "twentyone-c: error: %s (usage: twentyone-c [--seed S --decks N --seats K [--log FILE.jsonl] "
            "[--quiet [--output FILE]] [--source PATH]])\n", msg);
    return 2;
}

static int parse_int(const char* s, long lo, long hi, long* out)
{
    char* end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static void read_line(char* buf, int n)
{
    if (!fgets(buf, n, stdin)) { buf[0] = 0; return; }
    buf[strcspn(buf, "\r\n")] = 0;
}

/* The course's questions: how many people play (2 to 6, the dealer included: "该游戏由2到6个人玩"),
 * the players' names, how many decks. */
static int interactive(void)
{
    char line[64];
    long v;
    for (;;) {
        printf("%s", person ? "请输入游戏人数（2-6，含庄家）：" : "number of people at the table, the dealer included (2-6): ");
        fflush(stdout);
        read_line(line, sizeof line);
        if (feof(stdin) && !line[0]) return 1;
        if (parse_int(line, 2, 6, &v)) break;
        printf("%s", person ? "请输入 2 到 6 之间的整数（庄家和 1 到 5 名玩家）\n"
                            : "please type a number from 2 to 6 (the dealer and 1 to 5 players)\n");
    }
    pNum = (int)v;
    for (int i = 0; i < pNum - 1; i++) {
        printf(person ? "请输入玩家%d的名字：" : "name of player %d: ", i + 1);
        fflush(stdout);
        read_line(line, sizeof line);
        if (!line[0]) snprintf(line, sizeof line, "player%d", i + 1);
        snprintf(players[i].name, sizeof players[i].name, "%s", line);
    }
    for (;;) {
        printf("%s", person ? "请输入牌的副数（1-8）：" : "number of decks (1-8): ");
        fflush(stdout);
        read_line(line, sizeof line);
        if (feof(stdin) && !line[0]) return 1;
        if (parse_int(line, 1, 8, &v)) break;
        printf("%s", person ? "请输入 1 到 8 之间的整数\n" : "please type a number from 1 to 8\n");
    }
    N = (int)v;
    seed = (unsigned long long)time(NULL);
    return 0;
}

int main(int argc, char** argv)
{
    const char* logpath = NULL;
    int have_seed = 0, have_decks = 0, have_seats = 0;
    long matches = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* val = i + 1 < argc ? argv[i + 1] : NULL;
        long v;
        if (!strcmp(a, "--quiet")) { quiet = 1; continue; }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("twentyone-c: the course's 21 program with this project's rulings.\n"
                   "  twentyone-c                      ask for the players, names and decks, then play\n"
                   "                                   (by hand when mycodes.c has #define PERSON)\n"
                   "  twentyone-c --seed S --decks N --seats K [--log FILE.jsonl] [--quiet [--output FILE]]\n"
                   "              [--source PATH]\n"
                   "                                   play one match automatically; seats 1..K are the\n"
                   "                                   file's function sets 1..K; --log writes the round log\n"
                   "                                   (as the Python engine's), --source names the file in it;\n"
                   "                                   --quiet prints only the result, and what the players\n"
                   "                                   print goes to a file (--output FILE), cut at 1 MiB\n"
                   "                                   (with PERSON on, automatic runs play a copy without it)\n");
            return 0;
        }
        if (!val) return usage("missing value after an option");
        if (!strcmp(a, "--seed")) {
            char* end;
            errno = 0;
            if (val[0] == '-') return usage("seed out of range");
            seed = strtoull(val, &end, 10);
            if (errno || *end || end == val) return usage("seed must be a whole number from 0 to 2^64-1");
            have_seed = 1;
        } else if (!strcmp(a, "--decks")) {
            if (!parse_int(val, 1, 8, &v)) return usage("decks out of range (1 .. 8)");
            N = (int)v; have_decks = 1;
        } else if (!strcmp(a, "--seats")) {
            if (!parse_int(val, 1, 5, &v)) return usage("seats out of range (1 .. 5)");
            pNum = (int)v + 1; have_seats = 1;
        } else if (!strcmp(a, "--log")) {
            logpath = val;
        } else if (!strcmp(a, "--source")) {
            source = val;
        } else if (!strcmp(a, "--output")) {
            output_path = val;
            quiet = 1;
        } else if (!strcmp(a, "--matches")) {
            if (!parse_int(val, 1, 1000000000L, &v)) return usage("matches out of range");
            matches = v;
        } else {
            return usage("unknown option");
        }
        i++;
    }
    if (argc == 1) {
#ifdef TW_PERSON_SWITCHED_OFF
        person = 1;  /* the manual game plays the file as it is, PERSON on: show the table in the course's words */
#endif
        if (interactive()) return 1;
    } else if (!(have_seed && have_decks && have_seats)) {
        return usage("--seed, --decks and --seats go together");
    } else {
        for (int i = 0; i < pNum - 1; i++) snprintf(players[i].name, sizeof players[i].name, "player%d", i + 1);
#ifdef TW_AUTO_OBJECT
        play_the_auto_copy();
#endif
#ifdef TW_PERSON_SWITCHED_OFF
        fprintf(stderr, "twentyone-c: note: %s has #define PERSON on: this automatic run plays a copy with PERSON "
                "off, as twentyone match does (run twentyone-c without arguments to play by hand)\n", source);
#endif
    }
    if (!check_sets(pNum - 1)) return 2;
    if (logpath) {
        logf = fopen(logpath, "w");
        if (!logf) { fprintf(stderr, "twentyone-c: error: cannot write log '%s': %s\n", logpath, strerror(errno)); return 2; }
    }
    if (matches) {  /* benchmark: M matches with seeds S, S+1, ..., quiet */
        FILE* keep = logf;
        struct timespec t0, t1;
        long long rounds = 0;
        quiet = 1;
        logf = NULL;
        if (!start_printed()) return 2;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long m = 0; m < matches; m++) {
            play_match();
            rounds += total_rounds;
            seed++;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        end_printed();
        double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        fprintf(stderr, "%ld matches, %lld rounds in %.3f s: %.0f rounds/s\n", matches, rounds, secs, rounds / secs);
        if (keep) fclose(keep);
        return 0;
    }
    if (quiet && !start_printed()) return 2;
    const char* reason = play_match();
    end_printed();
    write_end(reason);
    if (logf) fclose(logf);
    return 0;
}
