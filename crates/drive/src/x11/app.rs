//! [`AppProcess`]: the application under test, started for a run (`--app "COMMAND"`) and
//! ended after it with every process it started.
//!
//! The command runs under `sh -c` as the leader of a process group of its own, with `DISPLAY`
//! set to the target display. Ending it signals the whole group and every descendant that left
//! it (a program that daemonises, `setsid`), `SIGTERM` first and `SIGKILL` for what is still
//! there after a grace period, polling: no fixed sleep.

use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

use crate::error::DriveError;

/// How long the processes get to exit after `SIGTERM` before `SIGKILL`.
const GRACE: Duration = Duration::from_secs(5);

/// A running application under test. [`AppProcess::end`] ends it; dropping it kills what is
/// left of it.
#[derive(Debug)]
pub struct AppProcess {
    child: Child,
    command: String,
    /// Every process seen in the tree so far (a descendant whose parent exited is reparented
    /// away from the tree, so the ones seen earlier are remembered).
    seen: Vec<u32>,
}

impl AppProcess {
    /// Starts `command` under `sh -c` on `display`, in a process group of its own.
    pub fn start(command: &str, display: &str) -> Result<Self, DriveError> {
        Self::start_with_env(command, display, &[], &[])
    }

    /// Starts `command` as [`AppProcess::start`] does, with `env` set and `unset` removed
    /// from its environment (the accessibility bus's addresses, `NO_AT_BRIDGE`).
    pub fn start_with_env(
        command: &str,
        display: &str,
        env: &[(String, String)],
        unset: &[&str],
    ) -> Result<Self, DriveError> {
        use std::os::unix::process::CommandExt as _;
        let mut sh = Command::new("sh");
        for name in unset {
            sh.env_remove(name);
        }
        let child = sh
            .envs(env.iter().map(|(name, value)| (name, value)))
            .arg("-c")
            .arg(command)
            .env("DISPLAY", display)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|error| DriveError::Launch {
                backend: super::backend::NAME.to_owned(),
                detail: format!("starting the app `{command}`: {error}"),
            })?;
        let pid = child.id();
        Ok(Self {
            child,
            command: command.to_owned(),
            seen: vec![pid],
        })
    }

    /// The command as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The process id of the `sh` that runs the command (the group's leader).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the command has exited already (a single-instance program that handed its
    /// window to a running instance does).
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// The live processes of the tree: the group's and every descendant of its leader (or of
    /// a process seen in the tree before).
    pub fn processes(&mut self) -> Vec<u32> {
        let table = process_table();
        // Forget the processes that ended, so a number the system hands out again is not
        // taken for one of ours.
        self.seen
            .retain(|pid| table.iter().any(|entry| entry.pid == *pid));
        let group = self.pid();
        let mut tree: Vec<u32> = table
            .iter()
            .filter(|entry| entry.group == group)
            .map(|entry| entry.pid)
            .collect();
        for root in &self.seen {
            if !tree.contains(root) {
                tree.push(*root);
            }
        }
        // Descendants, to a fixed point.
        loop {
            let before = tree.len();
            for entry in &table {
                if tree.contains(&entry.parent) && !tree.contains(&entry.pid) {
                    tree.push(entry.pid);
                }
            }
            if tree.len() == before {
                break;
            }
        }
        for pid in &tree {
            if !self.seen.contains(pid) {
                self.seen.push(*pid);
            }
        }
        tree
    }

    /// Whether process `pid` belongs to this application's tree.
    pub fn owns(&mut self, pid: u32) -> bool {
        self.processes().contains(&pid)
    }

    /// Ends every process of the tree: `SIGTERM`, then `SIGKILL` for what is left after the
    /// grace period. Returns the processes that were still alive at the end (empty when all
    /// ended).
    pub async fn end(&mut self) -> Vec<u32> {
        signal_all(&self.processes(), libc::SIGTERM);
        let started = Instant::now();
        loop {
            let _ = self.child.try_wait();
            let left = self.processes();
            if left.is_empty() {
                return left;
            }
            if started.elapsed() >= GRACE {
                signal_all(&left, libc::SIGKILL);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let killed_at = Instant::now();
        loop {
            let _ = self.child.try_wait();
            let left = self.processes();
            if left.is_empty() || killed_at.elapsed() >= GRACE {
                return left;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for AppProcess {
    /// A run that did not end the application (an error, a panic) kills what is left at once.
    fn drop(&mut self) {
        signal_all(&self.processes(), libc::SIGKILL);
        let _ = self.child.try_wait();
    }
}

#[allow(unsafe_code)]
fn signal_all(pids: &[u32], signal: libc::c_int) {
    for pid in pids {
        if let Ok(pid) = libc::pid_t::try_from(*pid)
            && pid > 1
        {
            // SAFETY: kill(2) takes plain integers and has no memory-safety preconditions.
            unsafe {
                libc::kill(pid, signal);
            }
        }
    }
}

/// One line of the process table.
struct ProcessEntry {
    pid: u32,
    parent: u32,
    group: u32,
}

/// The live processes (zombies left out) with their parent and group, from `/proc`.
fn process_table() -> Vec<ProcessEntry> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The command name may hold spaces and parentheses: fields follow the last ')'.
            let fields: Vec<&str> = stat
                .get(stat.rfind(')')? + 1..)?
                .split_whitespace()
                .collect();
            if fields.first() == Some(&"Z") {
                return None;
            }
            Some(ProcessEntry {
                pid,
                parent: fields.get(1)?.parse().ok()?,
                group: fields.get(2)?.parse().ok()?,
            })
        })
        .collect()
}
