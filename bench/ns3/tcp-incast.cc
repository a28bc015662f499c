// TCP incast in ns-3.37, the twin of bench/ns3/tcp-incast-*.yaml: `senders` hosts each send
// `bytes` over TCP (NewReno or DCTCP, ddl-tcp.h) to one receiver through one switch with a
// shared drop-tail buffer and an optional ECN threshold in packets (ddl-common.h).
// Writes a JSON result (--out) that bench/ns3/compare.py reads.
#include "ddl-tcp.h"

using namespace ns3;
using namespace ddl;

int main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    StarCfg c;
    TcpCfg t;
    uint32_t senders = 16;
    uint64_t bytes = 1000000;
    std::string out = "ns3-tcp-incast.json";
    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders", senders);
    cmd.AddValue("bytes", "payload bytes per sender (ddlsim bytes)", bytes);
    c.AddTo(cmd, true);
    cmd.AddValue("out", "JSON result file", out);
    t.AddTo(cmd);
    cmd.Parse(argc, argv);
    t.Apply();

    c.hosts = senders + 1;
    c.mtu = std::max<uint32_t>(1500, t.mss + 40);
    Star s;
    BuildStar(c, s);
    const uint32_t rx = senders;

    // Stop when the last byte is in: afterwards only FIN and TIME_WAIT timers remain.
    std::vector<std::unique_ptr<TcpTransfer>> xs;
    uint32_t done = 0;
    for (uint32_t i = 0; i < senders; i++)
    {
        xs.push_back(std::make_unique<TcpTransfer>());
        xs.back()->st.name = "f" + std::to_string(i);
        xs.back()->onDone = [&done, senders]() {
            if (++done == senders)
                Simulator::Stop();
        };
        xs.back()->Install(t, s.hosts.Get(i), s.hosts.Get(rx), s.hostAddr[rx],
                           uint16_t(9000 + i), bytes, Seconds(0));
    }

    Simulator::Stop(Seconds(100));
    Simulator::Run();

    Json j;
    ResultBegin(j);
    WriteTransfers(j, xs);
    WritePort(j, "bottleneck", s.swQd[rx]);
    j.KV("peak_buffer_bytes", s.swBuf->peakBytes);
    j.KV("host_drops", HostDrops(s));
    return ResultEnd(j, out);
}
