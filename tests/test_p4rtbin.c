/* The binary control plane (p4rt_entry_*) and the program cache: a binary entry forwards like
 * the same entry given as text and collides with it; the checks of text adds hold (widths,
 * prefix lengths, exact keys, unknown names); a cached program is loaded once and again only
 * when its file changes. Run from the repository root. */
#include "tests/testp4.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4/engine/p4cache.h"
#include "p4/engine/p4rt.h"

/* Ethernet + IPv4 to 10.0.1.5 (basic.p4 parses both). */
static const uint8_t packet[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x02, 0x08, 0x00, 0x45, 0x00, 0x00, 0x18, 0x00, 0x01,
                                 0x00, 0x00, 0x40, 0x11, 0x65, 0xce, 0x0a, 0x00, 0x00, 0x02,
                                 0x0a, 0x00, 0x01, 0x05, 0xde, 0xad, 0xbe, 0xef};

static struct p4_ingress_out forward(struct p4_pipe *pipe, const struct p4_prog *prog)
{
    uint64_t *state = calloc(1, p4_prog_state_bytes(prog));
    struct p4_ingress_in in = {packet, sizeof(packet), 0, 1, 0, NULL, -1};
    struct p4_ingress_out out;
    p4_pipe_ingress(pipe, state, &in, &out);
    free(state);
    return out;
}

static void test_p4rtbin_entry_forwards_like_text(void **state)
{
    struct p4_prog *prog;
    struct p4_pipe *pipe = test_pipe("p4/programs/basic.p4", NULL, NULL, &prog);
    char err[256];
    int t = p4rt_table_id(pipe, "ipv4_lpm", err, sizeof(err));
    assert_true(t >= 0);
    int k = p4rt_key_id(pipe, t, "hdr.ipv4.dstAddr", err, sizeof(err));
    assert_int_equal(k, 0);
    struct p4rt_entry e;
    assert_int_equal(p4rt_entry_init(&e, pipe, t, "ipv4_forward", err, sizeof(err)), 0);
    int port = p4rt_entry_param(&e, "port", err, sizeof(err));
    int mac = p4rt_entry_param(&e, "dstAddr", err, sizeof(err));
    assert_true(port >= 0 && mac >= 0 && port != mac);
    uint64_t net = 0x0a000100; /* 10.0.1.0/24 -> port 3 */
    uint64_t three = 3;
    uint64_t addr = 0xaabbccddeeffULL;
    assert_int_equal(p4rt_entry_key(&e, k, &net, 24, err, sizeof(err)), 0);
    assert_int_equal(p4rt_entry_arg(&e, port, &three, err, sizeof(err)), 0);
    assert_int_equal(p4rt_entry_arg(&e, mac, &addr, err, sizeof(err)), 0);
    int h = -1;
    assert_int_equal(p4rt_entry_add(pipe, &e, &h, err, sizeof(err)), 0);
    assert_true(h >= 0);
    struct p4_ingress_out out = forward(pipe, prog);
    assert_int_equal(out.fwd, P4_FWD_UNICAST);
    assert_int_equal(out.egress_port, 3);
    /* the same prefix as text is the same entry */
    struct p4rt_kv key = {"dstAddr", "0x0a000100/24"};
    struct p4rt_kv args[2] = {{"dstAddr", "0x010203040506"}, {"port", "4"}};
    assert_int_equal(p4rt_table_add(pipe, "ipv4_lpm", &key, 1, "ipv4_forward", args, 2, -1, NULL,
                                    err, sizeof(err)),
                     -1);
    assert_non_null(strstr(err, "duplicate entry"));
    /* a longer prefix added as binary wins, as lpm requires */
    uint64_t host = 0x0a000105;
    uint64_t five = 5;
    assert_int_equal(p4rt_entry_key(&e, k, &host, 32, err, sizeof(err)), 0);
    assert_int_equal(p4rt_entry_arg(&e, port, &five, err, sizeof(err)), 0);
    assert_int_equal(p4rt_entry_add(pipe, &e, NULL, err, sizeof(err)), 0);
    assert_int_equal(forward(pipe, prog).egress_port, 5);
    p4rt_entry_fini(&e);
    test_pipe_free(pipe, prog);
}

static void test_p4rtbin_errors(void **state)
{
    struct p4_prog *prog;
    struct p4_pipe *pipe = test_pipe("p4/programs/basic.p4", NULL, NULL, &prog);
    char err[256];
    assert_int_equal(p4rt_table_id(pipe, "nope", err, sizeof(err)), -1);
    assert_string_equal(err, "unknown table 'nope'");
    int t = p4rt_table_id(pipe, "ipv4_lpm", err, sizeof(err));
    assert_int_equal(p4rt_key_id(pipe, t, "ttl", err, sizeof(err)), -1);
    struct p4rt_entry e;
    assert_int_equal(p4rt_entry_init(&e, pipe, t, "fly", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "has no action 'fly'"));
    assert_int_equal(p4rt_entry_init(&e, pipe, t, "ipv4_forward", err, sizeof(err)), 0);
    assert_int_equal(p4rt_entry_param(&e, "vlan", err, sizeof(err)), -1);
    int port = p4rt_entry_param(&e, "port", err, sizeof(err));
    uint64_t big = 512; /* port is bit<9> */
    assert_int_equal(p4rt_entry_arg(&e, port, &big, err, sizeof(err)), -1);
    assert_string_equal(err, "value '512' does not fit in 9 bits");
    uint64_t v = (uint64_t)1 << 32; /* the address is bit<32> */
    assert_int_equal(p4rt_entry_key(&e, 0, &v, -1, err, sizeof(err)), -1);
    v = 1;
    assert_int_equal(p4rt_entry_key(&e, 0, &v, 33, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "invalid prefix length 33"));
    p4rt_entry_fini(&e);
    test_pipe_free(pipe, prog);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_p4cache_loads_once_until_changed(void **state)
{
    char dir[] = "/tmp/ddlsim-p4cache-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof(path), "%s/copy.p4", dir);
    FILE *in = fopen("p4/programs/basic.p4", "r");
    assert_non_null(in);
    char *text = calloc(1, 1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, in);
    fclose(in);
    assert_true(n > 0);
    write_file(path, text);
    struct p4_cache *c = p4_cache_create();
    int nerr = -1;
    const struct p4_prog *a = p4_cache_load(c, path, "p4/include", stderr, &nerr);
    assert_non_null(a);
    const struct p4_prog *b = p4_cache_load(c, path, "p4/include", stderr, &nerr);
    assert_ptr_equal(a, b);
    assert_int_equal(nerr, 0);
    assert_int_equal(p4_cache_loads(c), 1);
    /* another file size: loaded again */
    strcat(text, "\n// changed\n");
    write_file(path, text);
    const struct p4_prog *d = p4_cache_load(c, path, "p4/include", stderr, &nerr);
    assert_non_null(d);
    assert_int_equal(p4_cache_loads(c), 2);
    /* a broken program is reported every time and never cached */
    write_file(path, "control C() { apply { x = ; } }\n");
    FILE *devnull = fopen("/dev/null", "w");
    assert_null(p4_cache_load(c, path, "p4/include", devnull, &nerr));
    assert_true(nerr > 0);
    nerr = 0;
    assert_null(p4_cache_load(c, path, "p4/include", devnull, &nerr));
    assert_true(nerr > 0);
    fclose(devnull);
    assert_int_equal(p4_cache_loads(c), 2);
    p4_cache_free(c);
    unlink(path);
    rmdir(dir);
    free(text);
}

TEST_MAIN(cmocka_unit_test(test_p4rtbin_entry_forwards_like_text),
          cmocka_unit_test(test_p4rtbin_errors),
          cmocka_unit_test(test_p4cache_loads_once_until_changed))
