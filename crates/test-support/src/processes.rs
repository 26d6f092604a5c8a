//! Finding processes by their command line, for tests that check no browser outlives them.

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

/// Polls until no process's command line contains `marker`, for at most `timeout`; returns
/// the ones still alive then (empty on success).
pub async fn wait_until_no_process_contains(
    marker: &str,
    timeout: std::time::Duration,
) -> Vec<u32> {
    let started = std::time::Instant::now();
    loop {
        let alive = processes_with_cmdline_containing(marker);
        if alive.is_empty() || started.elapsed() > timeout {
            return alive;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
