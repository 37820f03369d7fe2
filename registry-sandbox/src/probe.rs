//! What this machine's kernel can enforce, found out once by trying each
//! mechanism in a child process.

use std::fmt;
use std::sync::OnceLock;

/// How paths are guarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsMechanism {
    /// A private mount namespace (read-only tree, hidden and read-only
    /// paths) with Landlock beneath it: path rules hold.
    MountNamespace,
    /// Landlock alone: writes confined to the workspace and the private
    /// temporary directory; path rules inside them cannot be enforced.
    LandlockOnly,
}

/// How the network is kept off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetMechanism {
    /// A network namespace with only loopback.
    Namespace,
}

/// What this machine's kernel enforces for a sandboxed command. Each
/// field is `Err(why)` when the mechanism is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarantees {
    /// Every program start checked at its exec stop (ptrace).
    pub exec_guard: Result<(), String>,
    /// The filesystem guard.
    pub fs_guard: Result<FsMechanism, String>,
    /// The network off by default.
    pub network: Result<NetMechanism, String>,
    /// Landlock's ABI version (0: none): TCP port rules need 4, signal
    /// scoping 6.
    pub landlock_abi: i32,
    /// Whether the namespaces are made inside a user namespace (the caller
    /// is not root).
    pub user_namespace: bool,
}

impl Guarantees {
    /// Whether path rules hold for commands.
    pub fn path_rules_hold(&self) -> bool {
        self.fs_guard == Ok(FsMechanism::MountNamespace)
    }
}

impl fmt::Display for Guarantees {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.exec_guard {
            Ok(()) => writeln!(
                f,
                "exec guard: yes (ptrace exec stops; seccomp refuses untraced clones)"
            )?,
            Err(why) => writeln!(f, "exec guard: NO ({why})")?,
        }
        match &self.fs_guard {
            Ok(FsMechanism::MountNamespace) => writeln!(
                f,
                "filesystem guard: yes ({}mount namespace: read-only tree, hidden and read-only paths; Landlock ABI {} beneath)",
                if self.user_namespace { "user and " } else { "" },
                self.landlock_abi
            )?,
            Ok(FsMechanism::LandlockOnly) => writeln!(
                f,
                "filesystem guard: partial (Landlock ABI {}: writes confined to the workspace; path rules cannot be enforced)",
                self.landlock_abi
            )?,
            Err(why) => writeln!(f, "filesystem guard: NO ({why})")?,
        }
        match &self.network {
            Ok(NetMechanism::Namespace) => write!(
                f,
                "network: off by default (network namespace){}",
                if self.landlock_abi >= 4 {
                    "; allow lists by TCP port (Landlock)"
                } else {
                    "; no allow lists (Landlock ABI < 4)"
                }
            ),
            Err(why) => write!(f, "network: NOT guarded ({why})"),
        }
    }
}

/// What this machine enforces, found out on first use (a few child
/// processes, once per process) and remembered.
///
/// ```
/// let guarantees = registry_sandbox::probe();
/// println!("{guarantees}");
/// ```
pub fn probe() -> &'static Guarantees {
    static PROBED: OnceLock<Guarantees> = OnceLock::new();
    PROBED.get_or_init(probe_now)
}

#[cfg(target_os = "linux")]
fn probe_now() -> Guarantees {
    crate::linux::probe()
}

#[cfg(not(target_os = "linux"))]
fn probe_now() -> Guarantees {
    let why = "only Linux is supported (macOS is designed on paper: see the crate docs)".to_owned();
    Guarantees {
        exec_guard: Err(why.clone()),
        fs_guard: Err(why.clone()),
        network: Err(why),
        landlock_abi: 0,
        user_namespace: false,
    }
}
