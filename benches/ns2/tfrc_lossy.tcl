# One TFRC flow over a Bernoulli-lossy bottleneck: the ns-2.35 side of
# scenarios/examples/tfrc-lossy.toml (issue 23, point 1; benches/ns2_tfrc.py, 
# tests/test_ns2_tfrc.py). A dumbbell src -(100 Mb/s, 10 ms)- r -(10 Mb/s, 40 ms)- dst,
# queues of 100 packets; the bottleneck's data direction (r -> dst) loses each packet with
# probability p, drawn by an ErrorModel (unit pkt, uniform ranvar) placed before the queue
# (`$ns lossmodel`, vho's loss_at = "entry") from the default RNG seeded with `seed`, as
# lossy_link.tcl does. Agent/TFRC and Agent/TFRCSink keep ns-2.35's defaults
# (tcl/lib/ns-default.tcl: packetSize_ 1000, InitRate_ 300, df_ 0.95, ...); the source is a
# bulk one (`$tfrc start`, SndrType_ 0).
#
# Usage: ns tfrc_lossy.tcl p seed duration_s [interval_s]
# Prints, every interval_s (default 1 s): "ns2 t=T rate_bps=X p=P" (X: the sender's rate_ in
# bit/s; P: the sink's last reported loss event rate, printLoss_), then one line
#   ns2 end data_bytes=B mean_rate_bps=R mean_p=M
# (ndatabytes_ of tfrc.cc over the duration; M: P time-weighted over the duration).

set p [lindex $argv 0]
set seed [lindex $argv 1]
set duration [lindex $argv 2]
set interval 1.0
if {$argc >= 4} { set interval [lindex $argv 3] }

global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
set src [$ns node]
set r   [$ns node]
set dst [$ns node]
$ns duplex-link $src $r 100e6 0.010 DropTail
$ns duplex-link $r $dst 10e6 0.040 DropTail
foreach {a b} [list $src $r $r $src $r $dst $dst $r] { $ns queue-limit $a $b 100 }

set em [new ErrorModel]
$em unit pkt
$em set rate_ $p
set rv [new RandomVariable/Uniform]
$em ranvar $rv
$em drop-target [new Agent/Null]
$ns lossmodel $em $r $dst

set tfrc [new Agent/TFRC]
set sink [new Agent/TFRCSink]
$ns attach-agent $src $tfrc
$ns attach-agent $dst $sink
$ns connect $tfrc $sink

# The sink's loss event rate, as it computes it for each report (tfrc-sink.cc print_loss:
# "time: T loss_rate: P"), is read from stdout by the driver; here only the sender's side.
$sink set printLoss_ 1

proc sample {} {
    global ns tfrc interval
    puts [format "ns2 t=%.3f rate_bps=%.3f" [$ns now] [expr {8.0 * [$tfrc set rate_]}]]
    $ns at [expr {[$ns now] + $interval}] "sample"
}

proc finish {} {
    global ns tfrc duration
    set bytes [$tfrc set ndatabytes_]
    puts [format "ns2 end data_bytes=%d mean_rate_bps=%.3f" $bytes \
        [expr {8.0 * $bytes / $duration}]]
    exit 0
}

$ns at 0.0 "$tfrc start"
$ns at $interval "sample"
$ns at $duration "finish"
$ns run
