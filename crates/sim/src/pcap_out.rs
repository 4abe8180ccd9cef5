//! One pcap per link, each frame stamped with the start of its transmission.
//! A frame is known when it is enqueued but may start later (behind a queue),
//! so records wait in a per-direction FIFO and are merged into the file once
//! no earlier frame can still appear: every future frame starts at or after
//! the current simulated time.

use std::collections::VecDeque;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use airtcp_core::pcap::PcapWriter;
use airtcp_core::{Instant, Packet};

use crate::SimError;

struct LinkCapture {
    writer: PcapWriter<BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
    pending: [VecDeque<(Instant, Packet)>; 2],
}

pub struct PcapOut {
    links: Vec<LinkCapture>,
    error: Option<SimError>,
}

impl LinkCapture {
    /// Write pending records with time <= `upto`, oldest first (direction ab first on ties).
    fn flush(&mut self, upto: Instant) -> std::io::Result<()> {
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
            self.writer.write(t, &pkt)?;
        }
    }
}

impl PcapOut {
    /// `names[i]` = file stem of link `i` (e.g. "link0_snd-rtr").
    pub fn create(dir: &Path, names: &[String]) -> Result<PcapOut, SimError> {
        std::fs::create_dir_all(dir).map_err(|err| SimError::Io { path: dir.to_path_buf(), err })?;
        let mut links = Vec::with_capacity(names.len());
        for n in names {
            let path = dir.join(format!("{n}.pcap"));
            let tmp = dir.join(format!(".{n}.pcap.tmp"));
            let f = File::create(&tmp).map_err(|err| SimError::Io { path: tmp.clone(), err })?;
            let writer = PcapWriter::new(BufWriter::new(f)).map_err(|err| SimError::Io { path: tmp.clone(), err })?;
            links.push(LinkCapture { writer, tmp, path, pending: [VecDeque::new(), VecDeque::new()] });
        }
        Ok(PcapOut { links, error: None })
    }

    /// A frame of `link`/`dir` that starts transmission at `start`, offered at `now`.
    pub fn capture(&mut self, link: usize, dir: usize, start: Instant, now: Instant, pkt: &Packet) {
        let l = &mut self.links[link];
        l.pending[dir].push_back((start, *pkt));
        if let Err(err) = l.flush(now) {
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
            return Err(e);
        }
        let mut done = Vec::with_capacity(self.links.len());
        for mut l in self.links {
            l.flush(Instant::MAX).map_err(|err| SimError::Io { path: l.tmp.clone(), err })?;
            l.writer.finish().map_err(|err| SimError::Io { path: l.tmp.clone(), err })?;
            done.push((l.tmp, l.path));
        }
        for (tmp, path) in done {
            std::fs::rename(&tmp, &path).map_err(|err| SimError::Io { path: path.clone(), err })?;
        }
        Ok(())
    }
}
