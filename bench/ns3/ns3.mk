# Side-by-side comparison with ns-3.37 (docs/ns3.md). Not part of `make test`: it is slow and
# needs the Debian ns-3 packages, which this target installs.
#   make bench-ns3                      every pair, 5 runs of each simulator
#   make bench-ns3 NS3_ARGS="--reps 3 --only udp"
NS3_MODULES := ns3-point-to-point ns3-internet ns3-applications ns3-traffic-control
NS3_PROGS := udp-incast tcp-incast ps-iter
NS3_BINS := $(NS3_PROGS:%=$(BUILD)/ns3/%)
NS3_ARGS ?=
CXX ?= g++

.PHONY: bench-ns3 ns3-deps ns3-progs

ns3-deps:
	scripts/install-deps.sh ns3 libns3-dev python3-yaml time

# pkg-config runs in the recipe, after ns3-deps; Debian's ns3 .pc files carry a stray
# "-I/usr\;" token, dropped here.
$(BUILD)/ns3/%: bench/ns3/%.cc bench/ns3/ddl-common.h bench/ns3/ddl-tcp.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $<")
	$(Q)$(CXX) -O2 -std=c++17 -Wall -Wextra \
		$$(pkg-config --cflags $(NS3_MODULES) | tr ' ' '\n' | grep -v ';' | tr '\n' ' ') \
		$< -o $@ $$(pkg-config --libs $(NS3_MODULES))

ns3-progs: $(NS3_BINS)

bench-ns3: $(BUILD)/ddlsim
	$(MAKE) --no-print-directory ns3-deps
	$(MAKE) --no-print-directory ns3-progs
	python3 bench/ns3/compare.py --build $(BUILD) $(NS3_ARGS)
