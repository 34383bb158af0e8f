/* tw_rng.c - SplitMix64, Lemire's bounded draw and Fisher-Yates; see tw_rng.h. */
#include "tw_rng.h"

static const char TW_RANKS[] = "A23456789TJQK";

void tw_rng_seed(tw_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t tw_rng_next(tw_rng *rng)
{
    uint64_t z = (rng->state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint32_t tw_rng_below(tw_rng *rng, uint32_t bound)
{
    uint64_t m = (uint64_t)(uint32_t)(tw_rng_next(rng) >> 32) * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        uint32_t threshold = (uint32_t)(-bound) % bound;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(tw_rng_next(rng) >> 32) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

void tw_init_cards(char *cards, int decks)
{
    int k = 0;
    for (int d = 0; d < decks; d++)
        for (int suit = 0; suit < 4; suit++)
            for (int r = 0; r < 13; r++)
                cards[k++] = TW_RANKS[r];
}

void tw_shuffle(tw_rng *rng, char *cards, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)tw_rng_below(rng, (uint32_t)(i + 1));
        char t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
}
