/* TCP selective acknowledgments: the receiver's SACK blocks (RFC 2018) and the sender's
 * scoreboard with the loss-recovery rules of RFC 6675 (IsLost, pipe, NextSeg), in the model's
 * 64-bit byte offsets.
 *
 * Receiver: the blocks are the out-of-order ranges it holds (struct ranges); the first block is
 * the one holding the most recent segment, the others follow in the order they were last
 * reported (RFC 2018 §4), then the lowest other ranges, at most TCP_SACK_MAX_BLOCKS.
 *
 * Sender: a sorted list of SACKed ranges above snd_una. IsLost(seq) holds when more than
 * (DupThresh − 1) × MSS bytes above seq are SACKed (RFC 6675 §4, the byte form), so the lost
 * bytes are the unSACKed ones below one boundary; pipe and NextSeg follow from the list in
 * O(blocks), not per segment. The list keeps the TCP_SACK_SB_MAX lowest ranges; forgetting a
 * high one only makes the sender more conservative. */
#ifndef SIM_MODELS_TRANSPORT_TCP_SACK_H
#define SIM_MODELS_TRANSPORT_TCP_SACK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/transport/ranges.h"
#include "models/transport/tcp_hdr.h"

#define TCP_SACK_SB_MAX 64

/* Receiver: recently reported blocks, each remembered by one byte it holds. */
struct tcp_sack_rcv {
    uint64_t recent[TCP_SACK_MAX_BLOCKS];
    uint8_t n;
};

/* The segment [seq, end) arrived out of order (after ranges_add). */
void tcp_sack_rcv_note(struct tcp_sack_rcv *r, const struct ranges *rx, uint64_t seq);
/* Fills up to TCP_SACK_MAX_BLOCKS blocks [start, end) in report order; returns how many. */
uint8_t tcp_sack_rcv_blocks(struct tcp_sack_rcv *r, const struct ranges *rx,
                            uint64_t out[TCP_SACK_MAX_BLOCKS][2]);

/* Sender scoreboard. */
struct tcp_sack_sb {
    uint64_t blk[TCP_SACK_SB_MAX][2]; /* sorted, disjoint, above `una` */
    uint32_t n;
    uint64_t sacked;   /* bytes in blk */
    uint64_t high_rxt; /* RFC 6675 HighRxt: end of the highest retransmitted byte range */
    uint64_t rtx_fence; /* snd_max when the latest retransmission left */
};

void tcp_sack_sb_reset(struct tcp_sack_sb *sb, uint64_t una);
/* Drops what lies below the cumulative ACK `una`. */
void tcp_sack_sb_advance(struct tcp_sack_sb *sb, uint64_t una);
/* Records the SACKed range [s, e) (clipped to above una, below max). True when it added bytes. */
bool tcp_sack_sb_add(struct tcp_sack_sb *sb, uint64_t una, uint64_t max, uint64_t s, uint64_t e);
/* The lowest offset from which nothing is lost: bytes below it and not SACKed are lost
 * (IsLost), given `thresh` = (DupThresh − 1) × MSS. Returns `una` when nothing is lost. */
uint64_t tcp_sack_lost_end(const struct tcp_sack_sb *sb, uint64_t una, uint64_t thresh);
/* UnSACKed bytes in [a, b). */
uint64_t tcp_sack_unsacked(const struct tcp_sack_sb *sb, uint64_t a, uint64_t b);
/* RFC 6675 SetPipe: unSACKed bytes not lost, plus lost ones already retransmitted. */
uint64_t tcp_sack_pipe(const struct tcp_sack_sb *sb, uint64_t una, uint64_t max, uint64_t thresh);
/* NextSeg rule 1: the first lost unSACKed range at or above max(HighRxt, una), at most `len`
 * bytes and not into a SACKed block; false when none. */
bool tcp_sack_next_lost(const struct tcp_sack_sb *sb, uint64_t una, uint64_t thresh,
                        uint64_t len, uint64_t *seq, uint64_t *seg_len);
/* SACKed bytes above `x`. */
uint64_t tcp_sack_sacked_above(const struct tcp_sack_sb *sb, uint64_t x);
/* Lost retransmissions: when more than `thresh` bytes sent after the latest retransmission are
 * SACKed while retransmitted bytes remain unSACKed, those retransmissions were dropped (the path
 * keeps order), so HighRxt goes back to `una` and NextSeg resends them; as Linux's detection of
 * lost retransmissions, instead of waiting for the timer. True when it did. */
bool tcp_sack_lost_retx(struct tcp_sack_sb *sb, uint64_t una, uint64_t thresh);
/* Where sending from `seq` should start: past the SACKed block that holds it, if any. */
uint64_t tcp_sack_skip(const struct tcp_sack_sb *sb, uint64_t seq);
/* The start of the first SACKed block above `seq` (UINT64_MAX when none). */
uint64_t tcp_sack_next_block(const struct tcp_sack_sb *sb, uint64_t seq);

#endif
