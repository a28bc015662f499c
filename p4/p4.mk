# P4 engine extras, included by the top-level Makefile.
#   make fuzz    libFuzzer (clang) on the P4 front end and the STF runner, bounded time,
#                seeded with the .p4/.stf files of the tree. FUZZ_SECONDS per target (the STF
#                runner: per program of p4/programs).

FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_FLAGS := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I. \
	-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
FUZZ_TARGETS := $(patsubst p4/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard p4/fuzz/fuzz_*.c))

$(FUZZ_DIR)/fuzz_%: p4/fuzz/fuzz_%.c $(P4_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< $(P4_SRCS) -o $@

$(FUZZ_DIR)/corpus-p4front:
	@mkdir -p $@
	@for f in tests/p4/*.p4 p4/programs/*.p4; do \
		cpp -C -undef -nostdinc -x assembler-with-cpp -D__TARGET_BMV2__ -I p4/include $$f \
			> $@/$$(basename $$f).pp 2>/dev/null || true; done

$(FUZZ_DIR)/corpus-p4stf:
	@mkdir -p $@
	@cp tests/p4/*.stf $@/

fuzz: $(FUZZ_TARGETS) $(FUZZ_DIR)/corpus-p4front $(FUZZ_DIR)/corpus-p4stf
	$(FUZZ_DIR)/fuzz_p4front -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
		-timeout=10 $(FUZZ_DIR)/corpus-p4front
	@for p in p4/programs/*.p4; do echo "fuzz_p4stf: $$p"; \
		DDLSIM_FUZZ_PROGRAM=$$p $(FUZZ_DIR)/fuzz_p4stf -max_total_time=$(FUZZ_SECONDS) \
			-max_len=8192 -timeout=10 $(FUZZ_DIR)/corpus-p4stf || exit 1; done
