//! Finding processes by their command line or process group, for tests that check no browser
//! outlives them. A launched browser leads a process group of its own, which every process it
//! starts stays in (its command-line marker, the profile directory, is not repeated by the
//! headless shell's child processes).

/// The ids of live processes whose command line contains `marker` (read from
/// `/proc/<pid>/cmdline`; zombies, whose command line is empty, do not count).
pub fn processes_with_cmdline_containing(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
                .unwrap_or(false)
        })
        .collect()
}

/// The ids of live processes with `entry` (`DISPLAY=:99`) in their environment (read from
/// `/proc/<pid>/environ`): what a desktop run started on a test's own X display, the
/// application and the buses retrace starts for it, all carry that display.
pub fn processes_with_environment(entry: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                environ
                    .split(|byte| *byte == 0)
                    .any(|variable| variable == entry.as_bytes())
            })
        })
        .collect()
}

/// Polls until no process's command line contains `marker`, for at most `timeout`; returns
/// the ones still alive then (empty on success).
pub async fn wait_until_no_process_contains(
    marker: &str,
    timeout: std::time::Duration,
) -> Vec<u32> {
    wait_until_none_alive(|| processes_with_cmdline_containing(marker), timeout).await
}

/// Polls `alive` every 50 ms until it lists no process, for at most `timeout`; returns what
/// it listed last (empty on success).
async fn wait_until_none_alive(
    alive: impl Fn() -> Vec<u32>,
    timeout: std::time::Duration,
) -> Vec<u32> {
    let started = std::time::Instant::now();
    loop {
        let still = alive();
        if still.is_empty() || started.elapsed() > timeout {
            return still;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// `(ppid, pgid)` of a live process, from `/proc/<pid>/stat`; `None` when it is gone (or a
/// zombie).
pub fn parent_and_group(pid: u32) -> Option<(u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields follow the last ')'.
    let fields: Vec<&str> = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    if fields.first() == Some(&"Z") {
        return None;
    }
    Some((fields.get(1)?.parse().ok()?, fields.get(2)?.parse().ok()?))
}

/// The live processes whose parent is `parent` and whose command line contains `marker`.
pub fn children_with_cmdline_containing(parent: u32, marker: &str) -> Vec<u32> {
    processes_with_cmdline_containing(marker)
        .into_iter()
        .filter(|pid| parent_and_group(*pid).is_some_and(|(ppid, _)| ppid == parent))
        .collect()
}

/// The live processes in process group `pgid`.
pub fn processes_in_group(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| parent_and_group(*pid).is_some_and(|(_, group)| group == pgid))
        .collect()
}

/// Polls until process group `pgid` has no live process, for at most `timeout`; returns the
/// ones still alive then (empty on success).
pub async fn wait_until_group_is_empty(pgid: u32, timeout: std::time::Duration) -> Vec<u32> {
    wait_until_none_alive(|| processes_in_group(pgid), timeout).await
}

/// The live descendants of `root` (children, their children...), found through the parent
/// ids in `/proc`: a farm's browsers, which may lead process groups of their own.
pub fn descendants(root: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parents: Vec<(u32, u32)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, parent_and_group(pid)?.0)))
        .collect();
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (pid, _) in parents.iter().filter(|(_, ppid)| *ppid == parent) {
            found.push(*pid);
            frontier.push(*pid);
        }
    }
    found
}

/// The descendants of `root` whose command line contains `marker`.
pub fn descendants_with_cmdline_containing(root: u32, marker: &str) -> Vec<u32> {
    descendants(root)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
        })
        .collect()
}

/// Kills (SIGKILL) every descendant of `root` (`root` itself is the caller's to kill): what
/// a test does with a server it started, so no browser it launched outlives the test.
#[allow(unsafe_code)]
pub fn kill_descendants(root: u32) {
    for pid in descendants(root) {
        if let Ok(pid) = libc::pid_t::try_from(pid)
            && pid > 1
        {
            // SAFETY: kill(2) takes plain integers and has no memory-safety preconditions.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}
