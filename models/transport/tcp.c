#include "models/transport/tcp.h"

#include <stdlib.h>
#include <string.h>

#include "models/transport/tcp_hdr.h"
#include "sim/util.h"

static const char *const cc_names[] = {"newreno", "dctcp", NULL};

#define FP(field) offsetof(struct tcp_flow_cfg, field)
static const struct param_def tcp_params[] = {
    FLOW_COMMON_PARAMS(struct tcp_flow_cfg),
    {"cc", PARAM_ENUM, FP(cc), "newreno", NULL, NULL, cc_names,
     "congestion control: newreno (RFC 5681/6582), dctcp (RFC 8257; implies ecn)"},
    {"mss", PARAM_SIZE, FP(mss_bytes), "1460B", "64B", "9000B", NULL,
     "maximum segment size, payload bytes (frame = mss + 54)"},
    {"init_cwnd", PARAM_INT, FP(init_cwnd_segs), "10", "1", "100000", NULL,
     "initial congestion window, segments (RFC 6928)"},
    {"rcv_wnd", PARAM_SIZE, FP(rcv_wnd_bytes), "4MB", "64B", "1GB", NULL,
     "receiver window; also the largest congestion window"},
    {"rto_min", PARAM_TIME, FP(rto_min_ps), "200ms", "1us", "60s", NULL,
     "lower bound of the retransmission timeout (RFC 6298 says 1s, Linux 200ms)"},
    {"rto_max", PARAM_TIME, FP(rto_max_ps), "60s", "1us", "1000s", NULL,
     "upper bound of the backed-off retransmission timeout"},
    {"rto_init", PARAM_TIME, FP(rto_init_ps), "1s", "1us", "1000s", NULL,
     "timeout before the first RTT sample (RFC 6298 §2.1)"},
    {"delayed_ack", PARAM_BOOL, FP(delayed_ack), "false", NULL, NULL, NULL,
     "acknowledge every second full segment or after delack_timeout (RFC 5681 §4.2)"},
    {"delack_timeout", PARAM_TIME, FP(delack_timeout_ps), "40ms", "1ns", "500ms", NULL,
     "longest an ACK is delayed"},
    {"dupack_thresh", PARAM_INT, FP(dupack_thresh), "3", "1", "1000", NULL,
     "duplicate ACKs that trigger fast retransmit"},
    {"dctcp_g", PARAM_DOUBLE, FP(dctcp_g), "0.0625", "0.000001", "1", NULL,
     "DCTCP: weight of the newest marked fraction in alpha"},
    {"dctcp_alpha_init", PARAM_DOUBLE, FP(dctcp_alpha_init), "1", "0", "1", NULL,
     "DCTCP: alpha before the first window is observed"},
    {"handshake", PARAM_BOOL, FP(handshake), "false", NULL, NULL, NULL,
     "exchange SYN / SYN-ACK before data (else the connection starts established)"},
    {"limited_transmit", PARAM_BOOL, FP(limited_transmit), "true", NULL, NULL, NULL,
     "send a new segment on each of the first two duplicate ACKs (RFC 3042)"},
    {"nic_queue", PARAM_BOOL, FP(nic_queue), "false", NULL, NULL, NULL,
     "queue every segment the window allows in the sender's NIC (nic_buffer applies) instead "
     "of handing the NIC one segment whenever the wire frees"},
    {"send_buffer", PARAM_SIZE, FP(send_buffer_bytes), "0", "0", "1GB", NULL,
     "socket send buffer: bytes sent and not yet acknowledged (0 = no limit)"},
    {"timestamps", PARAM_BOOL, FP(timestamps), "false", NULL, NULL, NULL,
     "timestamps option (RFC 7323): an RTT sample from every ACK of new data, retransmissions "
     "included; the option takes 12 of a segment's mss bytes"},
    {"sack", PARAM_BOOL, FP(sack), "true", NULL, NULL, NULL,
     "selective acknowledgments (RFC 2018) and SACK-based loss recovery (RFC 6675)"},
    {"cwnd_interval", PARAM_TIME, FP(cwnd_interval_ps), "0", "0", NULL, NULL,
     "sample cwnd, flight and alpha this often into summary.json (0 = off)"},
};
static const size_t tcp_nparams = ARRAY_LEN(tcp_params);

static struct sim *flow_sim(const struct tcp_flow *f)
{
    return f->base.src->node.sim;
}

static bool ecn_on(const struct tcp_flow *f)
{
    return f->cfg.common.ecn || f->cfg.cc == TCP_CC_DCTCP;
}

/* A 32-bit wire offset as the 64-bit offset nearest to `ref`. */
static uint64_t unwrap(uint32_t wire_off, uint64_t ref)
{
    int64_t d = (int32_t)(wire_off - (uint32_t)ref);
    if (d < 0 && (uint64_t)-d > ref)
        return 0;
    return (uint64_t)((int64_t)ref + d);
}

/* Wire sequence number of data offset `off`: the SYN took the ISN. */
static uint32_t wire_seq(uint32_t isn, uint64_t off)
{
    return isn + 1 + (uint32_t)off;
}

/* Lazy timers: the heap entry may sit earlier than the deadline; the handler moves it. */
static void timer_arm(struct sim *sim, struct evq_timer *t, sim_time_t *at, sim_time_t deadline)
{
    if (!evq_timer_pending(t)) {
        evq_schedule(&sim->evq, t, deadline);
        *at = deadline;
    } else if (*at > deadline) {
        evq_reschedule(&sim->evq, t, deadline);
        *at = deadline;
    }
}

/* In a lazy timer's handler: true when its deadline has come; false when it was cancelled
 * (SIM_TIME_NEVER) or moved later, in which case the timer is armed again for it. */
static bool timer_due(struct sim *sim, struct evq_timer *t, sim_time_t *at, sim_time_t deadline)
{
    if (deadline == SIM_TIME_NEVER)
        return false;
    if (sim->now < deadline) {
        timer_arm(sim, t, at, deadline);
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- sender */

/* The timestamps clock: nanoseconds, + 1 so that 0 means "nothing to echo". */
static uint32_t ts_now(const struct tcp_flow *f)
{
    return (uint32_t)(flow_sim(f)->now / 1000 + 1);
}

/* A new packet of the flow in its traffic class: data and control segments alike. */
static struct pkt *flow_pkt(struct tcp_flow *f)
{
    struct sim *sim = flow_sim(f);
    struct pkt *p = pkt_alloc(sim);
    p->flow = f->base.index;
    p->prio = (uint8_t)f->cfg.common.priority;
    p->tc = p->prio;
    p->t_created = sim->now;
    return p;
}

/* What every segment of the connection shares, from the sender or (`from_rcv`) the receiver:
 * addresses, ports, DSCP, the scaled window, not ECT, the timestamps clock. */
static struct tcp_seg seg_base(const struct tcp_flow *f, bool from_rcv)
{
    return (struct tcp_seg){
        .src_ip = from_rcv ? f->base.dst->ip : f->base.src->ip,
        .dst_ip = from_rcv ? f->base.src->ip : f->base.dst->ip,
        .src_port = from_rcv ? f->rcv_port : f->snd_port,
        .dst_port = from_rcv ? f->snd_port : f->rcv_port,
        .window = (uint16_t)MIN(f->cfg.rcv_wnd_bytes >> f->wscale, 0xffff),
        .dscp = (uint8_t)f->cfg.common.dscp,
        .ecn = PKT_ECN_NOT_ECT,
        .ts = f->cfg.timestamps,
        .tsval = ts_now(f),
    };
}

/* The connection's headers without options, both directions (at creation and when the
 * sender's port changes). */
static void build_templates(struct tcp_flow *f)
{
    for (int from_rcv = 0; from_rcv < 2; from_rcv++) {
        struct tcp_seg s = seg_base(f, from_rcv);
        tcp_hdr_tmpl_init(&f->tmpl[from_rcv], &s);
    }
}

static struct pkt *make_segment(struct tcp_flow *f, uint64_t seq, uint32_t len, bool retx)
{
    struct sim *sim = flow_sim(f);
    struct flow_stats *st = &f->base.st;
    struct pkt *p = flow_pkt(f);
    p->seq = (uint32_t)(seq / f->cfg.mss_bytes);
    uint8_t flags = TCP_ACK;
    if (seq + len >= f->total_bytes)
        flags |= TCP_PSH;
    /* RFC 3168 §6.1.2: CWR on the first new data after a reduction; §6.1.5: retransmissions
     * are not ECN-capable. */
    if (f->cwr_pending && !retx) {
        flags |= TCP_CWR;
        f->cwr_pending = false;
    }
    uint8_t ecn = (ecn_on(f) && !retx) ? PKT_ECN_ECT0 : PKT_ECN_NOT_ECT;
    uint32_t payload = len + flow_tag_bytes(&f->base);
    if (!f->cfg.timestamps) {
        tcp_hdr_fill(p, &f->tmpl[0], wire_seq(f->snd_isn, seq), wire_seq(f->rcv_isn, 0), flags,
                     ecn, payload);
    } else {
        struct tcp_seg s = seg_base(f, false);
        s.seq = wire_seq(f->snd_isn, seq);
        s.ack = wire_seq(f->rcv_isn, 0);
        s.flags = flags;
        s.ecn = ecn;
        s.payload_bytes = payload;
        s.tsecr = f->ts_peer;
        tcp_hdr_build(p, &s);
    }
    /* A stream's tag (the DDL shim) follows the TCP header in every segment; it is carried
     * like a header and takes no sequence space. */
    flow_tag_packet(&f->base, seq, len, p);
    if (st->tx_pkts == 0)
        st->first_tx_ps = sim->now;
    st->tx_pkts++;
    st->tx_bytes += len;
    if (retx) {
        st->retx_pkts++;
        f->rtt_timing = false; /* Karn: no sample across a retransmission */
    } else if (!f->rtt_timing && !f->cfg.timestamps) {
        f->rtt_timing = true;
        f->rtt_seq = seq + len;
        f->rtt_sent_ps = sim->now;
    }
    /* RFC 6298 §5.1: start the timer when data goes out and it is not running. */
    if (f->rto_deadline_ps == SIM_TIME_NEVER) {
        f->rto_deadline_ps = sim->now + f->rto_ps;
        timer_arm(sim, &f->rto_timer, &f->rto_timer_at_ps, f->rto_deadline_ps);
    }
    return p;
}

/* Freezes the data to send once `stop` has passed. */
static void check_stop(struct tcp_flow *f)
{
    sim_time_t stop = f->cfg.common.stop_ps;
    if (stop && flow_sim(f)->now > stop && f->total_bytes > f->snd_max)
        f->total_bytes = f->snd_max;
}

/* What the receiver window and the send buffer allow outstanding. */
static uint64_t window_cap(const struct tcp_flow *f)
{
    uint64_t sb = f->cfg.send_buffer_bytes ? f->cfg.send_buffer_bytes : UINT64_MAX;
    return MIN(f->cfg.rcv_wnd_bytes, sb);
}

static uint64_t send_window(const struct tcp_flow *f)
{
    return MIN(f->cwnd_bytes, window_cap(f));
}

/* Data bytes per segment: the MSS less a stream's per-segment tag and the timestamps option
 * (as Linux sends mss - 12 with timestamps). */
static uint64_t seg_max(const struct tcp_flow *f)
{
    uint64_t ts = f->cfg.timestamps ? TCP_TS_OPT_BYTES : 0;
    return f->cfg.mss_bytes - flow_tag_bytes(&f->base) - ts;
}

/* Length of the next segment at snd_nxt if the window allows it, else 0. */
static uint32_t next_len(struct tcp_flow *f)
{
    if (f->state != TCP_STATE_ESTABLISHED)
        return 0;
    check_stop(f);
    if (f->cfg.sack && f->in_recovery)
        return 0; /* SACK recovery sends from the ACK path (sack_send) */
    if (f->cfg.sack && f->snd_nxt < f->snd_max)
        f->snd_nxt = MIN(tcp_sack_skip(&f->sb, f->snd_nxt), f->snd_max); /* held already */
    if (f->snd_nxt >= f->total_bytes)
        return 0;
    uint64_t len = MIN(seg_max(f), f->total_bytes - f->snd_nxt);
    len = flow_segment_limit(&f->base, f->snd_nxt, len);
    if (f->snd_nxt < f->snd_max)
        len = MIN(len, MIN(f->snd_max, tcp_sack_next_block(&f->sb, f->snd_nxt)) - f->snd_nxt);
    uint64_t limit = f->snd_una + send_window(f);
    if (f->lt_bytes && f->snd_nxt >= f->snd_max) /* RFC 3042: new data only */
        limit = f->snd_una + MIN(f->cwnd_bytes + f->lt_bytes, window_cap(f));
    if (f->snd_nxt + len > limit)
        return 0;
    return (uint32_t)len;
}

static struct pkt *source_next(struct nic_source *s, struct host *h)
{
    (void)h;
    struct tcp_flow *f = container_of(s, struct tcp_flow, source);
    uint32_t len = next_len(f);
    if (len == 0)
        return NULL;
    uint64_t seq = f->snd_nxt;
    if (f->lt_bytes && seq + len > f->snd_una + send_window(f))
        f->lt_sent_bytes += len;
    struct pkt *p = make_segment(f, seq, len, seq < f->snd_max);
    f->snd_nxt += len;
    if (f->snd_nxt > f->snd_max)
        f->snd_max = f->snd_nxt;
    return p;
}

static void maybe_activate(struct tcp_flow *f)
{
    if (f->cfg.nic_queue) { /* everything the window allows, into the NIC queue */
        struct pkt *p;
        while ((p = source_next(&f->source, f->base.src)) != NULL)
            host_send(f->base.src, p);
        return;
    }
    if (!f->source.active && next_len(f) > 0)
        host_activate(f->base.src, &f->source);
}

/* Retransmits the segment at snd_una ahead of new data (NIC queue). */
static void retransmit_head(struct tcp_flow *f)
{
    uint64_t len = MIN(seg_max(f), f->snd_max - f->snd_una);
    len = flow_segment_limit(&f->base, f->snd_una, len);
    if (len == 0)
        return;
    host_send(f->base.src, make_segment(f, f->snd_una, (uint32_t)len, true));
}

static uint64_t min_cwnd(const struct tcp_flow *f)
{
    return 2 * f->cfg.mss_bytes;
}

/* RFC 6298 §2.2–2.4, in integer picoseconds. */
static void rtt_sample(struct tcp_flow *f, sim_time_t r)
{
    f->rtt_samples++;
    if (f->srtt_ps == 0) {
        f->srtt_ps = r > 0 ? r : 1;
        f->rttvar_ps = r / 2;
    } else {
        sim_time_t err = f->srtt_ps > r ? f->srtt_ps - r : r - f->srtt_ps;
        f->rttvar_ps = (3 * f->rttvar_ps + err) / 4;
        f->srtt_ps = (7 * f->srtt_ps + r) / 8;
    }
    sim_time_t rto = f->srtt_ps + 4 * f->rttvar_ps;
    f->rto_ps = MIN(MAX(rto, f->cfg.rto_min_ps), f->cfg.rto_max_ps);
}

/* RFC 6582 §3.2 step 2: enter fast retransmit / fast recovery. */
static void enter_recovery(struct tcp_flow *f)
{
    /* RFC 5681 §3.2 note: segments sent by limited transmit do not count in FlightSize here */
    uint64_t flight = f->snd_max - f->snd_una;
    flight -= MIN(flight, f->lt_sent_bytes);
    f->lt_bytes = 0;
    f->lt_sent_bytes = 0;
    f->ssthresh_bytes = MAX(flight / 2, min_cwnd(f));
    f->recover = f->snd_max;
    f->in_recovery = true;
    f->fast_retx++;
    retransmit_head(f);
    f->cwnd_bytes = f->ssthresh_bytes + 3 * f->cfg.mss_bytes;
    f->ca_acked_bytes = 0;
    /* The loss response covers this window: ECE for it needs no second cut. */
    f->ecn_cut_end = f->snd_max;
    f->cwr_pending = ecn_on(f);
}

static void ecn_react(struct tcp_flow *f);

/* RFC 6675 §4 IsLost: more than (DupThresh − 1) × SMSS bytes SACKed above a hole. */
static uint64_t sack_thresh(const struct tcp_flow *f)
{
    return (uint64_t)(f->cfg.dupack_thresh - 1) * f->cfg.mss_bytes;
}

/* RFC 6675 §5 (C): while cwnd − pipe ≥ 1 SMSS, send NextSeg(): the next lost segment (rule 1),
 * else new data the receiver window allows (rule 2). Both are queued on the NIC. */
static void sack_send(struct tcp_flow *f)
{
    uint64_t mss = f->cfg.mss_bytes;
    for (;;) {
        uint64_t pipe = tcp_sack_pipe(&f->sb, f->snd_una, f->snd_max, sack_thresh(f));
        if (pipe + mss > f->cwnd_bytes)
            return;
        uint64_t seq;
        uint64_t len;
        if (tcp_sack_next_lost(&f->sb, f->snd_una, sack_thresh(f), seg_max(f), &seq, &len)) {
            len = flow_segment_limit(&f->base, seq, len);
            if (len == 0)
                return;
            f->sb.high_rxt = seq + len;
            f->sb.rtx_fence = f->snd_max;
            f->sack_retx++;
            host_send(f->base.src, make_segment(f, seq, (uint32_t)len, true));
            continue;
        }
        check_stop(f);
        if (f->snd_max >= f->total_bytes)
            return;
        len = MIN(seg_max(f), f->total_bytes - f->snd_max);
        len = flow_segment_limit(&f->base, f->snd_max, len);
        if (len == 0 || f->snd_max + len > f->snd_una + window_cap(f))
            return;
        host_send(f->base.src, make_segment(f, f->snd_max, (uint32_t)len, false));
        f->snd_max += len;
        f->snd_nxt = f->snd_max;
    }
}

/* RFC 6675 §5 steps (4.1)–(4.4): ssthresh and cwnd to half the flight, the first unSACKed
 * segment at once, then whatever pipe allows. */
static void sack_enter_recovery(struct tcp_flow *f)
{
    uint64_t flight = f->snd_max - f->snd_una;
    flight -= MIN(flight, f->lt_sent_bytes); /* RFC 5681 §3.2 note, as without SACK */
    f->lt_bytes = 0;
    f->lt_sent_bytes = 0;
    f->ssthresh_bytes = MAX(flight / 2, min_cwnd(f));
    f->cwnd_bytes = f->ssthresh_bytes;
    f->ca_acked_bytes = 0;
    f->recover = f->snd_max;
    f->in_recovery = true;
    f->fast_retx++;
    f->ecn_cut_end = f->snd_max;
    f->cwr_pending = ecn_on(f);
    f->snd_nxt = f->snd_max;
    uint64_t len = MIN(seg_max(f), MIN(f->snd_max, tcp_sack_next_block(&f->sb, f->snd_una)) -
                                       f->snd_una);
    len = flow_segment_limit(&f->base, f->snd_una, len);
    f->sb.high_rxt = f->snd_una + len;
    f->sb.rtx_fence = f->snd_max;
    if (len > 0)
        host_send(f->base.src, make_segment(f, f->snd_una, (uint32_t)len, true));
    sack_send(f);
}

/* A duplicate ACK with SACK: recovery starts after DupThresh of them or as soon as the
 * scoreboard shows the first unacknowledged segment lost (RFC 6675 §5); in recovery each one
 * lets pipe decide what to send. */
static void sack_on_dupack(struct tcp_flow *f, bool ece)
{
    if (f->in_recovery) {
        sack_send(f);
        return;
    }
    f->dupacks++;
    bool lost = tcp_sack_lost_end(&f->sb, f->snd_una, sack_thresh(f)) > f->snd_una;
    if ((f->dupacks >= (uint32_t)f->cfg.dupack_thresh || lost) && f->snd_una >= f->recover) {
        sack_enter_recovery(f);
        return;
    }
    if (ece && ecn_on(f))
        ecn_react(f);
    if (f->cfg.limited_transmit && f->dupacks <= 2) {
        f->lt_bytes = f->dupacks * f->cfg.mss_bytes;
        maybe_activate(f);
    }
}

/* Once per window of data (DCTCP paper §3.1; RFC 8257 §3.3). */
static void dctcp_update_alpha(struct tcp_flow *f)
{
    if (f->snd_una < f->win_end || f->win_acked_bytes == 0)
        return;
    double frac = (double)f->win_marked_bytes / (double)f->win_acked_bytes;
    double g = f->cfg.dctcp_g;
    f->alpha = (1.0 - g) * f->alpha + g * frac;
    f->win_acked_bytes = 0;
    f->win_marked_bytes = 0;
    f->win_end = f->snd_max;
}

/* ECE: reduce at most once per window of data (RFC 3168 §6.1.2; DCTCP: W ← W(1 − α/2)). */
static void ecn_react(struct tcp_flow *f)
{
    if (f->in_recovery || f->snd_una < f->ecn_cut_end)
        return;
    uint64_t w = f->cwnd_bytes;
    if (f->cfg.cc == TCP_CC_DCTCP)
        w = (uint64_t)((double)w * (1.0 - f->alpha / 2.0));
    else
        w = w / 2;
    f->cwnd_bytes = MAX(w, min_cwnd(f));
    f->ssthresh_bytes = f->cwnd_bytes;
    f->ca_acked_bytes = 0;
    f->ecn_cut_end = f->snd_max;
    f->cwr_pending = true;
    f->ecn_cuts++;
}

static void grow_cwnd(struct tcp_flow *f, uint64_t acked)
{
    uint64_t mss = f->cfg.mss_bytes;
    if (f->cwnd_bytes < f->ssthresh_bytes) {
        /* slow start with appropriate byte counting, L = 2 (RFC 3465 §2.2) */
        f->cwnd_bytes += MIN(acked, 2 * mss);
    } else {
        /* congestion avoidance: one MSS per window of acknowledged bytes (RFC 3465 §2.1) */
        f->ca_acked_bytes += acked;
        if (f->ca_acked_bytes >= f->cwnd_bytes) {
            f->ca_acked_bytes -= f->cwnd_bytes;
            f->cwnd_bytes += mss;
        }
    }
    f->cwnd_bytes = MIN(f->cwnd_bytes, f->cfg.rcv_wnd_bytes);
}

static void on_new_ack(struct tcp_flow *f, uint64_t ack, bool ece)
{
    struct sim *sim = flow_sim(f);
    uint64_t acked = ack - f->snd_una;
    if (f->rtt_timing && ack >= f->rtt_seq) {
        f->rtt_timing = false;
        rtt_sample(f, sim->now - f->rtt_sent_ps);
    } else if (f->ts_rtt_ps >= 0) { /* RFC 7323 §4: every ACK of new data is a sample */
        rtt_sample(f, f->ts_rtt_ps);
    }
    f->win_acked_bytes += acked;
    if (ece)
        f->win_marked_bytes += acked;
    f->snd_una = ack;
    flow_report_acked(&f->base, ack);
    f->lt_bytes = 0;
    f->lt_sent_bytes = 0;
    if (f->snd_nxt < ack)
        f->snd_nxt = ack; /* after a timeout the receiver may hold data beyond snd_nxt */
    /* α first, so a cut on this ACK uses the estimate that includes it */
    if (f->cfg.cc == TCP_CC_DCTCP)
        dctcp_update_alpha(f);

    if (f->in_recovery && f->cfg.sack) {
        if (ack >= f->recover) { /* RFC 6675 §5: recovery ends; cwnd stays at ssthresh */
            f->cwnd_bytes = f->ssthresh_bytes;
            f->in_recovery = false;
            f->dupacks = 0;
        } else {
            sack_send(f);
        }
    } else if (f->in_recovery) {
        if (ack >= f->recover) {
            /* full ACK: RFC 6582 §3.2 step 5, option (1) */
            uint64_t flight = f->snd_max - f->snd_una;
            f->cwnd_bytes =
                MIN(f->ssthresh_bytes, MAX(flight, f->cfg.mss_bytes) + f->cfg.mss_bytes);
            f->in_recovery = false;
            f->dupacks = 0;
        } else {
            /* partial ACK: retransmit the next hole, deflate by the bytes acknowledged and
             * add back one MSS if at least one MSS was acknowledged (§3.2 step 5) */
            retransmit_head(f);
            uint64_t deflate = MIN(acked, f->cwnd_bytes);
            f->cwnd_bytes -= deflate;
            if (acked >= f->cfg.mss_bytes)
                f->cwnd_bytes += f->cfg.mss_bytes;
            f->cwnd_bytes = MAX(f->cwnd_bytes, f->cfg.mss_bytes);
        }
    } else {
        f->dupacks = 0;
        /* The ACK that causes a cut does not also grow the window (as Linux entering CWR). */
        uint64_t cuts = f->ecn_cuts;
        if (ece && ecn_on(f))
            ecn_react(f);
        if (f->ecn_cuts == cuts)
            grow_cwnd(f, acked);
    }

    /* RFC 6298 §5.2/5.3: stop the timer when all is acknowledged, else restart it. */
    if (f->snd_una >= f->snd_max) {
        /* cancel rather than leave a stale entry: the run ends when the last event does */
        f->rto_deadline_ps = SIM_TIME_NEVER;
        evq_cancel(&sim->evq, &f->rto_timer);
    } else {
        f->rto_deadline_ps = sim->now + f->rto_ps;
    }
    maybe_activate(f);
}

static void on_dupack(struct tcp_flow *f, bool ece)
{
    f->dupacks_rx++;
    if (f->cfg.sack) {
        sack_on_dupack(f, ece);
        return;
    }
    if (f->in_recovery) {
        f->cwnd_bytes += f->cfg.mss_bytes; /* RFC 6582 §3.2 step 4: inflate */
        f->cwnd_bytes = MIN(f->cwnd_bytes, f->cfg.rcv_wnd_bytes + 3 * f->cfg.mss_bytes);
        maybe_activate(f);
        return;
    }
    f->dupacks++;
    /* RFC 6582 §3.2 step 2 / §4.1: only when the ACK covers more than `recover` */
    if (f->dupacks == (uint32_t)f->cfg.dupack_thresh && f->snd_una >= f->recover) {
        enter_recovery(f);
        maybe_activate(f);
        return;
    }
    if (ece && ecn_on(f))
        ecn_react(f);
    if (f->cfg.limited_transmit && f->dupacks < (uint32_t)f->cfg.dupack_thresh && f->dupacks <= 2) {
        f->lt_bytes = f->dupacks * f->cfg.mss_bytes;
        maybe_activate(f);
    }
}

/* Handshake segments: SYN (sender) and SYN-ACK (receiver), no payload, not ECT. With ECN the
 * SYN carries ECE + CWR and the SYN-ACK ECE (RFC 3168 §6.1.1, ECN setup). */
static void send_syn(struct tcp_flow *f, bool synack)
{
    struct pkt *p = flow_pkt(f);
    struct tcp_seg s = seg_base(f, synack);
    s.seq = synack ? f->rcv_isn : f->snd_isn;
    s.ack = synack ? wire_seq(f->snd_isn, 0) : 0;
    s.flags = (uint8_t)(TCP_SYN | (synack ? TCP_ACK : 0));
    s.window = (uint16_t)MIN(f->cfg.rcv_wnd_bytes, 0xffff); /* unscaled in a SYN */
    s.sack_perm = f->cfg.sack;
    s.tsecr = synack ? f->ts_recent : 0;
    if (ecn_on(f))
        s.flags |= (uint8_t)(synack ? TCP_ECE : TCP_ECE | TCP_CWR);
    tcp_hdr_build(p, &s);
    host_send(synack ? f->base.dst : f->base.src, p);
}

/* The third segment of the handshake as a pure ACK, for when no data is ready to carry it. */
static void send_handshake_ack(struct tcp_flow *f)
{
    struct pkt *p = flow_pkt(f);
    struct tcp_seg s = seg_base(f, false);
    s.seq = wire_seq(f->snd_isn, 0);
    s.ack = wire_seq(f->rcv_isn, 0);
    s.flags = TCP_ACK;
    s.tsecr = f->ts_peer;
    tcp_hdr_build(p, &s);
    host_send(f->base.src, p);
}

static void send_syn_timed(struct tcp_flow *f)
{
    struct sim *sim = flow_sim(f);
    send_syn(f, false);
    f->syn_sent_ps = sim->now;
    f->rto_deadline_ps = sim->now + f->rto_ps;
    timer_arm(sim, &f->rto_timer, &f->rto_timer_at_ps, f->rto_deadline_ps);
}

/* SYN-ACK for our SYN: established. */
static void on_synack(struct tcp_flow *f)
{
    struct sim *sim = flow_sim(f);
    f->state = TCP_STATE_ESTABLISHED;
    if (f->syn_retx)
        f->cwnd_bytes = f->cfg.mss_bytes; /* RFC 6928 §2: IW = 1 MSS after a lost SYN */
    else
        rtt_sample(f, sim->now - f->syn_sent_ps);
    f->rto_deadline_ps = SIM_TIME_NEVER;
    evq_cancel(&sim->evq, &f->rto_timer);
    /* the first data segment acknowledges the SYN-ACK; with none ready, a pure ACK does */
    if (next_len(f) == 0)
        send_handshake_ack(f);
    maybe_activate(f);
}

/* The scoreboard takes the ACK's cumulative point and SACK blocks before the ACK is acted on
 * (RFC 6675 §5). */
static void sack_update(struct tcp_flow *f, const struct tcp_seg *s, uint64_t ack)
{
    tcp_sack_sb_advance(&f->sb, ack);
    uint32_t base = wire_seq(f->snd_isn, 0);
    for (uint8_t i = 0; i < s->nsack; i++) {
        uint64_t l = unwrap(s->sack[i][0] - base, ack);
        uint64_t r = unwrap(s->sack[i][1] - base, ack);
        if (r > l)
            tcp_sack_sb_add(&f->sb, ack, f->snd_max, l, r);
    }
    if (f->in_recovery && tcp_sack_lost_retx(&f->sb, ack, sack_thresh(f)))
        f->sack_lost_retx++;
}

static void sender_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    struct tcp_flow *f = container_of(ep, struct tcp_flow, snd_ep);
    struct tcp_seg s;
    bool ok = tcp_hdr_parse_seg(p, &s);
    pkt_free(h->node.sim, p);
    if (!ok || !(s.flags & TCP_ACK))
        return;
    if (s.flags & TCP_SYN) {
        if (f->state == TCP_STATE_SYN_SENT && s.ack == wire_seq(f->snd_isn, 0))
            on_synack(f);
        return; /* a duplicate SYN-ACK (our SYN was retransmitted) */
    }
    if (f->state != TCP_STATE_ESTABLISHED)
        return;
    bool ece = (s.flags & TCP_ECE) != 0;
    if (ece)
        f->ece_acks++;
    uint64_t ack = unwrap(s.ack - wire_seq(f->snd_isn, 0), f->snd_una);
    if (ack > f->snd_max || ack < f->snd_una)
        return; /* acknowledges nothing we sent, or old */
    f->ts_rtt_ps = -1;
    if (f->cfg.timestamps && s.ts) {
        f->ts_peer = s.tsval;
        if (s.tsecr != 0)
            f->ts_rtt_ps = (sim_time_t)(uint32_t)(ts_now(f) - s.tsecr) * 1000;
    }
    if (f->cfg.sack)
        sack_update(f, &s, ack);
    if (ack > f->snd_una)
        on_new_ack(f, ack, ece);
    else if (f->snd_max > f->snd_una && s.payload_bytes == 0)
        on_dupack(f, ece);
}

static void rto_fire(struct sim *sim, struct evq_timer *t)
{
    struct tcp_flow *f = container_of(t, struct tcp_flow, rto_timer);
    if (!timer_due(sim, t, &f->rto_timer_at_ps, f->rto_deadline_ps))
        return;
    if (f->state == TCP_STATE_SYN_SENT) {
        /* RFC 6298 §5.5: back off and send the SYN again */
        f->base.st.timeouts++;
        f->syn_retx = true;
        f->rto_ps = MIN(2 * f->rto_ps, f->cfg.rto_max_ps);
        send_syn_timed(f);
        return;
    }
    /* RFC 6298 §5.4–5.6 and RFC 5681 §3.1 eq. 4: back off, collapse to one segment, go back
     * to snd_una. RFC 6582 §4: recover = highest sent, so stale dupACKs don't re-enter FR. */
    f->base.st.timeouts++;
    f->ssthresh_bytes = MAX((f->snd_max - f->snd_una) / 2, min_cwnd(f));
    f->cwnd_bytes = f->cfg.mss_bytes;
    f->ca_acked_bytes = 0;
    f->recover = f->snd_max;
    f->in_recovery = false;
    f->dupacks = 0;
    f->lt_bytes = 0;
    f->lt_sent_bytes = 0;
    f->snd_nxt = f->snd_una; /* with SACK the resend skips what the receiver holds */
    f->sb.high_rxt = f->snd_una;
    f->rtt_timing = false;
    f->rto_ps = MIN(2 * f->rto_ps, f->cfg.rto_max_ps);
    f->ecn_cut_end = f->snd_max;
    f->cwr_pending = ecn_on(f);
    f->rto_deadline_ps = sim->now + f->rto_ps;
    timer_arm(sim, t, &f->rto_timer_at_ps, f->rto_deadline_ps);
    maybe_activate(f);
}

static void sample_fire(struct sim *sim, struct evq_timer *t)
{
    struct tcp_flow *f = container_of(t, struct tcp_flow, base.sample);
    flow_sample(&f->base, &(struct tcp_sample){
                              .t_ps = sim->now,
                              .cwnd_bytes = f->cwnd_bytes,
                              .flight_bytes = f->snd_max - f->snd_una,
                              .alpha = f->alpha,
                          });
    check_stop(f);
    if (f->snd_una < f->total_bytes)
        evq_schedule(&sim->evq, t, sim->now + f->cfg.cwnd_interval_ps);
}

/* summary.json's cwnd_samples columns: t_s, cwnd_bytes, flight_bytes, alpha. */
static json_t *sample_json(const void *rec, unsigned col)
{
    const struct tcp_sample *x = rec;
    switch (col) {
    case 0:
        return json_real(simtime_sec(x->t_ps));
    case 1:
        return json_integer((json_int_t)x->cwnd_bytes);
    case 2:
        return json_integer((json_int_t)x->flight_bytes);
    default:
        return json_real(x->alpha);
    }
}

static void start_fire(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    struct tcp_flow *f = container_of(t, struct tcp_flow, start);
    if (f->cfg.handshake) {
        f->state = TCP_STATE_SYN_SENT;
        send_syn_timed(f);
        return;
    }
    f->state = TCP_STATE_ESTABLISHED;
    maybe_activate(f);
}

/* -------------------------------------------------------------- receiver */

static void send_ack(struct tcp_flow *f, bool ece)
{
    struct sim *sim = flow_sim(f);
    struct pkt *p = flow_pkt(f);
    p->seq = (uint32_t)f->acks_sent;
    uint8_t flags = (uint8_t)(TCP_ACK | (ece ? TCP_ECE : 0));
    f->last_ack_sent = f->rcv_nxt;
    bool sack = f->cfg.sack && f->rx.n > 0;
    if (!sack && !f->cfg.timestamps) { /* RFC 3168 §6.1.4: pure ACKs are not ECT */
        tcp_hdr_fill(p, &f->tmpl[1], wire_seq(f->rcv_isn, 0), wire_seq(f->snd_isn, f->rcv_nxt),
                     flags, PKT_ECN_NOT_ECT, 0);
    } else {
        struct tcp_seg s = seg_base(f, true);
        s.seq = wire_seq(f->rcv_isn, 0);
        s.ack = wire_seq(f->snd_isn, f->rcv_nxt);
        s.flags = flags;
        s.tsecr = f->ts_recent;
        if (sack) {
            uint64_t b[TCP_SACK_MAX_BLOCKS][2];
            s.nsack = tcp_sack_rcv_blocks(&f->sack_rcv, &f->rx, b);
            for (uint8_t i = 0; i < s.nsack; i++) {
                s.sack[i][0] = wire_seq(f->snd_isn, b[i][0]);
                s.sack[i][1] = wire_seq(f->snd_isn, b[i][1]);
            }
        }
        tcp_hdr_build(p, &s);
    }
    f->acks_sent++;
    f->unacked_segs = 0;
    if (f->delack_deadline_ps != SIM_TIME_NEVER) {
        f->delack_deadline_ps = SIM_TIME_NEVER;
        evq_cancel(&sim->evq, &f->delack_timer);
    }
    host_send(f->base.dst, p);
}

/* The ECE bit the receiver puts on its next ACK. */
static bool ece_to_echo(const struct tcp_flow *f)
{
    if (!ecn_on(f))
        return false;
    return f->cfg.cc == TCP_CC_DCTCP ? f->ce_state : f->ece_latched;
}

static void receiver_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    struct tcp_flow *f = container_of(ep, struct tcp_flow, rcv_ep);
    struct sim *sim = h->node.sim;
    struct flow_stats *st = &f->base.st;
    struct tcp_seg s;
    bool ok = tcp_hdr_parse_seg(p, &s);
    if (ok && s.payload_bytes > 0 && !(s.flags & TCP_SYN)) {
        s.payload_bytes -= flow_tag_bytes(&f->base); /* the tag takes no sequence space */
        flow_note_rx(&f->base, p, sim->now);
        uint64_t pseq = unwrap(s.seq - wire_seq(f->snd_isn, 0), f->rcv_nxt);
        if (pseq + s.payload_bytes > f->rcv_nxt) /* new data: the tag is seen once */
            flow_rx_packet(&f->base, p, s.hdr_bytes);
    }
    pkt_free(sim, p);
    if (!ok)
        return;
    if (f->cfg.timestamps && s.ts) { /* RFC 7323 §4.3: echo the segment that last advanced */
        uint64_t sseq = unwrap(s.seq - wire_seq(f->snd_isn, 0), f->rcv_nxt);
        bool syn = (s.flags & TCP_SYN) != 0;
        if (syn || (sseq <= f->last_ack_sent && (int32_t)(s.tsval - f->ts_recent) >= 0))
            f->ts_recent = s.tsval;
    }
    if (s.flags & TCP_SYN) {
        /* answer every SYN: a repeated one means our SYN-ACK was lost */
        f->syns_rx++;
        send_syn(f, true);
        return;
    }
    bool ce = s.ecn == PKT_ECN_CE;

    if (ecn_on(f) && f->cfg.cc == TCP_CC_DCTCP && ce != f->ce_state) {
        /* DCTCP §3.1 receiver state machine: on a CE change, immediately acknowledge the
         * segments received so far with the old CE state, so the sender sees the exact
         * run-length of marks even with delayed ACKs. */
        if (f->cfg.delayed_ack && f->unacked_segs > 0)
            send_ack(f, f->ce_state);
        f->ce_state = ce;
    } else if (ecn_on(f) && f->cfg.cc != TCP_CC_DCTCP) {
        /* RFC 3168 §6.1.3: echo ECE from a CE until a CWR arrives */
        if (s.flags & TCP_CWR)
            f->ece_latched = false;
        if (ce)
            f->ece_latched = true;
    }

    uint64_t seq = unwrap(s.seq - wire_seq(f->snd_isn, 0), f->rcv_nxt);
    uint64_t end = seq + s.payload_bytes;
    bool ack_now = !f->cfg.delayed_ack;
    if (s.payload_bytes == 0)
        return;
    if (end <= f->rcv_nxt) {
        ack_now = true; /* duplicate: acknowledge at once (RFC 5681 §4.2) */
    } else if (seq > f->rcv_nxt) {
        f->ooo_segs++;
        ranges_add(&f->rx, seq, end);
        f->ooo_max_ranges = MAX(f->ooo_max_ranges, (uint32_t)f->rx.n);
        if (f->cfg.sack)
            tcp_sack_rcv_note(&f->sack_rcv, &f->rx, seq);
        ack_now = true; /* out of order: immediate duplicate ACK (RFC 5681 §4.2) */
    } else {
        bool had_hole = f->rx.n > 0;
        uint64_t before = f->rcv_nxt;
        ranges_add(&f->rx, seq, end);
        f->rcv_nxt = f->rx.prefix;
        uint64_t want = f->cfg.common.bytes;
        st->rx_bytes += f->rcv_nxt - before; /* each byte once: rcv_nxt only moves forward */
        if (f->rcv_nxt > before)
            flow_report_delivered(&f->base, st->rx_bytes);
        if (want && st->rx_bytes >= want && st->complete_ps < 0) {
            flow_complete(&f->base, sim->now);
            ack_now = true; /* the last byte: acknowledge without delay, as a FIN would */
        }
        if (had_hole)
            ack_now = true; /* filling a hole: immediate ACK (RFC 5681 §4.2) */
        f->unacked_segs++;
        if (f->unacked_segs >= 2)
            ack_now = true;
    }
    if (ack_now) {
        send_ack(f, ece_to_echo(f));
    } else if (f->delack_deadline_ps == SIM_TIME_NEVER) {
        f->delack_deadline_ps = sim->now + f->cfg.delack_timeout_ps;
        timer_arm(sim, &f->delack_timer, &f->delack_timer_at_ps, f->delack_deadline_ps);
    }
}

static void delack_fire(struct sim *sim, struct evq_timer *t)
{
    struct tcp_flow *f = container_of(t, struct tcp_flow, delack_timer);
    if (!timer_due(sim, t, &f->delack_timer_at_ps, f->delack_deadline_ps))
        return;
    if (f->unacked_segs > 0)
        send_ack(f, ece_to_echo(f));
    f->delack_deadline_ps = SIM_TIME_NEVER;
}

/* ------------------------------------------------------------- lifecycle */

static int tcp_check(void *cfgp, const struct cfg_node *m, struct diag *d, const char *name,
                     sim_time_t scenario_stop_ps)
{
    const struct tcp_flow_cfg *c = cfgp;
    int errors = 0;
    if (c->common.bytes == 0 && c->common.stop_ps == 0 && scenario_stop_ps == 0) {
        diag_error(d, m->loc, "flow '%s' never ends: give 'bytes' or 'stop', or a scenario 'stop'",
                   name);
        errors++;
    }
    if (c->rcv_wnd_bytes < c->mss_bytes) {
        diag_error(d, m->loc, "flow '%s': rcv_wnd must be at least one mss", name);
        errors++;
    }
    if (c->rto_min_ps > c->rto_max_ps) {
        diag_error(d, m->loc, "flow '%s': rto_min is above rto_max", name);
        errors++;
    }
    return errors;
}

static uint32_t isn_of(uint32_t index, uint32_t salt)
{
    uint64_t h = hash_fnv1a(&index, sizeof(index), HASH_FNV_INIT);
    h = hash_fnv1a(&salt, sizeof(salt), h);
    return (uint32_t)(h ^ (h >> 32));
}

static struct flow *tcp_create(struct sim *sim, uint32_t index, const char *name, const void *cfgp,
                               struct host *src, struct host *dst)
{
    const struct tcp_flow_cfg *cfg = cfgp;
    struct tcp_flow *f = xcalloc(1, sizeof(*f));
    flow_base_init(&f->base, &tcp_flow_ops, index, name, &cfg->common, src, dst);
    f->cfg = *cfg;
    f->source.next_pkt = source_next;
    f->snd_ep.recv = sender_recv;
    f->rcv_ep.recv = receiver_recv;
    f->snd_port = host_bind(src, &f->snd_ep);
    f->rcv_port = host_bind(dst, &f->rcv_ep);
    /* Deterministic initial sequence numbers, distinct per flow and direction. */
    f->snd_isn = isn_of(index, 1);
    f->rcv_isn = isn_of(index, 2);
    while (f->wscale < 14 && (cfg->rcv_wnd_bytes >> f->wscale) > 0xffff)
        f->wscale++;
    build_templates(f);
    f->total_bytes = cfg->common.bytes ? cfg->common.bytes : UINT64_MAX;
    f->cwnd_bytes = MIN((uint64_t)cfg->init_cwnd_segs * cfg->mss_bytes, cfg->rcv_wnd_bytes);
    f->ssthresh_bytes = UINT64_MAX;
    f->rto_ps = cfg->rto_init_ps;
    f->rto_deadline_ps = SIM_TIME_NEVER;
    f->ts_rtt_ps = -1;
    f->delack_deadline_ps = SIM_TIME_NEVER;
    f->alpha = cfg->dctcp_alpha_init;
    evq_timer_init(&f->rto_timer, rto_fire, EVQ_PHASE_DEFAULT);
    evq_timer_init(&f->delack_timer, delack_fire, EVQ_PHASE_DEFAULT);
    flow_samples_init(&f->base, sim, sizeof(struct tcp_sample), sample_json);
    flow_start_timers(&f->base, sim, &f->start, start_fire, sample_fire, cfg->cwnd_interval_ps);
    return &f->base;
}

/* Stream mode: send what was pushed. */
static void tcp_push(struct flow *fb)
{
    struct tcp_flow *f = container_of(fb, struct tcp_flow, base);
    f->total_bytes = fb->pushed;
    maybe_activate(f);
}

/* The sender endpoint receives the ACKs, so it moves to the new port: unbound from the old
 * one and bound to the new one, so the host's endpoint table finds it by the new port. */
static void tcp_set_sport(struct flow *fb, uint16_t port)
{
    struct tcp_flow *f = container_of(fb, struct tcp_flow, base);
    host_unbind(fb->src, &f->snd_ep);
    bool bound = host_bind_port(fb->src, &f->snd_ep, port);
    SIM_ASSERT(bound); /* callers hand out ports no other endpoint of the host holds */
    f->snd_port = port;
    build_templates(f);
}

static void tcp_destroy(struct sim *sim, struct flow *fb)
{
    struct tcp_flow *f = container_of(fb, struct tcp_flow, base);
    host_unbind(fb->src, &f->snd_ep);
    host_unbind(fb->dst, &f->rcv_ep);
    evq_cancel(&sim->evq, &f->rto_timer);
    evq_cancel(&sim->evq, &f->delack_timer);
    ranges_fini(&f->rx);
    flow_free(sim, fb);
}

static void tcp_stats_json(const struct flow *fb, json_t *o)
{
    const struct tcp_flow *f = container_of(fb, struct tcp_flow, base);
    json_object_set_new(o, "cc", json_string(cc_names[f->cfg.cc]));
    json_object_set_new(o, "cwnd_bytes", json_integer((json_int_t)f->cwnd_bytes));
    json_object_set_new(o, "fast_retransmits", json_integer((json_int_t)f->fast_retx));
    json_object_set_new(o, "dctcp_alpha", json_real(f->alpha));
    json_object_set_new(o, "ece_acks", json_integer((json_int_t)f->ece_acks));
    json_object_set_new(o, "ecn_cuts", json_integer((json_int_t)f->ecn_cuts));
    json_object_set_new(o, "srtt_us", json_real((double)f->srtt_ps / 1e6));
    json_object_set_new(o, "rtt_samples", json_integer((json_int_t)f->rtt_samples));
    json_object_set_new(o, "rto_us", json_real((double)f->rto_ps / 1e6));
    json_object_set_new(o, "acks_sent", json_integer((json_int_t)f->acks_sent));
    json_object_set_new(o, "syns_rx", json_integer((json_int_t)f->syns_rx));
    json_object_set_new(o, "dupacks_rx", json_integer((json_int_t)f->dupacks_rx));
    json_object_set_new(o, "ooo_segments", json_integer((json_int_t)f->ooo_segs));
    json_object_set_new(o, "ooo_max_ranges", json_integer((json_int_t)f->ooo_max_ranges));
    if (f->cfg.sack) {
        json_object_set_new(o, "sack_retransmits", json_integer((json_int_t)f->sack_retx));
        json_object_set_new(o, "sack_lost_retransmits",
                            json_integer((json_int_t)f->sack_lost_retx));
    }
    if (f->cfg.cwnd_interval_ps) {
        static const char *const cols[] = {"t_s", "cwnd_bytes", "flight_bytes", "alpha"};
        json_t *smp = json_object();
        json_object_set_new(smp, "interval_s", json_real(simtime_sec(f->cfg.cwnd_interval_ps)));
        for (unsigned c = 0; c < ARRAY_LEN(cols); c++)
            json_object_set_new(smp, cols[c], spool_json_ref(&f->base.samples, c));
        json_object_set_new(o, "cwnd_samples", smp);
    }
}

const struct flow_ops tcp_flow_ops = {
    .type = "tcp",
    .summary = "TCP NewReno (RFC 5681/6298) with SACK recovery (RFC 2018/6675) or RFC 6582, ECN, "
               "delayed ACKs and DCTCP as an option",
    .params = tcp_params,
    .nparams = &tcp_nparams,
    .cfg_size = sizeof(struct tcp_flow_cfg),
    .check = tcp_check,
    .create = tcp_create,
    .destroy = tcp_destroy,
    .stats_json = tcp_stats_json,
    .reliable = true,
    .push = tcp_push,
    .set_sport = tcp_set_sport,
};
