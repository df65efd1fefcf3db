# Long-lived TCP flows through one RED bottleneck: the ns-2.35 side of benches/ns2_red.py and
# tests/test_ns2_red.py (issue 19, the `red` remedy). EH -wired- R -access- MH as in
# lossy_link.tcl (Agent/TCP/Sack1 to Agent/TCPSink/Sack1/DelAck, packetSize_ 1460); N flows
# from EH to MH, flow i starting at i * 0.2 s; the access link runs Queue/RED with every
# parameter at ns-2.35's default (ns-default.tcl: bytes_, queue_in_bytes_, gentle_, wait_,
# thresh_ 0 / maxthresh_ 0 / q_weight_ -1: automatic; simplex-link calls `$q link` so the
# automatic values come from this link's rate and delay).
#
# Counted on R -> MH for the whole run:
#   early   RED's unforced drops: the queue's early-drop-target (red.cc de_drop_) is an
#           Agent/LossMonitor whose npkts_ counts them
#   forced  the other drops, through the link's drop head: a QueueMonitor's pdrops_
#   arrivals the QueueMonitor's parrivals_ (every packet offered to the link)
#   avg     the mean of RED's ave_ (bytes) over the changes traced (one per arrival)
#   acked   bytes acknowledged, summed over the flows (ack_ x packetSize_)
#
# Usage: ns red_bottleneck.tcl nflows rate_bps delay_s duration_s seed limit_pkts window
#        [wired_delay_s]
# Prints one line:  ns2 early=E forced=F arrivals=A avg=V acked=B

set nflows [lindex $argv 0]
set rate [lindex $argv 1]
set delay [lindex $argv 2]
set duration [lindex $argv 3]
set seed [lindex $argv 4]
set limit [lindex $argv 5]
set window [lindex $argv 6]
set wired_delay 0.022
if {$argc >= 8} { set wired_delay [lindex $argv 7] }

global defaultRNG
$defaultRNG seed $seed

set mss 1460
set ns [new Simulator]
set eh [$ns node]
set r  [$ns node]
set mh [$ns node]
$ns duplex-link $eh $r 100e6 $wired_delay DropTail
$ns duplex-link $r $mh $rate $delay RED
$ns queue-limit $eh $r 1000
$ns queue-limit $r $eh 1000
$ns queue-limit $r $mh $limit
$ns queue-limit $mh $r $limit

set redq [[$ns link $r $mh] queue]
set avgfile "red-avg-$seed-[pid].txt"
set af [open $avgfile w]
$redq trace ave_
$redq attach $af
set edrop [new Agent/LossMonitor]
$ns attach-agent $r $edrop
$redq early-drop-target $edrop
set qm [$ns monitor-queue $r $mh [open /dev/null w]]

for {set i 0} {$i < $nflows} {incr i} {
    set tcp($i) [new Agent/TCP/Sack1]
    $tcp($i) set packetSize_ $mss
    $tcp($i) set window_ $window
    set sink($i) [new Agent/TCPSink/Sack1/DelAck]
    $ns attach-agent $eh $tcp($i)
    $ns attach-agent $mh $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {0.2 * $i}] "$ftp($i) start"
}

proc finish {} {
    global ns nflows tcp mss edrop qm af avgfile
    set acked 0
    for {set i 0} {$i < $nflows} {incr i} {
        set acked [expr {$acked + ([$tcp($i) set ack_] + 1) * $mss}]
    }
    flush $af
    close $af
    set f [open $avgfile r]
    set sum 0.0
    set n 0
    while {[gets $f line] >= 0} {
        if {[lindex $line 0] == "a"} {
            set sum [expr {$sum + [lindex $line 2]}]
            incr n
        }
    }
    close $f
    file delete $avgfile
    set avg [expr {$n > 0 ? $sum / $n : 0.0}]
    puts [format "ns2 early=%d forced=%d arrivals=%d avg=%.3f acked=%d" \
        [$edrop set npkts_] [$qm set pdrops_] [$qm set parrivals_] $avg $acked]
    exit 0
}
$ns at $duration "finish"
$ns run
