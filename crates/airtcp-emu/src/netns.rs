//! Network namespaces the emulator makes, through iproute2's `ip netns` (so that the traffic
//! tools run in them with `ip netns exec`). Every name is `airtcp-<pid>-<run>-<node>`: the
//! owning process is in the name, so leftovers of a crashed run are told from a live run's.
//! A namespace is removed when dropped, the processes in it killed first; `cleanup` removes
//! what a run that died left.

use std::io;
use std::process::Command;

/// What every namespace airtcp makes starts with.
pub const NAME_PREFIX: &str = "airtcp-";

/// Runs `ip` with `args`; an error names the command and what it printed.
pub fn ip(args: &[&str]) -> io::Result<String> {
    let output = Command::new("ip").args(args).output().map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot run ip (iproute2): {e}; run 'airtcp emu --check'"),
        )
    })?;
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    Err(io::Error::other(format!(
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr).trim()
    )))
}

/// A namespace this process created; removed on drop.
#[derive(Debug)]
pub struct Namespace {
    name: String,
}

impl Namespace {
    /// Creates `name` (which must start with a run's prefix) with its loopback up and IPv6
    /// off (its neighbour discovery would only be noise on the emulated links).
    pub fn create(name: &str) -> io::Result<Self> {
        ip(&["netns", "add", name])?;
        let namespace = Namespace {
            name: name.to_string(),
        };
        ip(&["-n", name, "link", "set", "lo", "up"])?;
        namespace.write_sysctl("net/ipv6/conf/all/disable_ipv6", "1")?;
        namespace.write_sysctl("net/ipv6/conf/default/disable_ipv6", "1")?;
        Ok(namespace)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes `/proc/sys/<key>` as seen from inside the namespace (network sysctls are per
    /// namespace).
    pub fn write_sysctl(&self, key: &str, value: &str) -> io::Result<()> {
        let path = format!("/proc/sys/{key}");
        let output = Command::new("ip")
            .args([
                "netns",
                "exec",
                &self.name,
                "sh",
                "-c",
                "echo \"$1\" > \"$2\"",
            ])
            .args(["sh", value, &path])
            .output()?;
        if output.status.success() {
            return Ok(());
        }
        Err(io::Error::other(format!(
            "cannot set {key} = {value} in {}: {}",
            self.name,
            String::from_utf8_lossy(&output.stderr).trim()
        )))
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        remove(&self.name);
    }
}

/// Kills the processes in namespace `name` and deletes it.
fn remove(name: &str) {
    if let Ok(pids) = ip(&["netns", "pids", name]) {
        for pid in pids.split_whitespace() {
            let _ = Command::new("kill").args(["-KILL", pid]).output();
        }
    }
    let _ = ip(&["netns", "del", name]);
}

/// A prefix of namespace names unique to this run of this process.
pub fn run_prefix() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static RUNS: AtomicU32 = AtomicU32::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    format!("{NAME_PREFIX}{}-{run}-", std::process::id())
}

/// The namespaces whose names start with `prefix`.
pub fn list(prefix: &str) -> io::Result<Vec<String>> {
    Ok(ip(&["netns", "list"])?
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| name.starts_with(prefix))
        .map(str::to_string)
        .collect())
}

/// The process that made namespace `name`, from its name.
fn owner(name: &str) -> Option<u32> {
    name.strip_prefix(NAME_PREFIX)?
        .split('-')
        .next()?
        .parse()
        .ok()
}

/// Removes the namespaces starting with `prefix` (which must start with `airtcp-`), and the
/// processes in them: those whose owning process is gone, or all of them with `force`.
/// Returns the names removed.
pub fn cleanup(prefix: &str, force: bool) -> io::Result<Vec<String>> {
    if !prefix.starts_with(NAME_PREFIX) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("prefix '{prefix}': airtcp only removes namespaces named {NAME_PREFIX}..."),
        ));
    }
    let alive = |pid: u32| std::path::Path::new(&format!("/proc/{pid}")).exists();
    let mut removed = Vec::new();
    for name in list(prefix)? {
        if force || !owner(&name).is_some_and(alive) {
            remove(&name);
            removed.push(name);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_read_from_the_name() {
        assert_eq!(owner("airtcp-4242-0-sta1"), Some(4242));
        assert_eq!(owner("airtcp-x-0-a"), None);
        assert_eq!(owner("other-4242-0-a"), None);
        let prefix = run_prefix();
        assert_eq!(owner(&format!("{prefix}a")), Some(std::process::id()));
        assert_ne!(run_prefix(), prefix);
    }

    #[test]
    fn cleanup_refuses_names_it_did_not_make() {
        let error = cleanup("", true).unwrap_err();
        assert!(error.to_string().contains("airtcp-"), "{error}");
    }
}
