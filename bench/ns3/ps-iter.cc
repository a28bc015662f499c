// One parameter-server iteration in ns-3.37, the twin of bench/ns3/ps-iter.yaml: `workers`
// hosts each push `bytes` (G) to the PS over TCP; when the PS holds every push it sends G back to
// each worker (the pulls start together). The iteration ends when the last pull byte arrives.
// Same star, queue and TCP settings as the incast programs (ddl-common.h, ddl-tcp.h).
#include "ddl-tcp.h"

using namespace ns3;
using namespace ddl;

int main(int argc, char* argv[])
{
    Time::SetResolution(Time::PS);
    StarCfg c;
    TcpCfg t;
    uint32_t workers = 8;
    uint64_t bytes = 4000000;
    std::string out = "ns3-ps-iter.json";
    CommandLine cmd(__FILE__);
    cmd.AddValue("workers", "number of workers", workers);
    cmd.AddValue("bytes", "G: payload bytes each worker pushes and pulls (ddlsim bytes)", bytes);
    c.AddTo(cmd, true);
    cmd.AddValue("out", "JSON result file", out);
    t.AddTo(cmd);
    cmd.Parse(argc, argv);
    t.Apply();

    c.hosts = workers + 1;
    c.mtu = std::max<uint32_t>(1500, t.mss + 40);
    Star s;
    BuildStar(c, s);
    const uint32_t ps = workers;

    std::vector<std::unique_ptr<TcpTransfer>> push;
    std::vector<std::unique_ptr<TcpTransfer>> pull;
    uint32_t pushed = 0;
    uint32_t pulled = 0;
    int64_t pushDonePs = -1;
    for (uint32_t i = 0; i < workers; i++)
    {
        pull.push_back(std::make_unique<TcpTransfer>());
        pull.back()->st.name = "pull" + std::to_string(i);
        pull.back()->onDone = [&pulled, workers]() {
            if (++pulled == workers)
                Simulator::Stop();
        };
    }
    // The pulls are installed when the pushes are done, so their connections open then.
    auto startPulls = [&]() {
        pushDonePs = Simulator::Now().GetPicoSeconds();
        for (uint32_t i = 0; i < workers; i++)
            pull[i]->Install(t, s.hosts.Get(ps), s.hosts.Get(i), s.hostAddr[i],
                             uint16_t(10000 + i), bytes, Seconds(0));
    };
    for (uint32_t i = 0; i < workers; i++)
    {
        push.push_back(std::make_unique<TcpTransfer>());
        push.back()->st.name = "push" + std::to_string(i);
        push.back()->onDone = [&pushed, workers, &startPulls]() {
            if (++pushed == workers)
                Simulator::ScheduleNow(startPulls);
        };
        push.back()->Install(t, s.hosts.Get(i), s.hosts.Get(ps), s.hostAddr[ps],
                             uint16_t(9000 + i), bytes, Seconds(0));
    }

    Simulator::Stop(Seconds(100));
    Simulator::Run();

    std::vector<std::unique_ptr<TcpTransfer>> all;
    for (auto& x : push)
        all.push_back(std::move(x));
    for (auto& x : pull)
        all.push_back(std::move(x));
    Json j;
    ResultBegin(j);
    j.KV("push_done_ps", pushDonePs);
    WriteTransfers(j, all);
    WritePort(j, "bottleneck", s.swQd[ps]);
    j.KV("peak_buffer_bytes", s.swBuf->peakBytes);
    j.KV("host_drops", HostDrops(s));
    return ResultEnd(j, out);
}
