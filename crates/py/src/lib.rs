//! `airtcp._native`: the simulator behind `airtcp.run`.
//!
//! `validate` parses and builds a scenario without running it.
//! The main entry point, `run`, parses the scenario (raising
//! `airtcp.ScenarioError` before anything is written), runs it with the GIL
//! released, optionally writes the output directory, and hands back a
//! `NativeResult` whose columns Python turns into DataFrames. The exception
//! classes live in pure Python (`airtcp._errors`) so `import airtcp` loads no
//! compiled code.
//!
//! # Layer map
//!
//! The top of the workspace: a Python extension module over `airtcp-sim`
//! (runs and validation) and `airtcp-analyze` (captures and the metrics'
//! definitions). Inside: this file (`run`, `validate`, `analyze`,
//! `interruption` and `NativeResult`), `convert` (run outputs to Python
//! columns and dicts), `metrics` (the functions behind `airtcp.metrics`) and
//! `progress` (the progress bar on a terminal). Only the Python package
//! `airtcp` (python/airtcp) imports it.
//!
//! An extension module links against the Python that loads it, so it has
//! no Rust doctests (`doctest = false`); its example is Python, run by
//! `tests/python/test_docs.py`:
//!
//! ```python
//! import json
//! from airtcp import _native
//!
//! toml = '''
//! [sim]
//! duration = "2s"
//! [[nodes]]
//! name = "snd"
//! [[nodes]]
//! name = "rcv"
//! [[links]]
//! a = "snd"
//! b = "rcv"
//! rate = "10Mbps"
//! delay = "20ms"
//! [[flows]]
//! from = "snd"
//! to = "rcv"
//! '''
//! # Parsed and built, not run: the scenario with every default filled in.
//! resolved = json.loads(_native.validate(toml, "first.toml", "toml", []))
//! assert resolved["flows"][0]["tcp"]["cc"] == "cubic"
//! # Run with seed 1, no --set, nothing written, no pcap, no progress bar.
//! res = _native.run(toml, "first.toml", "toml", 1, [], None, False, False)
//! assert json.loads(res.summary_json)["flows"][0]["bytes_delivered"] > 1_000_000
//! ```

mod convert;
mod metrics;
mod progress;

use std::path::{Path, PathBuf};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use airtcp_sim::{RunOptions, RunOutput, Scenario};

fn py_error(py: Python<'_>, class: &str, msg: String) -> PyErr {
    match py.import("airtcp._errors").and_then(|m| m.getattr(class)) {
        Ok(cls) => match cls.call1((msg.clone(),)) {
            Ok(exc) => PyErr::from_value(exc),
            Err(e) => e,
        },
        // Only if the package is broken: still say what went wrong.
        Err(_) => PyValueError::new_err(msg),
    }
}

/// `airtcp.ScenarioError(str(e))` with the parts as attributes: `file`,
/// `line` (None for JSON or overrides), `key`, `message`, `override`.
fn scenario_error(py: Python<'_>, e: &airtcp_sim::ScenarioError) -> PyErr {
    let err = py_error(py, "ScenarioError", e.to_string());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("file", &e.file)?;
        value.setattr("line", e.line)?;
        value.setattr("key", &e.key)?;
        value.setattr("message", &e.message)?;
        value.setattr("override", &e.via_override)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// Run one scenario.
///
/// `source` is the scenario text (`fmt` = "toml" or "json") or a path to a
/// scenario file (`fmt` = "path"); `origin` names it in error messages.
/// `overrides` are `(dotted.path, value)` pairs applied like `--set`.
#[pyfunction]
#[pyo3(signature = (source, origin, fmt, seed, overrides, out_dir, pcap, progress))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    source: &str,
    origin: &str,
    fmt: &str,
    seed: Option<u64>,
    overrides: Vec<(String, String)>,
    out_dir: Option<PathBuf>,
    pcap: bool,
    progress: bool,
) -> PyResult<NativeResult> {
    let scenario = parse(py, source, origin, fmt, &overrides)?;
    if pcap && out_dir.is_none() {
        return Err(PyValueError::new_err("pcap needs an output directory"));
    }

    let outcome = py.detach(|| {
        let mut bar = progress::Bar::new(progress);
        let show = bar.enabled();
        let mut on_progress = |f: f64| bar.update(f);
        let opts = RunOptions {
            seed,
            pcap_dir: if pcap { out_dir.clone() } else { None },
            progress: if show { Some(&mut on_progress) } else { None },
        };
        // A panic is a simulator bug; report it as SimError rather than
        // pyo3's PanicException, which `except Exception` does not catch.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            airtcp_sim::run(&scenario, opts)
        }));
        bar.finish();
        let out = match run {
            Ok(r) => r.map_err(|e| e.to_string())?,
            Err(p) => {
                return Err(format!(
                    "internal error (a bug in airtcp): {}",
                    panic_message(&*p)
                ))
            }
        };
        if let Some(dir) = &out_dir {
            airtcp_sim::write_outputs(&out, dir).map_err(|e| e.to_string())?;
        }
        Ok::<RunOutput, String>(out)
    });
    let out = outcome.map_err(|msg| py_error(py, "SimError", msg))?;
    Ok(NativeResult { out })
}

/// Validate one scenario without running it: parse it (`fmt` and `origin`
/// as for [`run`], `overrides` applied like `--set`) and build its model.
/// Returns the scenario with every default filled in, as JSON (the
/// `scenario` of summary.json). Raises `airtcp.ScenarioError` for a bad
/// scenario, `airtcp.SimError` for one the simulator cannot build.
#[pyfunction]
fn validate(
    py: Python<'_>,
    source: &str,
    origin: &str,
    fmt: &str,
    overrides: Vec<(String, String)>,
) -> PyResult<String> {
    let scenario = parse(py, source, origin, fmt, &overrides)?;
    let built = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            airtcp_sim::validate(&scenario)
        }))
        .map_err(|p| format!("internal error (a bug in airtcp): {}", panic_message(&*p)))?
        .map_err(|e| e.to_string())
    });
    built.map_err(|msg| py_error(py, "SimError", msg))?;
    let mut json = scenario.to_json();
    json["sim"]["seed"] = serde_json::json!(scenario.sim.seed);
    Ok(json.to_string())
}

/// Parse a scenario given as text (`fmt` "toml" or "json") or as a path
/// (`fmt` "path"), raising `airtcp.ScenarioError`.
fn parse(
    py: Python<'_>,
    source: &str,
    origin: &str,
    fmt: &str,
    overrides: &[(String, String)],
) -> PyResult<Scenario> {
    let parsed = match fmt {
        "toml" => Scenario::from_toml_str(source, origin, overrides),
        "json" => Scenario::from_json_str(source, origin, overrides),
        "path" => Scenario::from_path(Path::new(source), overrides),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown scenario format {other:?}"
            )))
        }
    };
    parsed.map_err(|e| scenario_error(py, &e))
}

/// The delivery interruption around a disconnection at `event_s`
/// (`airtcp_analyze::interruption_around`: the last in-order delivery at
/// or before it to the first new one after it) on a flow's series of
/// cumulative in-order bytes: `(start_s, end_s)`, `None` for no gap
/// (nothing delivered before) or no end (delivery never resumed).
#[pyfunction]
fn interruption(t_s: Vec<f64>, delivered: Vec<u64>, event_s: f64) -> PyResult<(Option<f64>, Option<f64>)> {
    if t_s.len() != delivered.len() {
        return Err(PyValueError::new_err(format!("interruption: {} times but {} delivered counts", t_s.len(), delivered.len())));
    }
    let ns = |s: f64| (s * 1e9).round() as i64;
    let obs = t_s.iter().zip(&delivered).map(|(&t, &b)| (ns(t), b));
    let gap = airtcp_analyze::interruption_around(obs, ns(event_s)).map_err(|e| PyValueError::new_err(format!("interruption: {e}")))?;
    Ok(match gap {
        Some(g) => (Some(g.start_ns as f64 / 1e9), g.end_ns.map(|e| e as f64 / 1e9)),
        None => (None, None),
    })
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// The outputs of one run, kept in Rust until Python asks for a piece.
#[pyclass(frozen, module = "airtcp._native")]
struct NativeResult {
    out: RunOutput,
}

#[pymethods]
impl NativeResult {
    /// `summary.json`'s content.
    #[getter]
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.out.summary).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    #[getter]
    fn n_flows(&self) -> usize {
        self.out.series.len()
    }

    #[getter]
    fn n_udp_flows(&self) -> usize {
        self.out.udp_series.len()
    }

    /// Receiver time series of UDP flow `i` as `{name: list}`.
    fn udp_series<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyDict>> {
        let n = self.out.udp_series.len();
        let s = self.out.udp_series.get(i).ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!("UDP flow {i} out of range: the run has {n} UDP flow(s)"))
        })?;
        convert::udp_series_dict(py, s)
    }

    #[getter]
    fn events_executed(&self) -> u64 {
        self.out.events_executed
    }

    #[getter]
    fn run_wall_s(&self) -> f64 {
        self.out.run_wall_s
    }

    /// Time-series columns of flow `i` as `{name: list}`.
    fn series<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyDict>> {
        let s = self
            .out
            .series
            .get(i)
            .ok_or_else(|| flow_index_error(i, self.out.series.len()))?;
        convert::series_dict(py, s)
    }

    /// Transmitted data segments of flow `i` as `{name: list}`.
    fn segments<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyDict>> {
        let s = self
            .out
            .segments
            .get(i)
            .ok_or_else(|| flow_index_error(i, self.out.segments.len()))?;
        convert::segments_dict(py, s)
    }

    /// The event log as a list of dicts (`t_s`, `kind`, `flow`, `link`, `detail`).
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        convert::events_list(py, &self.out.events)
    }
}

/// Analyse a capture, or every capture of a run directory, into `out_dir`
/// (see docs/analyze.md). `events`: an events CSV to align with. Returns
/// `[(capture path, capture summary JSON, output directory)]`; raises
/// `airtcp.AnalyzeError` naming the file, packet number and byte offset of
/// unreadable input (nothing is written then).
#[pyfunction]
#[pyo3(signature = (path, out_dir, events=None, interval_s=0.1, min_gap_s=1.0))]
fn analyze(
    py: Python<'_>,
    path: PathBuf,
    out_dir: PathBuf,
    events: Option<PathBuf>,
    interval_s: f64,
    min_gap_s: f64,
) -> PyResult<Vec<(String, String, String)>> {
    if !(interval_s > 0.0 && min_gap_s > 0.0) {
        return Err(PyValueError::new_err("interval_s and min_gap_s must be positive"));
    }
    let outcome = py.detach(|| {
        let mut opts = airtcp_analyze::Options {
            interval_ns: (interval_s * 1e9) as i64,
            min_gap_ns: (min_gap_s * 1e9) as i64,
            events: Vec::new(),
        };
        if let Some(e) = &events {
            opts.events = airtcp_analyze::read_events(e)?;
        }
        let single = !path.is_dir();
        let res = airtcp_analyze::analyze_path(&path, &out_dir, &opts)?;
        Ok::<_, airtcp_analyze::AnalyzeError>(
            res.into_iter()
                .map(|(cap, sum)| {
                    let dir = if single {
                        out_dir.clone()
                    } else {
                        out_dir.join(cap.file_stem().unwrap_or_default())
                    };
                    (
                        cap.display().to_string(),
                        serde_json::to_string(&sum).unwrap_or_default(),
                        dir.display().to_string(),
                    )
                })
                .collect(),
        )
    });
    outcome.map_err(|e| py_error(py, "AnalyzeError", e.to_string()))
}

fn flow_index_error(i: usize, n: usize) -> PyErr {
    pyo3::exceptions::PyIndexError::new_err(format!(
        "flow {i} out of range: the run has {n} flow(s)"
    ))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(interruption, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    metrics::register(m)?;
    m.add_class::<NativeResult>()?;
    Ok(())
}
