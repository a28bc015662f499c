// UDP incast in ns-3.37, the twin of bench/ns3/udp-incast-*.yaml: `senders` hosts each send
// `bytes` of UDP payload at line rate to one receiver through one switch (ddl-common.h).
//
// A sender keeps exactly one packet waiting behind the one on its wire: it queues the next
// datagram each time its device starts a transmission, so its link never idles and its own
// queue never grows (ddlsim's NIC pulls a packet whenever its link frees, the same schedule).
// Writes a JSON result (--out) that bench/ns3/compare.py reads.
#include "ddl-common.h"

using namespace ns3;
using namespace ddl;

namespace
{

// Sends `bytes` of ddlsim payload in datagrams of at most mtu - 28 .
class LineRateSender : public Application
{
  public:
    void Setup(Ptr<PointToPointNetDevice> dev, Address peer, uint64_t bytes, uint32_t payloadMax,
               FlowStats* st)
    {
        m_dev = dev;
        m_peer = peer;
        m_left = bytes;
        m_payloadMax = payloadMax;
        m_st = st;
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_dev->TraceConnectWithoutContext("PhyTxBegin",
                                          MakeCallback(&LineRateSender::OnTxBegin, this));
        SendOne();
    }

    void StopApplication() override
    {
    }

    void OnTxBegin(Ptr<const Packet>)
    {
        if (m_left > 0)
            Simulator::ScheduleNow(&LineRateSender::SendOne, this);
    }

    void SendOne()
    {
        uint32_t n = uint32_t(std::min<uint64_t>(m_left, m_payloadMax));
        m_left -= n;
        m_st->txPkts++;
        int r = m_socket->Send(Create<Packet>(n));
        NS_ABORT_MSG_UNLESS(r >= 0, "UDP send failed");
    }

    Ptr<PointToPointNetDevice> m_dev;
    Ptr<Socket> m_socket;
    Address m_peer;
    uint64_t m_left = 0;
    uint32_t m_payloadMax = 0;
    FlowStats* m_st = nullptr;
};

struct Sink
{
    FlowStats* st;
    uint64_t bytes;

    void OnRecv(Ptr<Socket> s)
    {
        int64_t now = Simulator::Now().GetPicoSeconds();
        while (Ptr<Packet> p = s->Recv())
        {
            st->rxPkts++;
            st->rxBytes += p->GetSize();
            st->lastRxPs = now;
            if (st->rxBytes == bytes)
                st->completePs = now;
        }
    }
};

} // namespace

int main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    StarCfg c;
    uint32_t senders = 16;
    uint64_t bytes = 4000000;
    std::string out = "ns3-udp-incast.json";
    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders", senders);
    cmd.AddValue("bytes", "UDP payload bytes per sender (ddlsim bytes)", bytes);
    c.AddTo(cmd, false);
    cmd.AddValue("mtu", "IP MTU as ddlsim counts it (device MTU = mtu + 14)", c.mtu);
    cmd.AddValue("out", "JSON result file", out);
    cmd.Parse(argc, argv);

    c.hosts = senders + 1;
    Star s;
    BuildStar(c, s);
    const uint32_t rx = senders;
    const uint32_t payloadMax = c.mtu - 28;

    std::vector<FlowStats> flows(senders);
    std::vector<Sink> sinks(senders);
    for (uint32_t i = 0; i < senders; i++)
    {
        flows[i].name = "f" + std::to_string(i);
        sinks[i] = Sink{&flows[i], bytes};
        uint16_t port = uint16_t(9000 + i);
        Ptr<Socket> sk = Socket::CreateSocket(s.hosts.Get(rx), UdpSocketFactory::GetTypeId());
        sk->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        sk->SetRecvCallback(MakeCallback(&Sink::OnRecv, &sinks[i]));

        Ptr<LineRateSender> app = CreateObject<LineRateSender>();
        app->Setup(s.hostDev[i], InetSocketAddress(s.hostAddr[rx], port), bytes, payloadMax,
                   &flows[i]);
        s.hosts.Get(i)->AddApplication(app);
        app->SetStartTime(Seconds(0));
    }

    Simulator::Run();

    Json j;
    ResultBegin(j);
    WriteFlows(j, flows);
    return StarResultEnd(j, s, rx, out);
}
