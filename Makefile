# ddlsim: one non-recursive Makefile. Objects live under $(BUILD).
#   make demo    install missing deps, build, run configs/demo.yaml
#   make test    unit, scenario, STF and bad-input tests
#   make asan    the whole suite under AddressSanitizer + UBSan
#   make bench   benchmarks (not part of test)
#   make bench-scale  time per event and peak RSS of fat trees k = 8..32 (scripts/bench-scale.sh)
#   make figures regenerate every figure into results/; figures-update refreshes the references

BUILD ?= build
CC ?= gcc
PKGS := gsl yaml-0.1 cmocka jansson

# Install missing Debian packages before anything asks pkg-config for flags.
DEPS_OK := $(shell (pkg-config --exists $(PKGS) && command -v tshark && command -v gnuplot && \
	command -v mpicc && command -v mpirun) \
	>/dev/null 2>&1 || scripts/install-deps.sh >&2; pkg-config --exists $(PKGS) && echo yes)
ifneq ($(DEPS_OK),yes)
$(error dependencies missing ($(PKGS)); run scripts/install-deps.sh as root)
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS := $(shell pkg-config --libs gsl yaml-0.1 jansson)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wconversion \
	-Wno-sign-conversion -Wno-missing-field-initializers -Werror
OPT ?= -O2 -g
SAN ?=
CFLAGS := -std=c11 $(OPT) $(WARN) -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. \
	$(PKG_CFLAGS) $(SAN) $(EXTRA_CFLAGS)
LDFLAGS := $(SAN)
LDLIBS := $(PKG_LIBS) -lm

# One static library per layer, linked top layer first: a call from a lower layer into a
# higher one does not resolve, so the dependency direction (kernel <- models <- app) is checked
# by every link as well as by tests/layers.sh.
#   kernel     sim/*.c            event queue, time, config tree, parameters, outputs
#   p4         p4/engine/*.c      the P4 engine (depends on nothing else)
#   net        models/net/*.c     packets, links, hosts, switches, routing
#   transport  models/transport/  flows: UDP, TCP, RDMA, messages and host costs
#   ddl        models/ddl/*.c     training jobs: models, workers, servers, collectives
#   app        sim/app/*.c        builder, CLI, report (the only layer that knows every kind)
LAYERS := app ddl transport net p4 kernel
kernel_SRCS := $(wildcard sim/*.c)
p4_SRCS := $(wildcard p4/engine/*.c)
net_SRCS := $(wildcard models/net/*.c)
transport_SRCS := $(wildcard models/transport/*.c)
ddl_SRCS := $(wildcard models/ddl/*.c)
app_SRCS := $(filter-out sim/app/main.c,$(wildcard sim/app/*.c))
P4_SRCS := $(p4_SRCS)
LIB_SRCS := $(foreach l,$(LAYERS),$($(l)_SRCS))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LAYER_LIBS := $(LAYERS:%=$(BUILD)/lib%.a)

TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
BENCH_SRCS := $(wildcard bench/bench_*.c)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

ALL_OBJS := $(LIB_OBJS) $(BUILD)/sim/app/main.o

# `make V=1` prints full commands.
ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: all demo test unit asan bench bench-p4-instr bench-scale clean golden-update fuzz figures figures-update
all: $(BUILD)/ddlsim

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

define layer_lib
$(BUILD)/lib$(1).a: $$($(1)_SRCS:%.c=$(BUILD)/%.o)
	@rm -f $$@
	$(Q)ar rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call layer_lib,$(l))))

$(BUILD)/ddlsim: $(BUILD)/sim/app/main.o $(LAYER_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# cmocka passes every test a state pointer that most tests do not use.
$(BUILD)/tests/%.o: CFLAGS += -Wno-unused-parameter

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LAYER_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(CMOCKA_LIBS) -o $@

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LAYER_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

.SECONDARY:

# The version recorded in summary.json: git describe of this tree, else the VERSION file. It is
# kept in $(BUILD)/version.txt, rewritten only when it changes, so only version.o rebuilds.
VERSION_STR := $(shell git describe --always --dirty 2>/dev/null || cat VERSION 2>/dev/null || \
	echo unknown)
$(shell mkdir -p $(BUILD); [ "$$(cat $(BUILD)/version.txt 2>/dev/null)" = "$(VERSION_STR)" ] || \
	echo "$(VERSION_STR)" >$(BUILD)/version.txt)
$(BUILD)/sim/app/version.o: $(BUILD)/version.txt
$(BUILD)/sim/app/version.o: CFLAGS += -DDDLSIM_VERSION='"$(VERSION_STR)"'

# The MPI variant, for `mpirun ... build/ddlsim-mpi sweep FILE.yaml`: the same program with
# sim/app/sweep_mpi.c compiled by mpicc with HAVE_MPI (its object comes before libapp.a, so the
# plain one is not linked). Built whenever mpicc is found (Open MPI: scripts/install-deps.sh);
# without it build/ddlsim still runs sweeps on forked workers (-j N). MPICC= disables it.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
MPI_BIN := $(BUILD)/ddlsim-mpi
all: $(MPI_BIN)
$(BUILD)/mpi/sweep_mpi.o: sim/app/sweep_mpi.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MPICC   $<")
	$(Q)$(MPICC) $(CFLAGS) -DHAVE_MPI -MMD -MP -c $< -o $@
$(MPI_BIN): $(BUILD)/sim/app/main.o $(BUILD)/mpi/sweep_mpi.o $(LAYER_LIBS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(MPICC) $(LDFLAGS) $^ $(LDLIBS) -o $@
-include $(BUILD)/mpi/sweep_mpi.d
endif

demo: $(BUILD)/ddlsim
	$(BUILD)/ddlsim run configs/demo.yaml --out out/demo

test: $(BUILD)/ddlsim $(MPI_BIN) $(TEST_BINS)
	BUILD=$(BUILD) scripts/run-tests.sh

unit: $(TEST_BINS)
	BUILD=$(BUILD) scripts/run-tests.sh --unit-only

asan:
	$(MAKE) BUILD=build/asan OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined" test

bench: $(BUILD)/ddlsim $(BENCH_BINS)
	BUILD=$(BUILD) scripts/run-bench.sh

# Instructions per P4 pass and per scenario (P4 / none), counted by callgrind (a few minutes).
bench-p4-instr: $(BUILD)/ddlsim $(BENCH_BINS)
	BUILD=$(BUILD) scripts/bench-p4-instr.sh

# Fat trees of k = 8, 16, 32 at a fixed load per host: wall time, events/s, ns per event, peak
# RSS into $(BUILD)/bench-scale/bench-scale.csv and .png, the machine's load latency by working
# set into memlat.csv; BENCH_SCALE_LONG=1 adds the 128-worker ring all-reduce iteration and k = 64.
bench-scale: $(BUILD)/ddlsim $(BUILD)/bench/bench_memlat
	BUILD=$(BUILD) scripts/bench-scale.sh

# Every figure of configs/figures/: results/NAME.csv, .png, .svg (full sweeps).
figures: $(BUILD)/ddlsim
	$(BUILD)/ddlsim figure all

# The references the regression test compares with (quick sweeps): results/NAME.ref.csv.
figures-update: $(BUILD)/ddlsim
	$(BUILD)/ddlsim figure all --quick --update-ref

golden-update: $(BUILD)/ddlsim
	BUILD=$(BUILD) scripts/run-tests.sh --update-golden

clean:
	rm -rf build

-include $(ALL_OBJS:.o=.d) $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%.d) \
	$(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%.d)
-include p4/p4.mk
-include bench/ns3/ns3.mk

# libFuzzer on the scenario front end (YAML → validated scenario), next to the P4 targets of
# p4/p4.mk; `make fuzz` runs all, FUZZ_SECONDS each.
FUZZ_YAML_SRCS := $(LIB_SRCS)
$(BUILD)/fuzz/fuzz_scenario: fuzz/fuzz_scenario.c $(FUZZ_YAML_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(PKG_CFLAGS) $< $(FUZZ_YAML_SRCS) $(PKG_LIBS) -lm -o $@

$(BUILD)/fuzz/corpus-scenario:
	@mkdir -p $@
	@cp configs/*.yaml tests/bad/*.yaml $@/
	@for f in tests/hostile/*/*.yaml; do cp $$f $@/hostile-$$(basename $$f); done

fuzz-yaml: $(BUILD)/fuzz/fuzz_scenario $(BUILD)/fuzz/corpus-scenario
	$(BUILD)/fuzz/fuzz_scenario -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=20 \
		-rss_limit_mb=2048 -malloc_limit_mb=1024 $(BUILD)/fuzz/corpus-scenario

fuzz: fuzz-yaml
.PHONY: fuzz-yaml
