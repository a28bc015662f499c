/* The set-up arena: blocks come zeroed and aligned for any type, the arena can sit in one of its
 * own blocks, and arena_free releases every block (make asan's leak check fails if one stays)
 * and leaves the arena empty and usable again. */
#include "tests/testutil.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "sim/arena.h"

/* 100 blocks of growing size: each is zeroed and aligned to max_align_t, and writing the whole
 * of one never touches another (ASan would report an overflow). */
static void test_arena_zeroed_aligned(void **state)
{
    struct arena a = {0};
    unsigned char *b[100];
    for (size_t i = 0; i < 100; i++) {
        b[i] = arena_calloc(&a, i + 1, 3);
        assert_int_equal((uintptr_t)b[i] % alignof(max_align_t), 0);
        for (size_t k = 0; k < 3 * (i + 1); k++)
            assert_int_equal(b[i][k], 0);
        memset(b[i], 0xab, 3 * (i + 1));
    }
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(b[i][3 * i + 2], 0xab);
    arena_free(&a);
    assert_null(a.blocks);
}

/* An object that holds its own arena (allocated from it) is released whole by one arena_free,
 * and a freed arena takes new blocks. */
struct owner {
    struct arena arena;
    uint64_t *table;
};

static void test_arena_self_owned(void **state)
{
    struct arena a = {0};
    struct owner *o = arena_calloc(&a, 1, sizeof(*o));
    o->arena = a;
    o->table = arena_calloc(&o->arena, 1000, sizeof(*o->table));
    o->table[999] = 7;
    arena_free(&o->arena); /* o itself goes here */
    a.blocks = NULL;
    int *x = arena_calloc(&a, 0, sizeof(int)); /* an empty request still gets a block */
    assert_non_null(x);
    arena_free(&a);
    assert_null(a.blocks);
}

/* arena_printf: the whole formatted text, terminated, in a block of the arena (longer than any
 * fixed buffer, so a truncating implementation would fail; ASan sees the block's bound). */
static void test_arena_printf(void **state)
{
    struct arena a = {0};
    char big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    char *s = arena_printf(&a, "%s/%d", big, 42);
    assert_int_equal(strlen(s), sizeof(big) - 1 + 3);
    assert_string_equal(s + sizeof(big) - 1, "/42");
    assert_memory_equal(s, big, sizeof(big) - 1);
    assert_non_null(a.blocks);
    arena_free(&a);
}

TEST_MAIN(cmocka_unit_test(test_arena_zeroed_aligned), cmocka_unit_test(test_arena_self_owned),
          cmocka_unit_test(test_arena_printf))
