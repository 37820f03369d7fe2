//! Commands whose processes the kernel holds to the call's permission
//! rules.
//!
//! A reading of a shell command predicts what it will run; it cannot be
//! complete (bash evaluates code in array subscripts, variables and
//! start-up files, and every interpreter runs code no reading sees). So a
//! tool that starts processes runs them through a [`SandboxedCommand`],
//! shaped like `tokio::process::Command` and given the call's
//! [`ToolContext`](registry_core::ToolContext): the permission rules the
//! executor attached to the call
//! ([`CallRules`](registry_core::permission::CallRules)) are enforced
//! where the operating system decides.
//!
//! # The guards (Linux)
//!
//! - **Exec guard** (ptrace). Every program any process of the command
//!   starts is stopped at `PTRACE_EVENT_EXEC`: the new image has one
//!   thread and has run no instruction, so its program file and argument
//!   vector can no longer change. Both are read from the kernel
//!   (`/proc/PID/exe`, `/proc/PID/cmdline`) and judged by
//!   [`ProgramRules::judge`](registry_core::__private::enforce::ProgramRules::judge):
//!   a deny rule (`run_command(rm:*)`) holds for every process of the
//!   tree, whoever starts it; outside `bypass` the command's own shell may
//!   start only what the call was decided on or what allow rules cover.
//!   A refused start ends the command's whole process tree before the
//!   program runs, and [`Output::stopped`] ([`Stopped`]) says which program, with
//!   which arguments, by which rule. Forks, vforks, clones and double
//!   forks are followed (`PTRACE_O_TRACEFORK`, `…VFORK`, `…CLONE`); the
//!   one way to start an untraced child, `clone(CLONE_UNTRACED)`, is
//!   refused by the seccomp filter, as are `clone3` (its flags cannot be
//!   inspected), `ptrace` and `process_vm_writev`.
//! - **Filesystem guard** (a mount namespace, then Landlock). The whole
//!   tree is mounted read-only but the working directory and a private
//!   temporary directory (mounted as `/tmp`, and `TMPDIR`; a workspace that
//!   lived under the host's `/tmp` keeps its path); each path a read rule covers is
//!   hidden (an empty file or directory is mounted over it) and each path
//!   a write rule covers is mounted read-only on itself (no write,
//!   truncation, rename, link or unlink: a mount point cannot be moved).
//!   Landlock then allows writes only beneath the same two directories and
//!   to `/dev/null`, `/dev/zero`, `/dev/full`, scopes signals and abstract
//!   sockets to the sandbox, and keeps its processes from reaching
//!   anything outside through `/proc/PID/root`. Mount, namespace and
//!   `open_by_handle_at` calls are refused by seccomp, so a root command
//!   cannot undo a mount.
//! - **Network off** (a network namespace with only loopback). With an
//!   allow list ([`NetworkAllow`]) the command stays on the host's network
//!   and Landlock allows TCP connections to the listed ports only. A named
//!   unix socket reaches a daemon whatever the namespace, so no process
//!   may make one (seccomp refuses `socket(AF_UNIX)`; a `socketpair`, for
//!   a command's own processes, still works).
//!
//! [`probe`] says which of these this machine gives. Where the call needs
//! a guarantee the machine lacks, the call is uncheckable: a tool asks a
//! person (naming what is missing) and, in `bypass` and `dont_ask`, or
//! when an allow rule rather than a person allowed it, refuses to run
//! ([`Policy::missing`]). Nothing is silently weaker.
//!
//! # Limits
//!
//! - A program rule names a program: the file the rule's name resolves to
//!   (through `PATH`, links followed, a hard link or an identical copy
//!   included, and one with bytes appended) and anything started under
//!   that name. A program the command writes itself and then runs (a
//!   compiled binary, a copy altered inside) is its own program: allow
//!   rules never cover it, and what it does to files is for path rules,
//!   which hold for every process (`python3 -c 'os.unlink(...)'` is no
//!   `rm` either).
//! - A path rule guards the paths that exist when the command starts,
//!   and everything inside a directory it covers whole (`secrets/**`). A
//!   new file whose name a wildcard rule covers (`**/.env` where none
//!   exists yet) is the command's own.
//! - With an allow list, the host part of an entry is not enforced (only
//!   the port, by Landlock), and UDP is not restricted.
//! - A caller that is not root makes the namespaces inside a user
//!   namespace of its own (its uid and gid mapped to themselves; the
//!   command runs without capabilities). Where the kernel allows neither
//!   (unprivileged user namespaces switched off), there is no mount
//!   namespace: Landlock still confines writes to the workspace, but path
//!   rules inside it cannot be enforced, so such calls are uncheckable.
//!
//! # macOS, on paper
//!
//! Seatbelt (`sandbox-exec` with a generated SBPL profile) gives the
//! filesystem guard (`deny file-read*` / `file-write*` on the guarded
//! paths, writes allowed only under the workspace and `TMPDIR`) and the
//! network (`deny network*` but the allow list). There is no race-free
//! exec hook a library can use (no ptrace exec stop; EndpointSecurity
//! needs an entitled system extension), so [`probe`] reports no exec
//! guard: program rules are decided by the reading alone and a call with
//! program rules is uncheckable.

#![warn(missing_docs)]

mod command;
#[cfg(target_os = "linux")]
mod linux;
mod policy;
mod probe;

pub use command::{Output, SandboxError, SandboxedCommand, Stopped};
pub use policy::{GuardsOff, NetworkAllow, NetworkAllowList, Policy, Prediction, WritablePaths};
pub use probe::{FsMechanism, Guarantees, NetMechanism, probe};
