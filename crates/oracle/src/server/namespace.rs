//! Linux namespaces for a server that runs generated code: a network namespace of its own (a
//! loopback and nothing else, so no host, not even ours on 127.0.0.1, is reachable), a mount
//! namespace in which the whole file system is read-only except its scratch folder, and a PID
//! namespace whose small init ([`super::init`]) outlives every process the server starts. Then,
//! just before exec, the confinement of what it may open ([`super::landlock`]) and the system
//! calls it may make ([`super::seccomp`]).
//!
//! The namespaces are entered between fork and exec, by the child, through a user namespace so
//! that no privilege is needed (and so that root, too, runs the server without capabilities:
//! its uid inside is not 0, so exec drops them and the read-only mounts cannot be undone). The
//! child of a multi-threaded process may not allocate or take locks, so every string and
//! buffer is prepared beforehand and only raw syscalls run there.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use seccompiler::BpfProgram;

use super::init;
use super::landlock;

/// `MOUNT_ATTR_RDONLY` of `mount_setattr(2)` (not in the libc crate).
const MOUNT_ATTR_RDONLY: u64 = 0x1;
/// The uid and gid a server has inside when mcpevol runs as root: anything but 0, so that it
/// holds no capability after exec. 65534 is `nobody` on common systems.
const UNPRIVILEGED_ID: u32 = 65534;

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// The step the machine refused, for the warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Unshare = 1,
    IdMaps,
    PrivateMounts,
    BindScratch,
    ReadOnly,
    WritableScratch,
    Loopback,
    WorkingFolder,
    NoNewPrivileges,
    PidNamespace,
    Init,
    Proc,
    Landlock,
    Seccomp,
}

impl Step {
    const ALL: [Step; 14] = [
        Step::Unshare,
        Step::IdMaps,
        Step::PrivateMounts,
        Step::BindScratch,
        Step::ReadOnly,
        Step::WritableScratch,
        Step::Loopback,
        Step::WorkingFolder,
        Step::NoNewPrivileges,
        Step::PidNamespace,
        Step::Init,
        Step::Proc,
        Step::Landlock,
        Step::Seccomp,
    ];

    fn from_code(code: u32) -> Option<Step> {
        Step::ALL.into_iter().find(|s| *s as u32 == code)
    }

    pub fn describe(self) -> &'static str {
        match self {
            Step::Unshare => "creating user, mount and network namespaces (unshare)",
            Step::IdMaps => "mapping the user and group ids into the user namespace",
            Step::PrivateMounts => "making the mounts private to the namespace",
            Step::BindScratch => "binding the scratch folder",
            Step::ReadOnly => "making the file system read-only (mount_setattr, Linux >= 5.12)",
            Step::WritableScratch => "making the scratch folder writable",
            Step::Loopback => "bringing up the loopback interface",
            Step::WorkingFolder => "entering the working folder",
            Step::NoNewPrivileges => "setting no_new_privs",
            Step::PidNamespace => "creating a PID namespace (unshare)",
            Step::Init => "starting the PID namespace's init (fork)",
            Step::Proc => "mounting the PID namespace's /proc",
            Step::Landlock => "confining file access (Landlock)",
            Step::Seccomp => "installing the seccomp filter",
        }
    }

    /// The layer a refused step belongs to, where the sandbox can do without it.
    pub fn layer(self) -> Option<Layer> {
        match self {
            Step::PidNamespace | Step::Init | Step::Proc => Some(Layer::Pid),
            Step::Landlock => Some(Layer::Landlock),
            Step::Seccomp => Some(Layer::Seccomp),
            _ => None,
        }
    }
}

/// The guards beyond the namespaces, each of which a machine may lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// A PID namespace with its own init and `/proc`.
    Pid,
    /// Landlock: what the server may open.
    Landlock,
    /// The seccomp filter.
    Seccomp,
}

impl Layer {
    pub const ALL: [Layer; 3] = [Layer::Pid, Layer::Landlock, Layer::Seccomp];

    /// Its name in `MCPEVOL_SANDBOX_WITHOUT` and in warnings.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Pid => "pid",
            Layer::Landlock => "landlock",
            Layer::Seccomp => "seccomp",
        }
    }

    /// What goes unguarded without it.
    pub fn unguarded(self) -> &'static str {
        match self {
            Layer::Pid => {
                "a process the server starts may outlive it, and it sees every process of the machine in /proc"
            }
            Layer::Landlock => {
                "the server can read every file you can (your home, other workspaces, credentials)"
            }
            Layer::Seccomp => "the server may call ptrace, the kernel keyring and the like",
        }
    }
}

impl Guards {
    /// The guards of `layers` (the PID namespace only within the namespaces), with the
    /// Landlock ruleset built for the server.
    pub fn of(namespaces: bool, layers: &[Layer], landlock: Option<landlock::Prepared>) -> Guards {
        Guards {
            namespaces,
            pid: namespaces && layers.contains(&Layer::Pid),
            landlock,
            seccomp: layers
                .contains(&Layer::Seccomp)
                .then(super::seccomp::filter)
                .flatten(),
        }
    }
}

/// The layers a plan enters, with what each needs prepared.
#[derive(Default)]
pub struct Guards {
    /// The user, mount and network namespaces (and the read-only file system).
    pub namespaces: bool,
    pub pid: bool,
    pub landlock: Option<landlock::Prepared>,
    pub seccomp: Option<&'static BpfProgram>,
}

/// Everything the child needs, prepared in the parent.
pub struct IsolationPlan {
    writable: Vec<CString>,
    cwd: CString,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    guards: Guards,
    own: init::OwnStrings,
}

impl IsolationPlan {
    /// A plan in which only the `writable` folders (and what is below them) can be written,
    /// run in `cwd`, with `guards` on top.
    pub fn new(writable: &[&Path], cwd: &Path, guards: Guards) -> io::Result<IsolationPlan> {
        let c = |p: &Path| {
            CString::new(p.as_os_str().as_bytes()).map_err(|e| io::Error::other(e.to_string()))
        };
        let map = |outside: u32| {
            let inside = if outside == 0 {
                UNPRIVILEGED_ID
            } else {
                outside
            };
            format!("{inside} {outside} 1\n").into_bytes()
        };
        // SAFETY: geteuid and getegid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Ok(IsolationPlan {
            writable: writable.iter().map(|p| c(p)).collect::<io::Result<_>>()?,
            cwd: c(cwd)?,
            uid_map: map(uid),
            gid_map: map(gid),
            guards,
            own: init::OwnStrings::read(),
        })
    }

    /// Enters the namespaces. Runs in the forked child before exec: syscalls only.
    ///
    /// # Safety
    /// Call only in a freshly forked child (it changes the calling process's namespaces and
    /// working folder for good).
    pub unsafe fn enter(&self) -> Result<(), (Step, i32)> {
        let fail = |step: Step| (step, io::Error::last_os_error().raw_os_error().unwrap_or(0));
        let check = |rc: libc::c_long, step: Step| if rc < 0 { Err(fail(step)) } else { Ok(()) };
        // SAFETY: raw syscalls on buffers owned by `self`, which outlives them.
        unsafe {
            if self.guards.namespaces {
                self.enter_namespaces()?;
            }
            check(libc::chdir(self.cwd.as_ptr()) as _, Step::WorkingFolder)?;
            let nnp = libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            check(nnp as _, Step::NoNewPrivileges)?;
            if let Some(ruleset) = &self.guards.landlock {
                ruleset.enforce().map_err(|errno| (Step::Landlock, errno))?;
            }
            if let Some(filter) = self.guards.seccomp {
                super::seccomp::install(filter).map_err(|errno| (Step::Seccomp, errno))?;
            }
        }
        Ok(())
    }

    /// The namespaces, the read-only file system and, with `pid`, the PID namespace's init
    /// (after which this runs in the process that execs the server).
    unsafe fn enter_namespaces(&self) -> Result<(), (Step, i32)> {
        let fail = |step: Step| (step, io::Error::last_os_error().raw_os_error().unwrap_or(0));
        let check = |rc: libc::c_long, step: Step| if rc < 0 { Err(fail(step)) } else { Ok(()) };
        // SAFETY: raw syscalls on buffers owned by `self`, which outlives them.
        unsafe {
            let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET;
            let pid = if self.guards.pid {
                libc::CLONE_NEWPID
            } else {
                0
            };
            let step = if self.guards.pid {
                Step::PidNamespace
            } else {
                Step::Unshare
            };
            check(libc::unshare(flags | pid) as _, step)?;
            write_file(c"/proc/self/setgroups", b"deny\n").map_err(|_| fail(Step::IdMaps))?;
            write_file(c"/proc/self/uid_map", &self.uid_map).map_err(|_| fail(Step::IdMaps))?;
            write_file(c"/proc/self/gid_map", &self.gid_map).map_err(|_| fail(Step::IdMaps))?;
            let none = std::ptr::null();
            let private = libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            );
            check(private as _, Step::PrivateMounts)?;
            // Each writable folder becomes a mount of its own, so that it alone can be made
            // writable again once everything is read-only.
            for dir in &self.writable {
                let bind = libc::mount(
                    dir.as_ptr(),
                    dir.as_ptr(),
                    none,
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                );
                check(bind as _, Step::BindScratch)?;
            }
            check(set_read_only(c"/", true), Step::ReadOnly)?;
            for dir in &self.writable {
                check(set_read_only(dir, false), Step::WritableScratch)?;
            }
            loopback_up().map_err(|_| fail(Step::Loopback))?;
            if self.guards.pid {
                // From here on, this runs in the process that execs the server (pid 2 inside).
                init::start(true, self.own).map_err(|(failed, errno)| match failed {
                    init::Failed::Fork => (Step::Init, errno),
                    init::Failed::Proc => (Step::Proc, errno),
                })?;
            }
        }
        Ok(())
    }
}

/// Sets or clears read-only on the mount tree at `path`, recursively.
unsafe fn set_read_only(path: &std::ffi::CStr, read_only: bool) -> libc::c_long {
    let attr = MountAttr {
        attr_set: if read_only { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if read_only { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: `attr` and `path` live across the call; the size is the struct's.
    unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            libc::AT_RECURSIVE as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    }
}

unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> Result<(), ()> {
    // SAFETY: plain open/write/close on a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written == bytes.len() as isize {
            Ok(())
        } else {
            Err(())
        }
    }
}

/// A new network namespace has a loopback interface, down; servers that talk to themselves
/// over 127.0.0.1 need it up.
unsafe fn loopback_up() -> Result<(), ()> {
    // SAFETY: an ioctl on a socket we own, with a zeroed, NUL-terminated ifreq.
    unsafe {
        let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if sock < 0 {
            return Err(());
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        req.ifr_name[0] = b'l' as libc::c_char;
        req.ifr_name[1] = b'o' as libc::c_char;
        let mut ok = libc::ioctl(sock, libc::SIOCGIFFLAGS, &mut req) == 0;
        if ok {
            req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            ok = libc::ioctl(sock, libc::SIOCSIFFLAGS, &req) == 0;
        }
        libc::close(sock);
        if ok { Ok(()) } else { Err(()) }
    }
}

/// Why this machine cannot isolate servers.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("no scratch folder: {0}")]
    Scratch(io::Error),
    #[error("cannot prepare the namespaces: {0}")]
    Prepare(io::Error),
    #[error("no pipe: {0}")]
    Pipe(nix::Error),
    #[error("cannot fork: {0}")]
    Fork(nix::Error),
    #[error("the probe child reported nothing")]
    Silent,
    #[error("{} failed: {error}", .step.describe())]
    Step { step: Step, error: io::Error },
}

/// Whether this machine lets a process enter the namespaces with the `layers` on top: a forked
/// child tries, on a scratch folder of its own, and reports the first step refused.
pub fn probe(namespaces: bool, layers: &[Layer]) -> Result<(), Refused> {
    let scratch = tempfile::tempdir().map_err(Refused::Scratch)?;
    let landlock = if layers.contains(&Layer::Landlock) {
        let grants = [super::reads::Grant {
            path: scratch.path().to_path_buf(),
            access: super::reads::Access::Full,
        }];
        let prepared = landlock::Prepared::build(&grants)
            .map_err(|e| Refused::Prepare(io::Error::other(e)))?;
        Some(prepared.ok_or(Refused::Step {
            step: Step::Landlock,
            error: io::Error::from_raw_os_error(libc::EOPNOTSUPP),
        })?)
    } else {
        None
    };
    if layers.contains(&Layer::Seccomp) && super::seccomp::filter().is_none() {
        return Err(Refused::Step {
            step: Step::Seccomp,
            error: io::Error::from_raw_os_error(libc::EOPNOTSUPP),
        });
    }
    let guards = Guards::of(namespaces, layers, landlock);
    let plan =
        IsolationPlan::new(&[scratch.path()], scratch.path(), guards).map_err(Refused::Prepare)?;
    let (read, write) = nix::unistd::pipe().map_err(Refused::Pipe)?;
    // SAFETY: the child runs only `enter` (syscalls), one write and _exit.
    match unsafe { nix::unistd::fork() }.map_err(Refused::Fork)? {
        nix::unistd::ForkResult::Child => {
            let report: [u32; 2] = match unsafe { plan.enter() } {
                Ok(()) => [0, 0],
                Err((step, errno)) => [step as u32, errno as u32],
            };
            // SAFETY: writing 8 bytes of a live array to our pipe, then leaving at once.
            unsafe {
                use std::os::fd::AsRawFd;
                libc::write(write.as_raw_fd(), report.as_ptr().cast(), 8);
                libc::_exit(0);
            }
        }
        nix::unistd::ForkResult::Parent { child } => {
            drop(write);
            let mut bytes = [0u8; 8];
            let read_all = nix::unistd::read(&read, &mut bytes);
            let _ = nix::sys::wait::waitpid(child, None);
            if read_all != Ok(8) {
                return Err(Refused::Silent);
            }
            let step = u32::from_ne_bytes(bytes[..4].try_into().expect("4 bytes"));
            let errno = i32::from_ne_bytes(bytes[4..].try_into().expect("4 bytes"));
            match Step::from_code(step) {
                None => Ok(()),
                Some(step) => Err(Refused::Step {
                    step,
                    error: io::Error::from_raw_os_error(errno),
                }),
            }
        }
    }
}
