//! Records the git commit the extension is built from (`AIRTCP_COMMIT`, `airtcp.__commit__`)
//! when it is built from a checkout; a build from a source archive has none. Cargo builds
//! again when the checked-out commit changes (HEAD, or the branch it names, moves).

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // airtcp's own checkout, not another repository the sources were unpacked in
    let ours = git(&["rev-parse", "--show-toplevel"])
        .is_some_and(|top| Path::new(&top).join("crates/airtcp-py/build.rs").exists());
    let Some(commit) = ours
        .then(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .flatten()
    else {
        return;
    };
    println!("cargo:rustc-env=AIRTCP_COMMIT={commit}");
    // (only files that exist: cargo runs the script every time for a missing one)
    let watch = |path: &Path| {
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    };
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        watch(&Path::new(&git_dir).join("HEAD"));
    }
    if let Some(common) = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]) {
        let common = Path::new(&common);
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch(&common.join(branch));
        }
        watch(&common.join("packed-refs"));
    }
}
