#!/bin/bash
# What Linux does with a client's `signal` endpoint (issue 39; docs/design/mptcp.md): two
# namespaces joined by two veth pairs, the client with a second address flagged `signal`, the
# server's `add_addr_accepted` 8; a Python MPTCP client sends for 3 s. Prints both ends'
# MPTCP counters (nstat) and the capture's SYNs, RSTs and ADD_ADDRs (tshark). Needs root.
#
#   bash benches/mptcp_signal_netns.sh [late]
#
# `late` adds the endpoint 1 s into the connection (announced then, the server's socket long
# accepted): the server's MP_JOIN SYN to the client's port at the announced address, and the
# client's RST. Without it the endpoint is there at connect time and the ADD_ADDR comes right
# after the handshake, before the server's accept(): MPJoinSynTxCreatSkErr, no SYN.
set -eu
C=vhosig$$c
S=vhosig$$s
OUT=$(mktemp -d)
cleanup() { ip netns del "$C" 2>/dev/null || true; ip netns del "$S" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$C"
ip netns add "$S"
ip link add c1 netns "$C" type veth peer name s1 netns "$S"
ip link add c2 netns "$C" type veth peer name s2 netns "$S"
ip -n "$C" addr add 10.1.0.2/24 dev c1
ip -n "$C" addr add 10.2.0.2/24 dev c2
ip -n "$S" addr add 10.1.0.1/24 dev s1
ip -n "$S" addr add 10.2.0.1/24 dev s2
ip -n "$S" addr add 10.9.0.1/32 dev lo
for n in "$C" "$S"; do ip -n "$n" link set lo up; done
for d in c1 c2; do ip -n "$C" link set "$d" up; done
for d in s1 s2; do ip -n "$S" link set "$d" up; done
ip -n "$C" route add 10.9.0.1/32 via 10.1.0.1 dev c1
ip -n "$C" rule add from 10.2.0.2 table 102
ip -n "$C" route add 10.9.0.1/32 via 10.2.0.1 dev c2 table 102
ip -n "$C" mptcp limits set subflow 8 add_addr_accepted 8
ip -n "$S" mptcp limits set subflow 8 add_addr_accepted 8
endpoint() { ip -n "$C" mptcp endpoint add 10.2.0.2 dev c2 signal; }
[ "${1:-}" = late ] || endpoint
ip netns exec "$S" tcpdump -i any -w "$OUT/s.pcap" -s 128 tcp >/dev/null 2>&1 &
TD=$!
sleep 1
ip netns exec "$S" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_MPTCP)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.9.0.1", 5001)); s.listen(1)
c, _ = s.accept()
while c.recv(65536): pass
' &
SRV=$!
sleep 0.5
ip netns exec "$C" python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_MPTCP)
s.connect(("10.9.0.1", 5001)); t = time.time()
while time.time() - t < 3: s.sendall(b"x" * 8192); time.sleep(0.01)
s.close()
' &
CLI=$!
if [ "${1:-}" = late ]; then sleep 1; endpoint; fi
wait "$CLI" "$SRV"
sleep 1
echo "server:"; ip netns exec "$S" nstat -az | grep -i mptcp | grep -v " 0 " || true
echo "client:"; ip netns exec "$C" nstat -az | grep -i mptcp | grep -v " 0 " || true
kill "$TD"; wait "$TD" 2>/dev/null || true
tshark -r "$OUT/s.pcap" -T fields -e frame.time_relative -e ip.src -e ip.dst -e tcp.srcport \
    -e tcp.dstport -e tcp.flags.str -e tcp.options.mptcp.subtype \
    -Y "tcp.flags.syn==1 or tcp.flags.reset==1 or tcp.options.mptcp.subtype==3" 2>/dev/null
rm -rf "$OUT"
