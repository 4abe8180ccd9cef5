//! Commands run in the real hosts' namespaces (`ip netns exec`), each in
//! its own process group so the whole group can be ended, with its output
//! in the run's directory. A command dies with the emulator
//! (`PR_SET_PDEATHSIG`) even if the emulator is killed with SIGKILL; what
//! it started is killed by the next start's cleanup of the namespace.

use std::fs::File;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

pub struct Running {
    pub node: String,
    pub cmd: String,
    pub child: Child,
    pub status: Option<i32>,
}

/// Run `cmd` (a shell command line) in namespace `ns` and wait for it:
/// a setup step (sysctl, `ip route change ... initcwnd 1`).
pub fn setup(ns: &str, cmd: &str) -> io::Result<()> {
    let out = Command::new("ip").args(["netns", "exec", ns, "sh", "-c", cmd]).stdin(Stdio::null()).output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!("setup in {ns}: `{cmd}` failed: {}", String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(())
}

/// Start `cmd` in `ns`, its stdout and stderr into `log`.
pub fn spawn(ns: &str, node: &str, cmd: &str, log: &Path) -> io::Result<Running> {
    let out = File::create(log)?;
    let err = out.try_clone()?;
    let mut c = Command::new("ip");
    c.args(["netns", "exec", ns, "sh", "-c", cmd]).stdin(Stdio::null()).stdout(out).stderr(err);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(|| {
            libc::setpgid(0, 0);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let child = c.spawn()?;
    Ok(Running { node: node.to_string(), cmd: cmd.to_string(), child, status: None })
}

impl Running {
    /// Whether it has exited (recording its status).
    pub fn poll(&mut self) -> bool {
        if self.status.is_some() {
            return true;
        }
        match self.child.try_wait() {
            Ok(Some(s)) => {
                self.status = Some(s.code().unwrap_or(-1));
                true
            }
            Ok(None) => false,
            Err(_) => {
                self.status = Some(-1);
                true
            }
        }
    }

    /// End its process group: SIGTERM, then SIGKILL after a grace period.
    pub fn stop(&mut self) {
        if self.poll() {
            return;
        }
        let pg = self.child.id() as i32;
        // SAFETY: signalling the process group this child leads.
        unsafe { libc::kill(-pg, libc::SIGTERM) };
        for _ in 0..50 {
            if self.poll() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // SAFETY: as above.
        unsafe { libc::kill(-pg, libc::SIGKILL) };
        let _ = self.child.wait();
        self.poll();
    }
}
