//! `airtcp-analyze PATH --out DIR [--events FILE] [--interval S] [--min-gap S]`:
//! the analysis without Python (what `airtcp analyze` runs), for scripts
//! and benchmarks. Exit status: 0 success, 1 unreadable input, 2 bad usage.

use std::path::PathBuf;
use std::process::ExitCode;

use airtcp_analyze::{analyze_path, read_events, AnalyzeError, Options};

const USAGE: &str = "usage: airtcp-analyze PATH --out DIR [--events FILE] [--interval SECONDS] [--min-gap SECONDS]";

fn seconds(flag: &str, v: Option<String>) -> Result<i64, String> {
    let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
    match v.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => Ok((s * 1e9) as i64),
        _ => Err(format!("{flag}: {v:?} is not a positive number of seconds")),
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut path, mut out, mut events) = (None, None, None);
    let mut opts = Options::default();
    while let Some(a) = args.next() {
        let r = match a.as_str() {
            "--out" | "-o" => args.next().map(|v| out = Some(PathBuf::from(v))).ok_or("--out needs a value".to_string()),
            "--events" => args.next().map(|v| events = Some(PathBuf::from(v))).ok_or("--events needs a value".to_string()),
            "--interval" => seconds("--interval", args.next()).map(|v| opts.interval_ns = v),
            "--min-gap" => seconds("--min-gap", args.next()).map(|v| opts.min_gap_ns = v),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if path.is_none() && !a.starts_with('-') => {
                path = Some(PathBuf::from(a));
                Ok(())
            }
            _ => Err(format!("unexpected argument {a:?}")),
        };
        if let Err(m) = r {
            eprintln!("error: {m}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let (Some(path), Some(out)) = (path, out) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let mut run = || -> Result<(), AnalyzeError> {
        if let Some(e) = &events {
            opts.events = read_events(e)?;
        }
        for (cap, s) in analyze_path(&path, &out, &opts)? {
            println!(
                "{}: {} packets, {} TCP, {} connections, {:.3} s{}{}",
                cap.display(),
                s.packets,
                s.tcp_packets,
                s.connections,
                s.duration_s,
                if s.damaged > 0 { format!(", {} damaged packets skipped", s.damaged) } else { String::new() },
                s.truncated.as_ref().map_or(String::new(), |t| format!("; warning: {t}")),
            );
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e @ AnalyzeError::Usage(_)) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
