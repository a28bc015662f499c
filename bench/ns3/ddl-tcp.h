// TCP settings shared by the ns-3 TCP programs of the ddlsim comparison, named after ddlsim's
// tcp flow parameters (ddlsim describe tcp) and mapped onto ns-3.37 attributes:
//
//   ddlsim            ns-3.37
//   cc                TcpL4Protocol::SocketType = TcpLinuxReno (newreno) | TcpDctcp
//   mss               TcpSocket::SegmentSize = mss; Timestamp option off, so a data segment's IP
//                     packet is mss + 40 bytes, as ddlsim's
//   sack              TcpSocketBase::Sack
//   init_cwnd         TcpSocket::InitialCwnd (segments)
//   rcv_wnd           TcpSocket::RcvBufSize
//   rto_min           TcpSocketBase::MinRto; ClockGranularity 1 ps (RFC 6298's G: ddlsim has none)
//   rto_init          RttEstimator::InitialEstimation (ns-3's first RTO)
//   delayed_ack       TcpSocket::DelAckCount = 2 (true) or 1 (false)
//   delack_timeout    TcpSocket::DelAckTimeout
//   dupack_thresh     TcpSocketBase::ReTxThreshold
//   limited_transmit  TcpSocketBase::LimitedTransmit (RFC 3042)
//   handshake: true   ns-3 always opens connections with SYN / SYN-ACK
//   dctcp_g           TcpDctcp::DctcpShiftG
//   dctcp_alpha_init  TcpDctcp::DctcpAlphaOnInit
//   ecn               TcpSocketBase::UseEcn = On (DCTCP turns it on itself)
//
// Recovery is ns-3's TcpClassicRecovery (RFC 6582 NewReno, not ns-3's default PRR). For
// cc: newreno the congestion-avoidance class is TcpLinuxReno (one MSS per window of ACKed
// segments, which is ddlsim's RFC 3465 byte counting when every ACK covers one segment; ns-3's
// TcpNewReno adds MSS*MSS/cwnd per ACK instead); TcpDctcp is built on TcpLinuxReno too.
// Two ns-3 behaviours that differ from ddlsim's can be switched to ddlsim's, to show what they
// do (docs/ns3.md): --dctcp_floor=2 (TcpDctcpFloor) and --rto_restart=every (SteadyRtoSocket).
#ifndef DDL_NS3_TCP_H
#define DDL_NS3_TCP_H

#include "ddl-common.h"

namespace ddl
{

// ns-3.37's TcpDctcp::GetSsThresh returns (1 - alpha/2) * cwnd with no lower bound, so a window
// of one segment can drop below one segment; the sender then waits, with nothing in flight, for
// its retransmission timer. Linux (and ddlsim) keep at least 2 segments. This subclass adds
// that floor; it is used only when asked for (--dctcp_floor), to show the effect.
class TcpDctcpFloor : public TcpDctcp
{
  public:
    static inline uint32_t floorSegs = 2;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ddl::TcpDctcpFloor")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpDctcpFloor>();
        return tid;
    }

    TcpDctcpFloor() = default;

    TcpDctcpFloor(const TcpDctcpFloor& sock) = default;

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return std::max(TcpDctcp::GetSsThresh(tcb, bytesInFlight),
                        floorSegs * tcb->m_segmentSize);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpDctcpFloor>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpDctcpFloor);

// ns-3.37 restarts the retransmission timer on the first partial ACK of a NewReno recovery
// only (RFC 6582 §4, "impatient"); ddlsim restarts it on every new ACK ("slow but steady").
// This socket restarts it on every one. ns-3 creates every TcpSocketBase itself, so a transfer
// that wants it builds the socket here and sends with BulkSender (--rto_restart=every).
class SteadyRtoSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ddl::SteadyRtoSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<SteadyRtoSocket>();
        return tid;
    }

  protected:
    void NewAck(const SequenceNumber32& seq, bool) override
    {
        TcpSocketBase::NewAck(seq, true);
    }

    Ptr<TcpSocketBase> Fork() override
    {
        return CopyObject<SteadyRtoSocket>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(SteadyRtoSocket);

// BulkSendApplication's loop on a socket it is given: writes `bytes` as fast as the send buffer
// takes them, then closes.
class BulkSender : public Application
{
  public:
    void Setup(Ptr<Socket> socket, Address peer, uint64_t bytes, uint32_t chunk)
    {
        m_socket = socket;
        m_peer = peer;
        m_left = bytes;
        m_chunk = chunk;
    }

    Ptr<Socket> GetSocket() const
    {
        return m_socket;
    }

  private:
    void StartApplication() override
    {
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->SetConnectCallback(MakeCallback(&BulkSender::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&BulkSender::Room, this));
    }

    void StopApplication() override
    {
    }

    void Connected(Ptr<Socket>)
    {
        m_connected = true;
        Fill();
    }

    void Room(Ptr<Socket>, uint32_t)
    {
        if (m_connected)
            Fill();
    }

    void Fill()
    {
        if (m_closed)
            return;
        while (m_left > 0)
        {
            uint32_t n = uint32_t(std::min<uint64_t>(m_left, m_chunk));
            if (m_socket->GetTxAvailable() < n)
                return;
            int r = m_socket->Send(Create<Packet>(n));
            if (r <= 0)
                return;
            m_left -= uint64_t(r);
        }
        m_socket->Close();
        m_closed = true;
    }

    Ptr<Socket> m_socket;
    Address m_peer;
    uint64_t m_left = 0;
    uint32_t m_chunk = 0;
    bool m_connected = false;
    bool m_closed = false;
};

struct TcpCfg
{
    std::string cc = "newreno";
    uint32_t mss = 1460;
    uint32_t initCwnd = 10;
    uint64_t rcvWnd = 4000000;
    std::string rtoMin = "200ms";
    std::string rtoInit = "1s";
    bool delayedAck = false;
    std::string delackTimeout = "40ms";
    uint32_t dupackThresh = 3;
    bool limitedTransmit = true;
    bool sack = true; // ns-3's default
    double dctcpG = 0.0625;
    double dctcpAlphaInit = 1.0;
    bool ecn = false;
    std::string renoClass = "ns3::TcpLinuxReno";
    std::string recovery = "ns3::TcpClassicRecovery";
    uint32_t dctcpFloorSegs = 0;
    std::string rtoRestart = "first";

    void AddTo(CommandLine& cmd)
    {
        cmd.AddValue("cc", "congestion control: newreno | dctcp", cc);
        cmd.AddValue("mss", "payload bytes per segment (ddlsim mss)", mss);
        cmd.AddValue("init_cwnd", "initial window, segments", initCwnd);
        cmd.AddValue("rcv_wnd", "receiver window, bytes", rcvWnd);
        cmd.AddValue("rto_min", "minimum retransmission timeout", rtoMin);
        cmd.AddValue("rto_init", "retransmission timeout before the first RTT sample", rtoInit);
        cmd.AddValue("delayed_ack", "acknowledge every second segment", delayedAck);
        cmd.AddValue("delack_timeout", "longest an ACK is delayed", delackTimeout);
        cmd.AddValue("dupack_thresh", "duplicate ACKs that trigger fast retransmit", dupackThresh);
        cmd.AddValue("limited_transmit", "RFC 3042 limited transmit", limitedTransmit);
        cmd.AddValue("sack", "SACK option and SACK-based recovery (ns-3's default: on)", sack);
        cmd.AddValue("dctcp_g", "DCTCP alpha gain", dctcpG);
        cmd.AddValue("dctcp_alpha_init", "DCTCP initial alpha", dctcpAlphaInit);
        cmd.AddValue("ecn", "ECN-capable (RFC 3168) for newreno", ecn);
        cmd.AddValue("reno_class", "ns-3 class for cc=newreno: ns3::TcpLinuxReno | ns3::TcpNewReno",
                     renoClass);
        cmd.AddValue("recovery", "ns-3 recovery class: ns3::TcpClassicRecovery | ns3::TcpPrrRecovery",
                     recovery);
        cmd.AddValue("rto_restart", "restart the RTO on the first partial ACK of a recovery "
                     "(first: ns-3.37 as shipped) or on every one (every: as ddlsim)", rtoRestart);
        cmd.AddValue("dctcp_floor", "DCTCP: keep ssthresh >= this many segments, as Linux does "
                     "(0 = ns-3.37 as shipped, no floor)", dctcpFloorSegs);
    }

    // Stream bytes for `bytes` of payload (the same: no stand-in bytes).
    uint64_t WireBytes(uint64_t bytes) const
    {
        return bytes;
    }

    uint64_t PayloadBytes(uint64_t wire) const
    {
        return wire;
    }

    void Apply() const
    {
        NS_ABORT_MSG_UNLESS(cc == "dctcp" || cc == "newreno", "cc must be newreno or dctcp");
        NS_ABORT_MSG_UNLESS(rtoRestart == "first" || rtoRestart == "every",
                            "rto_restart must be first or every");
        std::string sock = renoClass;
        if (cc == "dctcp")
            sock = dctcpFloorSegs ? "ddl::TcpDctcpFloor" : "ns3::TcpDctcp";
        TcpDctcpFloor::floorSegs = dctcpFloorSegs;
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TypeId::LookupByName(sock)));
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TypeId::LookupByName(recovery)));
        uint32_t seg = mss;
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(seg));
        Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
        Config::SetDefault("ns3::TcpSocket::RcvBufSize",
                           UintegerValue(uint32_t(rcvWnd / mss * seg)));
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 30));
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delayedAck ? 2 : 1));
        Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Time(delackTimeout)));
        Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Time(rtoMin)));
        Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(PicoSeconds(1)));
        Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Time(rtoInit)));
        Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(dupackThresh));
        Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
        Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
        Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
        Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
        if (cc == "dctcp")
        {
            Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(dctcpG));
            Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(dctcpAlphaInit));
        }
        else if (ecn)
        {
            Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
        }
    }
};

// One TCP transfer: a BulkSendApplication on `src` and a PacketSink on `dst`. The sink counts
// ddlsim payload bytes and records when the last one arrived; `onDone` runs then.
class TcpTransfer
{
  public:
    FlowStats st;
    std::function<void()> onDone;

    void Install(const TcpCfg& t, Ptr<Node> src, Ptr<Node> dst, Ipv4Address dstAddr,
                 uint16_t port, uint64_t bytes, Time start)
    {
        m_cfg = &t;
        m_bytes = bytes;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink = sinkHelper.Install(dst);
        sink.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&TcpTransfer::OnRx, this));
        sink.Start(Seconds(0));

        if (t.rtoRestart == "every")
        {
            // Build the socket as TcpL4Protocol::CreateSocket would, with the steady timer.
            Ptr<TcpL4Protocol> tcp = src->GetObject<TcpL4Protocol>();
            TypeIdValue cc;
            tcp->GetAttribute("SocketType", cc);
            TypeIdValue rec;
            tcp->GetAttribute("RecoveryType", rec);
            ObjectFactory ccf(cc.Get().GetName());
            ObjectFactory recf(rec.Get().GetName());
            Ptr<SteadyRtoSocket> sk = CreateObject<SteadyRtoSocket>();
            sk->SetNode(src);
            sk->SetTcp(tcp);
            sk->SetRtt(CreateObject<RttMeanDeviation>());
            sk->SetCongestionControlAlgorithm(ccf.Create<TcpCongestionOps>());
            sk->SetRecoveryAlgorithm(recf.Create<TcpRecoveryOps>());
            tcp->AddSocket(sk);
            Ptr<BulkSender> app = CreateObject<BulkSender>();
            app->Setup(sk, InetSocketAddress(dstAddr, port), t.WireBytes(bytes), t.mss);
            src->AddApplication(app);
            app->SetStartTime(start);
            m_socket = sk;
        }
        else
        {
            BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dstAddr, port));
            bulk.SetAttribute("MaxBytes", UintegerValue(t.WireBytes(bytes)));
            bulk.SetAttribute("SendSize", UintegerValue(t.mss));
            ApplicationContainer app = bulk.Install(src);
            app.Start(start);
            m_app = DynamicCast<BulkSendApplication>(app.Get(0));
        }
        // The sending socket exists once the application has started.
        Simulator::Schedule(start + PicoSeconds(1), &TcpTransfer::HookSocket, this);
    }

    // Sender counters, in ddlsim's terms: timeouts (entries into CA_LOSS), fast retransmits
    // (entries into CA_RECOVERY), data segments sent beyond the unique ones.
    uint64_t timeouts = 0;
    uint64_t timeoutsInRecovery = 0; // the timer expired during a NewReno fast recovery
    uint64_t fastRetx = 0;
    uint64_t dataSegs = 0;

    uint64_t Retransmitted() const
    {
        uint64_t unique = (m_cfg->WireBytes(m_bytes) + m_cfg->mss - 1) / m_cfg->mss;
        return dataSegs > unique ? dataSegs - unique : 0;
    }

  private:
    void HookSocket()
    {
        Ptr<Socket> sk = m_socket ? m_socket : m_app->GetSocket();
        NS_ABORT_MSG_UNLESS(sk, "BulkSendApplication has no socket yet");
        sk->TraceConnectWithoutContext("CongState", MakeCallback(&TcpTransfer::OnCongState, this));
        sk->TraceConnectWithoutContext("Tx", MakeCallback(&TcpTransfer::OnTx, this));
    }

    void OnCongState(TcpSocketState::TcpCongState_t old, TcpSocketState::TcpCongState_t now)
    {
        if (now == TcpSocketState::CA_LOSS)
        {
            timeouts++;
            if (old == TcpSocketState::CA_RECOVERY)
                timeoutsInRecovery++;
        }
        else if (now == TcpSocketState::CA_RECOVERY)
            fastRetx++;
    }

    void OnTx(Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
    {
        if (p->GetSize() > 0)
            dataSegs++;
    }

    void OnRx(Ptr<const Packet> p, const Address&)
    {
        int64_t now = Simulator::Now().GetPicoSeconds();
        m_wire += p->GetSize();
        st.rxPkts++;
        st.rxBytes = m_cfg->PayloadBytes(m_wire);
        st.lastRxPs = now;
        if (st.completePs < 0 && st.rxBytes == m_bytes)
        {
            st.completePs = now;
            if (onDone)
                onDone();
        }
    }

    Ptr<BulkSendApplication> m_app;
    Ptr<Socket> m_socket; // set when the transfer built its own socket
    const TcpCfg* m_cfg = nullptr;
    uint64_t m_bytes = 0;
    uint64_t m_wire = 0;
};

// n transfers named prefix0, prefix1, ...; `allDone` runs when the last of them is done.
inline std::vector<std::unique_ptr<TcpTransfer>> Transfers(uint32_t n, const std::string& prefix,
                                                           std::function<void()> allDone)
{
    auto done = std::make_shared<uint32_t>(0);
    std::vector<std::unique_ptr<TcpTransfer>> xs;
    for (uint32_t i = 0; i < n; i++)
    {
        xs.push_back(std::make_unique<TcpTransfer>());
        xs.back()->st.name = prefix + std::to_string(i);
        xs.back()->onDone = [done, n, allDone]() {
            if (++*done == n)
                allDone();
        };
    }
    return xs;
}

// The star and TCP settings of a TCP program. Setup adds their options to the program's
// command line, parses it, and builds a star of `n` hosts plus one (n is read after parsing),
// with an MTU that fits the MSS.
struct TcpStar
{
    StarCfg c;
    TcpCfg t;
    Star s;

    void Setup(CommandLine& cmd, int argc, char* argv[], const uint32_t& n)
    {
        c.AddTo(cmd, true);
        t.AddTo(cmd);
        cmd.Parse(argc, argv);
        t.Apply();
        c.hosts = n + 1;
        c.mtu = std::max<uint32_t>(1500, t.mss + 40);
        BuildStar(c, s);
    }
};

inline void WriteTransfers(Json& j, const std::vector<std::unique_ptr<TcpTransfer>>& xs)
{
    j.Key("flows");
    j.Open('[');
    for (const auto& x : xs)
    {
        const FlowStats& f = x->st;
        j.Open('{');
        j.Key("name");
        j.Str(f.name);
        j.KV("rx_packets", f.rxPkts);
        j.KV("rx_bytes", f.rxBytes);
        j.KV("last_rx_ps", f.lastRxPs);
        j.KV("complete_ps", f.completePs);
        j.KV("timeouts", x->timeouts);
        j.KV("timeouts_in_recovery", x->timeoutsInRecovery);
        j.KV("fast_retransmits", x->fastRetx);
        j.KV("retransmitted_packets", x->Retransmitted());
        j.Close('}');
    }
    j.Close(']');
}

} // namespace ddl

#endif
