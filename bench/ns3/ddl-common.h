// Shared pieces of the ns-3 side of the ddlsim comparison (bench/ns3/, docs/ns3.md).
//
// The star: N hosts and one switch node, each host on its own point-to-point link to the switch,
// IPv4 with global routing. Every device has a 1-packet device queue and, as its root queue
// disc, TmQueueDisc: a drop-tail FIFO that does what ddlsim's traffic manager (models/net/tmgr.h)
// does for one port with one class. It admits a packet against the bytes *waiting* at the port
// (its own FIFO plus the packet held in the device queue, i.e. everything not on the wire) and,
// on a switch, against a byte buffer shared by all the switch's ports; it can mark CE when the
// packets waiting at the port reach a threshold. So "the queue that fills" is exactly ddlsim's.
//
// Framing: stock point-to-point devices carry IP + a 2-byte PPP header, which is what ddlsim's
// links with `framing: ppp` send and hold. The queue discs here count what a PPP device holds:
// the IP packet + 2 bytes. Packets carry the same payload on both sides.
// Times use picosecond resolution, set first thing in main().
#ifndef DDL_NS3_COMMON_H
#define DDL_NS3_COMMON_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace ddl
{
using namespace ns3;

static const uint32_t kPppHdr = 2;  // PointToPointNetDevice header, the only framing ns-3 adds

// A switch's packet buffer, shared by the TmQueueDisc of each of its ports.
struct SharedBuffer
{
    uint64_t limitBytes = 0; // 0 = unlimited
    uint64_t bytes = 0;      // waiting at all ports (not on a wire)
    uint64_t peakBytes = 0;
};

// Drop-tail FIFO with ddlsim's admission rule (see the file comment).
class TmQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ddl::TmQueueDisc")
                                .SetParent<QueueDisc>()
                                .SetGroupName("TrafficControl")
                                .AddConstructor<TmQueueDisc>();
        return tid;
    }

    TmQueueDisc()
        : QueueDisc(QueueDiscSizePolicy::NO_LIMITS)
    {
    }

    // buf: the node's shared buffer; devq: the device queue under this disc; ecnKPkts: mark
    // ECN-capable packets that find at least this many packets waiting (0 = never).
    void Configure(std::shared_ptr<SharedBuffer> buf, Ptr<Queue<Packet>> devq, uint32_t ecnKPkts)
    {
        m_buf = buf;
        m_devq = devq;
        m_ecnK = ecnKPkts;
        devq->TraceConnectWithoutContext("Dequeue", MakeCallback(&TmQueueDisc::OnDevDequeue, this));
    }

    // Counters, in ddlsim's terms (bytes are IP bytes = ddlsim frame bytes).
    uint64_t enqPkts = 0;
    uint64_t dropPkts = 0;
    uint64_t markPkts = 0;
    uint64_t txPkts = 0;
    uint64_t maxBytes = 0; // deepest the port got, after an enqueue
    uint64_t maxPkts = 0;

    uint64_t WaitingBytes() const
    {
        return GetInternalQueue(0)->GetNBytes() +
               uint64_t(kPppHdr) * GetInternalQueue(0)->GetNPackets() + m_devq->GetNBytes();
    }

    uint64_t WaitingPkts() const
    {
        return GetInternalQueue(0)->GetNPackets() + m_devq->GetNPackets();
    }

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        uint32_t size = item->GetSize() + kPppHdr; // as the device will hold it
        if (m_buf->limitBytes && m_buf->bytes + size > m_buf->limitBytes)
        {
            dropPkts++;
            DropBeforeEnqueue(item, "shared buffer full");
            return false;
        }
        if (m_ecnK && WaitingPkts() >= m_ecnK && Mark(item, "ecn threshold"))
        {
            markPkts++;
        }
        bool ok = GetInternalQueue(0)->Enqueue(item);
        NS_ABORT_MSG_UNLESS(ok, "internal queue overflow");
        enqPkts++;
        m_buf->bytes += size;
        m_buf->peakBytes = std::max(m_buf->peakBytes, m_buf->bytes);
        maxBytes = std::max(maxBytes, WaitingBytes());
        maxPkts = std::max(maxPkts, WaitingPkts());
        return true;
    }

    Ptr<QueueDiscItem> DoDequeue() override
    {
        return GetInternalQueue(0)->Dequeue();
    }

    // The packet leaves the device queue to go on the wire: it stops taking buffer space.
    void OnDevDequeue(Ptr<const Packet> p)
    {
        txPkts++;
        m_buf->bytes -= p->GetSize(); // with its PPP header
    }

    bool CheckConfig() override
    {
        if (GetNInternalQueues() == 0)
        {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize", QueueSizeValue(QueueSize("4000000000p"))));
        }
        return GetNInternalQueues() == 1 && GetNQueueDiscClasses() == 0;
    }

    void InitializeParams() override
    {
    }

    std::shared_ptr<SharedBuffer> m_buf;
    Ptr<Queue<Packet>> m_devq;
    uint32_t m_ecnK = 0;
};

NS_OBJECT_ENSURE_REGISTERED(TmQueueDisc);

// Link and switch parameters of a star, in ddlsim's units.
struct StarCfg
{
    uint32_t hosts = 17;
    std::string rate = "10Gbps";
    std::string delay = "1us";
    uint32_t mtu = 1500;       // IP MTU of every device
    uint64_t bufferBytes = 0;  // switch shared buffer, 0 = unlimited
    uint32_t ecnKPkts = 0;     // switch ECN threshold, packets waiting (0 = off)
    std::string hostQueues = "tm"; // tm: TmQueueDisc, unlimited, 1-packet device queue;
                                   // stock: ns-3's defaults (pfifo_fast 1000p, DropTail 100p)

    // The options every program takes (ecn: also the ECN threshold).
    void AddTo(CommandLine& cmd, bool ecn)
    {
        cmd.AddValue("rate", "link rate", rate);
        cmd.AddValue("delay", "link propagation delay", delay);
        cmd.AddValue("buffer", "switch shared buffer, bytes (0 = unlimited)", bufferBytes);
        if (ecn)
            cmd.AddValue("ecn_kmin", "switch ECN threshold, packets waiting (0 = off)", ecnKPkts);
        cmd.AddValue("host_queues", "tm (unlimited, as ddlsim's pulled sources) or stock "
                     "(ns-3's pfifo_fast 1000p + DropTail 100p device queue)", hostQueues);
    }
};

struct Star
{
    NodeContainer hosts;
    Ptr<Node> sw;
    std::vector<Ipv4Address> hostAddr;
    std::vector<Ptr<PointToPointNetDevice>> hostDev;  // host side of link i
    std::vector<Ptr<TmQueueDisc>> hostQd;            // host_queues=tm only
    std::vector<Ptr<TmQueueDisc>> swQd;              // switch port i faces host i
    std::shared_ptr<SharedBuffer> swBuf;
};

inline Ptr<TmQueueDisc> InstallTm(Ptr<NetDevice> dev, std::shared_ptr<SharedBuffer> buf,
                                  uint32_t ecnK)
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ddl::TmQueueDisc");
    QueueDiscContainer qdc = tch.Install(dev);
    Ptr<TmQueueDisc> qd = DynamicCast<TmQueueDisc>(qdc.Get(0));
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
    qd->Configure(buf, p2p->GetQueue(), ecnK);
    return qd;
}

inline void BuildStar(const StarCfg& c, Star& s)
{
    s.hosts.Create(c.hosts);
    s.sw = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(s.hosts);
    stack.Install(s.sw);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(c.rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(c.mtu));
    p2p.SetChannelAttribute("Delay", StringValue(c.delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));

    s.swBuf = std::make_shared<SharedBuffer>();
    s.swBuf->limitBytes = c.bufferBytes;
    Ipv4AddressHelper addr;
    for (uint32_t i = 0; i < c.hosts; i++)
    {
        NetDeviceContainer d = p2p.Install(s.hosts.Get(i), s.sw);
        // Root queue discs go in before the addresses, so IPv4 installs no default disc.
        NS_ABORT_MSG_UNLESS(c.hostQueues == "tm" || c.hostQueues == "stock",
                            "host_queues must be tm or stock");
        if (c.hostQueues == "tm")
            s.hostQd.push_back(InstallTm(d.Get(0), std::make_shared<SharedBuffer>(), 0));
        else // the device queue ns-3 gives a PointToPointNetDevice by default
            DynamicCast<PointToPointNetDevice>(d.Get(0))->GetQueue()->SetMaxSize(
                QueueSize("100p"));
        s.swQd.push_back(InstallTm(d.Get(1), s.swBuf, c.ecnKPkts));
        std::ostringstream net;
        net << "10." << (i / 250) << "." << (i % 250) << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.252");
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        s.hostAddr.push_back(ifs.GetAddress(0));
        s.hostDev.push_back(DynamicCast<PointToPointNetDevice>(d.Get(0)));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

// Packets the hosts dropped in their own queues (queue disc and device queue).
inline uint64_t HostDrops(const Star& s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s.hosts.GetN(); i++)
    {
        Ptr<NetDevice> dev = s.hostDev[i];
        Ptr<TrafficControlLayer> tc = s.hosts.Get(i)->GetObject<TrafficControlLayer>();
        Ptr<QueueDisc> qd = tc ? tc->GetRootQueueDiscOnDevice(dev) : nullptr;
        if (qd)
            n += qd->GetStats().nTotalDroppedPackets;
        n += s.hostDev[i]->GetQueue()->GetTotalDroppedPackets();
    }
    return n;
}

// Minimal JSON writer for the result file the driver reads.
class Json
{
  public:
    void Open(char c)
    {
        Sep();
        m_s << c;
        m_first = true;
    }

    void Close(char c)
    {
        m_s << c;
        m_first = false;
    }

    void Key(const std::string& k)
    {
        Sep();
        m_s << '"' << k << "\":";
        m_first = true;
    }

    template <typename T>
    void Val(const T& v)
    {
        Sep();
        m_s << v;
    }

    void Str(const std::string& v)
    {
        Sep();
        m_s << '"' << v << '"';
    }

    template <typename T>
    void KV(const std::string& k, const T& v)
    {
        Key(k);
        Val(v);
    }

    void WriteTo(const std::string& path) const
    {
        std::string tmp = path + ".tmp";
        std::ofstream f(tmp);
        f << m_s.str() << "\n";
        f.close();
        std::rename(tmp.c_str(), path.c_str());
    }

  private:
    void Sep()
    {
        if (!m_first)
            m_s << ',';
        m_first = false;
    }

    std::ostringstream m_s;
    bool m_first = true;
};

// The fields every result starts with; ResultEnd closes, writes and tears down.
inline void ResultBegin(Json& j)
{
    j.Open('{');
    j.Key("simulator");
    j.Str("ns-3.37");
    j.KV("end_time_ps", Simulator::Now().GetPicoSeconds());
    j.KV("events", Simulator::GetEventCount());
}

inline int ResultEnd(Json& j, const std::string& out)
{
    j.Close('}');
    j.WriteTo(out);
    Simulator::Destroy();
    return 0;
}

// Per-flow receive statistics (payload bytes).
struct FlowStats
{
    std::string name;
    uint64_t txPkts = 0;
    uint64_t rxPkts = 0;
    uint64_t rxBytes = 0;
    int64_t lastRxPs = -1;
    int64_t completePs = -1;
};

inline void WriteFlows(Json& j, const std::vector<FlowStats>& flows)
{
    j.Key("flows");
    j.Open('[');
    for (const FlowStats& f : flows)
    {
        j.Open('{');
        j.Key("name");
        j.Str(f.name);
        j.KV("tx_packets", f.txPkts);
        j.KV("rx_packets", f.rxPkts);
        j.KV("rx_bytes", f.rxBytes);
        j.KV("last_rx_ps", f.lastRxPs);
        j.KV("complete_ps", f.completePs);
        j.Close('}');
    }
    j.Close(']');
}

inline void WritePort(Json& j, const std::string& key, const Ptr<TmQueueDisc>& q)
{
    j.Key(key);
    j.Open('{');
    j.KV("enqueued", q->enqPkts);
    j.KV("dropped", q->dropPkts);
    j.KV("marked", q->markPkts);
    j.KV("tx_packets", q->txPkts);
    j.KV("max_queue_bytes", q->maxBytes);
    j.KV("max_queue_packets", q->maxPkts);
    j.Close('}');
}

// The fields every star result ends with: the switch port to host `rx` (the bottleneck), the
// shared buffer's peak and the hosts' own drops; then ResultEnd.
inline int StarResultEnd(Json& j, const Star& s, uint32_t rx, const std::string& out)
{
    WritePort(j, "bottleneck", s.swQd[rx]);
    j.KV("peak_buffer_bytes", s.swBuf->peakBytes);
    j.KV("host_drops", HostDrops(s));
    return ResultEnd(j, out);
}

} // namespace ddl

#endif
