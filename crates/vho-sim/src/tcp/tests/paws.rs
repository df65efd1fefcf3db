//! PAWS (RFC 7323 §5.3, `paws`): the receiver drops a segment whose timestamp is older than
//! TS.Recent, as Linux's `tcp_paws_discard` does.

use super::*;

const MSS: u32 = 1000;

/// A linux-profile receiver (PAWS as `paws`) that acknowledges every segment at once, after a
/// handshake whose SYN-ACK (timestamp 1) sets RCV.NXT to 0 and permits SACK.
fn receiver(paws: bool) -> TcpReceiver {
    let mut c = cfg("linux");
    c.paws = paws;
    c.delack.enabled = false;
    c.mss = MSS;
    let mut r = TcpReceiver::new(&c, 2, 1, SeqNum(0));
    r.poll_transmit(Time::ZERO).expect("the SYN");
    let mut synack = ack(1, &[]);
    synack.seq = SeqNum(u32::MAX);
    synack.flags = Flags::SYN | Flags::ACK;
    synack.options.mss = Some(MSS as u16);
    synack.options.sack_permitted = true;
    synack.options.timestamps = Some((1, 1));
    r.handle_segment(Time::ZERO, &synack);
    r.poll_transmit(Time::ZERO).expect("the handshake's ACK");
    r
}

/// An ACK as the tests read it: cumulative ACK, SACK blocks (a D-SACK first), timestamp echo.
type Ack = (u32, Vec<(u32, u32)>, u32);

/// Segment `k` arrives carrying timestamp `tsval`; returns the ACK sent at once.
fn arrive(r: &mut TcpReceiver, k: u32, tsval: u32) -> Ack {
    let mut seg = data(k * MSS, MSS);
    seg.options.timestamps = Some((tsval, 1));
    r.handle_segment(Time::from_millis(tsval as u64), &seg);
    let a = r
        .poll_transmit(Time::from_millis(tsval as u64))
        .expect("an ACK for every segment");
    let blocks = a.segment.options.sack.as_slice();
    let echo = a.segment.options.timestamps.expect("timestamps").1;
    (
        a.segment.ack.0,
        blocks.iter().map(|b| (b.0 .0, b.1 .0)).collect(),
        echo,
    )
}

/// The story of vho emulate's GPRS -> WLAN soft cell (Linux 6.18, the mobile's nstat:
/// PAWSEstab 4): segments 1 and 2 wait in the old link's queue while 3 arrives over the new
/// one; 1 is resent and its original arrives first, then the resend (a duplicate, sequence at
/// or below Last.ACK.sent: its TSval becomes TS.Recent, RFC 7323 §4.3), then 2's original,
/// sent before the resend.
fn story(paws: bool) -> (TcpReceiver, Ack) {
    let mut r = receiver(paws);
    assert_eq!(arrive(&mut r, 0, 100).0, MSS);
    assert_eq!(arrive(&mut r, 3, 100).1, vec![(3 * MSS, 4 * MSS)]);
    assert_eq!(arrive(&mut r, 1, 100).0, 2 * MSS); // 1's original
    let dup = arrive(&mut r, 1, 400); // 1's resend
    assert_eq!(dup.1[0], (MSS, 2 * MSS)); // D-SACK (RFC 2883)
    assert_eq!(dup.2, 400); // TS.Recent is now the resend's
    let late = arrive(&mut r, 2, 100); // 2's original
    (r, late)
}

#[test]
fn a_late_original_older_than_ts_recent_is_dropped_and_acknowledged_at_once() {
    // RFC 7323 §5.3 R1: "If ... SEG.TSval < TS.Recent ... treat the arriving segment as not
    // acceptable: Send an acknowledgment in reply ... and drop the segment."
    let (mut r, late) = story(true);
    assert_eq!(late, (2 * MSS, vec![(3 * MSS, 4 * MSS)], 400));
    assert_eq!(r.stats().paws_rejected, 1);
    assert_eq!(r.delivered_bytes(), 2 * MSS as u64);
    // Only a copy sent after TS.Recent's fills the hole.
    assert_eq!(arrive(&mut r, 2, 500).0, 4 * MSS);
    // Without PAWS the late original is taken.
    let (r, late) = story(false);
    assert_eq!(late.0, 4 * MSS);
    assert_eq!(r.stats().paws_rejected, 0);
}

#[test]
fn one_tick_older_than_ts_recent_is_still_accepted() {
    // TCP_PAWS_WINDOW = 1 (tcp_paws_check: ts_recent − rcv_tsval <= 1 passes).
    let mut r = receiver(true);
    arrive(&mut r, 0, 100);
    arrive(&mut r, 2, 100);
    arrive(&mut r, 0, 400); // duplicate at Last.ACK.sent: TS.Recent 400
    assert_eq!(arrive(&mut r, 1, 399).0, 3 * MSS);
    assert_eq!(r.stats().paws_rejected, 0);
    // A duplicate below RCV.NXT rejected by PAWS still gets its D-SACK (tcp_send_dupack).
    let (a, blocks, _) = arrive(&mut r, 1, 100);
    assert_eq!((a, blocks), (3 * MSS, vec![(MSS, 2 * MSS)]));
    assert_eq!(r.stats().paws_rejected, 1);
}
