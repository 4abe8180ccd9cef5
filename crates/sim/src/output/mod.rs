//! Writing a run's results. Everything goes to a temporary sibling directory
//! first and is renamed into place at the end, so a failure never leaves a
//! half-written result behind (files of earlier runs that this run does not
//! produce, e.g. pcaps, are left alone).

mod csv;
mod parquet;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{RunOutput, SimError};

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SimError + '_ {
    move |err| SimError::Io { path: path.to_path_buf(), err }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), SimError> {
    let mut f = fs::File::create(path).map_err(io_err(path))?;
    f.write_all(bytes).map_err(io_err(path))?;
    f.sync_all().map_err(io_err(path))
}

/// One JSON object per line: `{"detail":..,"flow":..,"kind":..,"link":..,"t_s":..}`.
pub fn events_jsonl(out: &RunOutput) -> String {
    let mut s = String::with_capacity(out.events.len() * 80);
    for e in &out.events {
        let v = serde_json::json!({ "t_s": e.t_s, "kind": e.kind, "flow": e.flow, "link": e.link, "detail": e.detail });
        s.push_str(&v.to_string());
        s.push('\n');
    }
    s
}

/// Write `summary.json`, `flow<i>.csv`/`.parquet`, `flow<i>_segments.csv`/`.parquet`
/// and `events.jsonl` into `dir` (created if missing).
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

fn write_all(out: &RunOutput, dir: &Path) -> Result<Vec<String>, SimError> {
    let mut files = Vec::new();
    let mut put = |name: String, bytes: &[u8]| -> Result<(), SimError> {
        write_file(&dir.join(&name), bytes)?;
        files.push(name);
        Ok(())
    };
    let mut summary = serde_json::to_string_pretty(&out.summary).expect("json");
    summary.push('\n');
    put("summary.json".into(), summary.as_bytes())?;
    for (i, s) in out.series.iter().enumerate() {
        put(format!("flow{i}.csv"), csv::series(s).as_bytes())?;
        let p = dir.join(format!("flow{i}.parquet"));
        put(format!("flow{i}.parquet"), &parquet::series(s).map_err(|msg| SimError::Parquet { path: p, msg })?)?;
    }
    for (i, s) in out.segments.iter().enumerate() {
        put(format!("flow{i}_segments.csv"), csv::segments(s).as_bytes())?;
        let p = dir.join(format!("flow{i}_segments.parquet"));
        put(format!("flow{i}_segments.parquet"), &parquet::segments(s).map_err(|msg| SimError::Parquet { path: p, msg })?)?;
    }
    put("events.jsonl".into(), events_jsonl(out).as_bytes())?;
    Ok(files)
}
