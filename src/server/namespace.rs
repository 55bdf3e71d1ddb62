//! Linux namespaces for a server that runs generated code: a network namespace of its own (a
//! loopback and nothing else, so no host, not even ours on 127.0.0.1, is reachable) and a mount
//! namespace in which the whole file system is read-only except its scratch folder.
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
}

impl Step {
    const ALL: [Step; 9] = [
        Step::Unshare,
        Step::IdMaps,
        Step::PrivateMounts,
        Step::BindScratch,
        Step::ReadOnly,
        Step::WritableScratch,
        Step::Loopback,
        Step::WorkingFolder,
        Step::NoNewPrivileges,
    ];

    fn from_code(code: u32) -> Option<Step> {
        Step::ALL.into_iter().find(|s| *s as u32 == code)
    }

    fn describe(self) -> &'static str {
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
        }
    }
}

/// Everything the child needs, prepared in the parent.
pub struct IsolationPlan {
    writable: Vec<CString>,
    cwd: CString,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl IsolationPlan {
    /// A plan in which only the `writable` folders (and what is below them) can be written,
    /// run in `cwd`.
    pub fn new(writable: &[&Path], cwd: &Path) -> io::Result<IsolationPlan> {
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
            let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET;
            check(libc::unshare(flags) as _, Step::Unshare)?;
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
            check(libc::chdir(self.cwd.as_ptr()) as _, Step::WorkingFolder)?;
            let nnp = libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            check(nnp as _, Step::NoNewPrivileges)?;
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

/// Whether this machine lets a process enter the namespaces: a forked child tries, on a
/// scratch folder of its own, and reports the first step refused.
pub fn probe() -> Result<(), Refused> {
    let scratch = tempfile::tempdir().map_err(Refused::Scratch)?;
    let plan = IsolationPlan::new(&[scratch.path()], scratch.path()).map_err(Refused::Prepare)?;
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
