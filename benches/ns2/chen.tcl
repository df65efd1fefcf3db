# Chen et al.'s §5 world (seed 004, issue 23): the ns-2.35 side of scenarios/studies/chen.toml,
# for the speed comparison of benches/ns2_chen_speed.py. The same 14 nodes and links (the
# layout chen.toml argues: the chain 1-2-3-4-5-6; 7, 8 at 2; 9, 10, 11, 12 at 3; 13, 14 at
# 4), 100 Mb/s wired links of 10 ms with DropTail queues of 100 packets; one Agent/TFRC from
# node 1 to an Agent/TFRCSink at node 6 (ns-2.35's defaults: packetSize_ 1000, a bulk source);
# 16 Application/Traffic/Pareto sources over Agent/UDP to Agent/LossMonitor sinks, 4 each on
# 7->10, 8->9, 11->14, 12->13, each rate_ 3.125 Mb/s, burst_time_ 500 ms, idle_time_ 500 ms
# (ns-default.tcl's), packetSize_ 210 (ns-default.tcl's), shape_ 1.9 (l.129): 25 Mb/s mean.
#
# The last hop 5-6 is one link changed in place at 600 s (vho's soft-reconfigure): rate,
# delay and queue limit of the cdma-1xrtt preset (150 kb/s, 100 ms, 4 packets: vho's "bdp",
# 150 kb/s x 280 ms of round trip in 1500-byte packets, rounded up) and of wlan-80211b
# (5 Mb/s, 2 ms, 35 packets: 5 Mb/s x 84 ms). ns-2's link keeps its queue across the change.
#
# Usage: ns chen.tcl low-high|high-low seed [duration_s [handoff_s [report_s ...]]]
# Prints at the handoff (600 s unless given), at each report_s and at the end:
#   ns2 t=T tfrc_bytes=B cross_bytes=C cross_packets=P last_hop_drops=D
# (B: Agent/TFRC's ndatabytes_, sent; C, P: what the 16 LossMonitors received; D: the packets
# the 5->6 queue dropped, which only the TFRC flow crosses).

set dir [lindex $argv 0]
set seed [lindex $argv 1]
set duration 1200.0
if {$argc >= 3} { set duration [lindex $argv 2] }
set handoff_at 600.0
if {$argc >= 4} { set handoff_at [lindex $argv 3] }
set reports [lrange $argv 4 end]

global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
for {set i 1} {$i <= 14} {incr i} { set n($i) [$ns node] }

# The environment's CHEN_DELAY (ms), if set, is the delay of the application's four wired
# links (1-2 to 4-5) instead of 10 ms, and the last hop's queues are vho's "bdp" for it (the
# rate times the path's round-trip propagation delay in 1500-byte packets, rounded up).
set wired 10ms
if {[info exists env(CHEN_DELAY)]} { set wired $env(CHEN_DELAY)ms }
foreach {a b} {1 2  2 3  3 4  4 5  7 2  8 2  9 3  10 3  11 3  12 3  13 4  14 4} {
    set d 10ms
    if {$b == $a + 1 && $b <= 5} { set d $wired }
    $ns duplex-link $n($a) $n($b) 100Mb $d DropTail
    $ns queue-limit $n($a) $n($b) 100
    $ns queue-limit $n($b) $n($a) 100
}

# cdma-1xrtt and wlan-80211b (scenarios/presets/), in place on one link.
set low  {150Kb 100ms 4}
set high {5Mb 2ms 35}
if {[info exists env(CHEN_DELAY)]} {
    set owd [expr {4 * $env(CHEN_DELAY)}]
    lset low 2 [expr {int(ceil(150e3 * 2 * ($owd + 100) / 1e3 / 8 / 1500))}]
    lset high 2 [expr {int(ceil(5e6 * 2 * ($owd + 2) / 1e3 / 8 / 1500))}]
}
# The environment's CHEN_QUEUE (packets), if set, is both queue limits instead (ns-2's default
# Queue limit_ is 50).
if {[info exists env(CHEN_QUEUE)]} {
    lset low 2 $env(CHEN_QUEUE)
    lset high 2 $env(CHEN_QUEUE)
}
if {$dir == "low-high"} {
    set first $low; set second $high
} else {
    set first $high; set second $low
}
$ns duplex-link $n(5) $n(6) [lindex $first 0] [lindex $first 1] DropTail
$ns queue-limit $n(5) $n(6) [lindex $first 2]
$ns queue-limit $n(6) $n(5) [lindex $first 2]

set lastq [$ns monitor-queue $n(5) $n(6) ""]

proc handoff {} {
    global ns n second
    foreach {a b} {5 6 6 5} {
        set l [$ns link $n($a) $n($b)]
        [$l link] set bandwidth_ [lindex $second 0]
        [$l link] set delay_ [lindex $second 1]
        [$l queue] set limit_ [lindex $second 2]
    }
}

set tfrc [new Agent/TFRC]
set sink [new Agent/TFRCSink]
$ns attach-agent $n(1) $tfrc
$ns attach-agent $n(6) $sink
$ns connect $tfrc $sink

set monitors {}
foreach {a b} {7 10  8 9  11 14  12 13} {
    for {set k 0} {$k < 4} {incr k} {
        set udp [new Agent/UDP]
        set mon [new Agent/LossMonitor]
        $ns attach-agent $n($a) $udp
        $ns attach-agent $n($b) $mon
        $ns connect $udp $mon
        set p [new Application/Traffic/Pareto]
        $p set packetSize_ 210
        $p set burst_time_ 500ms
        $p set idle_time_ 500ms
        $p set rate_ 3.125Mb
        $p set shape_ 1.9
        $p attach-agent $udp
        $ns at 0.0 "$p start"
        lappend monitors $mon
    }
}

proc report {} {
    global ns tfrc monitors lastq
    set bytes 0; set pkts 0
    foreach m $monitors {
        incr bytes [$m set bytes_]
        incr pkts [$m set npkts_]
    }
    puts [format "ns2 t=%.3f tfrc_bytes=%d cross_bytes=%d cross_packets=%d last_hop_drops=%d" \
        [$ns now] [$tfrc set ndatabytes_] $bytes $pkts [$lastq set pdrops_]]
}

proc finish {} {
    report
    exit 0
}

$ns at 0.0 "$tfrc start"
$ns at $handoff_at "report; handoff"
foreach t $reports { $ns at $t "report" }
$ns at $duration "finish"
$ns run
