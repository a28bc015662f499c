/* The native P4 engine's loading (p4native.h): the cache (a second load of a program finds
 * its object and compiles nothing; a damaged object is compiled again), and the fallback to
 * the compiled records when the C compiler is missing or fails, with its exact note on stderr
 * and results identical to the compiled engine's, and the folder's bound after a compile. tests/test_p4cc.c compares the native
 * engine's results with the other engines on every program. Run from the repository root. */
#include "tests/testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "p4/engine/p4.h"
#include "p4/engine/p4native.h"
#include "p4/engine/p4rt.h"

static const uint8_t packet[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x02, 0x08, 0x00, 0x45, 0x00, 0x00, 0x18, 0x00, 0x01,
                                 0x00, 0x00, 0x40, 0x11, 0x65, 0xce, 0x0a, 0x00, 0x00, 0x02,
                                 0x0a, 0x00, 0x01, 0x05, 0xde, 0xad, 0xbe, 0xef};

/* A fresh cache folder under the build folder, set as DDLSIM_P4_CACHE. */
static void fresh_cache(char *dir, size_t n)
{
    const char *b = getenv("BUILD") ? getenv("BUILD") : "build";
    snprintf(dir, n, "%s/p4native-test-XXXXXX", b);
    assert_non_null(mkdtemp(dir));
    setenv("DDLSIM_P4_CACHE", dir, 1);
}

/* The number of objects (files ending in .so) in the cache, the path of the last in path. */
static int objects_in(const char *dir, char *path, size_t n)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".so") == 0) {
            snprintf(path, n, "%s/%s", dir, e->d_name);
            found++;
        }
    }
    closedir(d);
    return found;
}

/* The path of the cache's object (the one file ending in .so). */
static void object_of(const char *dir, char *path, size_t n)
{
    assert_int_equal(objects_in(dir, path, n), 1);
}

static struct p4_prog *load_basic(void)
{
    int nerr = 0;
    struct p4_prog *prog = p4_prog_load("p4/programs/basic.p4", "p4/include", stderr, &nerr);
    assert_non_null(prog);
    return prog;
}

/* Creates a pipeline of prog on engine exec, its stderr output into err (n bytes). */
static struct p4_pipe *pipe_on(const struct p4_prog *prog, enum p4_exec exec, char *err, size_t n)
{
    char tmpl[] = "/tmp/ddlsim-p4native-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    struct p4_host host = {0};
    host.exec = exec;
    struct p4_pipe *pipe = p4_pipe_create(prog, &host);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t r = pread(fd, err, n - 1, 0);
    err[r > 0 ? r : 0] = 0;
    close(fd);
    unlink(tmpl);
    return pipe;
}

/* The deparsed bytes of one pass of the test packet through an lpm route (their count). */
static uint32_t one_pass(struct p4_pipe *pipe, const struct p4_prog *prog, uint8_t *out)
{
    char err[256];
    struct p4rt_kv k = {"dstAddr", "0x0a000100/24"};
    struct p4rt_kv a[2] = {{"dstAddr", "0xaabbccddeeff"}, {"port", "1"}};
    assert_int_equal(
        p4rt_table_add(pipe, "ipv4_lpm", &k, 1, "ipv4_forward", a, 2, 0, NULL, err, sizeof(err)),
        0);
    uint64_t *state = calloc(1, p4_prog_state_bytes(prog) + 8);
    struct p4_ingress_in in = {packet, sizeof(packet), 0, 3, 0, NULL, -1};
    struct p4_ingress_out io;
    p4_pipe_ingress(pipe, state, &in, &io);
    assert_int_equal(io.fwd, P4_FWD_UNICAST);
    assert_int_equal(io.egress_port, 1);
    struct p4_egress_in ein = {0};
    ein.egress_port = 1;
    ein.bytes = packet;
    ein.len = sizeof(packet);
    ein.out = out;
    ein.out_cap = 512;
    struct p4_egress_out eo;
    p4_pipe_egress(pipe, state, &ein, &eo);
    free(state);
    return eo.out_len;
}

/* A compiler that fails, and one that does not exist: one note each (not one per pipeline),
 * and the native pipelines give the compiled engine's results. */
static void test_p4native_falls_back_with_one_note(void **state)
{
    const char *cases[][2] = {
        {"/bin/false", "ddlsim: note: no native code for the P4 program (the C compiler "
                       "'/bin/false' failed with exit status 1); it runs on the compiled "
                       "engine\n"},
        {"/nonexistent/cc", "ddlsim: note: no native code for the P4 program (the C compiler "
                            "'/nonexistent/cc' was not found); it runs on the compiled engine\n"},
    };
    for (size_t c = 0; c < 2; c++) {
        char dir[256];
        fresh_cache(dir, sizeof(dir));
        setenv("DDLSIM_P4_CC", cases[c][0], 1);
        struct p4_prog *prog = load_basic();
        char err[1024];
        struct p4_pipe *n1 = pipe_on(prog, P4_EXEC_NATIVE, err, sizeof(err));
        assert_string_equal(err, cases[c][1]);
        struct p4_pipe *n2 = pipe_on(prog, P4_EXEC_NATIVE, err, sizeof(err));
        assert_string_equal(err, ""); /* noted once per program */
        assert_int_equal(p4native_status(prog), P4NATIVE_FAILED);
        struct p4_pipe *cp = pipe_on(prog, P4_EXEC_COMPILED, err, sizeof(err));
        uint8_t a[512];
        uint8_t b[512];
        uint32_t la = one_pass(n1, prog, a);
        uint32_t lb = one_pass(cp, prog, b);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        assert_int_equal(a[22], 0x3f); /* the TTL decremented */
        p4_pipe_destroy(n1);
        p4_pipe_destroy(n2);
        p4_pipe_destroy(cp);
        p4_prog_free(prog);
        unsetenv("DDLSIM_P4_CC");
        test_remove_dir(dir);
    }
}

/* The first load compiles; a second load of the same program (another p4_prog, as another
 * process would) finds the object and compiles nothing; a damaged object is compiled again. */
static void test_p4native_cache(void **state)
{
    char dir[256];
    fresh_cache(dir, sizeof(dir));
    char err[1024];
    enum p4native_status want[3] = {P4NATIVE_COMPILED, P4NATIVE_CACHED, P4NATIVE_COMPILED};
    for (int round = 0; round < 3; round++) {
        if (round == 2) { /* damage the object */
            char so[600];
            object_of(dir, so, sizeof(so));
            FILE *f = fopen(so, "w");
            assert_non_null(f);
            fputs("not an object", f);
            fclose(f);
        }
        struct p4_prog *prog = load_basic();
        assert_int_equal(p4native_status(prog), P4NATIVE_NOT_TRIED);
        struct p4_pipe *np = pipe_on(prog, P4_EXEC_NATIVE, err, sizeof(err));
        assert_string_equal(err, "");
        assert_int_equal(p4native_status(prog), want[round]);
        uint8_t out[512];
        assert_int_equal(one_pass(np, prog, out), sizeof(packet));
        assert_int_equal(out[22], 0x3f);
        p4_pipe_destroy(np);
        p4_prog_free(prog);
    }
    char so[600];
    object_of(dir, so, sizeof(so)); /* one object, no temporary files left */
    test_remove_dir(dir);
}

/* Compiling an object trims the cache folder to $DDLSIM_P4_CACHE_MAX: with a limit of 2M an
 * old 4 MiB entry of another program goes, while the program's own entries (object, source,
 * preprocessed text: about 0.1 MiB) stay, and the object runs; a later load that finds the object marks it as used (its time moves from an
 * hour ago to now). A limit that is not a size compiles with the default and one exact note. */
static void test_p4native_compile_trims_cache(void **state)
{
    char dir[256];
    char err[1024];
    char old[600];
    char so[600];
    fresh_cache(dir, sizeof(dir));
    snprintf(old, sizeof(old), "%s/p4n-0000000000000000.so", dir);
    int fd = open(old, O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 4 << 20), 0);
    close(fd);
    setenv("DDLSIM_P4_CACHE_MAX", "2M", 1);
    for (int round = 0; round < 2; round++) {
        struct p4_prog *prog = load_basic();
        struct p4_pipe *np = pipe_on(prog, P4_EXEC_NATIVE, err, sizeof(err));
        assert_string_equal(err, "");
        assert_int_equal(p4native_status(prog), round ? P4NATIVE_CACHED : P4NATIVE_COMPILED);
        uint8_t out[512];
        assert_int_equal(one_pass(np, prog, out), sizeof(packet));
        object_of(dir, so, sizeof(so));
        struct stat st;
        assert_int_equal(stat(so, &st), 0);
        if (round == 0) {
            assert_int_equal(access(old, F_OK), -1);
            struct timespec t[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
            assert_int_equal(utimensat(AT_FDCWD, so, t, 0), 0);
        } else {
            assert_true(st.st_mtim.tv_sec >= time(NULL) - 60);
        }
        p4_pipe_destroy(np);
        p4_prog_free(prog);
    }
    test_remove_dir(dir);
    fresh_cache(dir, sizeof(dir));
    setenv("DDLSIM_P4_CACHE_MAX", "lots", 1);
    struct p4_prog *prog = load_basic();
    struct p4_pipe *np = pipe_on(prog, P4_EXEC_NATIVE, err, sizeof(err));
    assert_string_equal(err, "ddlsim: note: DDLSIM_P4_CACHE_MAX 'lots' is not a size such as "
                             "512M; the limit is 256M\n");
    assert_int_equal(p4native_status(prog), P4NATIVE_COMPILED);
    p4_pipe_destroy(np);
    p4_prog_free(prog);
    unsetenv("DDLSIM_P4_CACHE_MAX");
    test_remove_dir(dir);
}

/* A cache folder writable by group or others, one owned by another user (made with chown:
 * the test needs root for that case and skips it otherwise) and a symbolic link to a folder:
 * each is refused with its one note, nothing is compiled into or loaded from it, and the
 * pipeline runs on the compiled engine. A folder the engine creates is 0700. */
static void test_p4native_refuses_unsafe_cache_folder(void **state)
{
    const char *end[] = {"is writable by group or others", "is writable by group or others",
                         "is not owned by you", "is not a directory"};
    for (int c = 0; c < 4; c++) {
        char dir[256];
        fresh_cache(dir, sizeof(dir));
        char link[300];
        snprintf(link, sizeof(link), "%s.link", dir);
        const char *used = dir;
        if (c == 0)
            assert_int_equal(chmod(dir, 0770), 0);
        else if (c == 1)
            assert_int_equal(chmod(dir, 0703), 0);
        else if (c == 2 && (geteuid() != 0 || chown(dir, geteuid() + 1, (gid_t)-1) != 0)) {
            test_remove_dir(dir);
            continue;
        } else if (c == 3) {
            assert_int_equal(symlink(strrchr(dir, '/') + 1, link), 0);
            setenv("DDLSIM_P4_CACHE", link, 1);
            used = link;
        }
        struct p4_prog *prog = load_basic();
        char err[1024];
        struct p4_pipe *np = pipe_on(prog, P4_EXEC_NATIVE, err, sizeof(err));
        char want[1024];
        snprintf(want, sizeof(want),
                 "ddlsim: note: no native code for the P4 program (the cache folder %s %s); it "
                 "runs on the compiled engine\n",
                 used, end[c]);
        assert_string_equal(err, want);
        assert_int_equal(p4native_status(prog), P4NATIVE_FAILED);
        char so[600];
        assert_int_equal(objects_in(dir, so, sizeof(so)), 0);
        uint8_t out[512];
        assert_int_equal(one_pass(np, prog, out), sizeof(packet));
        assert_int_equal(out[22], 0x3f); /* the TTL decremented */
        p4_pipe_destroy(np);
        p4_prog_free(prog);
        if (c == 3)
            unlink(link);
        test_remove_dir(dir);
    }
    char dir[256];
    fresh_cache(dir, sizeof(dir));
    char sub[300];
    snprintf(sub, sizeof(sub), "%s/made", dir);
    setenv("DDLSIM_P4_CACHE", sub, 1);
    struct p4_prog *prog = load_basic();
    char err[1024];
    struct p4_pipe *np = pipe_on(prog, P4_EXEC_NATIVE, err, sizeof(err));
    assert_string_equal(err, "");
    struct stat st;
    assert_int_equal(lstat(sub, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    p4_pipe_destroy(np);
    p4_prog_free(prog);
    test_remove_dir(sub);
    test_remove_dir(dir);
}

/* Writes text to path with a modification time an hour back plus ns nanoseconds. */
static void write_old(const char *path, const char *text, long ns)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    struct timespec t[2] = {{time(NULL) - 3600, ns}, {time(NULL) - 3600, ns}};
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* The number of times the counting preprocessor wrapper ran. */
static int cpp_runs(const char *count)
{
    FILE *f = fopen(count, "r");
    int n = 0;
    for (int c; f && (c = fgetc(f)) != EOF;)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

/* A program loaded twice runs the preprocessor once (the output is kept in the cache folder);
 * after an included file changes it runs again and sees the new text (here a syntax error);
 * a program loaded from text (a temporary file) is not kept. The preprocessor is a wrapper on
 * PATH that counts its runs. */
static void test_p4native_keeps_preprocessed_programs(void **state)
{
    char dir[256];
    fresh_cache(dir, sizeof(dir));
    char bin[300];
    char count[300];
    char path[320];
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    snprintf(count, sizeof(count), "%s/count", dir);
    assert_int_equal(mkdir(bin, 0700), 0);
    snprintf(path, sizeof(path), "%s/cpp", bin);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\necho run >> %s\nexec /usr/bin/cpp \"$@\"\n", count);
    fclose(f);
    assert_int_equal(chmod(path, 0700), 0);
    char *old_path = strdup(getenv("PATH"));
    setenv("PATH", bin, 1);
    char prog[320];
    char extra[320];
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(prog, sizeof(prog), "%s/prog.p4", dir);
    snprintf(extra, sizeof(extra), "%s/extra.p4", dir);
    char text[700];
    snprintf(text, sizeof(text), "#include \"extra.p4\"\n#include \"%s/p4/programs/basic.p4\"\n",
             cwd);
    write_old(prog, text, 0);
    write_old(extra, "const bit<8> EXTRA = 1;\n", 0);
    int want_runs[3] = {1, 1, 2};
    for (int round = 0; round < 3; round++) {
        if (round == 2)
            write_old(extra, "const bit<8> EXTRA = ;\n", 1);
        int nerr = 0;
        struct p4_prog *p = p4_prog_load(prog, "p4/include", NULL, &nerr);
        assert_int_equal(p != NULL, round < 2);
        assert_int_equal(cpp_runs(count), want_runs[round]);
        p4_prog_free(p);
    }
    int nerr = 0;
    const char *alone = strchr(text, '\n') + 1; /* without extra.p4 (beside prog.p4 only) */
    struct p4_prog *p = p4_prog_load_text("t.p4", alone, "p4/include", true, NULL, &nerr);
    assert_non_null(p);
    p4_prog_free(p);
    p = p4_prog_load_text("t.p4", alone, "p4/include", true, NULL, &nerr);
    assert_non_null(p);
    p4_prog_free(p);
    assert_int_equal(cpp_runs(count), 4);
    setenv("PATH", old_path, 1);
    free(old_path);
    test_remove_dir(bin);
    test_remove_dir(dir);
}

TEST_MAIN(cmocka_unit_test(test_p4native_falls_back_with_one_note),
          cmocka_unit_test(test_p4native_keeps_preprocessed_programs),
          cmocka_unit_test(test_p4native_cache),
          cmocka_unit_test(test_p4native_compile_trims_cache),
          cmocka_unit_test(test_p4native_refuses_unsafe_cache_folder))
