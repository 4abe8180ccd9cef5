# Reduce a bulk.tcl trace to what the validation compares:
#   B <boot_time>                 the agent's boot_time_ (s)
#   P <t_us> <seqno>              a packet enqueued on the forward link (sent)
#   D <t_us> <seqno>              a packet the forward queue dropped
#   T <t_s>                       a retransmission timeout (nrexmit_ grew)
#   K <t_s> <backoff>             backoff_ changed
#   S <sink bytes_> <ack_>        at the end: bytes the sink got, highest ACK
$1 == "B" { print; next }
$1 == "S" { print; next }
$1 == "+" && $3 == 0 { printf "P %d %d\n", $2 * 1e6 + 0.5, $11; next }
$1 == "d" && $3 == 0 { printf "D %d %d\n", $2 * 1e6 + 0.5, $11; next }
$6 == "nrexmit_" && $7 > 0 { print "T", $1; next }
$6 == "backoff_" { print "K", $1, $7; next }
