# ns-2 2.35 twin of the bulk lossy anchor: one one-way TCP agent over a
# 10 Mb/s, 20 ms duplex link with DropTail queues of 100 packets, loss on the
# forward link only, 60 s of FTP.
#
# usage: ns bulk.tcl AGENT SINK WINDOW LOSS OUT [DURATION]
#   AGENT  tahoe | reno | newreno
#   SINK   tcpsink | delack
#   WINDOW window_ in packets
#   LOSS   list:I,J,K    drop the forward link's packets number I, J, K (0-based)
#          rate:P:RUN    drop each forward packet with probability P (RNG substream RUN)
#          none
#   OUT    trace file written: the forward queue's trace, the agent's traced
#          variables and a "B <boot_time>" line (see regen.sh)
set agent [lindex $argv 0]
set sinkkind [lindex $argv 1]
set window [lindex $argv 2]
set loss [lindex $argv 3]
set out [lindex $argv 4]
set duration [expr {[llength $argv] > 5 ? [lindex $argv 5] : 60.0}]

set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 10Mb 20ms DropTail
$ns queue-limit $n0 $n1 100
$ns queue-limit $n1 $n0 100

set f [open $out w]
$ns trace-queue $n0 $n1 $f

switch $agent {
    tahoe { set tcp [new Agent/TCP] }
    reno { set tcp [new Agent/TCP/Reno] }
    newreno { set tcp [new Agent/TCP/Newreno] }
    default { puts stderr "unknown agent $agent"; exit 2 }
}
switch $sinkkind {
    tcpsink { set sink [new Agent/TCPSink] }
    delack { set sink [new Agent/TCPSink/DelAck] }
    default { puts stderr "unknown sink $sinkkind"; exit 2 }
}
$tcp set window_ $window
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink

set parts [split $loss :]
switch [lindex $parts 0] {
    list {
        set em [new ErrorModel/List]
        $em droplist [split [lindex $parts 1] ,]
    }
    rate {
        set em [new ErrorModel]
        $em unit pkt
        $em set rate_ [lindex $parts 1]
        # Run R uses substream R of a fresh RNG stream. Not `$rng seed R`:
        # with a small seed MRG32k3a's first draws are tiny (seed 1 gives
        # 3.4e-4, seed 10 3.3e-3), so every run would lose its SYN.
        set rng [new RNG]
        for {set i 1} {$i < [lindex $parts 2]} {incr i} { $rng next-substream }
        set rv [new RandomVariable/Uniform]
        $rv use-rng $rng
        $em ranvar $rv
    }
    none { set em "" }
    default { puts stderr "unknown loss $loss"; exit 2 }
}
if {$em != ""} {
    # After the link: a dropped packet has used the link's time.
    $ns link-lossmodel $em $n0 $n1
}

$tcp attach $f
$tcp trace srtt_
$tcp trace rttvar_
$tcp trace backoff_
$tcp trace nrexmit_
$tcp trace rtt_

set ftp [$tcp attach-source FTP]

# boot_time_ is drawn from the default RNG by the agent's reset: seed it,
# read the draw it will get, seed again and reset.
global defaultRNG
$defaultRNG seed 4242
set u [$defaultRNG uniform 0 1]
$defaultRNG seed 4242
$tcp reset
puts $f "B [expr {$u * [$tcp set tcpTick_]}]"

$ns at 0.0 "$ftp start"
$ns at $duration "finish"
proc finish {} {
    global f sink
    global tcp
    puts $f "S [$sink set bytes_] [$tcp set ack_]"
    close $f
    exit 0
}
$ns run
