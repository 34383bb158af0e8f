/* main.c - the course's 21点 program with the project's rulings applied (twentyone/RULES.md).
 *
 * Without arguments it plays like the course: it asks for the number of people, their names and
 * the decks, then plays; under PERSON (in mycodes.c) the student's functions ask at the keyboard.
 * For automation:
 *     twentyone-c --seed S --decks N --seats K [--log FILE.jsonl] [--quiet]
 * seats 1..K are played by function sets 1..K, and --log writes the same JSONL round log as the
 * Python engine, byte for byte.  The round logic mirrors twentyone/table.py step for step.
 */
#include <errno.h>
#include <stdint.h>
#include "mycodes.h"
#include "tw_rng.h"

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

typedef int (*bet_fn)(int);
typedef char (*first_fn)(char*, int);
typedef char (*cont_fn)(Player(*)[]);
typedef void (*show_fn)(Banker*, Player(*)[], int, int, int);

#define MAXS 5
#define MAXCARDS 24

typedef struct {
    char name[20];
    int account, in_game, rounds, in_round;
    int bet, insurance, doubled, surrendered, done, bj, account_before;
    char cards[MAXCARDS];
    int ncards, hard, ace;
    char state;
    char actions[MAXCARDS];
    int nactions;
    const char* foul;
    bet_fn bet_f; first_fn first_f; cont_fn cont_f; show_fn show_f;
} Seat;

static Seat seats[MAXS];
static int nseats, decks;
static tw_rng rng;
static char shoe[8 * 52];
static int shoe_len, pos, shoe_no, shuffles, round_no;
static char up, hole, dealer[MAXCARDS];
static int ndealer, hole_shown, dealer_hard, dealer_ace;
static FILE* logf;
static int quiet;
static unsigned long long seed;

/* -- JSON output, byte for byte what Python's json.dumps(ensure_ascii=False) writes ---------- */
static void json_str(FILE* f, const char* s, int n)
{
    fputc('"', f);
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
    fputc('"', f);
}

static const char* jbool(int b) { return b ? "true" : "false"; }

/* -- shoe -------------------------------------------------------------------------------- */
static void new_shoe(int mid_round)
{
    shoe_len = decks * 52;
    tw_init_cards(shoe, decks);
    tw_shuffle(&rng, shoe, shoe_len);
    pos = 0;
    shoe_no++;
    shuffles++;
    if (logf) {
        fprintf(logf, "{\"type\":\"shuffle\",\"shoe\":%d,\"order\":", shoe_no);
        json_str(logf, shoe, shoe_len);
        fprintf(logf, ",\"mid_round\":%s}\n", jbool(mid_round));
    }
}

static char deal(void)
{
    if (pos >= shoe_len)
        new_shoe(1);
    return shoe[pos++];
}

static int card_value(char c)
{
    if (c == 'A') return 1;
    if (c == 'T' || c == 'J' || c == 'Q' || c == 'K') return 10;
    return c - '0';
}

static int is_ten(char c) { return c == 'T' || c == 'J' || c == 'Q' || c == 'K'; }

static void take(Seat* s, char c)
{
    s->cards[s->ncards++] = c;
    s->hard += card_value(c);
    if (c == 'A') s->ace = 1;
}

static int total(const Seat* s) { return (s->ace && s->hard <= 11) ? s->hard + 10 : s->hard; }

static void act(Seat* s, char a)
{
    s->state = a;
    s->actions[s->nactions++] = a;
}

/* -- what strategies see: fresh zero-filled copies ----------------------------------------- */
static void record(const Seat* s, Player* p)
{
    memset(p, 0, sizeof *p);
    memcpy(p->name, s->name, sizeof p->name - 1);
    p->account = s->account;
    memcpy(p->mycards, s->cards, s->ncards < 19 ? (size_t)s->ncards : 19);
    p->count = s->ncards;
    p->state = s->state;
    p->mybets = s->bet;
    p->points = total(s);
    p->rounds = s->rounds;
}

static char ask_first(int i)
{
    char tmp[2 + 2 * MAXS + 1];
    int k = 0;
    tmp[k++] = up;
    tmp[k++] = 'X';
    for (int j = 0; j < nseats; j++) {
        if (seats[j].in_round) { tmp[k++] = seats[j].cards[0]; tmp[k++] = seats[j].cards[1]; }
        else { tmp[k++] = '-'; tmp[k++] = '-'; }
    }
    tmp[k] = 0;
    return seats[i].first_f(tmp, 2 + 2 * nseats);
}

static char ask_continue(int i)
{
    Player ps[MAXS];
    for (int j = 0; j < nseats; j++) record(&seats[j], &ps[j]);
    record(&seats[i], &ps[0]);
    return seats[i].cont_f((Player(*)[])ps);
}

static void show_all(void)
{
    Banker b;
    Player ps[MAXS];
    for (int i = 0; i < nseats; i++) {
        memset(&b, 0, sizeof b);
        memcpy(b.mycards, dealer, ndealer < 19 ? (size_t)ndealer : 19);
        b.count = ndealer;
        b.state = hole_shown ? 'l' : 'd';
        b.points = ndealer ? calculate(&b.mycards, ndealer) : 0;
        for (int j = 0; j < nseats; j++) record(&seats[j], &ps[j]);
        seats[i].show_f(&b, (Player(*)[])ps, nseats + 1, decks, pos);
    }
}

/* -- the round: table.py's steps ------------------------------------------------------------ */
static void do_foul(Seat* s, const char* cause) { s->foul = cause; s->done = 1; }

static void do_hit(Seat* s)
{
    act(s, 'h');
    take(s, deal());
    if (total(s) >= 21) s->done = 1;
}

static void do_stand(Seat* s) { act(s, 's'); s->done = 1; }

static void do_dbl(Seat* s)
{
    if (s->account < s->bet) { do_foul(s, "unaffordable_double"); return; }
    s->account -= s->bet;
    s->bet *= 2;
    s->doubled = 1;
    act(s, 'd');
    take(s, deal());
    s->done = 1;
}

static void do_surrender(Seat* s) { s->surrendered = 1; act(s, 'u'); s->done = 1; }

static void do_insurance(Seat* s)
{
    int i = s->bet / 2;
    if (s->account < i) { do_foul(s, "unaffordable_insurance"); return; }
    s->account -= i;
    s->insurance = i;
    act(s, 'i');
}

static int is_hsdu(char a) { return a == 'h' || a == 's' || a == 'd' || a == 'u'; }

static void take_effect(int idx, char a)
{
    Seat* s = &seats[idx];
    if (s->bj) { act(s, a); s->done = 1; return; }
    if (a == 'h') do_hit(s);
    else if (a == 's') do_stand(s);
    else if (a == 'd') do_dbl(s);
    else do_surrender(s);
    while (!s->done) {
        char c = ask_continue(idx);
        if (c == 'h') do_hit(s);
        else if (c == 's') do_stand(s);
        else do_foul(s, "illegal_action");
    }
}

static void after_insurance(int idx)
{
    Seat* s = &seats[idx];
    if (s->bj) { s->done = 1; return; }
    char c = ask_continue(idx);
    if (is_hsdu(c)) take_effect(idx, c);
    else do_foul(s, "illegal_action");
}

static void banker_draw(void)
{
    hole_shown = 1;
    dealer[ndealer++] = hole;
    int hard = card_value(up) + card_value(hole);
    int ace = up == 'A' || hole == 'A';
    for (;;) {
        int t = (ace && hard <= 11) ? hard + 10 : hard;
        if (t >= 17) break;
        char c = deal();
        dealer[ndealer++] = c;
        hard += card_value(c);
        if (c == 'A') ace = 1;
    }
    dealer_hard = hard;
    dealer_ace = ace;
}

static void settle(const int* active, int nactive, int dealer_bj)
{
    int d = (dealer_ace && dealer_hard <= 11) ? dealer_hard + 10 : dealer_hard;
    for (int k = 0; k < nactive; k++) {
        Seat* s = &seats[active[k]];
        if (s->foul) continue;
        if (dealer_bj) {
            if (s->insurance) s->account += s->insurance * 3;
            if (s->bj) s->account += s->bet;
            continue;
        }
        if (s->bj) { s->account += s->bet + 2 * s->bet; continue; }
        if (s->surrendered) { s->account += s->bet / 2; continue; }
        int t = total(s);
        if (t > 21) continue;
        if (d > 21 || t > d) s->account += 2 * s->bet;
        else if (t == d) s->account += s->bet;
    }
}

static void write_round(const int* active, int nactive, int shoe0, int first, int dealer_bj)
{
    fprintf(logf, "{\"type\":\"round\",\"round\":%d,\"shoe\":%d,\"first_card\":%d,\"dealer\":", round_no, shoe0, first);
    json_str(logf, dealer, ndealer);
    fprintf(logf, ",\"dealer_bj\":%s,\"players\":[", jbool(dealer_bj));
    for (int k = 0; k < nactive; k++) {
        Seat* s = &seats[active[k]];
        fprintf(logf, "%s{\"seat\":%d,\"account_before\":%d,\"bet\":%d,\"insurance\":%d,\"actions\":",
                k ? "," : "", active[k] + 1, s->account_before, s->doubled ? s->bet / 2 : s->bet, s->insurance);
        json_str(logf, s->actions, s->nactions);
        fputs(",\"cards\":", logf);
        json_str(logf, s->cards, s->ncards);
        fprintf(logf, ",\"bj\":%s,\"doubled\":%s,\"surrendered\":%s,\"foul\":", jbool(s->bj), jbool(s->doubled),
                jbool(s->surrendered));
        if (s->foul) json_str(logf, s->foul, -1);
        else fputs("null", logf);
        fprintf(logf, ",\"account_after\":%d}", s->account);
    }
    fputs("]}\n", logf);
}

static void print_round(const int* active, int nactive)
{
    printf("round %d: dealer %.*s (%d)\n", round_no, ndealer, dealer,
           (dealer_ace && dealer_hard <= 11) ? dealer_hard + 10 : dealer_hard);
    for (int k = 0; k < nactive; k++) {
        Seat* s = &seats[active[k]];
        printf("  %-10s %-8.*s %2d  bet %4d  %s%s money %d\n", s->name, s->ncards, s->cards, total(s),
               s->doubled ? s->bet / 2 : s->bet, s->foul ? s->foul : "", s->foul ? " " : "", s->account);
    }
}

/* Returns 0 if the round was played, 1 if nobody could play. */
static int play_round(void)
{
    int active[MAXS], nactive = 0;
    round_no++;
    up = hole = 0;
    ndealer = 0;
    hole_shown = 0;
    dealer_hard = dealer_ace = 0;
    for (int i = 0; i < nseats; i++) {
        Seat* s = &seats[i];
        s->ncards = s->hard = s->ace = 0;
        s->state = 0;
        s->nactions = 0;
        s->bet = s->insurance = 0;
        s->doubled = s->surrendered = s->done = s->bj = 0;
        s->foul = NULL;
        s->in_round = 0;
        s->account_before = s->account;
        if (s->in_game && s->account < MIN_BET) s->in_game = 0;
        if (s->in_game) active[nactive++] = i;
    }
    if (!nactive) { round_no--; return 1; }
    int shoe0 = shoe_no, first = pos;
    for (int k = 0; k < nactive; k++) {
        Seat* s = &seats[active[k]];
        s->in_round = 1;
        s->rounds++;
        int b = s->bet_f(decks);
        if (b < MIN_BET) b = MIN_BET;
        if (b > s->account) b = s->account;
        s->bet = b;
        s->account -= b;
    }
    for (int k = 0; k < nactive; k++) {
        Seat* s = &seats[active[k]];
        take(s, deal());
        take(s, deal());
        s->bj = s->hard == 11 && s->ace && s->ncards == 2;
    }
    up = deal();
    hole = deal();
    dealer[ndealer++] = up;
    int dealer_bj = (up == 'A' && is_ten(hole)) || (is_ten(up) && hole == 'A');
    if (is_ten(up) && dealer_bj) {
        /* revealed at once: nobody is asked for a decision */
    } else if (up == 'A') {
        char chosen[MAXS] = { 0 };
        for (int k = 0; k < nactive; k++) {
            Seat* s = &seats[active[k]];
            if (s->done) continue;
            char a = ask_first(active[k]);
            if (a == 'i') do_insurance(s);
            else if (is_hsdu(a)) chosen[active[k]] = a;
            else do_foul(s, "illegal_action");
        }
        if (dealer_bj) {
            for (int k = 0; k < nactive; k++)
                if (chosen[active[k]]) act(&seats[active[k]], chosen[active[k]]);
        } else {
            for (int k = 0; k < nactive; k++) {
                Seat* s = &seats[active[k]];
                if (s->done) continue;
                if (chosen[active[k]]) take_effect(active[k], chosen[active[k]]);
                else if (s->insurance) after_insurance(active[k]);
            }
        }
    } else {
        for (int k = 0; k < nactive; k++) {
            Seat* s = &seats[active[k]];
            if (s->done) continue;
            char a = ask_first(active[k]);
            if (a == 'i') do_foul(s, "illegal_insurance");
            else if (is_hsdu(a)) take_effect(active[k], a);
            else do_foul(s, "illegal_action");
        }
    }
    if (dealer_bj) {
        hole_shown = 1;
        dealer[ndealer++] = hole;
        dealer_hard = card_value(up) + card_value(hole);
        dealer_ace = 1;
    } else {
        banker_draw();
    }
    settle(active, nactive, dealer_bj);
    show_all();
    if (logf) write_round(active, nactive, shoe0, first, dealer_bj);
    if (!quiet) print_round(active, nactive);
    return 0;
}

/* -- the match: match.py's loop ------------------------------------------------------------- */
static int rank_key_beats(const Seat* a, const Seat* b)
{
    if (a->account != b->account) return a->account > b->account;
    return a->account == 0 && a->rounds > b->rounds;
}

static const char* play_match(void)
{
    const char* reason = "broke";
    int max_rounds = ROUNDS * nseats;
    tw_rng_seed(&rng, (uint64_t)seed);
    shoe_no = shuffles = round_no = 0;
    for (int i = 0; i < nseats; i++) {
        seats[i].account = TOTAL_MONEY;
        seats[i].in_game = 1;
        seats[i].rounds = 0;
    }
    if (logf) {
        fprintf(logf, "{\"type\":\"match\",\"seed\":%llu,\"rules\":\"course\",\"decks\":%d,\"seats\":[", seed, decks);
        for (int i = 0; i < nseats; i++) {
            fprintf(logf, "%s{\"seat\":%d,\"name\":", i ? "," : "", i + 1);
            json_str(logf, seats[i].name, -1);
            fprintf(logf, ",\"player\":\"mycodes.c:%d\"}", i + 1);
        }
        fputs("]}\n", logf);
    }
    new_shoe(0);
    for (;;) {
        if (play_round()) { reason = "broke"; break; }
        if (round_no >= max_rounds) { reason = "rounds"; break; }
        int any = 0;
        for (int i = 0; i < nseats; i++)
            if (seats[i].in_game && seats[i].account >= MIN_BET) any = 1;
        if (!any) { reason = "broke"; break; }
        if (shuffles > SHUFFLE_TIMES) { reason = "shuffles"; break; }
        if (shoe_len - pos < decks * 52 / 4) {
            if (shuffles >= SHUFFLE_TIMES) { reason = "shuffles"; break; }
            new_shoe(0);
        }
    }
    return reason;
}

static void write_end(const char* reason)
{
    int rank[MAXS], order[MAXS];
    for (int i = 0; i < nseats; i++) {
        rank[i] = 1;
        for (int j = 0; j < nseats; j++)
            if (rank_key_beats(&seats[j], &seats[i])) rank[i]++;
        order[i] = i;
    }
    for (int i = 0; i < nseats; i++)
        for (int j = i + 1; j < nseats; j++)
            if (rank[order[j]] < rank[order[i]] || (rank[order[j]] == rank[order[i]] && order[j] < order[i])) {
                int t = order[i]; order[i] = order[j]; order[j] = t;
            }
    if (logf) {
        fprintf(logf, "{\"type\":\"end\",\"reason\":\"%s\",\"rounds\":%d,\"ranking\":[", reason, round_no);
        for (int k = 0; k < nseats; k++) {
            Seat* s = &seats[order[k]];
            fprintf(logf, "%s{\"rank\":%d,\"seat\":%d,\"account\":%d,\"rounds\":%d}", k ? "," : "", rank[order[k]],
                    order[k] + 1, s->account, s->rounds);
        }
        fputs("]}\n", logf);
    }
    printf("match ended (%s) after %d rounds, %d shoes\n", reason, round_no, shuffles);
    for (int k = 0; k < nseats; k++) {
        Seat* s = &seats[order[k]];
        printf("%d. seat %d %s: %d after %d rounds\n", rank[order[k]], order[k] + 1, s->name, s->account, s->rounds);
    }
}

/* -- set-up ------------------------------------------------------------------------------------ */
static int bind_sets(int n)
{
    bet_fn b[MAXS] = { bet1, bet2, bet3, bet4, bet5 };
    first_fn f[MAXS] = { first_action1, first_action2, first_action3, first_action4, first_action5 };
    cont_fn c[MAXS] = { continue_action1, continue_action2, continue_action3, continue_action4, continue_action5 };
    show_fn s[MAXS] = { show1, show2, show3, show4, show5 };
    for (int i = 0; i < n; i++) {
        if (!b[i] || !f[i] || !c[i] || !s[i]) {
            fprintf(stderr, "twentyone-c: error: mycodes.c has no function set %d (missing:%s%s%s%s)\n", i + 1,
                    b[i] ? "" : " bet", f[i] ? "" : " first_action", c[i] ? "" : " continue_action",
                    s[i] ? "" : " show");
            return 0;
        }
        seats[i].bet_f = b[i]; seats[i].first_f = f[i]; seats[i].cont_f = c[i]; seats[i].show_f = s[i];
    }
    return 1;
}

static int usage(const char* msg)
{
    fprintf(stderr, "twentyone-c: error: %s (usage: twentyone-c [--seed S --decks N --seats K [--log FILE.jsonl] [--quiet]])\n", msg);
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

static int interactive(void)
{
    char line[64];
    long v;
    for (;;) {
        printf("number of players (1-5): ");
        fflush(stdout);
        read_line(line, sizeof line);
        if (feof(stdin) && !line[0]) return 1;
        if (parse_int(line, 1, 5, &v)) break;
        printf("please type a number from 1 to 5\n");
    }
    nseats = (int)v;
    for (int i = 0; i < nseats; i++) {
        printf("name of player %d: ", i + 1);
        fflush(stdout);
        read_line(line, sizeof line);
        if (!line[0]) snprintf(line, sizeof line, "player%d", i + 1);
        snprintf(seats[i].name, sizeof seats[i].name, "%s", line);
    }
    for (;;) {
        printf("number of decks (1-8): ");
        fflush(stdout);
        read_line(line, sizeof line);
        if (feof(stdin) && !line[0]) return 1;
        if (parse_int(line, 1, 8, &v)) break;
        printf("please type a number from 1 to 8\n");
    }
    decks = (int)v;
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
            decks = (int)v; have_decks = 1;
        } else if (!strcmp(a, "--seats")) {
            if (!parse_int(val, 1, 5, &v)) return usage("seats out of range (1 .. 5)");
            nseats = (int)v; have_seats = 1;
        } else if (!strcmp(a, "--log")) {
            logpath = val;
        } else if (!strcmp(a, "--matches")) {
            if (!parse_int(val, 1, 1000000000L, &v)) return usage("matches out of range");
            matches = v;
        } else {
            return usage("unknown option");
        }
        i++;
    }
    if (argc == 1) {
        if (interactive()) return 1;
    } else if (!(have_seed && have_decks && have_seats)) {
        return usage("--seed, --decks and --seats go together");
    } else {
        for (int i = 0; i < nseats; i++) snprintf(seats[i].name, sizeof seats[i].name, "player%d", i + 1);
    }
    if (!bind_sets(nseats)) return 2;
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
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long m = 0; m < matches; m++) {
            play_match();
            rounds += round_no;
            seed++;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        fprintf(stderr, "%ld matches, %lld rounds in %.3f s: %.0f rounds/s\n", matches, rounds, secs, rounds / secs);
        if (keep) fclose(keep);
        return 0;
    }
    const char* reason = play_match();
    write_end(reason);
    if (logf) fclose(logf);
    return 0;
}
