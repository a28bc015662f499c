/* A switch whose forwarding stage is a P4_16 (v1model) pipeline: ingress (parser,
 * verifyChecksum, ingress control) before the traffic manager, egress (egress control,
 * computeChecksum, deparser) when a packet leaves its queue, with bmv2 simple_switch's packet
 * life cycle: I2E and E2E clones to mirroring sessions, multicast replication with rids,
 * resubmit and recirculation (bounded), drop on egress_spec 511. standard_metadata.priority
 * selects the egress queue; enq_qdepth, deq_qdepth (packets) and deq_timedelta come from the
 * traffic manager. The program's state for a packet (headers, metadata) rides on the packet
 * (pkt_ext) from a per-switch pool between ingress and egress.
 *
 * Programs are loaded once per scenario (p4switch_programs), or once per process when the
 * scenario's caller passes a program cache (node_env.p4_cache: sweep workers), and shared by the
 * switches that name them; each switch has its own tables, registers and counters. */
#ifndef SIM_MODELS_NET_P4SWITCH_H
#define SIM_MODELS_NET_P4SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net/switch.h"
#include "p4/engine/p4.h"
#include "p4/engine/p4cache.h"
#include "sim/cfg.h"
#include "sim/diag.h"

/* Programs a scenario uses, by resolved path. */
struct p4switch_programs {
    char **paths;
    const struct p4_prog **progs;
    size_t n;
    struct p4_cache *cache; /* where they come from (the caller's), NULL: loaded and owned here */
    bool wide_noted; /* the note that basic_wide replaces basic was printed */
    bool wide_refused;    /* the topology is too large for basic_wide's routes (reported) */
};

/* P4 port numbers. bmv2's drop port 511 is no port, so the switch's port p from 511 on is P4
 * port p + 1: a program with 9-bit ports (basic.p4) reaches ports 0..510, one with 16-bit ports
 * (basic_wide.p4) 65,534 ports. Below 511 the numbers are the same. Everything given to the
 * program (ingress port, egress port, multicast and mirror ports, route entries) goes through
 * p4switch_port, every port it names through p4switch_port_of. */
static inline uint32_t p4switch_port(uint32_t port)
{
    return port < P4_DROP_PORT ? port : port + 1;
}
static inline uint32_t p4switch_port_of(uint32_t p4port)
{
    return p4port < P4_DROP_PORT ? p4port : p4port - 1;
}

void p4switch_programs_free(struct p4switch_programs *ps);
/* The program `spec` names: "basic" / "tensorexpress" (p4/programs/NAME.p4 in ddlsim's data
 * directory), or a .p4 path relative to the scenario file or the working directory. Loads it
 * on first use; errors are reported at `loc`. Returns NULL after errors. */
const struct p4_prog *p4switch_program(struct p4switch_programs *ps, const char *spec,
                                 const char *scenario_file, struct src_loc loc, struct diag *d);
/* ddlsim's P4 include directory: $DDLSIM_P4_INCLUDE, else p4/include of the installation
 * (sim/install.h), never of the working directory. */
const char *p4switch_include_dir(char *buf, size_t n);

/* Makes the switch run `prog` and applies its P4 configuration (sw->cfg: table entries,
 * default actions, registers, multicast groups, mirroring sessions) with located errors.
 * Returns the number of errors. */
int p4switch_attach(struct sw *sw, const struct p4_prog *prog, struct diag *d);
/* The builder's routes: for each destination host, one entry in the route table (lpm on the
 * destination address) whose action gets the egress port and the next hop MAC; with several
 * equal-cost next hops it picks one per destination by a hash salted with the switch (an lpm
 * entry cannot hash flows). Entries the scenario gave (tables:) for the same prefix take
 * precedence. Returns the number of errors. */
int p4switch_install_routes(struct sw *sw, struct diag *d, struct src_loc loc);
bool switch_is_p4(const struct sw *sw);

/* The switch kind's hooks for P4 (switch_node_ops): the programs loaded for a scenario, shared
 * by its switches, and the setup once routes exist: load the switch's program (unless
 * `program: none`), apply its configuration and install the routes. */
void *p4switch_shared_create(void);
void p4switch_shared_destroy(void *shared);
/* Each loaded program's file ("p4_program") and the include folder ("p4_include"). */
void p4switch_shared_inputs(const void *shared,
                            void (*note)(void *ud, const char *role, const char *path), void *ud);
int p4switch_setup(struct node *n, const struct node_env *env, const struct param_layers *where);
struct p4_pipe *p4switch_pipe(struct sw *sw);
/* True when the switch makes a unicast packet's output as soon as its traffic manager holds
 * the packet (p4_prog_output_early), so no P4 state waits in the queue;
 * p4switch_output_at_egress makes it wait for egress instead, as for any other program
 * (tests: the frames on the wire must be the same either way). */
bool p4switch_output_early(struct sw *sw);
void p4switch_output_at_egress(struct sw *sw);
/* Register memory of a pipeline's program: the sum over its registers of cells x element bytes
 * (width rounded up to bytes); *largest names the biggest register and its bytes. */
uint64_t p4switch_register_bytes(const struct p4_pipe *pipe, const char **largest,
                                 uint64_t *largest_bytes);

#endif
