# Daniel & Kojo (2005), 001_b31677fe21b9faf1.txt §4-5: a download from the end host (EH) over
# a wired link and a router to the mobile host (MH), whose access link changes from WLAN to
# GPRS by "vhoideal" soft handover: the link's bandwidth, delay and queue limit change in
# place and what is queued stays (ns-2's default queue-limit behaviour, §5.1).
#
# The same cell as vho's benches/scenarios/dk-wlan-gprs-20mb.toml, parameter for parameter:
#   wired     100 Mb/s, 1 ms, queue 100 packets    (vho preset lan-100m)
#   WLAN      5 Mb/s, 2 ms, queue = BDP in packets (Table 1; vho preset dk-wlan)
#   GPRS      200 kb/s, 300 ms, queue = BDP        (§4.1, Table 1; vho preset dk-gprs)
#   TCP       Agent/TCP/Sack1 -> Agent/TCPSink/Sack1/DelAck, packetSize_ 1460 (§4.1: MTU
#             1460 bytes for TCP traffic), window_ from the command line (ns-2's default
#             20 when not given), ns-2 defaults otherwise (tcpTick_ 0.01, minrto_ 0.2,
#             windowInit_ 2)
# BDP queue limits as vho computes them: rate x (2 x sum of one-way delays of the path
# through the link), in packets of 1500 bytes, rounded up, at least 1 (world/build.rs).
#
# Usage: ns dk_wlan_gprs.tcl [bytes] [handover_s] [speed|trace] [wired_delay_s] [soft|hard]
#        [wlan-gprs|gprs-wlan] [window_packets]
#   speed  no tracing (the timed run); trace  all packets to out.tr (for counting drops)
#   soft   vhoideal soft handover (the default); hard  vhoideal hard handover (§5.1: the
#          queue limit set to 0 and ns-2's DropTail "shrink-queue" drops what is queued,
#          then the GPRS limit); delayD  vhodelay soft handover with a delay of D seconds
#          (§5.2: "the delayer in ns-2", blocked at the handover and unblocked D s later:
#          ns-2's Delayer (ICSI, mobile links) inserted on both directions of the access
#          link with "insert-delayer", "block" and "unblock")
#   wlan-gprs  the access link starts as WLAN and becomes GPRS (the default); gprs-wlan  the
#          reverse (Tables 3 and 4)
#   window_packets  the sender's window_ (the study's send_window; 20 = ns-2's default)
# Prints one line:  ns2 data_packets=N acks=M done_s=T events=E loop_wall_s=W
# loop_wall_s: wall-clock time from the first event to completion (Tcl's clock), without
# ns's start-up.
# events: ns-2 numbers every scheduled event with Scheduler::uid_ (common/scheduler.cc:110)
# and "$ns at" returns that number, so one more "at" at the end reads the count.

set bytes 20000000
set ho 0.5
set mode speed
if {$argc >= 1} { set bytes [lindex $argv 0] }
if {$argc >= 2} { set ho [lindex $argv 1] }
if {$argc >= 3} { set mode [lindex $argv 2] }
set wired_delay_arg 0.001
if {$argc >= 4} { set wired_delay_arg [lindex $argv 3] }
set model soft
if {$argc >= 5} { set model [lindex $argv 4] }
set direction wlan-gprs
if {$argc >= 6} { set direction [lindex $argv 5] }
set window 20
if {$argc >= 7} { set window [lindex $argv 6] }

set mss 1460
set pkt_bytes 1500
set wired_rate 100e6 ; set wired_delay $wired_delay_arg
set wlan_rate 5e6    ; set wlan_delay 0.002
set gprs_rate 200e3  ; set gprs_delay 0.300

proc bdp_packets {rate one_way_sum} {
    global pkt_bytes
    set q [expr {int(ceil($rate * 2.0 * $one_way_sum / 8.0 / $pkt_bytes - 1e-9))}]
    if {$q < 1} { set q 1 }
    return $q
}
set wlan_q [bdp_packets $wlan_rate [expr {$wired_delay + $wlan_delay}]]
set gprs_q [bdp_packets $gprs_rate [expr {$wired_delay + $gprs_delay}]]

set ns [new Simulator]
if {$mode == "trace"} {
    set tf [open out.tr w]
    $ns trace-all $tf
}
set eh [$ns node]
set r  [$ns node]
set mh [$ns node]
$ns duplex-link $eh $r ${wired_rate} ${wired_delay} DropTail
# The access link starts with the old link's parameters; the handover sets the new one's.
if {$direction == "gprs-wlan"} {
    set old [list $gprs_rate $gprs_delay $gprs_q]
    set new [list $wlan_rate $wlan_delay $wlan_q]
} else {
    set old [list $wlan_rate $wlan_delay $wlan_q]
    set new [list $gprs_rate $gprs_delay $gprs_q]
}
$ns duplex-link $r $mh [lindex $old 0] [lindex $old 1] DropTail
$ns queue-limit $eh $r 100
$ns queue-limit $r $eh 100
$ns queue-limit $r $mh [lindex $old 2]
$ns queue-limit $mh $r [lindex $old 2]

set delayers {}
if {[string match "delay*" $model]} {
    foreach {a b} [list $r $mh $mh $r] {
        set dl [new Delayer]
        $ns insert-delayer $a $b $dl
        lappend delayers $dl
    }
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

proc handover {} {
    global ns r mh new model delayers
    if {[string match "delay*" $model]} {
        set d [string range $model 5 end]
        foreach dl $delayers {
            $dl block
            $ns at [expr {[$ns now] + $d}] "$dl unblock"
        }
    }
    foreach {a b} [list $r $mh $mh $r] {
        set l [[$ns link $a $b] link]
        $l set bandwidth_ [lindex $new 0]
        $l set delay_ [lindex $new 1]
        if {$model == "hard"} {
            $ns queue-limit $a $b 0
            [[$ns link $a $b] queue] shrink-queue
        }
        $ns queue-limit $a $b [lindex $new 2]
    }
}

# Agent/TCP calls "done" once everything produced is acknowledged (tcp.cc, finish()).
$tcp proc done {} {
    global ns tcp sink mode
    set events [$ns at [expr {[$ns now] + 1.0}] "set _ 0"]
    global t0
    set wall [expr {([clock microseconds] - $t0) / 1e6}]
    puts [format "ns2 data_packets=%d acks=%d done_s=%.6f events=%d loop_wall_s=%.6f" \
        [$tcp set ndatapack_] [$tcp set nackpack_] [$ns now] $events $wall]
    if {$mode == "trace"} { global tf; $ns flush-trace; close $tf }
    exit 0
}

$ns at 0.0 "set t0 \[clock microseconds\]; $ftp produce $npkts"
$ns at $ho "handover"
$ns at 100000.0 "puts {ns2 did not complete}; exit 1"
$ns run
