// ns-3.37, a peer to benchmark against (issue 38), never a part of vho: the dumbbell the
// ns-2 benches use (benches/ns2/dk_wlan_gprs.tcl, benches/ns2/suite_dumbbell.tcl) written with
// ns-3's point-to-point links, so that benches/ns3_side_by_side.py can run the same cells in
// vho (target/release/examples/run_timed) and here, in turn.
//
//   EH --wired-- R --access-- MH, every source on EH, every sink on MH.
//
// Arguments are key=value, with ns-2 script's names and defaults (suite_dumbbell.tcl):
//   wired_rate wired_delay wired_q   the wired link (bit/s, s, packets), both directions
//   rate delay q                     the access link (bit/s, s, packets), both directions
//   loss                             each packet EH -> MH lost with this probability before
//                                    the access queue (vho's loss_at = "entry"; here a
//                                    RateErrorModel on R's wired device, which only the
//                                    downstream packets cross)
//   seed                             ns-3's RngRun
//   tcp_flows tcp_bytes window mss   TCP flows (NewReno, SACK, no timestamps) of tcp_bytes
//                                    each (0: bulk until the end), window in packets (the
//                                    receiver's buffer, as ns-2's window_ caps the sender)
//   cross cross_n cross_size cross_rate   "cbr" or "pareto" UDP sources (OnOffApplication;
//                                    Pareto on and off periods of mean 500 ms, shape 1.9, as
//                                    ns-2's Application/Traffic/Pareto), cross_size bytes on
//                                    the wire (IP and UDP headers included, as ns-2 counts),
//                                    cross_rate bit/s of those bytes while on
//   duration                         seconds simulated at most
//   until                            "duration" (run to duration) or "done" (stop once every
//                                    TCP flow's last byte is acknowledged, as dk_wlan_gprs.tcl)
//   ts_rtt                           1: the senders take RTT samples from retransmitted
//                                    segments' timestamps; 0: ns-3.37's own socket (below)
//   ho_at ho_rate ho_delay ho_q      a soft handover at ho_at seconds (< 0: none): the access
//                                    link's rate, delay and queue limit change in place in
//                                    both directions and what is queued stays (ns-2's
//                                    "vhoideal", vho's kind = "soft-reconfigure")
//   ho_mode                          "reconfigure" (the above) or "route": a second access
//                                    link R -- MH (ho_rate, ho_delay, ho_q) up from the start,
//                                    and at ho_at the static routes of R (to MH's address)
//                                    and of MH (its default) switch to it; what is queued on
//                                    the first drains over it at its pace (vho's kind =
//                                    "soft", make before break)
//
// Queue limits mean what they mean in ns-2's DropTail: a limit of q holds q - 1 packets
// waiting plus the one being sent (queue/drop-tail.cc drops at waiting + 1 >= qlim_), so the
// device queue here holds q - 1 (a point-to-point device dequeues the packet it sends). The
// traffic-control layer's default queue disc is removed: the device queue is the only one.
// TCP runs with timestamps (RFC 7323), which ns-2's Sack1 does not send, and its sender takes
// an RTT sample from every ACK that echoes one (ts_rtt=1, the default). Stock ns-3.37 (ts_rtt=0)
// cannot carry this cell across the handover: it recomputes the RTO from the estimator at
// every segment it sends (TcpSocketBase::SendDataPacket), so the timer's backoff is lost, and
// it keeps Karn's rule (no sample from a retransmitted segment) even when timestamps make the
// sample unambiguous. After the WLAN -> GPRS handover the estimate stays at the WLAN's RTT
// (RTO 0.2 s against an RTT of 0.6-1.3 s), every segment is sent again by a spurious timeout,
// and no sample is ever taken (seen: 7 MB of the 20 MB in 3,600 s). ns-2 keeps the backed-off
// timer until a valid sample (Karn, RFC 6298 (5.5)); vho's `ns2` profile does as ns-2. The
// subclass in ts_rtt_socket.h lets a timestamp's echo be sampled although the segment was retransmitted
// (RFC 7323 §4: the echo says which transmission the ACK is for), which breaks the loop; it
// costs nothing per event.
//
// A full segment then carries 12 bytes of timestamp option, and ns-3's point-to-point device
// adds a 2-byte PPP header to every packet: the links' rates are raised by
// (mss + 40 + 12 + 2) / (mss + 40) so that a full segment takes the time ns-2 and vho give a
// 1500-byte packet (an ACK takes 54 bytes' time instead of 40: 22 us at 5 Mb/s).
//
// Prints one line at the end:
//   ns3 events=E packets=P data_packets=T cross=C flows_done=F done_s=D sender_done_s=S
//       loop_wall_s=W loop_cpu_s=U profile=B
// events: Simulator::GetEventCount() (events executed); packets: data packets the sources
// sent (TCP segments with payload, retransmissions included, from the sockets' Tx trace; UDP
// datagrams from the OnOff applications' Tx trace); done_s: when the last flow's last byte
// reached its sink; flows_done: the TCP flows of tcp_bytes whose last byte was acknowledged;
// sender_done_s: when its sender saw it acknowledged (-1 if never);
// loop_wall_s, loop_cpu_s: wall and process CPU time of Simulator::Run() alone.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ts_rtt_socket.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>

using namespace ns3;

namespace
{

std::map<std::string, std::string> g_opt = {
    {"wired_rate", "100e6"}, {"wired_delay", "0.001"}, {"wired_q", "100"},
    {"rate", "10e6"},        {"delay", "0.020"},       {"q", "100"},
    {"loss", "0"},           {"seed", "1"},            {"tcp_flows", "1"},
    {"tcp_bytes", "0"},      {"window", "20"},         {"mss", "1460"},
    {"cross", "none"},       {"cross_n", "0"},         {"cross_size", "210"},
    {"cross_rate", "1e6"},   {"duration", "60"},       {"until", "duration"},
    {"ho_at", "-1"},         {"ho_rate", "200e3"},     {"ho_delay", "0.300"},
    {"ho_q", "11"},         {"ts_rtt", "1"},
    {"sack", "1"},          {"ho_mode", "reconfigure"},
};

double
Num(const std::string& key)
{
    const std::string& s = g_opt.at(key);
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0')
    {
        std::fprintf(stderr, "dumbbell: %s=%s: expected a number\n", key.c_str(), s.c_str());
        std::exit(2);
    }
    return v;
}

// What the timestamp option and the PPP header cost a full segment, given back: see the
// file's comment.
double g_wire_factor = 1.0;

DataRate
WireRate(double bps)
{
    return DataRate(static_cast<uint64_t>(bps * g_wire_factor + 0.5));
}

QueueSize
Waiting(double limit)
{
    // ns-2's limit counts the packet being sent; ns-3's device queue does not.
    uint32_t n = limit > 1 ? static_cast<uint32_t>(limit) - 1 : 1;
    return QueueSize(QueueSizeUnit::PACKETS, n);
}

double
CpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

uint64_t g_tcp_data = 0;
uint64_t g_cross = 0;
uint32_t g_flows_acked = 0;
uint32_t g_flows_received = 0;
uint32_t g_finite_flows = 0;
double g_done_s = -1;
double g_sender_done_s = -1;
bool g_stop_when_done = false;

void
OnTcpTx(Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        ++g_tcp_data;
    }
}

void
OnUdpTx(Ptr<const Packet>)
{
    ++g_cross;
}

// A sender that hands its socket all it may (bulk: forever; else tcp_bytes) and watches the
// acknowledgements for the last byte.
class Bulk : public SimpleRefCount<Bulk>
{
  public:
    Bulk(Ptr<Socket> socket, uint64_t bytes)
        : m_socket(socket),
          m_left(bytes ? bytes : UINT64_MAX),
          m_last_ack(static_cast<uint32_t>(bytes + 1))
    {
    }

    void Fill(Ptr<Socket>, uint32_t)
    {
        while (m_left > 0)
        {
            uint32_t room = m_socket->GetTxAvailable();
            if (room == 0)
            {
                return;
            }
            uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(room, m_left));
            int sent = m_socket->Send(Create<Packet>(n));
            if (sent <= 0)
            {
                return;
            }
            m_left -= static_cast<uint64_t>(sent);
        }
    }

    void OnAck(SequenceNumber32, SequenceNumber32 now)
    {
        // The SYN takes sequence number 0: the last data byte's ACK is bytes + 1.
        if (!m_acked && m_left == 0 && now.GetValue() >= m_last_ack)
        {
            m_acked = true;
            ++g_flows_acked;
            if (g_flows_acked == g_finite_flows)
            {
                g_sender_done_s = Simulator::Now().GetSeconds();
                if (g_stop_when_done)
                {
                    Simulator::Stop();
                }
            }
        }
    }

  private:
    Ptr<Socket> m_socket;
    uint64_t m_left;
    uint32_t m_last_ack;
    bool m_acked = false;
};

class SinkCount : public SimpleRefCount<SinkCount>
{
  public:
    explicit SinkCount(uint64_t bytes)
        : m_want(bytes)
    {
    }

    void OnRx(Ptr<const Packet> p, const Address&)
    {
        m_got += p->GetSize();
        if (m_want > 0 && !m_done && m_got >= m_want)
        {
            m_done = true;
            if (++g_flows_received == g_finite_flows)
            {
                g_done_s = Simulator::Now().GetSeconds();
            }
        }
    }

  private:
    uint64_t m_want;
    uint64_t m_got = 0;
    bool m_done = false;
};

void
Handover(NetDeviceContainer access, DataRate rate, Time delay, QueueSize q)
{
    for (uint32_t i = 0; i < access.GetN(); ++i)
    {
        auto dev = DynamicCast<PointToPointNetDevice>(access.Get(i));
        dev->SetDataRate(rate);
        dev->GetQueue()->SetMaxSize(q);
    }
    access.Get(0)->GetChannel()->SetAttribute("Delay", TimeValue(delay));
}

// The route switch (ho_mode=route): R's route to MH's address and MH's default route move
// from the first access link (interface 2 of R, 1 of MH) to the second (3 of R, 2 of MH).
void
SwitchRoutes(Ptr<Node> r, Ptr<Node> mh, Ipv4Address mh_addr, Ipv4Address mh_new, Ipv4Address r_new)
{
    Ipv4StaticRoutingHelper helper;
    Ptr<Ipv4StaticRouting> at_r = helper.GetStaticRouting(r->GetObject<Ipv4>());
    at_r->AddHostRouteTo(mh_addr, mh_new, 3);
    Ptr<Ipv4StaticRouting> at_mh = helper.GetStaticRouting(mh->GetObject<Ipv4>());
    for (uint32_t i = 0; i < at_mh->GetNRoutes(); ++i)
    {
        if (at_mh->GetRoute(i).IsDefault())
        {
            at_mh->RemoveRoute(i);
            break;
        }
    }
    at_mh->SetDefaultRoute(r_new, 2);
}

} // namespace

int
main(int argc, char* argv[])
{
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        auto eq = a.find('=');
        if (eq == std::string::npos || g_opt.count(a.substr(0, eq)) == 0)
        {
            std::fprintf(stderr, "dumbbell: %s: expected key=value with a known key\n", argv[i]);
            return 2;
        }
        g_opt[a.substr(0, eq)] = a.substr(eq + 1);
    }
    const uint32_t mss = static_cast<uint32_t>(Num("mss"));
    const uint32_t flows = static_cast<uint32_t>(Num("tcp_flows"));
    const uint64_t bytes = static_cast<uint64_t>(Num("tcp_bytes"));
    const std::string cross = g_opt["cross"];
    const uint32_t cross_n = cross == "none" ? 0 : static_cast<uint32_t>(Num("cross_n"));
    if (cross != "none" && cross != "cbr" && cross != "pareto")
    {
        std::fprintf(stderr, "dumbbell: cross=%s: expected none, cbr or pareto\n",
                     cross.c_str());
        return 2;
    }
    g_finite_flows = bytes > 0 ? flows : 0;
    g_wire_factor = (mss + 40.0 + 12.0 + 2.0) / (mss + 40.0);
    g_stop_when_done = g_opt["until"] == "done";

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(static_cast<uint64_t>(Num("seed")));

    // ns-2's Agent/TCP/Sack1 -> TCPSink/Sack1/DelAck at the values the benches give it
    // (dk_wlan_gprs.tcl): NewReno recovery with SACK, windowInit_ 2, minrto_ 0.2 s, tcpTick_
    // 10 ms, a delayed ACK every second segment or after 100 ms; timestamps on (see the file's
    // comment).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(0.1)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize",
                       UintegerValue(static_cast<uint32_t>(Num("window")) * mss));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(Num("sack") != 0));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    // A window of 100 packets (146,000 bytes) needs the scale option (RFC 7323 §2): on SYNs only.
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(0.2)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(Seconds(0.01)));

    NodeContainer nodes;
    nodes.Create(3);
    Ptr<Node> eh = nodes.Get(0), r = nodes.Get(1), mh = nodes.Get(2);

    // The device's MTU fits a full segment with its timestamp option (ns-3's default of 1500
    // would cut it in two IP fragments).
    const UintegerValue mtu(mss + 40 + 12);
    PointToPointHelper wired;
    wired.SetDeviceAttribute("Mtu", mtu);
    wired.SetDeviceAttribute("DataRate", DataRateValue(WireRate(Num("wired_rate"))));
    wired.SetChannelAttribute("Delay", TimeValue(Seconds(Num("wired_delay"))));
    wired.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(Waiting(Num("wired_q"))));
    NetDeviceContainer wired_dev = wired.Install(eh, r);

    PointToPointHelper access;
    access.SetDeviceAttribute("Mtu", mtu);
    access.SetDeviceAttribute("DataRate", DataRateValue(WireRate(Num("rate"))));
    access.SetChannelAttribute("Delay", TimeValue(Seconds(Num("delay"))));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(Waiting(Num("q"))));
    NetDeviceContainer access_dev = access.Install(r, mh);

    const std::string ho_mode = g_opt["ho_mode"];
    if (ho_mode != "reconfigure" && ho_mode != "route")
    {
        std::fprintf(stderr, "dumbbell: ho_mode=%s: expected reconfigure or route\n",
                     ho_mode.c_str());
        return 2;
    }
    const bool route = ho_mode == "route" && Num("ho_at") >= 0;
    NetDeviceContainer second_dev;
    if (route)
    {
        PointToPointHelper second;
        second.SetDeviceAttribute("Mtu", mtu);
        second.SetDeviceAttribute("DataRate", DataRateValue(WireRate(Num("ho_rate"))));
        second.SetChannelAttribute("Delay", TimeValue(Seconds(Num("ho_delay"))));
        second.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(Waiting(Num("ho_q"))));
        second_dev = second.Install(r, mh);
    }

    InternetStackHelper stack;
    Ipv4StaticRoutingHelper static_routing;
    if (route)
    {
        stack.SetRoutingHelper(static_routing);
    }
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.1.0", "255.255.255.0");
    Ipv4InterfaceContainer wired_if = addr.Assign(wired_dev);
    addr.SetBase("10.0.2.0", "255.255.255.0");
    Ipv4InterfaceContainer access_if = addr.Assign(access_dev);
    Ipv4InterfaceContainer second_if;
    TrafficControlHelper tch;
    tch.Uninstall(wired_dev);
    tch.Uninstall(access_dev);
    if (route)
    {
        addr.SetBase("10.0.3.0", "255.255.255.0");
        second_if = addr.Assign(second_dev);
        tch.Uninstall(second_dev);
        // EH and MH send everything to R; R reaches MH's first address over the first
        // access link (its connected network) until the switch.
        static_routing.GetStaticRouting(eh->GetObject<Ipv4>())
            ->SetDefaultRoute(wired_if.GetAddress(1), 1);
        static_routing.GetStaticRouting(mh->GetObject<Ipv4>())
            ->SetDefaultRoute(access_if.GetAddress(0), 1);
    }
    else
    {
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }

    if (Num("loss") > 0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(Num("loss"));
        em->AssignStreams(0);
        wired_dev.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }

    const Ipv4Address mh_addr = access_if.GetAddress(1);
    const double duration = Num("duration");
    std::vector<Ptr<Bulk>> senders;
    std::vector<Ptr<SinkCount>> sinks;
    for (uint32_t i = 0; i < flows; ++i)
    {
        const uint16_t port = static_cast<uint16_t>(5000 + i);
        PacketSinkHelper sink_helper("ns3::TcpSocketFactory",
                                     InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer app = sink_helper.Install(mh);
        app.Start(Seconds(0));
        Ptr<SinkCount> sc = Create<SinkCount>(bytes);
        app.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&SinkCount::OnRx, sc));
        sinks.push_back(sc);

        Ptr<Socket> s = TcpSender(eh, Num("ts_rtt") != 0);
        Ptr<Bulk> b = Create<Bulk>(s, bytes);
        s->TraceConnectWithoutContext("Tx", MakeCallback(&OnTcpTx));
        s->TraceConnectWithoutContext("HighestRxAck", MakeCallback(&Bulk::OnAck, b));
        s->SetSendCallback(MakeCallback(&Bulk::Fill, b));
        s->Bind();
        Simulator::Schedule(Seconds(0), [s, b, mh_addr, port]() {
            s->Connect(InetSocketAddress(mh_addr, port));
            b->Fill(s, 0);
        });
        senders.push_back(b);
    }

    if (cross_n > 0)
    {
        const double size = Num("cross_size");
        const uint32_t payload = static_cast<uint32_t>(size) - 28; // IPv4 20 + UDP 8
        // OnOffApplication paces its payload bytes; ns-2's sources pace the packet's size.
        const DataRate pace(static_cast<uint64_t>(Num("cross_rate") * payload / size + 0.5));
        PacketSinkHelper udp_sink("ns3::UdpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), 9));
        udp_sink.Install(mh).Start(Seconds(0));
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(mh_addr, 9));
        onoff.SetAttribute("PacketSize", UintegerValue(payload));
        onoff.SetAttribute("DataRate", DataRateValue(pace));
        if (cross == "pareto")
        {
            // ns-2's Application/Traffic/Pareto: burst_time_ and idle_time_ 500 ms means,
            // shape_ 1.9; ns-3's Pareto takes the scale, mean x (shape - 1) / shape.
            const double shape = 1.9, scale = 0.5 * (shape - 1) / shape;
            std::string pv = "ns3::ParetoRandomVariable[Scale=" + std::to_string(scale) +
                             "|Shape=" + std::to_string(shape) + "]";
            onoff.SetAttribute("OnTime", StringValue(pv));
            onoff.SetAttribute("OffTime", StringValue(pv));
        }
        else
        {
            onoff.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1e9]"));
            onoff.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
        }
        for (uint32_t i = 0; i < cross_n; ++i)
        {
            ApplicationContainer app = onoff.Install(eh);
            app.Start(Seconds(0));
            app.Get(0)->TraceConnectWithoutContext("Tx", MakeCallback(&OnUdpTx));
        }
    }

    if (route)
    {
        Simulator::Schedule(Seconds(Num("ho_at")),
                            &SwitchRoutes,
                            r,
                            mh,
                            mh_addr,
                            second_if.GetAddress(1),
                            second_if.GetAddress(0));
    }
    else if (Num("ho_at") >= 0)
    {
        Simulator::Schedule(Seconds(Num("ho_at")),
                            &Handover,
                            access_dev,
                            WireRate(Num("ho_rate")),
                            Seconds(Num("ho_delay")),
                            Waiting(Num("ho_q")));
    }
    Simulator::Stop(Seconds(duration));

    const auto w0 = std::chrono::steady_clock::now();
    const double c0 = CpuSeconds();
    Simulator::Run();
    const double cpu = CpuSeconds() - c0;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    const uint64_t events = Simulator::GetEventCount();
    Simulator::Destroy();

    std::printf("ns3 events=%llu packets=%llu data_packets=%llu cross=%llu flows_done=%u "
                "done_s=%.6f sender_done_s=%.6f loop_wall_s=%.6f loop_cpu_s=%.6f profile=%s\n",
                static_cast<unsigned long long>(events),
                static_cast<unsigned long long>(g_tcp_data + g_cross),
                static_cast<unsigned long long>(g_tcp_data),
                static_cast<unsigned long long>(g_cross),
                g_flows_acked,
                g_done_s,
                g_sender_done_s,
                wall,
                cpu,
                Version::BuildProfile().c_str());
    if (g_stop_when_done && g_sender_done_s < 0)
    {
        std::fprintf(stderr, "dumbbell: the TCP flows did not complete in %g s\n", duration);
        return 1;
    }
    return 0;
}
