//! Receive-buffer autotuning (Linux 6.6 Dynamic Right-Sizing) and the
//! SO_RCVBUF lock.
//!
//! The kernel path (net/ipv4/tcp_input.c, tcp_output.c): the SYN offers
//! `tcp_select_initial_window` = the half-buffer of tcp_rmem[1] (131072 ->
//! 65536) rounded down to whole MSS, at most 65535, with the window shift
//! sized for tcp_rmem[2] (ilog2(6291456) - 15 = 7). At ESTABLISHED
//! `tcp_init_buffer_space` clamps the window to the full space less one
//! MSS. Each time the application reads, `tcp_rcv_space_adjust` compares
//! the bytes read in the last receiver RTT with the previous RTT's; when
//! they grew, `sk_rcvbuf` becomes twice (2·copied + 16·advmss + 2·growth),
//! at most tcp_rmem[2], and `window_clamp` its half. Every received
//! segment of >= 128 bytes raises `rcv_ssthresh` (the window ceiling) by
//! two segments towards the clamp (`tcp_grow_window`).
//!
//! Setup: MSS 1000 both ways, timestamps and window scaling on (the
//! receiver RTT comes from TSecr), a 50 ms one-way wire with no bottleneck,
//! so only the receive window limits the sender; the receiver reads
//! everything at once.
use crate::common;
use airtcp_tcp::TcpConfig;
use common::*;

fn cfg() -> TcpConfig {
    TcpConfig {
        timestamps: true,
        window_scaling: true,
        snd_buf: 64 << 20,
        rcv_buf_autotune: true,
        ..plain()
    }
}

/// Runs a 3 s bulk transfer from `a` to a receiver with `rcv`; returns
/// (bytes read, largest window the receiver advertised, receiver stats).
fn bulk(rcv: TcpConfig) -> (u64, u64, airtcp_tcp::TcpStats) {
    let mut w = pair(cfg(), rcv, ISS, PEER_ISS, dms(50));
    w.run_until(ms(150));
    w.a.send(60 << 20);
    w.run_until(ms(3_000));
    (w.b_read, w.b.stats().rcv_wnd_max, w.b.stats().clone())
}

/// The SYN-ACK of an autotuned listener offers rounddown(65536, 1000) =
/// 65000 unscaled with shift 7. Once established the clamp is 65536 - 1000
/// = 64536, below what the SYN offered; the window never shrinks
/// (`tcp_select_window` keeps `cur_win`), so 65000 stays on offer.
#[test]
fn syn_window_is_half_of_tcp_rmem_default_in_whole_segments() {
    let mut w = pair(cfg(), cfg(), ISS, PEER_ISS, dms(50));
    let syn = w.a.poll_transmit(ms(0)).unwrap();
    assert_eq!((syn.window, syn.wscale), (65_000, Some(7)));
    w.q.push_back((ms(50), true, syn));
    w.run_until(ms(150));
    assert_eq!(w.b.window_scales(), (7, 7));
    assert_eq!(w.b.rcv_window(), 65_000);
}

/// The sender doubles cwnd every RTT (no bottleneck), so the bytes read per
/// RTT keep growing and every measurement raises the buffer: the window
/// passes 64 KiB within a few RTTs and the transfer is not window-bound at
/// 64 KiB per 100 ms (= 655 kB/s, about 2 MB in 3 s).
#[test]
fn rcv_window_grows_beyond_initial_when_app_reads_fast() {
    let (read, wnd_max, st) = bulk(cfg());
    assert!(st.rcvbuf_grows >= 3, "buffer grew {} times", st.rcvbuf_grows);
    assert!(wnd_max > 1 << 20, "window reached only {wnd_max}");
    assert!(read > 8 << 20, "read only {read} bytes");
}

/// SO_RCVBUF (here `rcv_buf_autotune = false`, which a scenario's explicit
/// `rcv_buf` implies) locks the buffer: the window never exceeds `rcv_buf`
/// and the transfer is window-bound: 65535 bytes per 100 ms RTT.
#[test]
fn rcv_buf_set_explicitly_locks_window() {
    let locked = TcpConfig { rcv_buf_autotune: false, rcv_buf: 65_535, ..cfg() };
    let (read, wnd_max, st) = bulk(locked);
    assert_eq!(st.rcvbuf_grows, 0);
    assert!(wnd_max <= 65_535, "window {wnd_max}");
    // 2.85 s of data after the handshake: at most 29 windows.
    assert!(read <= 29 * 65_535, "read {read} bytes");
}

/// With tcp_rmem[2] = 256 KiB the buffer stops there and the window at its
/// half, 128 KiB (`tcp_rcv_space_adjust`'s min(…, tcp_rmem[2])).
#[test]
fn autotune_caps_at_tcp_rmem_max() {
    let capped = TcpConfig { tcp_rmem: [4096, 131_072, 262_144], ..cfg() };
    let (_, wnd_max, st) = bulk(capped);
    assert_eq!(st.rcvbuf_max, 262_144);
    assert!(wnd_max <= 131_072 && wnd_max > 120_000, "window {wnd_max}");
}

/// A reader that does not read: nothing is copied, so no measurement ever
/// grows the buffer and the window closes as the data queues up.
#[test]
fn autotune_does_not_grow_without_reads() {
    let mut w = pair(cfg(), cfg(), ISS, PEER_ISS, dms(50));
    w.b_reads = false;
    w.run_until(ms(150));
    w.a.send(4 << 20);
    w.run_until(ms(2_000));
    assert_eq!(w.b.stats().rcvbuf_grows, 0);
    assert!(w.b.recv_available() <= 65_536, "queued {}", w.b.recv_available());
    assert_eq!(w.b.rcv_window(), 0);
}

#[test]
fn bad_tcp_rmem_is_rejected_naming_the_key() {
    let c = TcpConfig { tcp_rmem: [4096, 1 << 20, 131_072], ..cfg() };
    let e = c.validate().unwrap_err();
    assert!(e.starts_with("tcp_rmem"), "{e}");
    let c = TcpConfig { tcp_wmem: [0, 16_384, 4 << 20], ..cfg() };
    assert!(c.validate().unwrap_err().starts_with("tcp_wmem"));
}
