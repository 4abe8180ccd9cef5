//! One pcap per link, each frame stamped with the start of its transmission.
//! A frame is known when it is enqueued but may start later (behind a queue),
//! so records wait in a per-direction FIFO and are merged into the file once
//! no earlier frame can still appear: every future frame starts at or after
//! the current simulated time.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use airtcp_core::pcap::PcapWriter;
use airtcp_core::{Instant, Packet};

use crate::realbytes::RealBytes;
use crate::SimError;

struct LinkCapture {
    writer: PcapWriter<BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
    pending: [VecDeque<(Instant, Packet)>; 2],
}

/// One radio's monitor-mode capture: radiotap + 802.11 records, written as
/// they happen (a radio's records come in time order).
struct RadioCapture {
    out: BufWriter<File>,
    tmp: PathBuf,
    path: PathBuf,
    buf: Vec<u8>,
}

pub struct PcapOut {
    links: Vec<LinkCapture>,
    /// An emulated run's real bytes: records of packets that came from a
    /// kernel hold its bytes rather than zeros.
    pub real: Option<Rc<RefCell<RealBytes>>>,
    scratch: Vec<u8>,
    radios: Vec<RadioCapture>,
    error: Option<SimError>,
}

/// Snap length of radio captures (whole frames).
const RADIO_SNAPLEN: u32 = 65_535;

impl LinkCapture {
    /// Write pending records with time <= `upto`, oldest first (direction ab first on ties).
    fn flush(&mut self, upto: Instant, real: Option<&RefCell<RealBytes>>, scratch: &mut Vec<u8>) -> std::io::Result<()> {
        loop {
            let a = self.pending[0].front().map(|r| r.0);
            let b = self.pending[1].front().map(|r| r.0);
            let dir = match (a, b) {
                (Some(ta), Some(tb)) => {
                    if ta <= tb {
                        0
                    } else {
                        1
                    }
                }
                (Some(_), None) => 0,
                (None, Some(_)) => 1,
                (None, None) => return Ok(()),
            };
            let t = self.pending[dir].front().expect("some").0;
            if t > upto {
                return Ok(());
            }
            let (t, pkt) = self.pending[dir].pop_front().expect("some");
            match real {
                Some(r) => {
                    r.borrow().materialize(&pkt, scratch);
                    self.writer.write_bytes(t, scratch)?;
                }
                None => self.writer.write(t, &pkt)?,
            }
        }
    }
}

impl PcapOut {
    /// `names[i]` = file stem of link `i` (e.g. "link0_snd-rtr"), `radios[i]`
    /// of radio `i` (e.g. "radio0_ap").
    pub fn create(dir: &Path, names: &[String], radios: &[String]) -> Result<PcapOut, SimError> {
        std::fs::create_dir_all(dir).map_err(|err| SimError::Io { path: dir.to_path_buf(), err })?;
        let mut links = Vec::with_capacity(names.len());
        for n in names {
            let path = dir.join(format!("{n}.pcap"));
            let tmp = dir.join(format!(".{n}.pcap.tmp"));
            let f = File::create(&tmp).map_err(|err| SimError::Io { path: tmp.clone(), err })?;
            let writer = PcapWriter::new(BufWriter::new(f)).map_err(|err| SimError::Io { path: tmp.clone(), err })?;
            links.push(LinkCapture { writer, tmp, path, pending: [VecDeque::new(), VecDeque::new()] });
        }
        let mut rcaps = Vec::with_capacity(radios.len());
        for n in radios {
            let path = dir.join(format!("{n}.pcap"));
            let tmp = dir.join(format!(".{n}.pcap.tmp"));
            let f = File::create(&tmp).map_err(|err| SimError::Io { path: tmp.clone(), err })?;
            let mut out = BufWriter::new(f);
            let mut buf = Vec::with_capacity(64);
            airtcp_wifi::capture::write_pcap_header(&mut buf, RADIO_SNAPLEN);
            out.write_all(&buf).map_err(|err| SimError::Io { path: tmp.clone(), err })?;
            rcaps.push(RadioCapture { out, tmp, path, buf });
        }
        Ok(PcapOut { links, real: None, scratch: Vec::with_capacity(65_536), radios: rcaps, error: None })
    }

    /// Whether radio captures were asked for.
    pub fn has_radios(&self) -> bool {
        !self.radios.is_empty()
    }

    /// One record (radiotap + 802.11 bytes) of radio `radio` at `t`.
    pub fn air(&mut self, radio: usize, t: Instant, bytes: &[u8]) {
        let Some(r) = self.radios.get_mut(radio) else { return };
        r.buf.clear();
        let res = airtcp_wifi::capture::write_record(&mut r.buf, t, bytes, RADIO_SNAPLEN)
            .map_err(std::io::Error::other)
            .and_then(|_| r.out.write_all(&r.buf));
        if let Err(err) = res {
            if self.error.is_none() {
                self.error = Some(SimError::Io { path: r.tmp.clone(), err });
            }
        }
    }

    /// A frame of `link`/`dir` that starts transmission at `start`, offered at `now`.
    pub fn capture(&mut self, link: usize, dir: usize, start: Instant, now: Instant, pkt: &Packet) {
        let l = &mut self.links[link];
        l.pending[dir].push_back((start, *pkt));
        if let Err(err) = l.flush(now, self.real.as_deref(), &mut self.scratch) {
            if self.error.is_none() {
                self.error = Some(SimError::Io { path: l.tmp.clone(), err });
            }
        }
    }

    /// Write what is left and move the files into place.
    pub fn finish(self) -> Result<(), SimError> {
        if let Some(e) = self.error {
            for l in &self.links {
                let _ = std::fs::remove_file(&l.tmp);
            }
            for r in &self.radios {
                let _ = std::fs::remove_file(&r.tmp);
            }
            return Err(e);
        }
        let mut done = Vec::with_capacity(self.links.len());
        let mut scratch = self.scratch;
        for mut l in self.links {
            l.flush(Instant::MAX, self.real.as_deref(), &mut scratch).map_err(|err| SimError::Io { path: l.tmp.clone(), err })?;
            l.writer.finish().map_err(|err| SimError::Io { path: l.tmp.clone(), err })?;
            done.push((l.tmp, l.path));
        }
        for mut r in self.radios {
            r.out.flush().map_err(|err| SimError::Io { path: r.tmp.clone(), err })?;
            done.push((r.tmp, r.path));
        }
        for (tmp, path) in done {
            std::fs::rename(&tmp, &path).map_err(|err| SimError::Io { path: path.clone(), err })?;
        }
        Ok(())
    }
}
