//! Writing a run's results. Everything goes to a temporary sibling directory
//! first and is renamed into place at the end, so a failure never leaves a
//! half-written result behind (files of earlier runs that this run does not
//! produce, e.g. pcaps, are left alone).
//!
//! No fsync: the rename already guarantees that a run that fails or is
//! killed leaves either the complete new files or the old ones, and every
//! output is reproducible from the scenario and seed, so surviving a power
//! cut (the only thing an fsync adds) is not worth the cost — syncing the
//! ~15 MB of a 600 s bulk run took longer than writing it.

mod csv;
mod num;
mod parquet;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{RunOutput, SimError};

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SimError + '_ {
    move |err| SimError::Io { path: path.to_path_buf(), err }
}

/// Create `path` and let `fill` write it. The CSV and Parquet writers batch
/// their output into large chunks themselves, so the file is unbuffered.
fn write_file(path: &Path, fill: impl Fn(&mut fs::File) -> std::io::Result<()>) -> Result<(), SimError> {
    let mut f = fs::File::create(path).map_err(io_err(path))?;
    fill(&mut f).map_err(io_err(path))
}

/// One JSON object per line: `{"detail":..,"flow":..,"kind":..,"link":..,"t_s":..}`
/// (keys sorted, as serde_json writes a map; numbers and strings through
/// serde_json, so the bytes are the same as serialising a `json!` object).
pub fn events_jsonl(out: &RunOutput) -> String {
    let mut s = Vec::with_capacity(out.events.len() * 80);
    write_events_jsonl(out, &mut s).expect("writing to a Vec");
    String::from_utf8(s).expect("serde_json writes UTF-8")
}

/// [`events_jsonl`] streamed to `w` in chunks.
pub fn write_events_jsonl<W: Write>(out: &RunOutput, w: &mut W) -> std::io::Result<()> {
    const CHUNK: usize = 64 * 1024;
    let mut s = Vec::with_capacity(CHUNK + 1024);
    for e in &out.events {
        s.extend_from_slice(b"{\"detail\":");
        serde_json::to_writer(&mut s, &e.detail)?;
        s.extend_from_slice(b",\"flow\":");
        serde_json::to_writer(&mut s, &e.flow)?;
        s.extend_from_slice(b",\"kind\":");
        serde_json::to_writer(&mut s, &e.kind)?;
        s.extend_from_slice(b",\"link\":");
        serde_json::to_writer(&mut s, &e.link)?;
        s.extend_from_slice(b",\"t_s\":");
        serde_json::to_writer(&mut s, &serde_json::json!(e.t_s))?;
        s.extend_from_slice(b"}\n");
        if s.len() >= CHUNK {
            w.write_all(&s)?;
            s.clear();
        }
    }
    w.write_all(&s)
}

/// Write `summary.json`, `flow<i>.csv`/`.parquet`, `flow<i>_segments.csv`/`.parquet`,
/// `udp<i>.csv`/`.parquet` (one per UDP flow) and `events.jsonl` into `dir`
/// (created if missing).
pub fn write_outputs(out: &RunOutput, dir: &Path) -> Result<(), SimError> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(io_err(&parent))?;
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    if tmp.exists() {
        fs::remove_dir_all(&tmp).map_err(io_err(&tmp))?;
    }
    fs::create_dir(&tmp).map_err(io_err(&tmp))?;
    let result = write_all(out, &tmp).and_then(|files| {
        fs::create_dir_all(dir).map_err(io_err(dir))?;
        for f in files {
            let to = dir.join(&f);
            fs::rename(tmp.join(&f), &to).map_err(io_err(&to))?;
        }
        Ok(())
    });
    let _ = fs::remove_dir_all(&tmp);
    result
}

/// Writes one file's content.
type Fill<'a> = Box<dyn Fn(&mut fs::File) -> std::io::Result<()> + Sync + 'a>;

/// One output file: its name and what writes it.
struct Job<'a> {
    name: String,
    fill: Fill<'a>,
}

fn job<'a>(name: String, fill: impl Fn(&mut fs::File) -> std::io::Result<()> + Sync + 'a) -> Job<'a> {
    Job { name, fill: Box::new(fill) }
}

/// Write every file into `dir` and return their names. The files are
/// independent, so two threads write them (each file's bytes do not depend
/// on which thread wrote it); formatting the CSVs is most of the work.
fn write_all(out: &RunOutput, dir: &Path) -> Result<Vec<String>, SimError> {
    let mut summary = serde_json::to_string_pretty(&out.summary).expect("json");
    summary.push('\n');
    let summary = summary.as_str();
    // Largest first, so the two threads finish at about the same time.
    let mut jobs = Vec::new();
    for (i, s) in out.segments.iter().enumerate() {
        jobs.push(job(format!("flow{i}_segments.csv"), move |f| csv::segments(s, f)));
    }
    for (i, s) in out.series.iter().enumerate() {
        jobs.push(job(format!("flow{i}.csv"), move |f| csv::series(s, f)));
        jobs.push(job(format!("flow{i}.parquet"), move |f| parquet::series(s, f)));
    }
    for (i, s) in out.udp_series.iter().enumerate() {
        jobs.push(job(format!("udp{i}.csv"), move |f| csv::udp_series(s, f)));
        jobs.push(job(format!("udp{i}.parquet"), move |f| parquet::udp_series(s, f)));
    }
    for (i, s) in out.segments.iter().enumerate() {
        jobs.push(job(format!("flow{i}_segments.parquet"), move |f| parquet::segments(s, f)));
    }
    jobs.push(job("events.jsonl".into(), move |f| write_events_jsonl(out, f)));
    jobs.push(job("summary.json".into(), move |f| f.write_all(summary.as_bytes())));

    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(j) = jobs.get(i) else { break };
            done.push((i, write_file(&dir.join(&j.name), &j.fill)));
        }
        done
    };
    let two = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    let mut results = std::thread::scope(|sc| {
        let helper = if two { std::thread::Builder::new().name("airtcp-write".into()).spawn_scoped(sc, work).ok() } else { None };
        let mut mine = work();
        if let Some(h) = helper {
            mine.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        mine
    });
    // The first failing file in job order, whichever thread saw it.
    results.sort_by_key(|(i, _)| *i);
    for (_, r) in results {
        r?;
    }
    Ok(jobs.into_iter().map(|j| j.name).collect())
}
