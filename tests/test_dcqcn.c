/* The DCQCN reaction point alone: exact rates and α after cuts, α decay, fast recovery,
 * additive and hyper increase (Zhu et al., SIGCOMM 2015, §3.1). Rates are chosen so every
 * expected value is exact (halving integers, α from powers of two). */
#include "tests/testutil.h"

#include <stdlib.h>

#include "models/transport/dcqcn.h"

#define G40 40000000000ull

static struct dcqcn_cfg paper_cfg(void)
{
    return (struct dcqcn_cfg){
        .line_rate_bps = G40,
        .min_rate_bps = 10000000,
        .rai_bps = 40000000,
        .rhai_bps = 400000000,
        .g = 1.0 / 256,
        .alpha_init = 1.0,
        .byte_counter_bytes = 10000000,
        .f_stages = 5,
    };
}

static int setup(void **state)
{
    struct dcqcn *d = calloc(1, sizeof(*d));
    struct dcqcn_cfg c = paper_cfg();
    dcqcn_init(d, &c);
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void test_dcqcn_starts_at_line_rate(void **state)
{
    struct dcqcn *d = *state;
    assert_int_equal(d->rc_bps, G40);
    assert_int_equal(d->rt_bps, G40);
    assert_true(d->alpha == 1.0);
    assert_int_equal(dcqcn_phase(d), DCQCN_FAST_RECOVERY);
}

static void test_dcqcn_cut(void **state)
{
    struct dcqcn *d = *state;
    dcqcn_on_cnp(d);
    /* α = 1: Rc halves, Rt keeps the old rate, α = (1 − g)·1 + g = 1 */
    assert_int_equal(d->rt_bps, G40);
    assert_int_equal(d->rc_bps, 20000000000ull);
    assert_true(d->alpha == 1.0);
    dcqcn_on_cnp(d);
    assert_int_equal(d->rt_bps, 20000000000ull);
    assert_int_equal(d->rc_bps, 10000000000ull);
    assert_int_equal(d->cuts, 2);

    /* α = 1/2: Rc·(1 − 1/4), α = (255/256)/2 + 1/256 = 128.5/256 */
    struct dcqcn e;
    struct dcqcn_cfg c = paper_cfg();
    c.alpha_init = 0.5;
    dcqcn_init(&e, &c);
    dcqcn_on_cnp(&e);
    assert_int_equal(e.rc_bps, 30000000000ull);
    assert_true(e.alpha == 128.5 / 256);
}

static void test_dcqcn_alpha_decay(void **state)
{
    struct dcqcn *d = *state;
    dcqcn_alpha_timer(d);
    assert_true(d->alpha == 255.0 / 256);
    dcqcn_alpha_timer(d);
    assert_true(d->alpha == 65025.0 / 65536);
    /* the cut uses the decayed α: 40G·66047/131072 = 20155944824.21875 → rounded */
    dcqcn_on_cnp(d);
    assert_int_equal(d->rc_bps, 20155944824ull);
    assert_true(d->alpha == 16646911.0 / 16777216);
    /* no rate change from α decay alone */
    dcqcn_alpha_timer(d);
    assert_int_equal(d->rc_bps, 20155944824ull);
}

static void test_dcqcn_fast_recovery_then_additive(void **state)
{
    struct dcqcn *d = *state;
    dcqcn_on_cnp(d);
    dcqcn_on_cnp(d); /* Rt = 20G, Rc = 10G */
    const uint64_t fr[5] = {15000000000ull, 17500000000ull, 18750000000ull, 19375000000ull,
                            19687500000ull};
    for (int i = 0; i < 5; i++) {
        dcqcn_rate_timer(d);
        assert_int_equal(dcqcn_phase(d), DCQCN_FAST_RECOVERY);
        assert_int_equal(d->rt_bps, 20000000000ull);
        assert_int_equal(d->rc_bps, fr[i]);
    }
    /* the sixth timer event: additive increase Rt += R_AI, Rc = (Rt + Rc)/2 */
    dcqcn_rate_timer(d);
    assert_int_equal(dcqcn_phase(d), DCQCN_ADDITIVE);
    assert_int_equal(d->rt_bps, 20040000000ull);
    assert_int_equal(d->rc_bps, 19863750000ull);
    dcqcn_rate_timer(d);
    assert_int_equal(d->rt_bps, 20080000000ull);
    assert_int_equal(d->rc_bps, 19971875000ull);
    /* a CNP restarts the stages */
    dcqcn_on_cnp(d);
    assert_int_equal(d->t_stage, 0);
    assert_int_equal(dcqcn_phase(d), DCQCN_FAST_RECOVERY);
    assert_int_equal(d->rt_bps, 19971875000ull);
}

static void test_dcqcn_hyper_increase(void **state)
{
    struct dcqcn d;
    struct dcqcn_cfg c = paper_cfg();
    c.byte_counter_bytes = 1000;
    dcqcn_init(&d, &c);
    dcqcn_on_cnp(&d);
    dcqcn_on_cnp(&d); /* Rt = 20G, Rc = 10G */
    /* 6.5 byte counters: BC = 1..5 fast recovery, BC = 6 additive (T = 0) */
    assert_int_equal(dcqcn_on_bytes(&d, 6500), 6);
    assert_int_equal(d.bc_stage, 6);
    assert_int_equal(d.rt_bps, 20040000000ull);
    assert_int_equal(d.rc_bps, 19863750000ull);
    /* T = 1..5: one counter past F, the other not: additive */
    const uint64_t rc[5] = {19971875000ull, 20045937500ull, 20102968750ull, 20151484375ull,
                            20195742187ull};
    for (int i = 0; i < 5; i++) {
        dcqcn_rate_timer(&d);
        assert_int_equal(dcqcn_phase(&d), DCQCN_ADDITIVE);
        assert_int_equal(d.rt_bps, 20040000000ull + (uint64_t)(i + 1) * 40000000);
        assert_int_equal(d.rc_bps, rc[i]);
    }
    /* T = 6, BC = 6: both past F, hyper increase with i = min(T, BC) − F = 1 */
    dcqcn_rate_timer(&d);
    assert_int_equal(dcqcn_phase(&d), DCQCN_HYPER);
    assert_int_equal(d.rt_bps, 20640000000ull);
    assert_int_equal(d.rc_bps, 20417871093ull);
    /* T = 7, BC = 6: i = 1 */
    dcqcn_rate_timer(&d);
    assert_int_equal(d.rt_bps, 21040000000ull);
    assert_int_equal(d.rc_bps, 20728935546ull);
    /* the remaining 500 bytes complete the seventh byte counter: i = 2 */
    assert_int_equal(dcqcn_on_bytes(&d, 500), 1);
    assert_int_equal(d.rt_bps, 21840000000ull);
    assert_int_equal(d.rc_bps, 21284467773ull);
}

static void test_dcqcn_rate_bounds(void **state)
{
    struct dcqcn *d = *state;
    /* increases never pass the line rate */
    for (int i = 0; i < 20; i++)
        dcqcn_rate_timer(d);
    assert_int_equal(d->rc_bps, G40);
    assert_int_equal(d->rt_bps, G40);
    /* cuts never go below the minimum rate */
    for (int i = 0; i < 30; i++)
        dcqcn_on_cnp(d);
    assert_int_equal(d->rc_bps, 10000000);
    /* the byte counter can be switched off */
    struct dcqcn e;
    struct dcqcn_cfg c = paper_cfg();
    c.byte_counter_bytes = 0;
    dcqcn_init(&e, &c);
    assert_int_equal(dcqcn_on_bytes(&e, 1ull << 40), 0);
    assert_int_equal(e.increases, 0);
}

TEST_MAIN(cmocka_unit_test_setup_teardown(test_dcqcn_starts_at_line_rate, setup, teardown),
          cmocka_unit_test_setup_teardown(test_dcqcn_cut, setup, teardown),
          cmocka_unit_test_setup_teardown(test_dcqcn_alpha_decay, setup, teardown),
          cmocka_unit_test_setup_teardown(test_dcqcn_fast_recovery_then_additive, setup, teardown),
          cmocka_unit_test_setup_teardown(test_dcqcn_hyper_increase, setup, teardown),
          cmocka_unit_test_setup_teardown(test_dcqcn_rate_bounds, setup, teardown))
