# A bulk download over one lossy access link, no handover: the ns-2.35 side of
# benches/ns2_lossy_links.py and tests/test_ns2_agreement.py (issue: the ns2 profile on lossy
# links). The topology and TCP are those of dk_wlan_gprs.tcl (EH -wired- R -access- MH,
# Agent/TCP/Sack1 to Agent/TCPSink/Sack1/DelAck, packetSize_ 1460, queues of one BDP); the
# access link's down direction (R -> MH) loses each packet with probability p, drawn by an
# ErrorModel (unit pkt, uniform ranvar) from the default RNG seeded with `seed`; or, given
# p = list:FILE, exactly the packets whose indices FILE lists (ErrorModel/List, `droplist`,
# counting from 0 the packets the module sees: vho's drop_packets).
#
# Where the loss is taken:
#   entry  `$ns lossmodel`: the error module goes at the link's head (ns-link.tcl errormodule
#          -> add-to-head), before the queue: a lost packet takes no queue slot and no time on
#          the air (vho: loss_at = "entry")
#   air    `$ns link-lossmodel`: the error module follows the link's delay element
#          (insert-linkloss): a lost packet was serialised and propagated (vho: loss_at = "air")
#
# Usage: ns lossy_link.tcl bytes wlan|gprs p seed [window_packets] [entry|air] [wired_delay_s]
#        [trace_file]   (every packet event, ns-2's trace format, for comparing runs)
# Prints one line:  ns2 data_packets=N rexmit_packets=R timeouts=T done_s=S
# (ndatapack_, nrexmitpack_ and nrexmit_ of tcp.h: data packets sent, of them retransmitted,
# and retransmission timeouts with data outstanding.)

set bytes [lindex $argv 0]
set which [lindex $argv 1]
set p [lindex $argv 2]
set seed [lindex $argv 3]
set window 20
if {$argc >= 5} { set window [lindex $argv 4] }
set where entry
if {$argc >= 6} { set where [lindex $argv 5] }
set wired_delay 0.022
if {$argc >= 7} { set wired_delay [lindex $argv 6] }

global defaultRNG
$defaultRNG seed $seed

set mss 1460
set pkt_bytes 1500
set wired_rate 100e6
if {$which == "gprs"} {
    set rate 200e3 ; set delay 0.300
} else {
    set rate 5e6 ; set delay 0.002
}
proc bdp_packets {rate one_way_sum} {
    global pkt_bytes
    set q [expr {int(ceil($rate * 2.0 * $one_way_sum / 8.0 / $pkt_bytes - 1e-9))}]
    if {$q < 1} { set q 1 }
    return $q
}
set q [bdp_packets $rate [expr {$wired_delay + $delay}]]

set ns [new Simulator]
if {$argc >= 8} {
    set tf [open [lindex $argv 7] w]
    $ns trace-all $tf
}
set eh [$ns node]
set r  [$ns node]
set mh [$ns node]
$ns duplex-link $eh $r $wired_rate $wired_delay DropTail
$ns duplex-link $r $mh $rate $delay DropTail
$ns queue-limit $eh $r 100
$ns queue-limit $r $eh 100
$ns queue-limit $r $mh $q
$ns queue-limit $mh $r $q

if {[string match "list:*" $p]} {
    set em [new ErrorModel/List]
    $em unit pkt
    set f [open [string range $p 5 end]]
    $em droplist [read $f]
    close $f
} else {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $p
    set rv [new RandomVariable/Uniform]
    $em ranvar $rv
}
$em drop-target [new Agent/Null]
if {$where == "air"} {
    $ns link-lossmodel $em $r $mh
} else {
    $ns lossmodel $em $r $mh
}

set tcp [new Agent/TCP/Sack1]
$tcp set packetSize_ $mss
$tcp set window_ $window
set sink [new Agent/TCPSink/Sack1/DelAck]
$ns attach-agent $eh $tcp
$ns attach-agent $mh $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
set npkts [expr {($bytes + $mss - 1) / $mss}]

$tcp proc done {} {
    global ns tcp
    puts [format "ns2 data_packets=%d rexmit_packets=%d timeouts=%d done_s=%.6f" \
        [$tcp set ndatapack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_] [$ns now]]
    global argc tf
    if {$argc >= 8} { $ns flush-trace; close $tf }
    exit 0
}
$ns at 0.0 "$ftp produce $npkts"
$ns at 100000.0 "puts {ns2 did not complete}; exit 1"
$ns run
