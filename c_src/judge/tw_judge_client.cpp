/* tw_judge_client.cpp - the judge problem's Blackjack.h inside a solution's box: every call is a request to the
 * engine, which holds the shoe, the money and the rules (twentyone/judge/boxed.py).
 *
 * twentyone/players/c/build.py (compile_program) links this file, the box program (c_src/box/tw_box.c) and the
 * contestant's objects into one program, in which only the contestant's play() stays global.  The box
 * confines itself, runs the contestant's initialisers, then calls tw_box_serve, which serves the test:
 *
 *   engine -> box   a message: 16 bytes { int tag, money, value, n } and n ints (cards)
 *                   'P' call play() once; 'V' the reply to the request just sent; 'Q' leave
 *   box -> engine   8-byte frames { char tag; char pad[3]; int value } (players/sandbox/box.py reads them):
 *                   'I' init_game(value)   'N' buy_insurance(value)   'D' double_down()   'S' split()
 *                   'h' hit()   's' stand()   'j' hit_1()   'k' stand_1()   'J' hit_2()   'K' stand_2()
 *                   'R' play() returned    'E' value bytes of text: an illegal call seen here (below)
 *
 * Every request but stand_1() and 'R' waits for its 'V'.  Each message carries the money, so bet_you_have()
 * needs no request; the helpers (is_blackjack, cal_point, cal_max_point, win) are computed here.  Before each
 * request the client checks the two illegal calls only it can see: standard input read (descriptor 0 is a
 * pipe holding one byte, made before confinement: a read takes it) and standard output written (descriptor 1
 * is the engine's pipe; the engine watches it too).  A call outside play() (from a global initialiser) is
 * illegal as well.  Each is reported in an 'E' frame, and the program leaves.
 */
#include "Blackjack.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <new>
#include <sys/ioctl.h>
#include <unistd.h>

extern "C" {
#include "tw_box.h"
}

namespace {

int tw_in = 3, tw_out = 4;
int tw_money = 0;
bool tw_serving = false, tw_in_play = false;

struct tw_message {
    int32_t tag, money, value, n;
    int32_t cards[64];
};

char tw_buf[8192];
size_t tw_have = 0, tw_at = 0;

[[noreturn]] void tw_leave(int code)
{
    _exit(code);
}

/* Read exactly n bytes of the engine's messages (buffered: a reply and the next 'P' often come together). */
void tw_read(void *to, size_t n)
{
    char *p = static_cast<char *>(to);
    while (n) {
        if (tw_at == tw_have) {
            ssize_t r = read(tw_in, tw_buf, sizeof tw_buf);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) tw_leave(0); /* the engine has ended the test */
            tw_have = static_cast<size_t>(r);
            tw_at = 0;
        }
        size_t k = std::min(n, tw_have - tw_at);
        memcpy(p, tw_buf + tw_at, k);
        tw_at += k;
        p += k;
        n -= k;
    }
}

void tw_receive(tw_message &m)
{
    tw_read(&m, 16);
    if (m.tag == 'Q') tw_leave(0);
    if (m.n < 0 || m.n > 64) tw_leave(7);
    tw_read(m.cards, static_cast<size_t>(m.n) * 4);
    tw_money = m.money;
}

[[noreturn]] void tw_illegal(const char *what, const char *call)
{
    char text[256];
    int n = snprintf(text, sizeof text, "%s (found at %s)", what, call);
    if (n < 0) n = 0;
    if (n >= static_cast<int>(sizeof text)) n = sizeof text - 1;
    tw_box_frame(tw_out, 'E', n, text, static_cast<size_t>(n));
    tw_leave(3);
}

/* The checks before each request: inside play(), standard input untouched, standard output empty. */
void tw_check(const char *call)
{
    if (!tw_in_play) {
        if (!tw_serving) tw_illegal("a Blackjack.h call from a global initialiser, before the first play()", call);
        tw_illegal("a Blackjack.h call outside play()", call);
    }
    int n = 0;
    if (ioctl(0, FIONREAD, &n) != 0 || n != 1) tw_illegal("read from standard input", call);
    n = 0;
    if (ioctl(1, FIONREAD, &n) == 0 && n > 0) tw_illegal("wrote to standard output", call);
}

void tw_send(char tag, int value)
{
    if (tw_box_frame(tw_out, tag, value, nullptr, 0)) tw_leave(0);
}

tw_message tw_reply;

const tw_message &tw_ask(char tag, int value, const char *call)
{
    tw_check(call);
    tw_send(tag, value);
    tw_receive(tw_reply);
    if (tw_reply.tag != 'V') tw_leave(7);
    return tw_reply;
}

/* A vector<int> holding n ints, made without a call that may throw: the contestant's object, linked first,
 * brings its own copy of every C++ COMDAT group (the exception personality's DW.ref among them, made local to
 * it), so this file must need none of them.  The memory is operator new's, as std::allocator's would be, and
 * the vector's three pointers (begin, end, end of storage: libstdc++'s layout) are set directly. */
static_assert(sizeof(vector<int>) == 3 * sizeof(int *), "libstdc++'s vector<int> is three pointers");

vector<int> tw_vector(const int32_t *from, int n)
{
    int *p = nullptr;
    if (n > 0) {
        p = static_cast<int *>(::operator new(static_cast<size_t>(n) * sizeof(int), std::nothrow));
        if (!p) tw_leave(12);
        memcpy(p, from, static_cast<size_t>(n) * sizeof(int));
    }
    vector<int> v; /* nothing that may throw from here on: no clean-up code, so no exception tables */
    if (p) {
        int *ptrs[3] = { p, p + n, p + n };
        memcpy(static_cast<void *>(&v), ptrs, sizeof ptrs);
    }
    return v;
}

vector<int> tw_cards(const tw_message &m)
{
    return tw_vector(m.cards, m.n);
}

int tw_best(const vector<int> &v, int *hard_out)
{
    int hard = 0;
    bool ace = false;
    for (int c : v) {
        if (c == 1) ace = true;
        hard += c < 10 ? c : 10;
    }
    if (hard_out) *hard_out = hard;
    return ace && hard <= 11 ? hard + 10 : hard;
}

} // namespace

vector<int> init_game(int bet) { return tw_cards(tw_ask('I', bet, "init_game()")); }
int buy_insurance(int insurance_bet) { return tw_ask('N', insurance_bet, "buy_insurance()").value; }
int double_down() { return tw_ask('D', 0, "double_down()").value; }
vector<int> split() { return tw_cards(tw_ask('S', 0, "split()")); }
int hit_1() { return tw_ask('j', 0, "hit_1()").value; }
void stand_1()
{
    tw_check("stand_1()");
    tw_send('k', 0);
}
int hit_2() { return tw_ask('J', 0, "hit_2()").value; }
vector<int> stand_2() { return tw_cards(tw_ask('K', 0, "stand_2()")); }
int hit() { return tw_ask('h', 0, "hit()").value; }
vector<int> stand() { return tw_cards(tw_ask('s', 0, "stand()")); }

int bet_you_have()
{
    tw_check("bet_you_have()");
    return tw_money;
}

/* The helpers, as twentyone/judge/hands.py computes them. */
bool is_blackjack(vector<int> v)
{
    return v.size() == 2 && ((v[0] == 1 && v[1] >= 10) || (v[1] == 1 && v[0] >= 10));
}

vector<int> cal_point(vector<int> v)
{
    int hard = 0, aces = 0;
    for (int c : v) {
        if (c == 1) aces++;
        hard += c < 10 ? c : 10;
    }
    int32_t out[2];
    int n = 0; /* hard, hard + 10: a second A counted 11 would be over 21 */
    for (int k = 0; k <= aces && k < 2; k++)
        if (hard + 10 * k <= 21) out[n++] = hard + 10 * k;
    if (n == 0) out[n++] = -1;
    return tw_vector(out, n);
}

int cal_max_point(vector<int> v)
{
    int best = tw_best(v, nullptr);
    return best <= 21 ? best : -1;
}

int win(vector<int> a, vector<int> b)
{
    bool abj = is_blackjack(a), bbj = is_blackjack(b);
    if (abj || bbj) return abj && bbj ? 0 : abj ? 1 : -1;
    int x = tw_best(a, nullptr), y = tw_best(b, nullptr);
    if (x > 21) return -1;
    if (y > 21) return 1;
    return (x > y) - (x < y);
}

/* Before confinement: standard input becomes a pipe holding one byte (a read takes it, which tw_check sees);
 * standard output is unbuffered, so whatever is printed reaches the engine's pipe at once; a standard error
 * past its cap fails quietly instead of killing the program (the statement ignores it). */
extern "C" void tw_box_prepare(const tw_box_config *cfg)
{
    (void)cfg;
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPROF, SIG_DFL);
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    int p[2];
    if (pipe(p) == 0) {
        if (write(p[1], "\n", 1) != 1) _exit(93);
        close(p[1]);
        if (p[0] != 0) {
            dup2(p[0], 0);
            close(p[0]);
        }
    }
    setvbuf(stdout, nullptr, _IONBF, 0);
    setvbuf(stdin, nullptr, _IONBF, 0); /* no buffer to size later: that would ask fstat, which the filter refuses */
    setvbuf(stderr, nullptr, _IONBF, 0);
    std::cout.setf(std::ios::unitbuf);
}

extern "C" void tw_box_serve(int in, int out, int k, long cpu_usec)
{
    (void)k;
    (void)cpu_usec; /* the test's CPU budget is the box's RLIMIT_CPU */
    tw_in = in;
    tw_out = out;
    tw_serving = true;
    tw_message m;
    for (;;) {
        tw_receive(m);
        if (m.tag != 'P') tw_leave(7);
        tw_in_play = true;
        play();
        tw_check("the return of play()");
        tw_in_play = false;
        tw_send('R', 0);
    }
}
