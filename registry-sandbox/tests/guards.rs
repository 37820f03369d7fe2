//! The guards, one mechanism at a time, on real `sh` and `bash`: each test
//! first shows the command does its damage with the guards off, then that
//! it does none with them on. (The attack classes, through the executor
//! and in every mode, are `examples/tests/it/enforcement_oracle.rs`.)

#![cfg(target_os = "linux")]

use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;

use registry_core::__private::enforce::PathAccess;
use registry_core::permission::{
    AllowedBy, CallRules, PermissionContext, PermissionMode, RuleBehavior, RuleSource,
};
use registry_sandbox::{NetworkAllow, Output, Policy, Prediction, SandboxedCommand};

/// Whether this machine gives every guard; where it does not, the tests
/// say so and check nothing (CI runs as root on Linux and requires them).
fn guarded() -> bool {
    let machine = registry_sandbox::probe();
    let all = machine.exec_guard.is_ok() && machine.path_rules_hold() && machine.network.is_ok();
    if !all {
        assert!(
            std::env::var_os("REGISTRY_SANDBOX_REQUIRED").is_none(),
            "REGISTRY_SANDBOX_REQUIRED is set but this machine lacks a guard:\n{machine}"
        );
        eprintln!("SKIPPED: this machine lacks a guard:\n{machine}");
    }
    all
}

fn rules(lines: &[(RuleBehavior, &str)], mode: PermissionMode, by: AllowedBy) -> CallRules {
    let mut cx = PermissionContext::new();
    for (behavior, rule) in lines {
        cx.add_rule(RuleSource::Project, *behavior, rule).unwrap();
    }
    let tools: Arc<[(String, PathAccess)]> = Arc::from(vec![
        ("read_file".to_owned(), PathAccess::Read),
        ("edit_file".to_owned(), PathAccess::Write),
        ("run_command".to_owned(), PathAccess::Write),
    ]);
    CallRules::new(Arc::new(cx), "run_command", Vec::new(), mode)
        .with_path_tools(tools)
        .with_allowed_by(by)
}

fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("victim.txt"), "precious\n").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "TOPSECRET-4711\n").unwrap();
    dir
}

async fn run(shell: &str, command: &str, root: &Path, policy: Policy) -> Output {
    SandboxedCommand::new(shell)
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .output(policy)
        .await
        .unwrap_or_else(|err| panic!("{command}: {err}"))
}

fn victim(root: &Path) -> Option<String> {
    std::fs::read_to_string(root.join("victim.txt")).ok()
}

fn deny_rm() -> CallRules {
    rules(
        &[(RuleBehavior::Deny, "run_command(rm:*)")],
        PermissionMode::Bypass,
        AllowedBy::Mode(PermissionMode::Bypass),
    )
}

#[tokio::test]
async fn a_denied_program_is_stopped_wherever_it_starts() {
    if !guarded() {
        return;
    }
    let cases = [
        ("bash", "[[ -v 'x[$(rm -f victim.txt)]' ]]; echo after"),
        (
            "sh",
            "python3 -c 'import os; os.system(\"rm -f victim.txt\")'",
        ),
        (
            "sh",
            "printf 'all:\\n\\trm -f victim.txt\\n' > Makefile; make -s",
        ),
        ("sh", "cp /bin/rm ./x && ./x -f victim.txt"),
        ("sh", "ln -s /bin/rm ./y && ./y -f victim.txt"),
        // A copy in memory, with no path at all.
        (
            "sh",
            "python3 -c 'import os; f = os.memfd_create(\"m\"); os.write(f, open(\"/bin/rm\", \"rb\").read()); os.execve(\"/proc/self/fd/%d\" % f, [\"m\", \"-f\", \"victim.txt\"], {})'",
        ),
        // A copy with bytes added at its end still runs as rm.
        (
            "sh",
            "cp /bin/rm ./z && echo padding >> ./z && ./z -f victim.txt",
        ),
        ("sh", "/lib64/ld-linux-x86-64.so.2 /bin/rm -f victim.txt"),
        ("bash", "exec -a ls rm -f victim.txt"),
        // A script among the arguments does not make `rm` that script.
        (
            "bash",
            "printf '#!/bin/sh\\n' > s.sh; exec -a x rm victim.txt s.sh",
        ),
        (
            "sh",
            "(setsid sh -c 'sleep 0.2; rm -f victim.txt' &); sleep 1",
        ),
    ];
    for (shell, command) in cases {
        let dir = scratch();
        let root = dir.path();
        let off = run(shell, command, root, Policy::unguarded()).await;
        assert_eq!(
            victim(root),
            None,
            "{command} must do its damage unguarded: {off:?}"
        );

        let dir = scratch();
        let root = dir.path();
        let reading = shell_reading::read(command);
        let policy = Policy::new(
            &deny_rm(),
            root,
            Prediction::from_reading(&reading),
            Vec::new(),
        )
        .unwrap();
        let out = run(shell, command, root, policy).await;
        assert_eq!(
            victim(root).as_deref(),
            Some("precious\n"),
            "{command}: {out:?}"
        );
        let stopped = out
            .stopped
            .clone()
            .unwrap_or_else(|| panic!("{command} was not stopped: {out:?}"));
        assert!(stopped.reason.contains("run_command(rm:*)"), "{stopped}");
        assert!(stopped.argv.iter().any(|a| a == "victim.txt"), "{stopped}");
    }
}

#[tokio::test]
async fn outside_bypass_the_shell_starts_only_what_was_decided_on() {
    if !guarded() {
        return;
    }
    let allow_ls = rules(
        &[(RuleBehavior::Allow, "run_command(ls:*)")],
        PermissionMode::Default,
        AllowedBy::AllowRule("run_command(ls:*)".into()),
    );
    let command = "ls && [[ -v 'x[$(rm -f victim.txt)]' ]]";
    let dir = scratch();
    let root = dir.path();
    let reading = shell_reading::read(command);
    let policy = Policy::new(
        &allow_ls,
        root,
        Prediction::from_reading(&reading),
        Vec::new(),
    )
    .unwrap();
    let out = run("bash", command, root, policy).await;
    assert_eq!(victim(root).as_deref(), Some("precious\n"));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("victim.txt"),
        "ls ran: {out:?}"
    );
    let stopped = out.stopped.expect("the hidden rm is stopped");
    assert!(
        stopped.reason.contains("not in the command as read"),
        "{stopped}"
    );

    // What an allowed program starts is under its rule: `make` may run `cc`.
    let allow_make = rules(
        &[(RuleBehavior::Allow, "run_command(make:*)")],
        PermissionMode::Default,
        AllowedBy::AllowRule("run_command(make:*)".into()),
    );
    std::fs::write(root.join("Makefile"), "all:\n\t@echo built > out.txt\n").unwrap();
    let policy = Policy::new(
        &allow_make,
        root,
        Prediction::from_reading(&shell_reading::read("make")),
        Vec::new(),
    )
    .unwrap();
    let out = run("sh", "make", root, policy).await;
    assert!(out.stopped.is_none(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("out.txt")).unwrap(),
        "built\n"
    );

    // A predicted script run from another directory is still the one read.
    let decided = rules(
        &[],
        PermissionMode::Default,
        AllowedBy::Mode(PermissionMode::Default),
    );
    let command = "mkdir -p sub && printf '#!/bin/sh\\necho hi\\n' > sub/x.sh && chmod +x sub/x.sh && cd sub && ./x.sh";
    let reading = shell_reading::read(command);
    let policy = Policy::new(
        &decided,
        root,
        Prediction::from_reading(&reading),
        Vec::new(),
    )
    .unwrap();
    let out = run("sh", command, root, policy).await;
    assert!(out.stopped.is_none(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hi\n", "{out:?}");

    // A script the call was decided on is a program: what it starts
    // (here `mkdir`, which the line does not show) is under its rule...
    std::fs::write(root.join("configure"), "#!/bin/sh\nmkdir -p made\n").unwrap();
    let command = "chmod +x configure && ./configure";
    let reading = shell_reading::read(command);
    let policy = Policy::new(
        &decided,
        root,
        Prediction::from_reading(&reading),
        Vec::new(),
    )
    .unwrap();
    let out = run("sh", command, root, policy).await;
    assert!(out.stopped.is_none(), "{out:?}");
    assert!(root.join("made").is_dir(), "{out:?}");
    // ...while a shell the line starts on a string is still the line's own.
    let command = "sh -c 'mkdir -p other'";
    let reading = shell_reading::read("sh -c x");
    let policy = Policy::new(
        &decided,
        root,
        Prediction::from_reading(&reading),
        Vec::new(),
    )
    .unwrap();
    let out = run("sh", command, root, policy).await;
    assert!(
        out.stopped.is_some(),
        "mkdir was not in the command as read: {out:?}"
    );
}

#[tokio::test]
async fn path_rules_hold_for_every_process() {
    if !guarded() {
        return;
    }
    let guarded_rules = rules(
        &[
            (RuleBehavior::Deny, "edit_file(victim.txt)"),
            (RuleBehavior::Deny, "read_file(secret.txt)"),
        ],
        PermissionMode::Bypass,
        AllowedBy::Mode(PermissionMode::Bypass),
    );
    let destroy = [
        "> victim.txt",
        "truncate -s 0 victim.txt",
        "mv victim.txt gone",
        "python3 -c 'import os; os.unlink(\"victim.txt\")'",
        "perl -e 'open(F, \">victim.txt\")'",
        "ln -sf /etc/hostname victim.txt",
        "cp /dev/null victim.txt",
        "find . -name victim.txt -delete",
    ];
    for command in destroy {
        let dir = scratch();
        let root = dir.path();
        run("sh", command, root, Policy::unguarded()).await;
        assert_ne!(
            victim(root).as_deref(),
            Some("precious\n"),
            "{command} must damage unguarded"
        );

        let dir = scratch();
        let root = dir.path();
        let policy = Policy::new(&guarded_rules, root, Prediction::none(), Vec::new()).unwrap();
        let out = run("sh", command, root, policy).await;
        assert_eq!(
            victim(root).as_deref(),
            Some("precious\n"),
            "{command}: {out:?}"
        );
        // Everything else in the workspace stays writable.
        let policy = Policy::new(&guarded_rules, root, Prediction::none(), Vec::new()).unwrap();
        let out = run("sh", "echo made > other.txt && cat other.txt", root, policy).await;
        assert_eq!(String::from_utf8_lossy(&out.stdout), "made\n", "{out:?}");
    }
    for command in [
        "cat secret.txt",
        "cp secret.txt x; cat x",
        "python3 -c 'print(open(\"secret.txt\").read())'",
        "cat /proc/self/cwd/secret.txt",
    ] {
        let dir = scratch();
        let root = dir.path();
        let policy = Policy::new(&guarded_rules, root, Prediction::none(), Vec::new()).unwrap();
        let out = run("sh", command, root, policy).await;
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("TOPSECRET"),
            "{command}: {out:?}"
        );
    }
}

#[tokio::test]
async fn nothing_outside_the_workspace_is_written_and_nothing_escapes() {
    if !guarded() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("planted");
    let dir = scratch();
    let root = dir.path();
    let command = format!(
        "echo x > {0}; touch {0}; mkdir {0}.d; echo ok > \"$TMPDIR/own\" && cat \"$TMPDIR/own\"; \
         umount -l {1}/victim.txt; unshare -m true && echo UNSHARED; \
         python3 -c 'import ctypes; print(\"clone\", ctypes.CDLL(None).syscall(56, 0x800000 | 17, 0, 0, 0, 0))'",
        target.display(),
        root.display()
    );
    let policy = Policy::new(&deny_rm(), root, Prediction::none(), Vec::new()).unwrap();
    let out = run("sh", &command, root, policy).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !target.exists() && !outside.path().join("planted.d").exists(),
        "{out:?}"
    );
    assert!(
        stdout.contains("ok\n"),
        "the private temporary directory is writable: {out:?}"
    );
    assert!(!stdout.contains("UNSHARED"), "{out:?}");
    assert!(
        stdout.contains("clone -1"),
        "an untraced clone is refused: {out:?}"
    );

    // `/tmp` itself is the private directory (for programs that ignore
    // TMPDIR), and a pseudo-terminal can be had.
    let policy = Policy::new(&deny_rm(), root, Prediction::none(), Vec::new()).unwrap();
    let command = "echo own > /tmp/own && cat /tmp/own; script -qec 'echo tty' /dev/null";
    let out = run("sh", command, root, policy).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("own\n") && stdout.contains("tty"),
        "{out:?}"
    );
    assert!(
        !Path::new("/tmp/own").exists(),
        "the host's /tmp is untouched"
    );

    // A directory the runtime lets commands write (a build cache).
    let cache = tempfile::tempdir().unwrap();
    let command = format!("echo cached > {}/entry", cache.path().display());
    let policy = Policy::new(&deny_rm(), root, Prediction::none(), Vec::new())
        .unwrap()
        .with_writable(vec![cache.path().to_path_buf()]);
    let out = run("sh", &command, root, policy).await;
    assert_eq!(
        std::fs::read_to_string(cache.path().join("entry"))
            .ok()
            .as_deref(),
        Some("cached\n"),
        "{out:?}"
    );
}

#[tokio::test]
async fn the_network_is_off_unless_allowed() {
    if !guarded() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    other.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let other_port = other.local_addr().unwrap().port();
    let connect = |port: u16| {
        format!(
            "python3 -c 'import socket; s = socket.create_connection((\"127.0.0.1\", {port}), 2); print(\"connected\")'"
        )
    };
    let dir = scratch();
    let root = dir.path();

    let out = run("sh", &connect(port), root, Policy::unguarded()).await;
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("connected"),
        "{out:?}"
    );
    while listener.accept().is_ok() {}

    let policy = Policy::new(&deny_rm(), root, Prediction::none(), Vec::new()).unwrap();
    let out = run("sh", &connect(port), root, policy).await;
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("connected"),
        "{out:?}"
    );
    assert!(listener.accept().is_err(), "no connection arrived");

    let allow = vec![NetworkAllow::new("127.0.0.1", port)];
    let policy = Policy::new(&deny_rm(), root, Prediction::none(), allow.clone()).unwrap();
    let out = run("sh", &connect(port), root, policy).await;
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("connected"),
        "allowed: {out:?}"
    );
    let policy = Policy::new(&deny_rm(), root, Prediction::none(), allow).unwrap();
    let out = run("sh", &connect(other_port), root, policy).await;
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("connected"),
        "{out:?}"
    );
    assert!(
        other.accept().is_err(),
        "no connection arrived outside the allow list"
    );

    // A daemon's unix socket outside the sandbox is out of reach too;
    // a command's own connected pair still works.
    let outside = tempfile::tempdir().unwrap();
    let socket = outside.path().join("daemon.sock");
    let daemon = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    daemon.set_nonblocking(true).unwrap();
    let command = format!(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"{}\"); print(\"connected\")'; \
         python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"pair\"); print(b.recv(4).decode())'",
        socket.display()
    );
    let policy = Policy::new(&deny_rm(), root, Prediction::none(), Vec::new()).unwrap();
    let out = run("sh", &command, root, policy).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("connected"), "{out:?}");
    assert!(daemon.accept().is_err(), "no connection reached the daemon");
    assert!(stdout.contains("pair"), "{out:?}");
}
