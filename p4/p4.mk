# P4 engine extras, included by the top-level Makefile.
#   make fuzz    libFuzzer (clang) on the P4 front end (fuzz_p4front: parser to IR, no cpp;
#                fuzz_p4cpp: the whole load path through the bounded preprocessor), on inputs
#                up to 256 KB, and the STF runner (fuzz_p4stf: every program of p4/programs,
#                picked by the first byte of an input); bounded time, seeded with the .p4/.stf
#                files of the tree and tests/hostile. FUZZ_SECONDS per target.

FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_FLAGS := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I. \
	-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
FUZZ_TARGETS := $(patsubst p4/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard p4/fuzz/fuzz_*.c))

$(FUZZ_DIR)/fuzz_%: p4/fuzz/fuzz_%.c p4/fuzz/fuzz_p4load.h $(P4_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< $(P4_SRCS) -o $@

$(FUZZ_DIR)/corpus-p4front:
	@mkdir -p $@
	@for f in tests/p4/*.p4 p4/programs/*.p4; do \
		cpp -C -undef -nostdinc -x assembler-with-cpp -D__TARGET_BMV2__ -I p4/include $$f \
			> $@/$$(basename $$f).pp 2>/dev/null || true; done

$(FUZZ_DIR)/corpus-p4cpp:
	@mkdir -p $@
	@cp tests/p4/*.p4 p4/programs/*.p4 $@/
	@for f in tests/hostile/p4/*.p4; do cp $$f $@/hostile-$$(basename $$f); done

# an STF seed is one byte (the program: its index in p4/programs) and a script
$(FUZZ_DIR)/corpus-p4stf:
	@mkdir -p $@
	@for f in tests/p4/*.stf; do for i in 0 1 2 3; do \
		{ printf "\\$$(printf %o $$i)"; cat $$f; } >$@/$$i-$$(basename $$f); done; done

fuzz: fuzz-p4front fuzz-p4cpp fuzz-p4stf
fuzz-p4front: $(FUZZ_DIR)/fuzz_p4front $(FUZZ_DIR)/corpus-p4front
	$(FUZZ_DIR)/fuzz_p4front -max_total_time=$(FUZZ_SECONDS) -max_len=262144 \
		-timeout=10 -rss_limit_mb=2048 $(FUZZ_DIR)/corpus-p4front
fuzz-p4cpp: $(FUZZ_DIR)/fuzz_p4cpp $(FUZZ_DIR)/corpus-p4cpp
	$(FUZZ_DIR)/fuzz_p4cpp -max_total_time=$(FUZZ_SECONDS) -max_len=262144 \
		-timeout=30 -rss_limit_mb=2048 $(FUZZ_DIR)/corpus-p4cpp
fuzz-p4stf: $(FUZZ_DIR)/fuzz_p4stf $(FUZZ_DIR)/corpus-p4stf
	$(FUZZ_DIR)/fuzz_p4stf -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 $(FUZZ_DIR)/corpus-p4stf
.PHONY: fuzz-p4front fuzz-p4cpp fuzz-p4stf
