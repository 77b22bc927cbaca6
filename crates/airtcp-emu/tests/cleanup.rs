//! Cleanup touches only what airtcp made: a namespace named like airtcp's but without its
//! marker is left alone with its processes, whatever its name; a marked one whose owner is
//! gone is removed, and of the processes in it only those carrying the run's marker are
//! killed.

mod common;

use std::os::unix::fs::MetadataExt;
use std::process::{Child, Command};
use std::sync::Mutex;

use airtcp_emu::netns::{self, RUN_VARIABLE};
use common::{assert_nothing_left, can_run};

/// The tests one at a time: the first's sweep of every dead run under airtcp's prefix would
/// otherwise remove the second's dead run before the second's own cleanup sees it.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn ip(args: &[&str]) {
    let status = Command::new("ip").args(args).status().unwrap();
    assert!(status.success(), "ip {args:?}");
}

fn exists(namespace: &str) -> bool {
    netns::list(namespace)
        .unwrap()
        .iter()
        .any(|n| n == namespace)
}

fn alive(child: &mut Child) -> bool {
    child.try_wait().unwrap().is_none()
}

/// `sleep` in `namespace`, with `environment`.
fn sleeper(namespace: &str, environment: &[(&str, &str)]) -> Child {
    Command::new("ip")
        .args(["netns", "exec", namespace, "sleep", "60"])
        .envs(environment.iter().copied())
        .spawn()
        .unwrap()
}

#[test]
fn a_namespace_without_the_marker_and_its_process_are_left_alone() {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !can_run(&["sleep"]) {
        return;
    }
    // Not a process id after the prefix: the old rule took it for a dead run's.
    let foreign = format!("airtcp-review-notmine-{}", std::process::id());
    ip(&["netns", "add", &foreign]);
    let mut process = sleeper(&foreign, &[]);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let removed = netns::cleanup(netns::NAME_PREFIX, false).unwrap();
    let also_forced = netns::cleanup(&foreign, true).unwrap();
    let (still_there, still_running) = (exists(&foreign), alive(&mut process));
    process.kill().unwrap();
    process.wait().unwrap();
    ip(&["netns", "del", &foreign]);
    assert!(!removed.contains(&foreign) && also_forced.is_empty());
    assert!(still_there, "the foreign namespace was removed");
    assert!(still_running, "the foreign process was killed");
}

#[test]
fn a_dead_runs_namespace_goes_with_its_own_processes_only() {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !can_run(&["sleep"]) {
        return;
    }
    // A run whose process has ended: a real process id and start time, of a process gone.
    let mut gone = Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let pid_namespace = std::fs::metadata("/proc/self/ns/pid").unwrap().ino();
    let run_id = format!("{}/{pid_namespace}/{pid}/1/0", boot.trim());
    let name = format!("{}{}-dead-host", netns::NAME_PREFIX, std::process::id());
    ip(&["netns", "add", &name]);
    let marker = format!("airtcp-run {run_id}");
    ip(&["-n", &name, "link", "set", "dev", "lo", "alias", &marker]);
    let mut ours = sleeper(&name, &[(RUN_VARIABLE, &run_id)]);
    let mut someone_elses = sleeper(&name, &[(RUN_VARIABLE, "another run")]);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let removed = netns::cleanup(&name, false).unwrap();
    let ours_status = ours.wait().unwrap(); // returns once killed
    let theirs_alive = alive(&mut someone_elses);
    someone_elses.kill().unwrap();
    someone_elses.wait().unwrap();
    assert_eq!(removed, vec![name.clone()]);
    assert!(!ours_status.success(), "the run's process was killed");
    assert!(theirs_alive, "a process the run did not start was killed");
    assert!(!exists(&name));
    assert_nothing_left();
}
