//! Network namespaces the emulator makes, named with a per-run prefix, deleted when dropped
//! (and by `cleanup` for what a crashed run left). Through iproute2's `ip netns`, so that
//! each namespace is also visible to `ip netns exec` for the traffic tools.

use std::io;
use std::process::Command;

/// Runs `ip` with `args`; an error names the command and what it printed.
pub fn ip(args: &[&str]) -> io::Result<()> {
    let output = Command::new("ip").args(args).output()?;
    if output.status.success() {
        return Ok(());
    }
    Err(io::Error::other(format!(
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr).trim()
    )))
}

/// A namespace this process created; deleted on drop.
#[derive(Debug)]
pub struct Namespace {
    name: String,
}

impl Namespace {
    pub fn create(name: &str) -> io::Result<Self> {
        ip(&["netns", "add", name])?;
        let namespace = Namespace {
            name: name.to_string(),
        };
        ip(&["-n", name, "link", "set", "lo", "up"])?;
        Ok(namespace)
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.name]);
    }
}

/// The namespaces whose names start with `prefix`.
pub fn list(prefix: &str) -> io::Result<Vec<String>> {
    let output = Command::new("ip").args(["netns", "list"]).output()?;
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| name.starts_with(prefix))
        .map(str::to_string)
        .collect())
}

/// Deletes every namespace whose name starts with `prefix` (a crashed run's leftovers); a
/// TUN device moved into one goes with it. Returns how many.
pub fn cleanup(prefix: &str) -> io::Result<usize> {
    let names = list(prefix)?;
    for name in &names {
        ip(&["netns", "del", name])?;
    }
    Ok(names.len())
}
