/* tw_rng.h - the seeded generator and shuffle shared by the Python engine and the C program.
 *
 * One implementation, used by both sides, so that the same match seed gives the same shoes
 * bit for bit.  The generator is SplitMix64; bounded draws use Lemire's unbiased method;
 * the shuffle is a uniform Fisher-Yates shuffle from the last card down.
 */
#ifndef TW_RNG_H
#define TW_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t state;
} tw_rng;

/* Seed the generator; every seed in 0 .. 2^64-1 is valid. */
void tw_rng_seed(tw_rng *rng, uint64_t seed);
/* Next 64 random bits. */
uint64_t tw_rng_next(tw_rng *rng);
/* A uniform integer in [0, bound), bound >= 1. */
uint32_t tw_rng_below(tw_rng *rng, uint32_t bound);
/* Fill cards with decks * 52 card codes: deck by deck, four suits each, "A23456789TJQK". */
void tw_init_cards(char *cards, int decks);
/* Uniform Fisher-Yates shuffle of n cards in place. */
void tw_shuffle(tw_rng *rng, char *cards, int n);

#endif
