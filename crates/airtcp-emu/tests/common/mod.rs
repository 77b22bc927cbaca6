//! What the emulator's tests share: whether this machine can run them (root, /dev/net/tun,
//! the tools), scenarios, and running a command in a host's namespace.
#![allow(dead_code)]

use std::process::{Command, Output};

use airtcp_emu::{netns, Emulation, EmulationOptions, HostInfo};
use airtcp_sim::Scenario;
use serde_json::{json, Value};

pub const MS: u64 = 1_000_000;
pub const S: u64 = 1_000_000_000;

/// Whether the emulator can run here; says why not when it cannot (the tests then pass
/// vacuously, as outside CI, which runs as root with the tools installed).
pub fn can_run(tools: &[&str]) -> bool {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout == b"0\n");
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|tool| Command::new(tool).arg("-V").output().is_err())
        .collect();
    if root && std::path::Path::new("/dev/net/tun").exists() && missing.is_empty() {
        return true;
    }
    if std::env::var_os("AIRTCP_REQUIRE_EMU").is_some() {
        panic!("AIRTCP_REQUIRE_EMU is set but the emulator cannot run: root, /dev/net/tun, {missing:?}");
    }
    eprintln!("skipped: needs root, /dev/net/tun and {tools:?}");
    false
}

/// Hosts a and b joined by a wired link, each direction as given, and a flow from a to b
/// with `app`.
pub fn two_hosts(a_to_b: Value, b_to_a: Value, app: Value, duration_s: u64) -> Scenario {
    let scenario = json!({
        "name": "emu", "seed": 1, "duration_ns": duration_s * S,
        "nodes": ["a", "b"],
        "links": [{"a": 0, "b": 1, "a_to_b": a_to_b, "b_to_a": b_to_a}],
        "flows": [{"name": "f", "src": 0, "dst": 1, "app": app}],
    });
    Scenario::from_json(&scenario.to_string()).unwrap()
}

pub fn start(scenario: Scenario) -> Emulation {
    let options = EmulationOptions {
        wall_limit: Some(std::time::Duration::from_secs(120)),
        ..EmulationOptions::default()
    };
    let mut emulation = Emulation::start(scenario, &options).unwrap();
    emulation.begin();
    emulation
}

/// Runs `args` in the host's namespace.
pub fn in_host(host: &HostInfo, args: &[&str]) -> Output {
    Command::new("ip")
        .args(["netns", "exec", &host.namespace])
        .args(args)
        .output()
        .unwrap()
}

/// No namespace of this process's runs is left.
pub fn assert_nothing_left() {
    let mine = format!("{}{}-", netns::NAME_PREFIX, std::process::id());
    assert_eq!(
        netns::list(&mine).unwrap(),
        Vec::<String>::new(),
        "namespaces left behind"
    );
}
