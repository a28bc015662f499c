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
    TcpStar ts;
    uint32_t workers = 8;
    uint64_t bytes = 4000000;
    std::string out = "ns3-ps-iter.json";
    CommandLine cmd(__FILE__);
    cmd.AddValue("workers", "number of workers", workers);
    cmd.AddValue("bytes", "G: payload bytes each worker pushes and pulls (ddlsim bytes)", bytes);
    cmd.AddValue("out", "JSON result file", out);
    ts.Setup(cmd, argc, argv, workers);
    const Star& s = ts.s;
    const TcpCfg& t = ts.t;
    const uint32_t ps = workers;

    int64_t pushDonePs = -1;
    auto pull = Transfers(workers, "pull", []() { Simulator::Stop(); });
    // The pulls are installed when the pushes are done, so their connections open then.
    auto startPulls = [&]() {
        pushDonePs = Simulator::Now().GetPicoSeconds();
        for (uint32_t i = 0; i < workers; i++)
            pull[i]->Install(t, s.hosts.Get(ps), s.hosts.Get(i), s.hostAddr[i],
                             uint16_t(10000 + i), bytes, Seconds(0));
    };
    auto push = Transfers(workers, "push", [&startPulls]() { Simulator::ScheduleNow(startPulls); });
    for (uint32_t i = 0; i < workers; i++)
        push[i]->Install(t, s.hosts.Get(i), s.hosts.Get(ps), s.hostAddr[ps], uint16_t(9000 + i),
                         bytes, Seconds(0));

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
    return StarResultEnd(j, s, ps, out);
}
