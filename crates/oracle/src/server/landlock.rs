//! Confining what a server opens with Landlock: a ruleset built in the parent from
//! [`super::reads::grants`], enforced by the forked child just before exec. Whatever the
//! server starts inherits it and cannot undo it. The ruleset also keeps the server from
//! signalling or tracing (reading `/proc/N/environ`, `/proc/N/mem`) any process outside it,
//! and from reaching abstract UNIX sockets outside it, where the kernel can.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    Scope,
};

use super::reads::{self, Grant};

/// The Landlock version whose rights the ruleset asks for; older kernels enforce what they
/// know of it (best effort), and [`kernel_abi`] says what that is.
const TARGET: ABI = ABI::V6;

/// `struct landlock_path_beneath_attr`, packed as the kernel declares it.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

const LANDLOCK_RULE_PATH_BENEATH: libc::c_long = 1;

/// The Landlock ABI version this kernel offers (0: none).
pub fn kernel_abi() -> i32 {
    // SAFETY: the version query takes no buffer.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    v.max(0) as i32
}

/// A ruleset ready to be enforced, with the rights to add for the child's own `/proc` (which
/// exists only once the child has mounted it).
pub struct Prepared {
    fd: OwnedFd,
    proc_access: u64,
}

/// Why no ruleset could be built.
#[derive(Debug, thiserror::Error)]
#[error("cannot build the Landlock ruleset: {0}")]
pub struct BuildError(String);

impl Prepared {
    /// The ruleset for `grants`; `None` where the kernel has no Landlock.
    pub fn build(grants: &[Grant]) -> Result<Option<Prepared>, BuildError> {
        if kernel_abi() < 1 {
            return Ok(None);
        }
        let err = |e: &dyn std::fmt::Display| BuildError(e.to_string());
        let all = AccessFs::from_all(TARGET);
        let mut ruleset = Ruleset::default()
            .handle_access(all)
            .map_err(|e| err(&e))?
            .scope(Scope::Signal | Scope::AbstractUnixSocket)
            .map_err(|e| err(&e))?
            .create()
            .map_err(|e| err(&e))?;
        for grant in grants {
            let Ok(fd) = PathFd::new(&grant.path) else {
                continue; // gone since it was listed: nothing to open there
            };
            let access = rights(grant.access) & on(&grant.path);
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, access))
                .map_err(|e| BuildError(format!("{}: {e}", grant.path.display())))?;
        }
        let fd: Option<OwnedFd> = ruleset.into();
        let proc_access = (AccessFs::ReadFile | AccessFs::ReadDir).bits();
        Ok(fd.map(|fd| Prepared { fd, proc_access }))
    }

    /// Adds `/proc` as the child sees it (read only: the PID namespace's own, mounted after
    /// the ruleset was built, where there is one), then confines the calling process for good.
    /// Runs in the forked child before exec: syscalls only. `no_new_privs` must be set.
    ///
    /// # Safety
    /// Call only in a forked child about to exec.
    pub unsafe fn enforce(&self) -> Result<(), i32> {
        let errno = || std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        let ruleset = self.fd.as_raw_fd();
        // SAFETY: raw syscalls on a NUL-terminated path and a live, packed attribute.
        unsafe {
            {
                let proc = libc::open(c"/proc".as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
                if proc < 0 {
                    return Err(errno());
                }
                let attr = PathBeneathAttr {
                    allowed_access: self.proc_access,
                    parent_fd: proc,
                };
                let rc = libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset,
                    LANDLOCK_RULE_PATH_BENEATH,
                    &attr as *const PathBeneathAttr,
                    0u32,
                );
                libc::close(proc);
                if rc < 0 {
                    return Err(errno());
                }
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) < 0 {
                return Err(errno());
            }
        }
        Ok(())
    }
}

/// The rights each kind of grant gives.
fn rights(access: reads::Access) -> BitFlags<AccessFs> {
    match access {
        reads::Access::Read => AccessFs::ReadFile | AccessFs::ReadDir,
        reads::Access::ReadExec => AccessFs::from_read(TARGET),
        reads::Access::Full => AccessFs::from_all(TARGET),
    }
}

/// The rights that apply to what is at `path`: a file takes no folder rights.
fn on(path: &Path) -> BitFlags<AccessFs> {
    if path.is_dir() {
        AccessFs::from_all(TARGET)
    } else {
        AccessFs::from_file(TARGET)
    }
}
