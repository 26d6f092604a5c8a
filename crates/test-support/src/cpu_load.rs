//! CPU-bound processes beside a test, so the test proves its behaviour on a loaded machine.
//!
//! CI machines run tests beside other work; a behaviour that holds only while the CPU is
//! free (a screenshot that shows a change made just before it, say) fails there one run in
//! many. A test that must hold under load starts [`BusyProcesses`] for its duration:
//! [`load_for_tests`] says how many (none on a developer's machine unless asked, so local
//! runs stay quick and leave the shared CPU alone; several per core under CI).
//!
//! Each busy process is `sh` spinning in a loop that also checks, every few milliseconds,
//! that the process which started it is alive: dropping [`BusyProcesses`] kills them, and a
//! test process killed outright (SIGKILL, no destructors) still leaves no busy loop behind.

use std::process::Child;
use std::process::Command;
use std::process::Stdio;

/// Spins until the process that started it is gone (checked every 2,000 iterations, a few
/// ms): it stops when it finds itself reparented, or started already orphaned (`$PPID` 1),
/// since a parent that dies before the shell reads `$PPID` leaves it holding init's pid.
const BUSY_LOOP: &str = r#"parent=$PPID
while :; do
  read -r _ _ _ ppid _ < /proc/$$/stat || exit 0
  [ "$parent" -gt 1 ] && [ "$ppid" = "$parent" ] || exit 0
  i=0
  while [ "$i" -lt 2000 ]; do i=$((i + 1)); done
done"#;

/// Busy processes per CPU core under CI: 4 is the reference load (8 on a 2-core machine).
const BUSY_PER_CORE_ON_CI: usize = 4;

/// The most busy processes [`load_for_tests`] asks for, whatever the core count.
const MAX_BUSY: usize = 32;

/// CPU-bound child processes, killed when dropped.
#[derive(Debug)]
pub struct BusyProcesses {
    children: Vec<Child>,
}

impl BusyProcesses {
    /// Starts `count` busy processes (none for 0).
    ///
    /// # Panics
    /// When `sh` cannot be started (test-only code: fail loudly).
    pub fn start(count: usize) -> Self {
        let children = (0..count)
            .map(|_| {
                Command::new("sh")
                    .args(["-c", BUSY_LOOP])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap_or_else(|e| panic!("cannot start a busy process (sh): {e}"))
            })
            .collect();
        Self { children }
    }

    /// How many busy processes run.
    pub fn count(&self) -> usize {
        self.children.len()
    }

    /// The process ids, for tests of this module.
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(Child::id).collect()
    }
}

impl Drop for BusyProcesses {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
        }
        for child in &mut self.children {
            let _ = child.wait();
        }
    }
}

/// How many busy processes a test that must hold under load starts: `RETRACE_TEST_BUSY`
/// when set (a number; 0 turns the load off), else under CI ([`crate::requirements::on_ci`])
/// 4 per core (at most 32), else none.
///
/// # Panics
/// When `RETRACE_TEST_BUSY` is not a number.
pub fn load_for_tests() -> usize {
    if let Ok(text) = std::env::var("RETRACE_TEST_BUSY") {
        return text.trim().parse().unwrap_or_else(|_| {
            panic!("RETRACE_TEST_BUSY must be a number of busy processes, not {text:?}")
        });
    }
    if !crate::requirements::on_ci() {
        return 0;
    }
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    (cores * BUSY_PER_CORE_ON_CI).min(MAX_BUSY)
}

#[cfg(test)]
mod tests {
    use super::BUSY_LOOP;
    use super::BusyProcesses;

    fn cpu_ticks(pid: u32) -> Option<u64> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // Fields after the command name (which may hold spaces) start after the last ')'.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        // utime and stime are fields 14 and 15, so 12 and 13 after the name and state.
        Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
    }

    /// The processes burn CPU while they live and are gone once dropped.
    #[tokio::test]
    async fn busy_processes_use_cpu_and_die_when_dropped() {
        let busy = BusyProcesses::start(2);
        assert_eq!(busy.count(), 2);
        let pids = busy.pids();
        let started = std::time::Instant::now();
        // Poll until each has used CPU time (10 ms ticks): they spin, they do not sleep.
        while !pids
            .iter()
            .all(|&pid| cpu_ticks(pid).is_some_and(|ticks| ticks > 5))
        {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the busy processes used no CPU: {:?}",
                pids.iter().map(|&pid| cpu_ticks(pid)).collect::<Vec<_>>()
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        drop(busy);
        for pid in pids {
            assert!(
                !std::path::Path::new(&format!("/proc/{pid}")).exists(),
                "busy process {pid} outlived its handle"
            );
        }
    }

    /// A busy process whose parent died without killing it (a test process killed outright)
    /// stops on its own: here its parent is a shell that starts it and exits at once.
    #[tokio::test]
    async fn a_busy_process_stops_when_the_process_that_started_it_dies() {
        let mut parent = std::process::Command::new("sh")
            .args(["-c", "sh -c \"$BUSY\" >/dev/null 2>&1 & echo $!"])
            .env("BUSY", BUSY_LOOP)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(parent.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        // Reaped, so gone (a zombie parent would still answer `kill -0`).
        parent.wait().unwrap();
        let pid: u32 = line.trim().parse().unwrap();
        let started = std::time::Instant::now();
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "busy process {pid} kept running after its parent exited"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}
