//! What the command's first process does between `fork` and `exec`: the
//! namespaces, the mounts, the exec guard's `PTRACE_TRACEME`, Landlock and
//! seccomp, in that order.
//!
//! Everything is built in the parent ([`ChildSetup::new`]); the child only
//! makes system calls on prepared data (no allocation, no lock: after a
//! `fork` in a threaded program only async-signal-safe calls are sound).

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};
use registry_core::__private::enforce::{PathAccess, PathGuard};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::policy::NetworkAllow;

/// One mount step.
enum Step {
    /// `mount(source, target, fstype, flags, data)`.
    Mount {
        source: Option<CString>,
        target: CString,
        fstype: Option<CString>,
        flags: libc::c_ulong,
        data: Option<CString>,
    },
    /// `mount_setattr(target, AT_RECURSIVE, set, clear)`.
    Attr {
        target: CString,
        set: u64,
        clear: u64,
    },
    /// `open_tree(source, OPEN_TREE_CLONE | AT_RECURSIVE)`: a detached
    /// copy of a mount tree, kept in `slot` until it is attached again.
    Detach { source: CString, slot: usize },
    /// `move_mount` of the tree in `slot` onto `target`.
    Attach { slot: usize, target: CString },
}

const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;

const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// Where programs that ignore `TMPDIR` write.
const TMP: &str = "/tmp";

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Everything the child does, prepared.
pub(super) struct ChildSetup {
    unshare: libc::c_int,
    /// For a user namespace: the maps to write right after `unshare`.
    id_maps: Option<IdMaps>,
    steps: Vec<Step>,
    /// Detached mount trees, by slot (sized in the parent).
    slots: Vec<libc::c_int>,
    chdir: CString,
    loopback_up: bool,
    traced: bool,
    landlock: Option<RulesetCreated>,
    filters: Vec<BpfProgram>,
}

/// What the sandbox needs from the filesystem: the working directory, the
/// private temporary directory and the guarded paths.
pub(super) struct Layout<'a> {
    pub root: &'a Path,
    pub tmp: &'a Path,
    /// More directories the runtime lets commands write.
    pub writable: &'a [std::path::PathBuf],
    pub guards: &'a [PathGuard],
    pub network: &'a [NetworkAllow],
    pub mount_namespace: bool,
    pub landlock_abi: i32,
    /// Whether the exec guard follows the command (`PTRACE_TRACEME`, and
    /// the seccomp filter that keeps every process traced).
    pub traced: bool,
    /// Whether to make a network namespace (with no allow list).
    pub net_namespace: bool,
    /// Whether the namespaces are made inside a user namespace of their
    /// own (a caller that is not root).
    pub user_namespace: bool,
}

/// The identity maps of a user namespace that maps the caller's own uid
/// and gid to themselves (all an unprivileged process may write), built
/// in the parent and written by the child.
pub(super) struct IdMaps {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl IdMaps {
    pub(super) fn own() -> IdMaps {
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        IdMaps {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
        }
    }

    /// Writes the maps of the user namespace the calling process just
    /// made (`setgroups` must be denied before an unprivileged gid map).
    pub(super) fn apply(&self) -> io::Result<()> {
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_file(c"/proc/self/uid_map", &self.uid_map)?;
        write_file(c"/proc/self/gid_map", &self.gid_map)
    }
}

fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    let result = if written == bytes.len() as isize {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    };
    unsafe { libc::close(fd) };
    result
}

fn cstr(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
}

impl ChildSetup {
    pub(super) fn new(layout: &Layout<'_>) -> io::Result<ChildSetup> {
        let mut unshare = 0;
        let mut steps = Vec::new();
        if layout.mount_namespace {
            unshare |= libc::CLONE_NEWNS;
            // Nothing this namespace mounts propagates back to the host.
            steps.push(Step::Mount {
                source: None,
                target: CString::from(c"/"),
                fstype: None,
                flags: libc::MS_REC | libc::MS_PRIVATE,
                data: None,
            });
            let mut writable = vec![cstr(layout.root)?, cstr(layout.tmp)?];
            for dir in layout.writable {
                if dir.is_dir() {
                    writable.push(cstr(dir)?);
                }
            }
            for dir in &writable {
                steps.push(Step::Mount {
                    source: Some(dir.clone()),
                    target: dir.clone(),
                    fstype: None,
                    flags: libc::MS_BIND | libc::MS_REC,
                    data: None,
                });
            }
            for guard in layout.guards {
                let target = cstr(&guard.path)?;
                let step = match (guard.access, guard.is_dir) {
                    // Hidden: an empty, read-only directory...
                    (PathAccess::Read, true) => Step::Mount {
                        source: Some(CString::from(c"tmpfs")),
                        target,
                        fstype: Some(CString::from(c"tmpfs")),
                        flags: libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        data: Some(CString::from(c"size=4k,mode=0555")),
                    },
                    // ...or an empty file (reads give nothing).
                    (PathAccess::Read, false) => Step::Mount {
                        source: Some(CString::from(c"/dev/null")),
                        target,
                        fstype: None,
                        flags: libc::MS_BIND,
                        data: None,
                    },
                    // Read-only: the path mounted on itself (made read-only
                    // below); a mount point cannot be renamed or unlinked.
                    (PathAccess::Write, _) => Step::Mount {
                        source: Some(target.clone()),
                        target,
                        fstype: None,
                        flags: libc::MS_BIND | libc::MS_REC,
                        data: None,
                    },
                };
                steps.push(step);
            }
            // The private temporary directory becomes `/tmp` itself, for
            // the programs that ignore `TMPDIR` (`ed`, many scripts). What
            // the command may write under the old `/tmp` (a workspace made
            // there) is carried over: detached before, attached after.
            let carried: Vec<&Path> = std::iter::once(layout.root)
                .chain(layout.writable.iter().map(|d| d.as_path()))
                .filter(|dir| dir.starts_with(TMP) && *dir != Path::new(TMP) && dir.is_dir())
                .collect();
            for (slot, dir) in carried.iter().enumerate() {
                steps.push(Step::Detach {
                    source: cstr(dir)?,
                    slot,
                });
            }
            steps.push(Step::Mount {
                source: Some(cstr(layout.tmp)?),
                target: CString::from(c"/tmp"),
                fstype: None,
                flags: libc::MS_BIND,
                data: None,
            });
            for (slot, dir) in carried.iter().enumerate() {
                // Where it goes must exist in the new `/tmp`: made now, in
                // the private directory, by the parent.
                let below = dir.strip_prefix(TMP).unwrap_or(dir);
                std::fs::create_dir_all(layout.tmp.join(below))?;
                steps.push(Step::Attach {
                    slot,
                    target: cstr(dir)?,
                });
            }
            // The private directory is now `/tmp`; its old path is gone.
            let private = cstr(layout.tmp)?;
            writable.retain(|dir| *dir != private);
            writable.push(CString::from(c"/tmp"));
            steps.push(Step::Attr {
                target: CString::from(c"/"),
                set: MOUNT_ATTR_RDONLY,
                clear: 0,
            });
            for dir in writable {
                steps.push(Step::Attr {
                    target: dir,
                    set: 0,
                    clear: MOUNT_ATTR_RDONLY,
                });
            }
            for guard in layout.guards {
                steps.push(Step::Attr {
                    target: cstr(&guard.path)?,
                    set: MOUNT_ATTR_RDONLY,
                    clear: 0,
                });
            }
        }
        let loopback_up = layout.network.is_empty() && layout.net_namespace;
        if loopback_up {
            unshare |= libc::CLONE_NEWNET;
        }
        let id_maps = (layout.user_namespace && unshare != 0).then(|| {
            unshare |= libc::CLONE_NEWUSER;
            IdMaps::own()
        });
        let landlock = landlock_ruleset(layout).map_err(io::Error::other)?;
        let slots = steps
            .iter()
            .filter(|step| matches!(step, Step::Detach { .. }))
            .count();
        Ok(ChildSetup {
            unshare,
            id_maps,
            steps,
            slots: vec![-1; slots],
            chdir: cstr(layout.root)?,
            loopback_up,
            traced: layout.traced,
            landlock,
            filters: if layout.traced {
                seccomp_filters()?
            } else {
                Vec::new()
            },
        })
    }

    /// Runs in the child, between `fork` and `exec`.
    pub(super) fn apply(&mut self) -> io::Result<()> {
        if self.unshare != 0 && unsafe { libc::unshare(self.unshare) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some(maps) = &self.id_maps {
            maps.apply()?;
        }
        for step in &self.steps {
            step.apply(&mut self.slots)?;
        }
        // The working directory was entered before the mounts: enter it
        // again, through the writable mount.
        if unsafe { libc::chdir(self.chdir.as_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if self.loopback_up {
            loopback_up()?;
        }
        if self.traced {
            nix::sys::ptrace::traceme().map_err(io::Error::from)?;
        }
        if let Some(ruleset) = self.landlock.take() {
            ruleset.restrict_self().map_err(io::Error::other)?;
        }
        for filter in &self.filters {
            seccompiler::apply_filter(filter).map_err(io::Error::other)?;
        }
        Ok(())
    }
}

impl Step {
    fn apply(&self, slots: &mut [libc::c_int]) -> io::Result<()> {
        let ok = match self {
            Step::Detach { source, slot } => {
                let fd = unsafe {
                    libc::syscall(
                        libc::SYS_open_tree,
                        libc::AT_FDCWD,
                        source.as_ptr(),
                        OPEN_TREE_CLONE
                            | libc::O_CLOEXEC as libc::c_uint
                            | libc::AT_RECURSIVE as libc::c_uint,
                    )
                };
                slots[*slot] = fd as libc::c_int;
                fd >= 0
            }
            Step::Attach { slot, target } => unsafe {
                let done = libc::syscall(
                    libc::SYS_move_mount,
                    slots[*slot],
                    c"".as_ptr(),
                    libc::AT_FDCWD,
                    target.as_ptr(),
                    MOVE_MOUNT_F_EMPTY_PATH,
                ) == 0;
                libc::close(slots[*slot]);
                done
            },
            Step::Mount {
                source,
                target,
                fstype,
                flags,
                data,
            } => unsafe {
                libc::mount(
                    source.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                    target.as_ptr(),
                    fstype.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                    *flags,
                    data.as_ref()
                        .map_or(std::ptr::null(), |s| s.as_ptr().cast()),
                ) == 0
            },
            Step::Attr { target, set, clear } => {
                let attr = MountAttr {
                    attr_set: *set,
                    attr_clr: *clear,
                    propagation: 0,
                    userns_fd: 0,
                };
                unsafe {
                    libc::syscall(
                        libc::SYS_mount_setattr,
                        libc::AT_FDCWD,
                        target.as_ptr(),
                        libc::AT_RECURSIVE as libc::c_uint,
                        &attr as *const MountAttr,
                        std::mem::size_of::<MountAttr>(),
                    ) == 0
                }
            }
        };
        if ok {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

/// `ifreq` as `SIOCGIFFLAGS` / `SIOCSIFFLAGS` read it.
#[repr(C)]
struct IfFlags {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Brings the new network namespace's loopback up, so a command can still
/// talk to itself (a test server on 127.0.0.1).
fn loopback_up() -> io::Result<()> {
    let sock = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if sock < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut req = IfFlags {
        name: [0; 16],
        flags: 0,
        _pad: [0; 22],
    };
    req.name[..2].copy_from_slice(b"lo");
    let result = unsafe {
        if libc::ioctl(sock, libc::SIOCGIFFLAGS, &mut req) != 0 {
            Err(io::Error::last_os_error())
        } else {
            req.flags |= libc::IFF_UP as libc::c_short;
            if libc::ioctl(sock, libc::SIOCSIFFLAGS, &req) != 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(())
            }
        }
    };
    unsafe { libc::close(sock) };
    result
}

/// The Landlock layer: reading and running anywhere, writing only beneath
/// the working and temporary directories and to three devices; TCP
/// connections only to the allow list's ports when there is one; signals
/// and abstract sockets scoped to the sandbox. `None` where the kernel has
/// no Landlock.
fn landlock_ruleset(layout: &Layout<'_>) -> Result<Option<RulesetCreated>, landlock::RulesetError> {
    if layout.landlock_abi < 1 {
        return Ok(None);
    }
    let abi = ABI::from(layout.landlock_abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))?;
    if !layout.network.is_empty() && layout.landlock_abi >= 4 {
        ruleset = ruleset.handle_access(AccessNet::ConnectTcp)?;
    }
    if layout.landlock_abi >= 6 {
        ruleset = ruleset.scope(Scope::AbstractUnixSocket | Scope::Signal)?;
    }
    let mut created = ruleset.create()?;
    let read = AccessFs::from_read(abi);
    if let Ok(fd) = PathFd::new("/") {
        created = created.add_rule(PathBeneath::new(fd, read))?;
    }
    let writable = [layout.root, layout.tmp]
        .into_iter()
        .chain(layout.writable.iter().map(|d| d.as_path()));
    for dir in writable {
        if let Ok(fd) = PathFd::new(dir) {
            created = created.add_rule(PathBeneath::new(fd, AccessFs::from_all(abi)))?;
        }
    }
    // Writing to these changes no file: the null sink, and terminals
    // (`script`, `expect` and friends open a new pseudo-terminal).
    for device in [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/pts",
    ] {
        if let Ok(fd) = PathFd::new(device) {
            // A terminal is driven by ioctls (Landlock handles them on
            // devices from ABI 5).
            let mut access = AccessFs::ReadFile | AccessFs::WriteFile;
            if layout.landlock_abi >= 5 {
                access |= AccessFs::IoctlDev;
            }
            created = created.add_rule(PathBeneath::new(fd, access))?;
        }
    }
    for allow in layout.network {
        created = created.add_rule(NetPort::new(allow.port, AccessNet::ConnectTcp))?;
    }
    Ok(Some(created))
}

/// The seccomp filters: `EPERM` for a clone that would escape tracing or
/// make namespaces, and for every call that could undo the sandbox
/// (mounts, namespaces, `ptrace`, writing another process's memory,
/// opening files by handle past the mounts); `ENOSYS` for `clone3`, whose
/// flags sit in memory a filter cannot read (libc then falls back to
/// `clone`, which the filter can).
fn seccomp_filters() -> io::Result<Vec<BpfProgram>> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| io::Error::other(format!("seccomp: {e}")))?;
    let compile = |rules: Vec<(i64, Vec<SeccompRule>)>, errno: u32| -> io::Result<BpfProgram> {
        let filter = SeccompFilter::new(
            rules.into_iter().collect(),
            SeccompAction::Allow,
            SeccompAction::Errno(errno),
            arch,
        )
        .map_err(|e| io::Error::other(format!("seccomp: {e}")))?;
        filter
            .try_into()
            .map_err(|e: seccompiler::BackendError| io::Error::other(format!("seccomp: {e}")))
    };
    // `clone` with any flag that would escape tracing or make a
    // namespace: one rule per flag (a rule matches when its bit is set).
    let mut clone_rules = Vec::new();
    for flag in [
        libc::CLONE_UNTRACED,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWPID,
    ] {
        let bit = flag as u64;
        let condition =
            SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(bit), bit)
                .map_err(|e| io::Error::other(format!("seccomp: {e}")))?;
        clone_rules.push(
            SeccompRule::new(vec![condition])
                .map_err(|e| io::Error::other(format!("seccomp: {e}")))?,
        );
    }
    let denied = [
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_mount_setattr,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_ptrace,
        libc::SYS_process_vm_writev,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_kexec_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_bpf,
    ];
    let mut refused: Vec<(i64, Vec<SeccompRule>)> =
        denied.iter().map(|&nr| (nr, Vec::new())).collect();
    refused.push((libc::SYS_clone, clone_rules));
    // A named unix socket reaches a daemon outside the sandbox (docker,
    // an ssh agent) whatever the network namespace: no new unix socket
    // (a `socketpair`, already connected, still works for a command's own
    // processes).
    let unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        libc::AF_UNIX as u64,
    )
    .map_err(|e| io::Error::other(format!("seccomp: {e}")))?;
    refused.push((
        libc::SYS_socket,
        vec![SeccompRule::new(vec![unix]).map_err(|e| io::Error::other(format!("seccomp: {e}")))?],
    ));
    let refuse = compile(refused, libc::EPERM as u32)?;
    let clone3 = compile(vec![(libc::SYS_clone3, Vec::new())], libc::ENOSYS as u32)?;
    Ok(vec![refuse, clone3])
}
