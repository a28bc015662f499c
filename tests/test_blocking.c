/* Unit tests: a port's lower-priority transmission clocks (models/net/blocking.h). */
#include "tests/testutil.h"

#include "models/net/blocking.h"

struct tx {
    uint8_t prio;
    sim_time_t start, dur;
};

/* The clock of priority c at `now` by its definition: the wire time of every transmission of
 * a priority below c, the one in progress up to `now`. */
static sim_time_t clock_ref(const struct tx *txs, int n, uint8_t c, sim_time_t now)
{
    sim_time_t t = 0;
    for (int i = 0; i < n; i++) {
        if (txs[i].prio >= c || txs[i].start >= now)
            continue;
        sim_time_t run = now - txs[i].start;
        t += run < txs[i].dur ? run : txs[i].dur;
    }
    return t;
}

/* Back-to-back transmissions of mixed priorities (0 to 7, repeated, with gaps): at the start,
 * the middle and the end of each, every priority's clock equals the definition's, one at a time
 * and all at once. */
static void test_blocking_clock_matches_definition(void **state)
{
    (void)state;
    static const uint8_t prios[] = {3, 0, 5, 0, 7, 1, 1, 6, 2, 0, 4, 7};
    enum { N = sizeof(prios) };
    struct tx txs[N];
    struct blocking_clock b = {0};
    sim_time_t now = 100;
    for (int i = 0; i < N; i++) {
        txs[i] = (struct tx){prios[i], now, 1000 + 37 * i};
        blocking_clock_tx(&b, prios[i], now, txs[i].dur);
        sim_time_t at[3] = {now, now + txs[i].dur / 2, now + txs[i].dur};
        for (int k = 0; k < 3; k++) {
            sim_time_t all[BLOCKING_NPRIO];
            blocking_clock_all(&b, at[k], all);
            for (uint8_t c = 0; c < BLOCKING_NPRIO; c++) {
                assert_int_equal(blocking_clock_at(&b, c, at[k]), clock_ref(txs, i + 1, c, at[k]));
                assert_int_equal(all[c], clock_ref(txs, i + 1, c, at[k]));
            }
        }
        now += txs[i].dur + (i % 3) * 50; /* idle gaps between some */
    }
    /* priority 0 never waits for anything below it */
    assert_int_equal(blocking_clock_at(&b, 0, now), 0);
}

TEST_MAIN(cmocka_unit_test(test_blocking_clock_matches_definition))
