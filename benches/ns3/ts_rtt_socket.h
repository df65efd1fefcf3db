// The sender benches/ns3/dumbbell.cc gives its TCP flows: ns-3.37's TcpSocketBase with one
// rule changed, and how it is put together (dumbbell.cc's comment says why: without it ns-3
// does not carry the 20 MB handover cell across the handover).

#ifndef VHO_BENCH_TS_RTT_SOCKET_H
#define VHO_BENCH_TS_RTT_SOCKET_H

#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <algorithm>

namespace ns3
{

// ns-3.37's TCP socket, but an ACK that echoes a timestamp gives an RTT sample even when the
// segment it acknowledges was retransmitted (see dumbbell.cc's comment).
class TsRttSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::VhoBenchTsRttSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<TsRttSocket>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

  protected:
    // TcpSocketBase::EstimateRtt with the sample taken from the echoed timestamp alone: the
    // base takes it only when the oldest segment in its send history was never retransmitted,
    // and a timeout clears that history.
    void EstimateRtt(const TcpHeader& header) override
    {
        const SequenceNumber32 ack = header.GetAckNumber();
        if (!m_timestampEnabled || !header.HasOption(TcpOption::TS))
        {
            TcpSocketBase::EstimateRtt(header);
            return;
        }
        while (!m_history.empty() &&
               m_history.front().seq + SequenceNumber32(m_history.front().count) <= ack)
        {
            m_history.pop_front();
        }
        // Only an ACK that acknowledges new data (RFC 7323 §4.2's rule for TS.Recent keeps a
        // delayed ACK's echo on the earliest segment it covers).
        if (ack <= m_sampled)
        {
            return;
        }
        m_sampled = ack;
        auto ts = DynamicCast<const TcpOptionTS>(header.GetOption(TcpOption::TS));
        Time m = TcpOptionTS::ElapsedTimeFromTsValue(ts->GetEcho());
        if (m.IsZero())
        {
            m = MilliSeconds(1); // as the base: a sample under the option's 1 ms tick
        }
        m_rtt->Measurement(m);
        m_tcb->m_lastRtt = m_rtt->GetEstimate();
        m_tcb->m_minRtt = std::min(m_tcb->m_lastRtt.Get(), m_tcb->m_minRtt);
    }

  private:
    SequenceNumber32 m_sampled{0};
};

NS_OBJECT_ENSURE_REGISTERED(TsRttSocket);

// A TCP socket on `node`: ns-3's own (TcpSocketFactory) or the TsRttSocket, put together as
// TcpL4Protocol::CreateSocket puts its own together.
inline Ptr<Socket>
TcpSender(Ptr<Node> node, bool ts_rtt)
{
    if (!ts_rtt)
    {
        return Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    }
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    Ptr<TsRttSocket> s = CreateObject<TsRttSocket>();
    s->SetNode(node);
    s->SetTcp(tcp);
    s->SetRtt(CreateObject<RttMeanDeviation>());
    s->SetCongestionControlAlgorithm(CreateObject<TcpNewReno>());
    s->SetRecoveryAlgorithm(CreateObject<TcpClassicRecovery>());
    tcp->AddSocket(s);
    return s;
}

} // namespace ns3

#endif
