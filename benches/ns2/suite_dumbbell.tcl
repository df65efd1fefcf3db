# The ns-2.35 side of the benchmark suite's dumbbell workloads (benches/suite/): EH -wired- R
# -access- MH as dk_wlan_gprs.tcl and lossy_link.tcl, everything from EH to MH, with the
# parameters given as key=value arguments, so that one script speaks for every workload of
# benches/suite/run.py that ns-2 can express (each workload's vho scenario names the same
# values; run.py passes both).
#
#   wired_rate wired_delay wired_q   the wired link (bit/s, s, packets), both directions
#   rate delay q                     the access link (bit/s, s, packets), both directions
#   qtype                            DropTail or RED (the access link's queue, both
#                                    directions; RED at ns-2.35's automatic defaults)
#   loss                             R -> MH loses each packet with this probability before
#                                    its queue (`$ns lossmodel`, vho's loss_at = "entry")
#   seed                             the default RNG's seed
#   tcp_flows tcp_bytes window mss   TCP flows (Agent/TCP/Sack1 -> TCPSink/Sack1/DelAck),
#                                    each of tcp_bytes (0: a bulk FTP until the end)
#   cross cross_n cross_size cross_rate   cross traffic: "pareto" (Application/Traffic/
#                                    Pareto, burst_time_ / idle_time_ 500 ms, shape_ 1.9) or
#                                    "cbr" (Application/Traffic/CBR), cross_n sources of
#                                    packetSize_ cross_size bytes on the wire sending at
#                                    cross_rate bit/s (Pareto: during bursts), to LossMonitors
#   tfrc                             1: one Agent/TFRC (ns-2.35's defaults, packetSize_ 1000)
#   duration                         seconds simulated
#
# Prints one line at the end:
#   ns2 events=E packets=P tcp_data=T tfrc_data=F cross=C loop_wall_s=W loop_cpu_s=U
# packets: data packets the sources sent (TCP's ndatapack_, retransmissions included; TFRC's
# ndatapack_; cross traffic's as its LossMonitors count them, received + lost by sequence
# gap). events: ns-2 numbers every scheduled event (Scheduler::uid_) and "$ns at" returns the
# number, so one more "at" at the end reads the count. loop_wall_s: Tcl's clock from the
# first event to the end; loop_cpu_s: the process's user + system CPU time over the same
# span, from /proc/self/stat (utime, stime) in ticks of 10 ms (USER_HZ 100).

array set o {
    wired_rate 100e6 wired_delay 0.001 wired_q 100
    rate 10e6 delay 0.020 q 100 qtype DropTail loss 0 seed 1
    tcp_flows 1 tcp_bytes 0 window 20 mss 1460
    cross none cross_n 0 cross_size 210 cross_rate 1e6
    tfrc 0 duration 60
}
foreach a $argv {
    set kv [split $a =]
    if {[llength $kv] != 2 || ![info exists o([lindex $kv 0])]} {
        puts stderr "suite_dumbbell.tcl: $a: expected key=value with key one of [array names o]"
        exit 2
    }
    set o([lindex $kv 0]) [lindex $kv 1]
}

global defaultRNG
$defaultRNG seed $o(seed)

proc cpu_s {} {
    set f [open /proc/self/stat]
    set s [read $f]
    close $f
    set l [split [string range $s [expr {[string last ")" $s] + 2}] end] " "]
    return [expr {([lindex $l 11] + [lindex $l 12]) / 100.0}]
}

set ns [new Simulator]
$ns at 0.0 "set t0 \[clock microseconds\]; set c0 \[cpu_s\]"
set eh [$ns node]
set r  [$ns node]
set mh [$ns node]
$ns duplex-link $eh $r $o(wired_rate) $o(wired_delay) DropTail
$ns duplex-link $r $mh $o(rate) $o(delay) $o(qtype)
foreach {a b q} [list $eh $r $o(wired_q) $r $eh $o(wired_q) $r $mh $o(q) $mh $r $o(q)] {
    $ns queue-limit $a $b $q
}

if {$o(loss) > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $o(loss)
    set rv [new RandomVariable/Uniform]
    $em ranvar $rv
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $r $mh
}

set tcps {}
for {set i 0} {$i < $o(tcp_flows)} {incr i} {
    set tcp [new Agent/TCP/Sack1]
    $tcp set packetSize_ $o(mss)
    $tcp set window_ $o(window)
    set sink [new Agent/TCPSink/Sack1/DelAck]
    $ns attach-agent $eh $tcp
    $ns attach-agent $mh $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    if {$o(tcp_bytes) > 0} {
        set n [expr {($o(tcp_bytes) + $o(mss) - 1) / $o(mss)}]
        $ns at 0.0 "$ftp produce $n"
    } else {
        $ns at 0.0 "$ftp start"
    }
    lappend tcps $tcp
}

set tfrcs {}
if {$o(tfrc)} {
    set tfrc [new Agent/TFRC]
    set tsink [new Agent/TFRCSink]
    $ns attach-agent $eh $tfrc
    $ns attach-agent $mh $tsink
    $ns connect $tfrc $tsink
    $ns at 0.0 "$tfrc start"
    lappend tfrcs $tfrc
}

set monitors {}
for {set i 0} {$i < $o(cross_n)} {incr i} {
    set udp [new Agent/UDP]
    # Agent/UDP cuts what an application hands it into packets of its packetSize_ (1000 by
    # default): as large as the datagrams, one packet each.
    $udp set packetSize_ $o(cross_size)
    set mon [new Agent/LossMonitor]
    $ns attach-agent $eh $udp
    $ns attach-agent $mh $mon
    $ns connect $udp $mon
    if {$o(cross) == "pareto"} {
        set src [new Application/Traffic/Pareto]
        $src set burst_time_ 500ms
        $src set idle_time_ 500ms
        $src set shape_ 1.9
    } else {
        set src [new Application/Traffic/CBR]
    }
    $src set packetSize_ $o(cross_size)
    $src set rate_ $o(cross_rate)
    $src attach-agent $udp
    $ns at 0.0 "$src start"
    lappend monitors $mon
}

proc finish {} {
    global ns o tcps tfrcs monitors t0 c0
    set wall [expr {([clock microseconds] - $t0) / 1e6}]
    set cpu [expr {[cpu_s] - $c0}]
    set events [$ns at [expr {[$ns now] + 1.0}] "set _ 0"]
    set tcp_data 0
    foreach t $tcps { incr tcp_data [$t set ndatapack_] }
    set tfrc_data 0
    foreach t $tfrcs { incr tfrc_data [$t set ndatapack_] }
    set cross 0
    foreach m $monitors { incr cross [expr {[$m set npkts_] + [$m set nlost_]}] }
    puts [format "ns2 events=%d packets=%d tcp_data=%d tfrc_data=%d cross=%d loop_wall_s=%.6f loop_cpu_s=%.2f" \
        $events [expr {$tcp_data + $tfrc_data + $cross}] $tcp_data $tfrc_data $cross $wall $cpu]
    exit 0
}

$ns at $o(duration) "finish"
$ns run
