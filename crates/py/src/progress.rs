//! A one-line progress bar on stderr for long runs, drawn only when stderr
//! is a terminal (never into logs, pipes or test captures).

use std::io::{IsTerminal, Write};

const WIDTH: usize = 40;

pub struct Bar {
    enabled: bool,
    /// Last whole percent drawn: redraw only when it changes, so a callback
    /// fired per event costs a compare, not a write.
    shown: Option<u32>,
}

impl Bar {
    pub fn new(requested: bool) -> Bar {
        Bar {
            enabled: requested && std::io::stderr().is_terminal(),
            shown: None,
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// `fraction` of the simulated time done, 0.0..=1.0.
    pub fn update(&mut self, fraction: f64) {
        if !self.enabled {
            return;
        }
        let f = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let pct = (f * 100.0) as u32;
        if self.shown == Some(pct) {
            return;
        }
        self.shown = Some(pct);
        let filled = (f * WIDTH as f64) as usize;
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}{}] {pct:3}%",
            "#".repeat(filled),
            " ".repeat(WIDTH - filled)
        );
        let _ = err.flush();
    }

    /// Erase the bar so the summary starts on a clean line.
    pub fn finish(&mut self) {
        if self.enabled && self.shown.is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(WIDTH + 7));
            let _ = err.flush();
        }
        self.shown = None;
    }
}
