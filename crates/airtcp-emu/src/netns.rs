//! Network namespaces the emulator makes, through iproute2's `ip netns` (so that the traffic
//! tools run in them with `ip netns exec`), and how it tells its own from anyone else's.
//!
//! Names read `airtcp-<pid>-<run>-<node>`, for people; ownership is decided by a marker
//! instead: the namespace's loopback device carries the alias `airtcp-run <run id>`, where
//! the run id names the boot, the process-id namespace, the process id and its start time
//! (`/proc/<pid>/stat` field 22) of the process that made it. A namespace without the
//! marker is never touched, whatever its name. Cleanup removes a marked namespace when its
//! owner is gone (another boot, or no process with that id and start time), and leaves it
//! when the owner lives or lives in another process-id namespace (whose processes this one
//! cannot see). The processes the emulator's tools start carry `AIRTCP_RUN=<run id>` in
//! their environment, and only those are killed when a namespace is removed: a process
//! someone else started in it keeps running (and keeps the namespace, unnamed, alive).

use std::io;
use std::os::unix::fs::MetadataExt;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// What every namespace airtcp makes starts with.
pub const NAME_PREFIX: &str = "airtcp-";

/// The environment variable marking the processes of a run.
pub const RUN_VARIABLE: &str = "AIRTCP_RUN";

/// The start of the loopback alias that marks a namespace as a run's.
const MARKER: &str = "airtcp-run ";

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

/// The process that made a run.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Owner {
    boot_id: String,
    pid_namespace: u64,
    pid: u32,
    start_time: u64,
}

/// Whether a run's owner still runs, as far as this process can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Liveness {
    Alive,
    Gone,
    /// In another process-id namespace: not for this process to judge.
    Unknown,
}

impl Owner {
    fn this_process() -> io::Result<Owner> {
        let pid = std::process::id();
        Ok(Owner {
            boot_id: boot_id()?,
            pid_namespace: pid_namespace()?,
            pid,
            start_time: start_time(pid)
                .ok_or_else(|| io::Error::other("cannot read /proc/self/stat"))?,
        })
    }

    fn liveness(&self) -> io::Result<Liveness> {
        if self.boot_id != boot_id()? {
            return Ok(Liveness::Gone);
        }
        if self.pid_namespace != pid_namespace()? {
            return Ok(Liveness::Unknown);
        }
        Ok(if start_time(self.pid) == Some(self.start_time) {
            Liveness::Alive
        } else {
            Liveness::Gone
        })
    }
}

fn boot_id() -> io::Result<String> {
    Ok(std::fs::read_to_string("/proc/sys/kernel/random/boot_id")?
        .trim()
        .to_string())
}

fn pid_namespace() -> io::Result<u64> {
    Ok(std::fs::metadata("/proc/self/ns/pid")?.ino())
}

/// When process `pid` started (clock ticks after boot), if it exists.
fn start_time(pid: u32) -> Option<u64> {
    start_time_in(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The start time (field 22) in the text of a `/proc/<pid>/stat`.
fn start_time_in(stat: &str) -> Option<u64> {
    // The command name (field 2) may hold spaces and parentheses; field 3 follows the last
    // ')'.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// A run: one emulation's namespaces, named `<prefix><node>`, marked with its id.
#[derive(Clone, Debug)]
pub struct Run {
    id: String,
    prefix: String,
}

impl Run {
    pub fn new() -> io::Result<Run> {
        static RUNS: AtomicU32 = AtomicU32::new(0);
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        let owner = Owner::this_process()?;
        Ok(Run {
            id: format!(
                "{}/{}/{}/{}/{run}",
                owner.boot_id, owner.pid_namespace, owner.pid, owner.start_time
            ),
            prefix: format!("{NAME_PREFIX}{}-{run}-", owner.pid),
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The name of this run's namespace for `host`.
    pub fn namespace_name(&self, host: &str) -> String {
        format!("{}{host}", self.prefix)
    }
}

/// The owner a run id names.
fn owner_of(run_id: &str) -> Option<Owner> {
    let mut parts = run_id.split('/');
    let owner = Owner {
        boot_id: parts.next()?.to_string(),
        pid_namespace: parts.next()?.parse().ok()?,
        pid: parts.next()?.parse().ok()?,
        start_time: parts.next()?.parse().ok()?,
    };
    parts.next()?.parse::<u32>().ok()?;
    parts.next().is_none().then_some(owner)
}

/// A namespace this process created; removed on drop.
#[derive(Debug)]
pub struct Namespace {
    name: String,
    run_id: String,
}

impl Namespace {
    /// Creates `run`'s namespace for `host`, marked, with its loopback up and IPv6 off (its
    /// neighbour discovery would only be noise on the emulated links).
    pub fn create(run: &Run, host: &str) -> io::Result<Self> {
        let name = run.namespace_name(host);
        ip(&["netns", "add", &name])?;
        let namespace = Namespace {
            name,
            run_id: run.id.clone(),
        };
        let name = &namespace.name;
        let marker = format!("{MARKER}{}", run.id);
        ip(&["-n", name, "link", "set", "dev", "lo", "alias", &marker])?;
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
        remove(&self.name, &self.run_id);
    }
}

/// Kills the processes of run `run_id` in namespace `name` and deletes it.
fn remove(name: &str, run_id: &str) {
    let token = format!("{RUN_VARIABLE}={run_id}");
    if let Ok(pids) = ip(&["netns", "pids", name]) {
        for pid in pids.split_whitespace() {
            let environment = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            if environment
                .split(|&byte| byte == 0)
                .any(|entry| entry == token.as_bytes())
            {
                let _ = Command::new("kill").args(["-KILL", pid]).output();
            }
        }
    }
    let _ = ip(&["netns", "del", name]);
}

/// The run id a namespace is marked with, if any.
fn marker(name: &str) -> Option<String> {
    let shown = ip(&["-j", "-n", name, "link", "show", "dev", "lo"]).ok()?;
    let links: serde_json::Value = serde_json::from_str(&shown).ok()?;
    let alias = links.get(0)?.get("ifalias")?.as_str()?;
    Some(alias.strip_prefix(MARKER)?.to_string())
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

/// Removes the namespaces marked as a run's whose names start with `prefix` (which must
/// start with `airtcp-`), with the run's processes in them: those whose owner is gone, or
/// all marked ones with `force`. Unmarked namespaces are left alone. Returns the names
/// removed.
pub fn cleanup(prefix: &str, force: bool) -> io::Result<Vec<String>> {
    if !prefix.starts_with(NAME_PREFIX) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("prefix '{prefix}': airtcp only removes namespaces named {NAME_PREFIX}..."),
        ));
    }
    let mut removed = Vec::new();
    for name in list(prefix)? {
        let Some(run_id) = marker(&name) else {
            continue;
        };
        let Some(owner) = owner_of(&run_id) else {
            continue;
        };
        if force || owner.liveness()? == Liveness::Gone {
            remove(&name, &run_id);
            removed.push(name);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_id_names_this_process_which_is_alive() {
        let run = Run::new().unwrap();
        let owner = owner_of(run.id()).unwrap();
        assert_eq!(owner, Owner::this_process().unwrap());
        assert_eq!(owner.liveness().unwrap(), Liveness::Alive);
        assert!(run
            .namespace_name("sta1")
            .starts_with(&format!("{NAME_PREFIX}{}-", std::process::id())));
        assert_ne!(Run::new().unwrap().id(), run.id());
    }

    #[test]
    fn an_owner_is_gone_once_its_process_id_names_another_process() {
        let mut owner = Owner::this_process().unwrap();
        owner.start_time += 1; // the same id, reused by a later process
        assert_eq!(owner.liveness().unwrap(), Liveness::Gone);
        let mut other_boot = Owner::this_process().unwrap();
        other_boot.boot_id = "00000000-0000-0000-0000-000000000000".to_string();
        assert_eq!(other_boot.liveness().unwrap(), Liveness::Gone);
        let mut elsewhere = Owner::this_process().unwrap();
        elsewhere.pid_namespace += 1;
        elsewhere.pid = u32::MAX; // not visible here, yet not known to be gone
        assert_eq!(elsewhere.liveness().unwrap(), Liveness::Unknown);
    }

    #[test]
    fn malformed_run_ids_name_no_owner() {
        for id in [
            "",
            "boot/1/2",
            "boot/x/2/3/0",
            "boot/1/2/3/0/extra",
            "boot/1/2/3/z",
        ] {
            assert_eq!(owner_of(id), None, "{id}");
        }
    }

    #[test]
    fn the_start_time_is_read_past_a_command_name_with_spaces_and_parentheses() {
        let fields: Vec<String> = (3..=52).map(|field| field.to_string()).collect();
        let stat = format!("4242 (a (b) c) {}", fields.join(" "));
        assert_eq!(start_time_in(&stat), Some(22));
        assert!(start_time(std::process::id()).is_some());
        assert_eq!(start_time(u32::MAX), None);
    }

    #[test]
    fn cleanup_refuses_names_it_did_not_make() {
        let error = cleanup("", true).unwrap_err();
        assert!(error.to_string().contains("airtcp-"), "{error}");
    }
}
