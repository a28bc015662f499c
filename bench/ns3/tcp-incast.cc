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
    TcpStar ts;
    uint32_t senders = 16;
    uint64_t bytes = 1000000;
    std::string out = "ns3-tcp-incast.json";
    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders", senders);
    cmd.AddValue("bytes", "payload bytes per sender (ddlsim bytes)", bytes);
    cmd.AddValue("out", "JSON result file", out);
    ts.Setup(cmd, argc, argv, senders);
    const Star& s = ts.s;
    const uint32_t rx = senders;

    // Stop when the last byte is in: afterwards only FIN and TIME_WAIT timers remain.
    auto xs = Transfers(senders, "f", []() { Simulator::Stop(); });
    for (uint32_t i = 0; i < senders; i++)
        xs[i]->Install(ts.t, s.hosts.Get(i), s.hosts.Get(rx), s.hostAddr[rx], uint16_t(9000 + i),
                       bytes, Seconds(0));

    Simulator::Stop(Seconds(100));
    Simulator::Run();

    Json j;
    ResultBegin(j);
    WriteTransfers(j, xs);
    return StarResultEnd(j, s, rx, out);
}
